// cpu_backend.cpp - the "cpu" vkrr_backend (see cpu_backend.h).
#include "cpu_backend.h"

#include "approx.h"

#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <new>
#include <thread>
#include <vector>

#include "cpu_kernels.h"
#include "host_launch.h"
extern "C" {
#include "cores.h"
#include "cuformat.h"
}

namespace {

struct cpu_backend {
    unsigned threads;
};

bool cpu_has_kernel(void *, const char *kernel)
{
    return cpu_kernel_find(kernel) != nullptr;
}

vkrr_status cpu_run(void *self, vkrr_replay *r, vkrr_error *err)
{
    const cpu_backend *be = (const cpu_backend *)self;
    const cpu_kernel_entry *k = cpu_kernel_find(r->kernel);
    vkrr_status st;

    if (!k)
        return vkrr_fail(err, VKRR_ERR_NO_PORT, r->kernel, 0, -1,
                         "the CPU backend has no kernel named %s", r->kernel ? r->kernel : "(null)");
    if (r->args_bytes != k->params_bytes)
        return vkrr_fail(err, VKRR_ERR_SIZE, r->kernel, 0, -1,
                         "%u bytes of parameters, the kernel takes %u", r->args_bytes,
                         k->params_bytes);
    /* the kernel's approximate instructions: their tables now, so a table
     * that cannot be read is this launch's error, not NaNs in its outputs */
    r->standins = k->standins;
    for (unsigned op = 0; op < VKRR_APPROX_COUNT; op++)
        if ((k->approx_ops >> op & 1u) &&
            (st = vkrr_approx_require((vkrr_approx_op)op, false, err)) != VKRR_OK)
            return st;
    vkrr_host_launch l;
    if ((st = vkrr_host_launch_prepare(r, &l, err)) != VKRR_OK)
        return st;
    const uint8_t *params = l.params;

    dim3 grid{r->grid[0], r->grid[1], r->grid[2]}, block{r->block[0], r->block[1], r->block[2]};
    size_t nblocks = (size_t)grid.x * grid.y * grid.z;
    if (nblocks == 0 || (size_t)block.x * block.y * block.z == 0 ||
        (size_t)block.x * block.y * block.z > 1024) {
        vkrr_host_launch_free(&l);
        return vkrr_fail(err, VKRR_ERR_RANGE, r->kernel, 0, -1,
                         "launch %ux%ux%u blocks of %ux%ux%u threads is not a valid CUDA launch",
                         grid.x, grid.y, grid.z, block.x, block.y, block.z);
    }
    vkrr_host_launch_current(&l); /* the handles its kernel may use (host_launch.h) */
    unsigned nthreads = be->threads;
    if (nthreads > nblocks)
        nthreads = (unsigned)nblocks;
    // Interleaved chunks of blocks, so the threads share the cost of uneven rows.
    const size_t chunk = 16;
    std::atomic<size_t> next{0};
    std::atomic<bool> stuck{false};
    auto worker = [&]() {
        for (;;) {
            size_t b0 = next.fetch_add(chunk);
            if (b0 >= nblocks || stuck.load(std::memory_order_relaxed))
                break;
            size_t b1 = b0 + chunk < nblocks ? b0 + chunk : nblocks;
            if (!k->run(params, grid, block, r->shared_bytes, b0, b1))
                stuck.store(true, std::memory_order_relaxed);
        }
    };
    std::vector<std::thread> extra;
    try {
        while (extra.size() + 1 < nthreads)
            extra.emplace_back(worker);
    } catch (...) {
        // fewer threads is still correct
    }
    worker();
    for (std::thread &t : extra)
        t.join();
    vkrr_host_launch_current(NULL);
    int fault = __atomic_load_n(&l.fault, __ATOMIC_RELAXED);
    vkrr_host_launch_free(&l);
    if (stuck.load())
        return vkrr_fail(err, VKRR_ERR_FAULT, r->kernel, 0, -1, /* this launch's ERROR */
                         "the kernel's threads never met: a __syncthreads or a warp collective "
                         "(mma, movmatrix, shfl) some threads of its block or warp never reached, "
                         "or lanes of one warp at different ones");
    if (fault & VKRR_HOST_FAULT_HANDLE)
        return vkrr_fail(err, VKRR_ERR_FAULT, r->kernel, 0, -1, /* this launch's ERROR */
                         "the kernel used a texture or surface handle word the capture's manifest "
                         "does not declare (nothing was read or written through it)");
    if (fault)
        return vkrr_fail(err, VKRR_ERR_DEVICE, r->kernel, 0, -1,
                         "the kernel wrote a surface out of range or with the wrong texel size");
    return VKRR_OK;
}

void cpu_destroy(void *self)
{
    delete (cpu_backend *)self;
}

} // namespace

extern "C" vkrr_status vkrr_cpu_backend_create(vkrr_backend *out, vkrr_error *err)
{
    cpu_backend *be = new (std::nothrow) cpu_backend;
    if (!be)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory for the CPU backend");
    be->threads = vkrr_cores(64); // blocks on every core
    const char *env = getenv("VKRR_CPU_THREADS");
    if (env && atoi(env) >= 1 && atoi(env) <= 64)
        be->threads = (unsigned)atoi(env);
    memset(out, 0, sizeof *out);
    out->name = "cpu";
    out->self = be;
    out->has_kernel = cpu_has_kernel;
    out->run = cpu_run;
    out->destroy = cpu_destroy;
    return VKRR_OK;
}
