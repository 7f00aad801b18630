/* modules.h - a capture's CUDA modules: where they are, and the PTX in them.
 *
 * The d4r bridge saves each module an application loads to
 * D4R_CUDA_CAPTURE_DIR (by default /tmp/d4r-dlss-cuda-modules, outside the
 * capture) as dlss-module-PID-NNNN.ptx (PTX from its .version on) or .fatbin
 * (the whole fatbin, entries compressed as they were), and names the file on
 * a `cuModuleLoadData captured ... to PATH (complete)` line.  A production
 * denoiser's PTX ships inside its DLL's fatbins.  So modules are looked for:
 *
 *   given (--modules, repeatable): each file as it is, each folder's module
 *     files (*.ptx *.fatbin *.cubin *.dll *.so *.o *.exe *.bin);
 *   else: CAPDIR/modules; the files the log's capture lines name, where
 *     they are on this machine; files of those names anywhere inside CAPDIR.
 *
 * Each file is PTX text, or any binary holding fatbins (a .fatbin, a host
 * ELF's .nv_fatbin section, a PE DLL): every PTX entry of every fatbin in it
 * is a source (fatbin.h; LZ4 and zstd entries decompressed).  Where several
 * sources define a kernel, the one whose target fits the capture's device
 * best comes first (the highest architecture at most the device's; without
 * one, the highest), so a backend taking the first definition takes that.
 *
 *     vkrr_module_set ms = {0};
 *     vkrr_modules_find(cap, given, ngiven, &ms, &err);   // cap NULL: given only
 *     for (i < ms.n) ms.srcs[i].name, .text, .len, .arch
 *     vkrr_modules_describe(&ms, "kernel", buf, sizeof buf);  // which source, and why
 *     vkrr_modules_free(&ms);
 *
 * Nothing found is not an error here (the caller says what it needed);
 * a file that cannot be read or a fatbin that does not hold together is,
 * naming the file.  Never writes.
 */
#ifndef VKRR_MODULES_H
#define VKRR_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "fatbin.h"

typedef struct vkrr_module_src {
    char *name;      /* for people and error messages: the file, or for a fatbin entry
                      * "FILE[fatbin F, PTX entry E]" */
    char *path;      /* the file it came from */
    char *text;      /* PTX, NUL-terminated */
    size_t len;
    uint32_t arch;   /* its .target (sm_90a: 90); 0 when it has none */
    int compression; /* VKRR_FATBIN_* of its fatbin entry (RAW for a PTX file) */
    bool in_fatbin;
    uint32_t order;  /* the order it was found in (ties keep it) */
} vkrr_module_src;

typedef struct vkrr_module_found {
    char *path;
    char *found;       /* how: "given", "CAPDIR/modules", "named by run.log", "found by name in CAPDIR" */
    uint32_t nptx;     /* PTX sources from it */
    uint32_t ncubins;  /* cubin entries in it (not run; listed) */
    uint32_t nfatbins; /* fatbins in it (0 for PTX text) */
} vkrr_module_found;

typedef struct vkrr_module_set {
    vkrr_module_src *srcs;   /* preferred first (see above) */
    uint32_t n;
    vkrr_module_found *files;
    uint32_t nfiles;
    uint32_t device_arch;    /* the capture's compute capability (90), 0: unknown */
} vkrr_module_set;

vkrr_status vkrr_modules_find(const vkrr_capture *cap, const char *const *given, uint32_t ngiven,
                              vkrr_module_set *out, vkrr_error *err);
/* One file's sources appended to out (found: how it was found). */
vkrr_status vkrr_modules_add_file(vkrr_module_set *out, const char *path, const char *found,
                                  vkrr_error *err);
void vkrr_modules_free(vkrr_module_set *s);
/* Whether PTX text defines kernel k (".entry k" then "(" or a blank). */
bool vkrr_ptx_text_defines(const char *text, size_t len, const char *k);
/* Which source defines kernel k first (index; -1: none), and in buf, when
 * others define it too, which targets there were and why this one. */
int vkrr_modules_pick(const vkrr_module_set *s, const char *k, char *buf, size_t cap);
/* One line of where the modules were found: "2 PTX from 2 files (...)". */
void vkrr_modules_summary(const vkrr_module_set *s, char *buf, size_t cap);

#endif
