/* ptx_fenv.c - f64 arithmetic in the rounding modes other than .rn: the
 * host FPU does them, with its rounding mode set around the one operation.
 * This file alone is compiled with -frounding-math (see CMakeLists.txt), so
 * the compiler neither folds nor moves the operation across fesetround. */
#include <fenv.h>
#include <math.h>

#include "ptx_internal.h"

double ptx_f64_op(int op, double a, double b, double c, int mode)
{
    int want = mode == RND_RZ ? FE_TOWARDZERO : mode == RND_RM ? FE_DOWNWARD
               : mode == RND_RP ? FE_UPWARD : FE_TONEAREST;
    int old = fegetround();
    volatile double va = a, vb = b, vc = c;
    double r;
    fesetround(want);
    switch (op) {
    case 0: r = va + vb; break;
    case 1: r = va * vb; break;
    case 2: r = fma(va, vb, vc); break;
    case 3: r = va / vb; break;
    default: r = sqrt(va); break;
    }
    volatile double vr = r;
    fesetround(old);
    return vr;
}
