/* backends.h - the one place a backend is opened by name.
 *
 * Every execution path is a vkrr_backend (src/replay/replay.h); commands
 * and synth open them here, so none of them includes a backend's own
 * header, and a new backend (the PTX JIT) is one more entry in this file.
 *
 *     vkrr_backend be;
 *     vkrr_backend_desc d = {.name = "ptx", .modules = "cap/modules"};
 *     if (vkrr_backend_open(&d, &be, &err) != VKRR_OK) ...;   // exit 3 without a device
 *     ... be.run(be.self, &replay, &err) ...
 *     be.destroy(be.self);
 *
 * Names: "vulkan" (the ports, vkbridge/), "cpu" (rrref's kernels compiled
 * for this CPU), "ptx" (any kernel from its PTX, interpreted), "cuda" (the
 * original kernels through libcuda on an NVIDIA GPU).  An unknown name is
 * VKRR_ERR_USAGE naming the ones there are.
 * Ownership: the caller destroys what it opened.
 */
#ifndef VKRR_BACKENDS_H
#define VKRR_BACKENDS_H

#include <stdbool.h>

#include "modules.h"
#include "replay.h"
#include "status.h"

typedef struct vkrr_backend_desc {
    const char *name;      /* NULL: "vulkan" */
    const char *modules;   /* ptx: every *.ptx in it, or one .ptx file; cuda: *.ptx,
                            * *.cubin, *.fatbin */
    const vkrr_module_set *module_set; /* ptx: the PTX found (modules.h), preferred first;
                            * taken over `modules` */
    const char *device;    /* vulkan: INDEX|NAME (NULL: first discrete GPU, else any);
                            * cuda: an ordinal (NULL: 0) */
    double timeout_s;      /* vulkan: a launch longer is TIMEOUT; 0: 60 */
    const char *ports_dir; /* vulkan: ports over the built-in ones; NULL: none */
    bool no_builtin;       /* vulkan: ports_dir's ports only */
    bool validation;       /* vulkan: the Khronos validation layer */
    bool coverage;         /* ptx: record which ways each conditional branch went */
    const char *ptx_engine; /* ptx: "jit", "interp" or "both" (ptx.h); NULL: the default */
    bool no_cache;         /* ptx: the JIT compiles without its cache */
} vkrr_backend_desc;

vkrr_status vkrr_backend_open(const vkrr_backend_desc *d, vkrr_backend *out, vkrr_error *err);

/* The clocks of the GPU be runs on, now, where its driver tells them (an
 * NVIDIA GPU with NVML; see nvml_clocks.h); false with out->why said when
 * not.  "SM 1980/1980 MHz, memory 2619/2619 MHz, P0" or that reason, in text. */
bool vkrr_backend_clocks(const vkrr_backend *be, char *text, size_t cap);
/* "vulkan, cpu, ptx, cuda": for help texts and errors. */
const char *vkrr_backend_names(void);
/* The LLVM version the ptx backend's JIT was built with ("15.0.6", static
 * storage); NULL when this build has no JIT and the ptx backend interprets. */
const char *vkrr_backend_ptx_jit_llvm(void);

#endif
