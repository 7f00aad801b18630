/* vkrr_test_planes.h - the parameter block of vkrr_test_planes_kernel, a
 * kernel vkrr has never seen (no built-in port, no built-in descriptor): the
 * user's path of tests/test_port_user.c.  Valid C11, C++17 and CUDA. */
#ifndef VKRR_TEST_PLANES_H
#define VKRR_TEST_PLANES_H

#include <stdint.h>

typedef struct vkrr_test_planes_params {
    uint64_t src;     /*  0 pointer: f32 [height][width] */
    uint64_t dst;     /*  8 pointer: f16 planes [3][height][width], a window of an arena */
    uint64_t surf;    /* 16 surface FLOAT x1, width x height (x in bytes: 4x) */
    uint32_t width;   /* 24 */
    uint32_t height;  /* 28 */
    float gain;       /* 32 */
    uint32_t pad;     /* 36 zero */
} vkrr_test_planes_params;

#endif
