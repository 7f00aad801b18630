/* vkrr record: one launch of any kernel, run from its PTX on the CPU,
 * recorded as a capture (src/synth/record.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record.h"

static const char record_help[] =
    "usage: vkrr record OUTDIR --ptx FILE.ptx --kernel NAME --grid GX[xGY[xGZ]]\n"
    "                   --block BX[xBY[xBZ]] --arg SPEC [--arg SPEC ...] [--seed S] [--force]\n"
    "\n"
    "Runs one launch of a kernel from its PTX on this CPU (vkrr's PTX JIT, or its\n"
    "interpreter where the JIT cannot compile the kernel or VKRR_PTX_ENGINE=interp;\n"
    "no GPU) and records it as the CUDA bridge records a launch: OUTDIR is a capture\n"
    "(replay/, dump/, run/run.log, modules/FILE.ptx) that info, port new, validate\n"
    "and rerun read like any other.  For a kernel you are about to port before a\n"
    "capture from the GPU exists, or to practise on (README \"Port your first kernel\").\n"
    "\n"
    "One --arg per .param of the kernel, in order:\n"
    "  in:TYPE:COUNT      a pointer to COUNT elements of TYPE filled from the seed\n"
    "                     (floats on a grid in [-4, 4), integers all bits); TYPE is\n"
    "                     f32 f16 bf16 e4m3 e5m2 u8 s8 u16 s16 u32 s32\n"
    "  out:TYPE:COUNT     a pointer to COUNT zero elements, which the kernel writes\n"
    "  inout:TYPE:COUNT   filled like in:, and written\n"
    "  u32:V s32:V u64:V s64:V f32:V f64:V   a scalar of that type\n"
    "\n"
    "  --seed S   the inputs' values (default 1); the same arguments give the same capture\n"
    "  --force    replace OUTDIR if it exists and is not empty\n"
    "\n"
    "Example (examples/first-port/scale.cu, compiled to scale.ptx):\n"
    "  vkrr record /tmp/scale --ptx examples/first-port/scale.ptx --kernel scale \\\n"
    "      --grid 4 --block 64 --arg in:f32:256 --arg out:f32:256 --arg f32:2.5 --arg u32:256\n"
    "\n"
    "exit: 0 recorded, 2 bad usage, a PTX file that does not parse or a kernel that\n"
    "faults (named), 3 no memory.\n";

/* "X", "XxY" or "XxYxZ", each 1..2^31. */
static bool parse_dim(const char *s, uint32_t d[3])
{
    d[0] = d[1] = d[2] = 1;
    for (int k = 0; k < 3; k++) {
        char *end = NULL;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > 0x7fffffffu || s[0] == '-')
            return false;
        d[k] = (uint32_t)v;
        if (!*end)
            return true;
        if (*end != 'x' || k == 2)
            return false;
        s = end + 1;
    }
    return false;
}

enum { O_FORCE, O_PTX, O_KERNEL, O_GRID, O_BLOCK, O_ARG, O_SEED };
static const vkrr_cli_opt record_opts[] = {
    {"force", 0, false, O_FORCE, false}, {"ptx", 0, true, O_PTX, false},
    {"kernel", 0, true, O_KERNEL, false}, {"grid", 0, true, O_GRID, false},
    {"block", 0, true, O_BLOCK, false},  {"arg", 0, true, O_ARG, false},
    {"seed", 0, true, O_SEED, false},
    {0},
};

int vkrr_cmd_record(int argc, char **argv)
{
    vkrr_record_desc d = {.grid = {0}, .block = {0}};
    const char *args[64];
    uint32_t nargs = 0;
    vkrr_cli_opts p = vkrr_cli_opts_begin("record", argc, argv, 1, record_opts, NULL);
    const char *v;
    uint64_t s;
    for (int id; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        switch (id) {
        case VKRR_OPT_ERROR:
            return p.rc;
        case VKRR_OPT_HELP:
            fputs(record_help, stdout);
            return 0;
        case VKRR_OPT_ARG:
            if (d.dir)
                return vkrr_cli_usage_error("record", "unexpected argument '%s'", v);
            d.dir = v;
            break;
        case O_FORCE: d.force = true; break;
        case O_PTX: d.ptx = v; break;
        case O_KERNEL: d.kernel = v; break;
        case O_GRID:
        case O_BLOCK:
            if (!parse_dim(v, id == O_GRID ? d.grid : d.block))
                return vkrr_cli_usage_error("record", "%s takes X, XxY or XxYxZ (each >= 1), "
                                            "not '%s'", p.name, v);
            break;
        case O_ARG:
            if (nargs == 64)
                return vkrr_cli_usage_error("record", "more than 64 --arg");
            args[nargs++] = v;
            break;
        default: /* O_SEED */
            if (!vkrr_cli_parse_u64(v, UINT64_MAX, &s))
                return vkrr_cli_usage_error("record", "--seed takes a number, not '%s'", v);
            d.seed = s;
        }
    }
    if (!d.dir || !d.ptx || !d.kernel || !d.grid[0] || !d.block[0])
        return vkrr_cli_usage_error("record", "OUTDIR, --ptx, --kernel, --grid and --block are needed");
    d.args = args;
    d.nargs = nargs;
    vkrr_error err = {0};
    char engine[400];
    if (vkrr_record_run(&d, engine, sizeof engine, &err) != VKRR_OK)
        return vkrr_cli_fail(&err);
    /* the engine that ran it, as the backend says: the JIT compiles (and
     * caches) the kernel, the interpreter does not */
    const char *how = !strcmp(engine, "jit") ? "the PTX JIT (compiled through LLVM)"
                    : !strncmp(engine, "interp", 6) ? "the PTX interpreter" : "the PTX backend";
    const char *why = !strncmp(engine, "interp (", 8) ? engine + 6 : "";
    printf("wrote %s: 1 launch of %s (grid %ux%ux%u, block %ux%ux%u) run on %s%s\n"
           "next: vkrr port new %s %s --out ports\n",
           d.dir, d.kernel, d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2],
           how, why, d.kernel, d.dir);
    return 0;
}
