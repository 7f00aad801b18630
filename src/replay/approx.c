#include "approx.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "cuformat.h"

static float ftz(float x)
{
    return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x;
}

float vkrr_approx_ex2(float x)
{
    return ftz((float)exp2((double)ftz(x)));
}

float vkrr_approx_rsqrt(float x)
{
    return ftz((float)(1.0 / sqrt((double)ftz(x))));
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
