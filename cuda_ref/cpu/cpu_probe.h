/* cpu_probe.h - C entry points into cuda_cpu.h's device API, for tests.
 *
 * cuda_cpu.h is C++ (templates, thread_local); the tests are C.  These thin
 * wrappers let tests/test_cpu_cuda.c check its semantics directly: texture
 * sampling, surface writes with byte x, f16 and e4m3 conversions, __hadd.
 */
#ifndef VKRR_CPU_PROBE_H
#define VKRR_CPU_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrr_cpu_probe_tex {
    const void *data;
    uint32_t width, height, channels, format; /* CUarray_format code */
    int filter;                               /* 0 point, 1 linear */
    int address[2];                           /* 0 wrap, 1 clamp, 2 mirror, 3 border */
    bool normalized, read_as_integer;
} vkrr_cpu_probe_tex;

/* tex2D<float4>(t, x, y) into out[4]. */
void vkrr_cpu_probe_tex2d(const vkrr_cpu_probe_tex *t, float x, float y, float out[4]);
/* surf2Dwrite of `bytes` (2, 4 or 8) bytes of v at byte x; false when CUDA would fault. */
bool vkrr_cpu_probe_surf_write(void *data, uint32_t width, uint32_t height, uint32_t texel_bytes,
                               const void *v, uint32_t bytes, int x_bytes, int y);
uint16_t vkrr_cpu_probe_f2h(float f);
float vkrr_cpu_probe_h2f(uint16_t h);
uint16_t vkrr_cpu_probe_hadd(uint16_t a, uint16_t b);
uint8_t vkrr_cpu_probe_h2e4m3(uint16_t h, bool satfinite);
uint16_t vkrr_cpu_probe_e4m32h(uint8_t v);

#ifdef __cplusplus
}
#endif

#endif
