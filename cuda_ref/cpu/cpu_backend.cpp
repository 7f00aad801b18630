// cpu_backend.cpp - the "cpu" vkrr_backend (see cpu_backend.h).
#include "cpu_backend.h"

#include "approx.h"

#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <new>
#include <thread>

#include "cpu_kernels.h"
extern "C" {
#include "cuformat.h"
}

namespace {

struct cpu_backend {
    unsigned threads;
};

// Per-launch host resources, freed in one place.
struct cpu_launch {
    void **scratch = nullptr;        // allocation copies made here (post == NULL)
    uint32_t nscratch = 0;
    cpu_texture *tex = nullptr;
    cpu_surface *surf = nullptr;
    uint64_t *alloc_addr = nullptr;
    uint64_t *image_word = nullptr;
    std::atomic<int> fault{0};

    ~cpu_launch()
    {
        for (uint32_t i = 0; i < nscratch; i++)
            free(scratch[i]);
        free(scratch);
        free(tex);
        free(surf);
        free(alloc_addr);
        free(image_word);
    }
};

bool cpu_has_kernel(void *, const char *kernel)
{
    return cpu_kernel_find(kernel) != nullptr;
}

void *cpu_calloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

vkrr_status cpu_setup_images(const vkrr_replay *r, cpu_launch *l, vkrr_error *err)
{
    l->tex = (cpu_texture *)cpu_calloc(r->nimages, sizeof(cpu_texture));
    l->surf = (cpu_surface *)cpu_calloc(r->nimages, sizeof(cpu_surface));
    l->image_word = (uint64_t *)cpu_calloc(r->nimages, sizeof(uint64_t));
    l->scratch = (void **)cpu_calloc(r->nallocs + r->nimages, sizeof(void *));
    if (!l->tex || !l->surf || !l->image_word || !l->scratch)
        return vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, -1, "no memory for the launch's images");
    for (uint32_t i = 0; i < r->nimages; i++) {
        vkrr_replay_image *im = &r->images[i];
        unsigned tb = vkrr_cuformat_texel_bytes(im->format, im->channels);
        uint64_t bytes = vkrr_replay_image_bytes(im);
        if (tb == 0)
            return vkrr_fail(err, VKRR_ERR_FORMAT, r->kernel, 0, im->offset,
                             "image at offset %u: CUarray_format %u with %u channels",
                             im->offset, im->format, im->channels);
        if (im->kind == VKRR_IMAGE_TEXTURE) {
            if (!im->pre)
                return vkrr_fail(err, VKRR_ERR_MISSING, r->kernel, 0, im->offset,
                                 "texture at offset %u has no contents", im->offset);
            cpu_texture *t = &l->tex[i];
            t->data = (const unsigned char *)im->pre;
            t->width = im->width;
            t->height = im->height;
            t->channels = im->channels;
            t->format = im->format;
            t->texel_bytes = tb;
            t->filter = im->sampler.filter;
            t->address[0] = im->sampler.address[0];
            t->address[1] = im->sampler.address[1];
            t->normalized = im->sampler.normalized;
            t->read_as_integer = im->sampler.read_as_integer;
            t->linear_count = im->resource == VKRR_TEXRES_LINEAR ? im->linear_count : 0;
            l->image_word[i] = (uint64_t)(uintptr_t)t;
        } else {
            unsigned char *data = (unsigned char *)im->post;
            if (!data) {
                data = (unsigned char *)malloc(bytes ? bytes : 1);
                if (!data)
                    return vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, im->offset,
                                     "no memory for a %llu-byte surface", (unsigned long long)bytes);
                l->scratch[l->nscratch++] = data;
            }
            if (im->pre)
                memmove(data, im->pre, bytes);
            else
                memset(data, VKRR_SENTINEL_BYTE, bytes);
            cpu_surface *s = &l->surf[i];
            s->s.data = data;
            s->s.width = im->width;
            s->s.height = im->height;
            s->s.texel_bytes = tb;
            s->fault = &l->fault;
            l->image_word[i] = (uint64_t)(uintptr_t)s;
        }
    }
    return VKRR_OK;
}

vkrr_status cpu_run(void *self, vkrr_replay *r, vkrr_error *err)
{
    const cpu_backend *be = (const cpu_backend *)self;
    const cpu_kernel_entry *k = cpu_kernel_find(r->kernel);
    uint8_t params[VKRR_ARGS_MAX_BYTES];
    cpu_launch l;
    vkrr_status st;

    if (!k)
        return vkrr_fail(err, VKRR_ERR_NO_PORT, r->kernel, 0, -1,
                         "the CPU backend has no kernel named %s", r->kernel ? r->kernel : "(null)");
    if (r->args_bytes != k->params_bytes)
        return vkrr_fail(err, VKRR_ERR_SIZE, r->kernel, 0, -1,
                         "%u bytes of parameters, the kernel takes %u", r->args_bytes,
                         k->params_bytes);
    /* rrref's approximate instructions: their tables now, so a table that
     * cannot be read is this launch's error, not NaNs in its outputs */
    r->standins = 0;
    if ((st = vkrr_approx_require(VKRR_APPROX_EX2, false, err)) != VKRR_OK ||
        (st = vkrr_approx_require(VKRR_APPROX_RSQRT, false, err)) != VKRR_OK)
        return st;
    st = cpu_setup_images(r, &l, err);
    if (st != VKRR_OK)
        return st;
    l.alloc_addr = (uint64_t *)cpu_calloc(r->nallocs, sizeof(uint64_t));
    if (!l.alloc_addr)
        return vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, -1, "no memory for the launch");
    for (uint32_t i = 0; i < r->nallocs; i++) {
        vkrr_replay_alloc *a = &r->allocs[i];
        void *data = a->post;
        if (!data) {
            if (a->size > SIZE_MAX - 1 || !(data = malloc(a->size ? a->size : 1)))
                return vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, -1,
                                 "no memory for a %llu-byte allocation", (unsigned long long)a->size);
            l.scratch[l.nscratch++] = data;
        }
        if (a->pre)
            memmove(data, a->pre, a->size);
        else
            memset(data, 0, a->size);
        l.alloc_addr[i] = (uint64_t)(uintptr_t)data;
    }
    st = vkrr_replay_relocate(r, l.alloc_addr, l.image_word, params, err);
    if (st != VKRR_OK)
        return st;

    dim3 grid{r->grid[0], r->grid[1], r->grid[2]}, block{r->block[0], r->block[1], r->block[2]};
    size_t nblocks = (size_t)grid.x * grid.y * grid.z;
    if (nblocks == 0 || (size_t)block.x * block.y * block.z == 0 ||
        (size_t)block.x * block.y * block.z > 1024)
        return vkrr_fail(err, VKRR_ERR_RANGE, r->kernel, 0, -1,
                         "launch %ux%ux%u blocks of %ux%ux%u threads is not a valid CUDA launch",
                         grid.x, grid.y, grid.z, block.x, block.y, block.z);
    unsigned nthreads = be->threads;
    if (nthreads > nblocks)
        nthreads = (unsigned)nblocks;
    // Interleaved chunks of blocks, so the threads share the cost of uneven rows.
    const size_t chunk = 16;
    std::atomic<size_t> next{0};
    auto worker = [&]() {
        for (;;) {
            size_t b0 = next.fetch_add(chunk);
            if (b0 >= nblocks)
                break;
            size_t b1 = b0 + chunk < nblocks ? b0 + chunk : nblocks;
            k->run(params, grid, block, b0, b1);
        }
    };
    std::thread extra[7];
    unsigned started = 0;
    try {
        for (; started + 1 < nthreads && started < 7; started++)
            extra[started] = std::thread(worker);
    } catch (...) {
        // fewer threads is still correct
    }
    worker();
    for (unsigned i = 0; i < started; i++)
        extra[i].join();
    if (l.fault.load())
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
    be->threads = 2;
    const char *env = getenv("VKRR_CPU_THREADS");
    if (env && atoi(env) >= 1 && atoi(env) <= 8)
        be->threads = (unsigned)atoi(env);
    memset(out, 0, sizeof *out);
    out->name = "cpu";
    out->self = be;
    out->has_kernel = cpu_has_kernel;
    out->run = cpu_run;
    out->destroy = cpu_destroy;
    return VKRR_OK;
}
