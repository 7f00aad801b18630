/* tensorcore.c - the tensor-core arithmetic of the hardware model's
 * architecture (tensorcore.h). */
#include "tensorcore.h"

#include <stdlib.h>
#include <string.h>

#include "hw_model.h"

vkrr_tensorcore vkrr_tensorcore_current(void)
{
    vkrr_tensorcore t = {25, false, false, false};
    const vkrr_hw_model *m = vkrr_hw_current();
    if (m && vkrr_hw_model_rounded(m)) {
        t.rounded = true;
        return t;
    }
    const char *arch = m ? vkrr_hw_model_arch(m) : "";
    int sm = !strncmp(arch, "sm_", 3) ? atoi(arch + 3) : 90;
    if (sm < 75)
        t.frac = 23;
    else if (sm < 90) {
        t.frac = 24;
        t.split = sm >= 80;
        t.ada = sm == 89;
    }
    return t;
}

void vkrr_tensorcore_glsl_fp8(const vkrr_tensorcore *tc, uint32_t spec[4])
{
    spec[0] = tc->ada ? 13u : (uint32_t)tc->frac;
    spec[1] = tc->split ? 2u : 1u;
    spec[2] = tc->rounded;
    spec[3] = tc->ada ? 13u : 23u;
}
