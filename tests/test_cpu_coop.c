/* test_cpu_coop: the CPU backend's fibers (cuda_ref/device/cpu_coop.h) on a
 * kernel whose threads meet (tests/kernels/vkrr_test_meet.cu): a shfl.bfly
 * gives each thread its neighbour's value, __syncthreads opens for the
 * threads that have not returned, and a warp that can never complete its
 * collective makes the launch an error naming it, never a hang; the next
 * launch on the same backend runs as if none had failed. */
#include <string.h>

#include "cpu_backend.h"
#include "testutil.h"

bool vkrr_test_kernels_register(void);

typedef struct meet_params {
    uint64_t out;
    uint32_t mode, pad;
} meet_params;

/* One launch of grid blocks of 64 threads in mode; out starts 0xaa bytes. */
static vkrr_status launch(vkrr_backend *cpu, uint32_t mode, uint32_t grid, uint32_t out[64], vkrr_error *err)
{
    static uint32_t pre[64];
    memset(pre, 0xaa, sizeof pre);
    meet_params p = {0x7e0000000000ull, mode, 0};
    vkrr_replay_alloc al = {0x7e0000000000ull, sizeof pre, pre, out, NULL};
    vkrr_pointer ptr = {0, 0, 0};
    vkrr_replay r = {.kernel = "vkrr_test_meet_kernel", .grid = {grid, 1, 1}, .block = {64, 1, 1},
                     .args = (const uint8_t *)&p, .args_bytes = sizeof p, .allocs = &al, .nallocs = 1,
                     .pointers = &ptr, .npointers = 1};
    return cpu->run(cpu->self, &r, err);
}

int main(void)
{
    vkrr_backend cpu;
    vkrr_error err = {0};
    CHECK(vkrr_test_kernels_register());
    if (!CHECK(vkrr_cpu_backend_create(&cpu, &err) == VKRR_OK))
        return test_finish("cpu_coop");
    uint32_t out[64];
    unsigned bad = 0;
    /* every thread: its butterfly neighbour's 3 t + 1 */
    if (CHECK(launch(&cpu, 0, 3, out, &err) == VKRR_OK))
        for (uint32_t t = 0; t < 64; t++)
            bad += out[t] != 3 * (t ^ 1) + 1;
    else
        vkrr_error_print(&err, stderr);
    CHECK_EQ_U64(bad, 0);
    /* lane 5 returned: its warp's shfl never completes */
    memset(&err, 0, sizeof err);
    CHECK(launch(&cpu, 1, 2, out, &err) == VKRR_ERR_FAULT);
    CHECK(strstr(err.msg, "never met") != NULL);
    /* warp 1 returned: warp 0's barrier opens without it */
    bad = 0;
    if (CHECK(launch(&cpu, 2, 2, out, &err) == VKRR_OK))
        for (uint32_t t = 0; t < 64; t++)
            bad += out[t] != (t < 32 ? 3 * (t ^ 1) + 1 : 0xaaaaaaaau);
    else
        vkrr_error_print(&err, stderr);
    CHECK_EQ_U64(bad, 0);
    cpu.destroy(cpu.self);
    return test_finish("cpu_coop");
}
