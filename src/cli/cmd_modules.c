/* vkrr modules list FILE... | vkrr modules extract FILE... OUTDIR: what CUDA
 * module files hold (PTX text, fatbins, any binary with fatbins in it), and
 * their PTX written out as files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "fatbin.h"
#include "mapfile.h"
#include "modules.h"

static const char modules_help[] =
    "usage: vkrr modules list FILE...\n"
    "       vkrr modules extract FILE... OUTDIR\n"
    "\n"
    "What CUDA module files hold, and their PTX.  A FILE is PTX text, a fatbin (the\n"
    "bridge's dlss-module-PID-NNNN.fatbin), or any binary that embeds fatbins: a\n"
    "host ELF (its .nv_fatbin section), a Windows DLL such as the production\n"
    "denoiser's (its fatbins found by their magic, 0xBA55ED50, as d4r's extractor\n"
    "finds them).  Compressed entries (LZ4, flag 0x2000; zstd, flag 0x8000) are\n"
    "decompressed.  A folder stands for its *.ptx *.fatbin *.cubin *.dll *.so *.o\n"
    "*.exe *.bin files.\n"
    "\n"
    "  list      per file: each fatbin entry (PTX or cubin, its architecture, PTX ISA\n"
    "            version, compression, sizes) and the kernels (.entry) each PTX\n"
    "            defines\n"
    "  extract   writes each PTX to OUTDIR (made if missing): a PTX file under its own\n"
    "            name, a fatbin entry as NAME.fatbinF.entryE.sm_NN.ptx; what vkrr\n"
    "            rerun --modules takes, and what a port's author reads\n"
    "\n"
    "vkrr rerun, validate --ref ptx and stress find a capture's modules themselves\n"
    "(CAPDIR/modules, where run.log names them, by name inside CAPDIR; --modules\n"
    "FILE|DIR otherwise) and say which PTX each kernel runs from.\n"
    "\n"
    "exit: 0, or 2 for a file that cannot be read or a fatbin that does not hold\n"
    "together (named with its byte offset).\n"
    "\n"
    "example:\n"
    "  vkrr modules list /tmp/d4r-dlss-cuda-modules/*.fatbin\n"
    "  vkrr modules extract nvngx_dlssd.dll ptx/\n";

/* The kernels a PTX text defines, comma-separated on one line. */
static void print_entries(const char *text, size_t len)
{
    unsigned n = 0;
    for (const char *p = len >= 7 ? memmem(text, len, ".entry ", 7) : NULL; p;
         p = (size_t)(p + 1 - text) < len ? memmem(p + 1, len - (size_t)(p + 1 - text), ".entry ", 7) : NULL) {
        const char *q = p + 7;
        size_t k = 0;
        while ((size_t)(q - text) + k < len && !strchr(" \t\r\n(", q[k]))
            k++;
        printf("%s%.*s", n++ ? ", " : "      kernels: ", (int)k, q);
    }
    printf(n ? "\n" : "      kernels: none\n");
}

static vkrr_status list_file(const char *path, vkrr_error *err)
{
    vkrr_module_set s = {0};
    vkrr_status st = vkrr_modules_add_file(&s, path, "given", err);
    if (st != VKRR_OK) {
        vkrr_modules_free(&s);
        return st;
    }
    const vkrr_module_found *f = &s.files[0];
    if (!f->nfatbins) {
        printf("%s: %s\n", path, s.n ? "PTX text" : "no PTX text and no fatbin");
        for (uint32_t i = 0; i < s.n; i++) {
            printf("    PTX target sm_%u, %zu bytes\n", s.srcs[i].arch, s.srcs[i].len);
            print_entries(s.srcs[i].text, s.srcs[i].len);
        }
        vkrr_modules_free(&s);
        return VKRR_OK;
    }
    printf("%s: %u fatbin%s: %u PTX, %u cubin%s\n", path, f->nfatbins, f->nfatbins == 1 ? "" : "s",
           f->nptx, f->ncubins, f->ncubins == 1 ? "" : "s");
    vkrr_mapfile m = {0};
    vkrr_fatbin_list fl = {0};
    if ((st = vkrr_mapfile_open(&m, f->path, VKRR_MAPFILE_ANY_SIZE, err)) == VKRR_OK)
        st = vkrr_fatbin_scan(m.data, m.size, path, &fl, err);
    for (uint32_t i = 0; st == VKRR_OK && i < fl.n; i++) {
        const vkrr_fatbin_entry *e = &fl.entries[i];
        const char *kind = e->kind == VKRR_FATBIN_PTX ? "PTX" : e->kind == VKRR_FATBIN_ELF ? "cubin" : "?";
        printf("  fatbin %u entry %u: %s %s_%u", e->fatbin, e->index, kind,
               e->kind == VKRR_FATBIN_PTX ? "compute" : "sm", e->arch);
        if (e->kind == VKRR_FATBIN_PTX)
            printf(", PTX ISA %u.%u", e->ptx_major, e->ptx_minor);
        printf(", %llu bytes", (unsigned long long)e->size);
        if (e->compression)
            printf(" (%s, %llu stored)", vkrr_fatbin_compression_name(e->compression),
                   (unsigned long long)e->stored);
        printf(", at byte %llu\n", (unsigned long long)e->offset);
        if (e->kind != VKRR_FATBIN_PTX)
            continue;
        char *text = NULL;
        size_t len = 0;
        if ((st = vkrr_fatbin_payload(m.data, m.size, e, path, &text, &len, err)) == VKRR_OK)
            print_entries(text, len);
        free(text);
    }
    vkrr_fatbin_list_free(&fl);
    vkrr_mapfile_close(&m);
    vkrr_modules_free(&s);
    return st;
}

static vkrr_status extract(const vkrr_module_set *s, const char *outdir, vkrr_error *err)
{
    vkrr_status st = vkrr_mkdirs(outdir, err);
    for (uint32_t i = 0; st == VKRR_OK && i < s->n; i++) {
        const vkrr_module_src *src = &s->srcs[i];
        const char *slash = strrchr(src->path, '/'), *base = slash ? slash + 1 : src->path;
        char path[8192];
        if (src->in_fatbin) {
            const char *fb = strstr(src->name, "[fatbin ");
            unsigned f = 0, e = 0;
            if (fb)
                sscanf(fb, "[fatbin %u, PTX entry %u]", &f, &e);
            snprintf(path, sizeof path, "%s/%s.fatbin%u.entry%u.sm_%u.ptx", outdir, base, f, e, src->arch);
        } else {
            snprintf(path, sizeof path, "%s/%s", outdir, base);
        }
        if ((st = vkrr_write_file_atomic(path, src->text, src->len, err)) == VKRR_OK)
            printf("%s (from %s)\n", path, src->name);
    }
    return st;
}

int vkrr_cmd_modules(int argc, char **argv)
{
    if (argc < 2 || vkrr_cli_is_help(argv[1])) {
        fputs(modules_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    bool list = !strcmp(argv[1], "list"), ex = !strcmp(argv[1], "extract");
    static const char *const subs[] = {"list", "extract", NULL};
    if (!list && !ex)
        return vkrr_cli_unknown_subcommand("modules", argv[1], subs);
    /* no options but --help and --color: the rest are files (and OUTDIR) */
    const char **files = calloc((size_t)argc, sizeof *files);
    int n = 0;
    if (!files)
        return vkrr_cli_usage_error("modules", "out of memory");
    vkrr_cli_opts p = vkrr_cli_opts_begin("modules", argc, argv, 2, NULL, NULL);
    const char *v;
    for (int id; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        if (id != VKRR_OPT_ARG) {
            free(files);
            if (id == VKRR_OPT_HELP)
                fputs(modules_help, stdout);
            return id == VKRR_OPT_HELP ? 0 : p.rc;
        }
        files[n++] = v;
    }
    int nfiles = n - ex;
    if (nfiles < 1) {
        free(files);
        return vkrr_cli_usage_error("modules", ex ? "extract needs FILE... and OUTDIR" : "list needs FILE...");
    }
    vkrr_error err = {0};
    vkrr_status st = VKRR_OK;
    if (list) {
        for (int i = 0; i < nfiles && st == VKRR_OK; i++) {
            struct stat sb;
            vkrr_module_set s = {0};
            if (stat(files[i], &sb) == 0 && S_ISDIR(sb.st_mode)) { /* a folder: each of its files */
                const char *one[1] = {files[i]};
                if ((st = vkrr_modules_find(NULL, one, 1, &s, &err)) == VKRR_OK)
                    for (uint32_t k = 0; k < s.nfiles && st == VKRR_OK; k++)
                        st = list_file(s.files[k].path, &err);
                vkrr_modules_free(&s);
            } else {
                st = list_file(files[i], &err);
            }
        }
    } else {
        vkrr_module_set s = {0};
        st = vkrr_modules_find(NULL, files, (uint32_t)nfiles, &s, &err);
        if (st == VKRR_OK && !s.n)
            st = vkrr_fail(&err, VKRR_ERR_MISSING, files[0], 0, -1, "no PTX in the files given");
        if (st == VKRR_OK)
            st = extract(&s, files[nfiles], &err);
        vkrr_modules_free(&s);
    }
    free(files);
    return st == VKRR_OK ? 0 : vkrr_cli_fail(&err);
}
