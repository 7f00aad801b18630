#include "approx.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "cuformat.h"

static float ftz(float x)
{
    return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x;
}

static double eval(vkrr_approx_op op, double x)
{
    switch (op) {
    case VKRR_APPROX_EX2: return exp2(x);
    case VKRR_APPROX_RSQRT: return 1.0 / sqrt(x);
    case VKRR_APPROX_RCP: return 1.0 / x;
    case VKRR_APPROX_SQRT: return sqrt(x);
    case VKRR_APPROX_LG2: return log2(x);
    case VKRR_APPROX_SIN: return sin(x);
    case VKRR_APPROX_COS: return cos(x);
    case VKRR_APPROX_TANH: return tanh(x);
    default: return NAN;
    }
}

float vkrr_approx_f32(vkrr_approx_op op, float x, int flush)
{
    if (flush)
        x = ftz(x);
    /* 1/x and sqrt(x) in double, then to f32: correctly rounded (double
     * rounding is innocuous for these at 53 >= 2*24+2 bits). */
    float y = (float)eval(op, (double)x);
    return flush ? ftz(y) : y;
}

float vkrr_approx_ex2(float x)
{
    return vkrr_approx_f32(VKRR_APPROX_EX2, x, 1);
}

float vkrr_approx_rsqrt(float x)
{
    return vkrr_approx_f32(VKRR_APPROX_RSQRT, x, 1);
}

static double ftz64(double x)
{
    return fabs(x) < 2.2250738585072014e-308 ? copysign(0.0, x) : x;
}

double vkrr_approx_f64(vkrr_approx_op op, double x, int flush)
{
    if (flush)
        x = ftz64(x);
    long double lx = (long double)x, r;
    switch (op) {
    case VKRR_APPROX_RCP: r = 1.0L / lx; break;
    case VKRR_APPROX_RSQRT: r = 1.0L / sqrtl(lx); break;
    case VKRR_APPROX_SQRT: r = sqrtl(lx); break;
    default: r = (long double)eval(op, x); break;
    }
    double y = (double)r;
    return flush ? ftz64(y) : y;
}

static uint32_t tables[2 * VKRR_APPROX_TABLE_ENTRIES];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void build(void)
{
    for (uint32_t h = 0; h < VKRR_APPROX_TABLE_ENTRIES; h++) {
        float x = vkrr_f16_to_f32((uint16_t)h);
        tables[h] = bits(vkrr_approx_ex2(x));
        tables[VKRR_APPROX_TABLE_ENTRIES + h] = bits(vkrr_approx_rsqrt(x));
    }
}

const uint32_t *vkrr_approx_tables(void)
{
    pthread_once(&once, build);
    return tables;
}
