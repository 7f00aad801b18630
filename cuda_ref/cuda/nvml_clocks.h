/* nvml_clocks.h - an NVIDIA GPU's clocks now, from NVML (libnvidia-ml.so.1,
 * loaded at run time like libcuda, never linked).
 *
 *     vkrr_gpu_clocks c;
 *     if (vkrr_nvml_clocks(uuid, &c)) printf("SM %u of %u MHz\n", c.sm_mhz, c.sm_max_mhz);
 *     else printf("clocks: %s\n", c.why);
 *
 * A GPU that was idle runs at a fraction of its clock until work has kept it
 * busy a while: timings are only worth their clocks.  The GPU is found by
 * its 16-byte UUID (Vulkan's deviceUUID and CUDA's cuDeviceGetUuid give the
 * one NVML knows).  false, with why said, when there is no NVML, no UUID, no
 * such GPU or NVML refuses; nothing is an error.
 * Library path: $VKRR_LIBNVML, else libnvidia-ml.so.1.
 */
#ifndef VKRR_NVML_CLOCKS_H
#define VKRR_NVML_CLOCKS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct vkrr_gpu_clocks {
    unsigned sm_mhz, sm_max_mhz;   /* the SM clock now, and its maximum */
    unsigned mem_mhz, mem_max_mhz; /* the memory clock now, and its maximum */
    int pstate;                    /* performance state (0 fastest .. 15), -1: unknown */
    char why[160];                 /* when false: why there are no clocks */
} vkrr_gpu_clocks;

bool vkrr_nvml_clocks(const uint8_t *uuid, vkrr_gpu_clocks *out);

#endif
