/* vkrr port new KERNEL CAPDIR: the starting point of a port of a kernel vkrr
 * has never seen, from its first captured launch (src/port/port_new.h):
 * DIR/KERNEL.comp, checked to compile, and DIR/KERNEL.port. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "cli.h"
#include "port_new.h"
#include "ports.h"

static const char port_help[] =
    "usage: vkrr port new KERNEL[#OCC] CAPDIR [--out DIR] [--force]\n"
    "\n"
    "Writes the starting point of a Vulkan port of KERNEL from its first captured\n"
    "launch (or occurrence OCC), so a kernel vkrr has never seen is ported without\n"
    "touching vkrr's C:\n"
    "  DIR/KERNEL.comp  compiles and runs: the shared includes, the parameter block\n"
    "                   as a GLSL struct with a member at every captured offset\n"
    "                   (buffer references for pointers, texture and surface handles,\n"
    "                   the other words as uint with their captured values), the\n"
    "                   block as local size, and a main() that writes nothing yet\n"
    "  DIR/KERNEL.port  what the capture shows the launch writes: each allocation\n"
    "                   whose post-launch dump differs from its pre-launch bytes (the\n"
    "                   changed range as the window, the type a marked GUESS) and\n"
    "                   every surface (format: README \"Port descriptors\")\n"
    "\n"
    "options:\n"
    "  --out DIR    where to write (default: the current directory; made if missing)\n"
    "  --force      overwrite existing files (without it an existing file is exit 2)\n"
    "\n"
    "then: write main(), fix the guesses in the .port, and iterate with\n"
    "  vkrr validate CAPDIR --ports DIR --only KERNEL --watch\n"
    "\n"
    "exit: 0 written, 2 bad input or usage (no such kernel, a file exists).\n";

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int port_new(int argc, char **argv)
{
    const char *spec = NULL, *capdir = NULL, *out = ".";
    bool force = false;
    enum { O_OUT, O_FORCE };
    static const vkrr_cli_opt opts[] = {
        {"out", 0, true, O_OUT, false}, {"force", 0, false, O_FORCE, false}, {0}};
    vkrr_cli_opts p = vkrr_cli_opts_begin("port", argc, argv, 2, opts, NULL);
    const char *v;
    for (int id; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        switch (id) {
        case VKRR_OPT_ERROR:
            return p.rc;
        case VKRR_OPT_HELP:
            fputs(port_help, stdout);
            return 0;
        case VKRR_OPT_ARG:
            if (capdir)
                return vkrr_cli_usage_error("port", "unexpected argument '%s'", v);
            *(spec ? &capdir : &spec) = v;
            break;
        case O_OUT: out = v; break;
        default: force = true; /* O_FORCE */
        }
    }
    vkrr_cli_select sel;
    if (!spec || !capdir)
        return vkrr_cli_usage_error("port", "port new needs KERNEL and CAPDIR");
    if (!vkrr_cli_select_parse(spec, &sel) || !sel.kernel[0])
        return vkrr_cli_usage_error("port", "'%s' is not KERNEL or KERNEL#OCC", spec);

    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    vkrr_port_skeleton sk = {0};
    uint32_t *spv = NULL;
    size_t spv_bytes = 0;
    int rc = 2;
    char comp[4096], port[4096], how[8192];
    if (vkrr_capture_open(&cap, capdir, &err) != VKRR_OK)
        goto fail;
    const vkrr_launch *l = NULL;
    for (uint32_t i = 0; i < cap->nlaunches && !l; i++)
        if (vkrr_cli_select_matches(&sel, &cap->launches[i]))
            l = &cap->launches[i];
    if (!l) {
        fprintf(stderr, "vkrr: error: %s: no launch of %s; its kernels are:\n", capdir, spec);
        for (uint32_t i = 0; i < cap->nlaunches; i++)
            if (cap->launches[i].occurrence == 0)
                fprintf(stderr, "  %s\n", cap->launches[i].kernel);
        goto out;
    }
    if (strchr(l->kernel, '/') || snprintf(comp, sizeof comp, "%s/%s.comp", out, l->kernel) >= (int)sizeof comp ||
        snprintf(port, sizeof port, "%s/%s.port", out, l->kernel) >= (int)sizeof port) {
        vkrr_fail(&err, VKRR_ERR_USAGE, out, 0, -1, "the kernel name %s makes no file name here", l->kernel);
        goto fail;
    }
    if (!force && (exists(comp) || exists(port))) {
        vkrr_fail(&err, VKRR_ERR_USAGE, exists(comp) ? comp : port, 0, -1,
                  "exists already; --force overwrites it");
        goto fail;
    }
    snprintf(how, sizeof how, "vkrr port new %s %s", spec, capdir);
    if (vkrr_port_skeleton_make(cap, l, how, &sk, &err) != VKRR_OK || vkrr_mkdirs(out, &err) != VKRR_OK ||
        vkrr_write_file_atomic(comp, sk.comp, sk.comp_len, &err) != VKRR_OK ||
        vkrr_write_file_atomic(port, sk.desc, sk.desc_len, &err) != VKRR_OK)
        goto fail;
    /* a skeleton that does not compile is vkrr's bug: say so now, not at validate */
    if (vkrr_port_shader_compile_glsl(comp, out, &spv, &spv_bytes, &err) != VKRR_OK)
        goto fail;
    printf("wrote %s (compiles: %zu bytes of SPIR-V)\n", comp, spv_bytes);
    printf("wrote %s: %u output%s%s\n", port, sk.outputs, sk.outputs == 1 ? "" : "s",
           sk.guessed ? ", buffer types and shapes GUESSED from the capture: check them" : "");
    printf("from launch #%llu (frame %u, occurrence %u); next:\n"
           "  vkrr validate %s --ports %s --only %s --watch\n",
           (unsigned long long)l->sequence, l->frame, l->occurrence, capdir, out, l->kernel);
    rc = 0;
    goto out;
fail:
    rc = vkrr_cli_fail(&err);
out:
    free(spv);
    vkrr_port_skeleton_free(&sk);
    vkrr_capture_close(cap);
    return rc;
}

int vkrr_cmd_port(int argc, char **argv)
{
    if (argc >= 2 && vkrr_cli_is_help(argv[1])) {
        fputs(port_help, stdout);
        return 0;
    }
    static const char *const subs[] = {"new", NULL};
    if (argc < 2)
        return vkrr_cli_usage_error("port", "the one subcommand is 'new'");
    if (strcmp(argv[1], "new"))
        return vkrr_cli_unknown_subcommand("port", argv[1], subs);
    return port_new(argc, argv);
}
