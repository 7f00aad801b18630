/* version.c - `vkrr --version`: what this binary is and what it carries, one
 * "key: value" line each, so a person reads it and a script greps it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "backends.h"
#include "cli.h"
#include "datadir.h"
#include "hw_tables.h"
#include "version.h"

#ifndef VKRR_RRREF_MODULES_BUILT
#define VKRR_RRREF_MODULES_BUILT 0
#endif

void vkrr_cli_version(FILE *f)
{
    fprintf(f, "vkrr %s\n", VKRR_VERSION);
    fprintf(f, "commit: %s\n", VKRR_COMMIT);
    fprintf(f, "backends: %s\n", vkrr_backend_names());
    fprintf(f, "  vulkan: the ports; the Vulkan loader (libvulkan.so.1) is loaded at run time\n");
    fprintf(f, "  cpu: rrref's kernels compiled into this binary\n");
    const char *llvm = vkrr_backend_ptx_jit_llvm();
    if (llvm)
        fprintf(f, "  ptx: any kernel from its PTX, its straight runs compiled by the PTX JIT, "
                   "the rest interpreted\n");
    else
        fprintf(f, "  ptx: any kernel from its PTX, interpreted (no JIT in this build)\n");
    fprintf(f, "  cuda: the original kernels through libcuda.so.1, loaded at run time\n");
    if (llvm)
        fprintf(f, "ptx jit: LLVM %s\n", llvm);
    else
        fprintf(f, "ptx jit: none (built without LLVM 15: llvm-15-dev missing or VKRR_PTX_JIT=OFF)\n");
    const char *how = NULL, *data = vkrr_data_dir(&how);
    if (data)
        fprintf(f, "data: %s (%s)\n", data, how);
    else
        fprintf(f, "data: none found (looked in EXEDIR/../share/vkrr and EXEDIR/share/vkrr, "
                   "EXEDIR = %s; VKRR_DATA_DIR points elsewhere)\n", vkrr_exe_dir()[0] ? vkrr_exe_dir() : "?");
    char mods[4096];
    bool found = vkrr_data_path("modules", mods, sizeof mods);
    fprintf(f, "rrref CUDA modules: %s%s%s\n",
            VKRR_RRREF_MODULES_BUILT ? "compiled by nvcc in this build" : "not compiled (no nvcc)",
            found ? "; found in " : VKRR_RRREF_MODULES_BUILT ? "; not found" : "", found ? mods : "");
    vkrr_hw_tables *t = NULL;
    vkrr_error err = {0};
    if (vkrr_hw_tables_open_shipped(&t, &err) == VKRR_OK) {
        fprintf(f, "hardware tables: %s, built in, set %016" PRIx64 " (%s)\n", vkrr_hw_tables_arch(t),
                vkrr_hw_tables_set_hash(t), vkrr_hw_tables_device(t));
        vkrr_hw_tables_close(t);
    } else {
        fprintf(f, "hardware tables: damaged in this binary: %s\n", err.msg);
    }
}
