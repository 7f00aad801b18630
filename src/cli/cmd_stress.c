/* vkrr stress: each captured launch driven with new inputs through the
 * original kernel (from its PTX) and the port until they disagree; the first
 * disagreement minimised and written as a capture that validate fails
 * (src/validate/stress.h does the work). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "clock.h"
#include "capture.h"
#include "cli.h"
#include "compare.h"
#include "hw_model.h"
#include "portdesc.h"
#include "stress.h"
#include "stress_json.h"
#include "version.h"

static const char stress_help[] =
    "usage: vkrr stress CAPDIR [options]\n"
    "\n"
    "A capture proves a port on the inputs one frame held.  stress makes new ones\n"
    "from them and runs each through the original kernel (its PTX, on the PTX\n"
    "interpreter) and through the port, comparing every output as validate does\n"
    "(the .port descriptors' windows, types and tolerances), until they disagree.\n"
    "\n"
    "What changes: the data the launch's pointers lead to that the kernel reads (its\n"
    "PTX says which, and in which element type) and its textures' texels; never a\n"
    "pointer, a size, the grid or a texture's descriptor.  A .port's `input` lines\n"
    "bound it (a type, finite, range LO HI, fixed).  Each input changes 1 to 4\n"
    "elements of one kept earlier (at first\n"
    "the captured one): a special value of the element's type (+-0, +-Inf, NaN, the\n"
    "largest finite, subnormals, 1, -1, f16's 65504 and e4m3's 448 and their\n"
    "neighbours), a value within the captured range, the value negated, one ULP\n"
    "away, or scaled by a power of two.  An input that makes the original take a\n"
    "branch direction no earlier input took is kept to build on.\n"
    "\n"
    "The first disagreement is minimised (each changed element put back while the\n"
    "disagreement stays) and written as a capture of that one launch, with the\n"
    "original's outputs: `vkrr validate` on it fails, `vkrr rerun` passes.\n"
    "\n"
    "  --only SEL           only these launches: KERNEL, KERNEL#OCC or a sequence\n"
    "                       number (repeatable; default every launch)\n"
    "  --runs N             inputs a launch, at most (default 500)\n"
    "  --time T             seconds for the whole run, at most (shared by the launches\n"
    "                       left; default no limit)\n"
    "  --seed S             the same seed makes the same inputs (default 1)\n"
    "  --out DIR            where reproducers go: DIR/stress-SEQ-KERNEL (default\n"
    "                       " VKRR_OUT_DEFAULT "/CAPNAME-HASH/stress)\n"
    "  --ports DIR          your ports (KERNEL.comp) and descriptors (KERNEL.port)\n"
    "  --no-builtin         only the ports in --ports DIR\n"
    "  --modules FILE|DIR   the original's PTX, fatbins or binaries holding them\n"
    "                       (repeatable; default: where the capture's modules are, as\n"
    "                       vkrr rerun --help says)\n"
    "  --device N           the Vulkan device (as vkrr validate)\n"
    "  --tolerance FILE, --atol X, --rtol X, --max-ulp N   as vkrr validate\n"
    "  --json FILE          what each launch's stress found (docs/json.md)\n"
    "\n"
    "exit: 0 no disagreement found (each launch's line says how many inputs and\n"
    "which branch directions they reached), 1 a disagreement (the reproducer's\n"
    "path and the elements that differ are printed), 2 bad input or usage, or a\n"
    "launch that cannot be stressed (named), 3 no usable device or library.\n"
    "\n"
    "example:\n"
    "  vkrr stress cap --ports ports --only scale --runs 2000\n";

#define MAX_SELECT 32

typedef struct stress_args {
    const char *capdir, *device;
    vkrr_cli_modules modules; /* --modules, repeatable */
    vkrr_cli_compare c;
    vkrr_cli_select only[MAX_SELECT];
    uint32_t nonly;
    uint64_t runs, seed;
    double seconds;
    bool no_builtin;
} stress_args;

enum { O_ONLY, O_RUNS, O_SEED, O_TIME, O_MODULES, O_DEVICE, O_NO_BUILTIN };
static const vkrr_cli_opt stress_opts[] = {
    {"only", 0, true, O_ONLY, false},       {"runs", 0, true, O_RUNS, false},
    {"seed", 0, true, O_SEED, false},       {"time", 0, true, O_TIME, false},
    {"modules", 0, true, O_MODULES, false}, {"device", 0, true, O_DEVICE, false},
    {"no-builtin", 0, false, O_NO_BUILTIN, false},
    {0},
};

static int take_option(const char *cmd, int id, const char *v, void *ctx)
{
    stress_args *a = ctx;
    switch (id) {
    case O_ONLY:
        if (a->nonly == MAX_SELECT || !vkrr_cli_select_parse(v, &a->only[a->nonly]))
            return vkrr_cli_usage_error(cmd, "--only takes KERNEL, KERNEL#OCC or a sequence "
                                             "number (at most %u of them), not '%s'",
                                        MAX_SELECT, v);
        a->nonly++;
        return 0;
    case O_RUNS:
        if (!vkrr_cli_parse_u64(v, 100000000, &a->runs) || !a->runs)
            return vkrr_cli_usage_error(cmd, "--runs takes a count from 1, not '%s'", v);
        return 0;
    case O_SEED:
        if (!vkrr_cli_parse_u64(v, UINT64_MAX, &a->seed))
            return vkrr_cli_usage_error(cmd, "--seed takes a number, not '%s'", v);
        return 0;
    case O_TIME:
        if (!vkrr_cli_parse_double(v, &a->seconds) || !(a->seconds > 0))
            return vkrr_cli_usage_error(cmd, "--time takes seconds above 0, not '%s'", v);
        return 0;
    case O_MODULES:
        return vkrr_cli_modules_take(cmd, v, &a->modules);
    case O_DEVICE: a->device = v; return 0;
    case O_NO_BUILTIN: a->no_builtin = true; return 0;
    default:
        return vkrr_cli_compare_take(cmd, id, v, &a->c);
    }
}

static void print_help(void *ctx)
{
    (void)ctx;
    fputs(stress_help, stdout);
}

static int parse_args(int argc, char **argv, stress_args *a)
{
    *a = (stress_args){.runs = 500, .seed = 1, .c = {.heatmaps = "none", .buffer_type = "bytes"}};
    vkrr_cli_opts p =
        vkrr_cli_opts_begin(argv[0], argc, argv, 1, stress_opts, vkrr_cli_compare_opts);
    int rc = vkrr_cli_opts_one_arg(&p, "CAPDIR", &a->capdir, take_option, print_help, a);
    if (rc)
        return rc;
    if (a->no_builtin && !a->c.ports)
        return vkrr_cli_usage_error(argv[0], "--no-builtin needs --ports DIR");
    return 0;
}

static bool selected(const stress_args *a, const vkrr_launch *l)
{
    if (!a->nonly)
        return true;
    for (uint32_t k = 0; k < a->nonly; k++)
        if (vkrr_cli_select_matches(&a->only[k], l))
            return true;
    return false;
}

/* Where reproducers go: --out DIR, else beside the default heatmaps. */
static vkrr_status out_dir(const stress_args *a, char *dir, size_t cap, vkrr_error *err)
{
    if (a->c.out) {
        snprintf(dir, cap, "%s", a->c.out);
        return VKRR_OK;
    }
    vkrr_status st = vkrr_cli_heatmap_dir(NULL, a->capdir, dir, cap, err);
    char *slash = st == VKRR_OK ? strrchr(dir, '/') : NULL;
    if (slash && (size_t)(slash - dir) + 8 < cap)
        strcpy(slash, "/stress");
    return st;
}

int vkrr_cmd_stress(int argc, char **argv)
{
    stress_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    vkrr_tol_rules *rules = NULL;
    vkrr_backend port = {0}, orig = {0};
    vkrr_portdesc_set *ports = NULL;
    vkrr_hw_model *hw = NULL;
    char dir[4096];
    vkrr_module_set mods = {0};
    vkrr_stress_json js = {0};
    rc = 2;
    if (a.c.json && !vkrr_stress_json_open(&js)) {
        vkrr_fail(&err, VKRR_ERR_NOMEM, a.c.json, 0, -1, "out of memory for the JSON");
        goto fail;
    }
    if (vkrr_capture_open_ex(&cap, a.capdir, VKRR_CAPTURE_KEEP_DAMAGED, &err) != VKRR_OK ||
        vkrr_cli_hw_use(&a.c, cap, &hw, &err) != VKRR_OK ||
        vkrr_portdesc_set_create(&ports, a.c.ports, &err) != VKRR_OK ||
        vkrr_compare_tol_load(&rules, a.c.tolerance, &err) != VKRR_OK ||
        out_dir(&a, dir, sizeof dir, &err) != VKRR_OK)
        goto fail;
    vkrr_compare_tol_set_flags(rules, &a.c.flags);
    uint32_t todo = 0;
    /* only the selected launches' descriptors: stress runs no others, and a
     * fused port (of another kernel) is refused only where it would run */
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (selected(&a, &cap->launches[i])) {
            if (vkrr_portdesc_set_check_launch(ports, &cap->launches[i], &err) != VKRR_OK)
                goto fail;
            todo++;
        }
    if (!todo) {
        vkrr_fail(&err, VKRR_ERR_USAGE, a.capdir, 0, -1, "no launch of the capture matches --only");
        goto fail;
    }
    if (vkrr_cli_open_reference("ptx", cap, &a.modules, (vkrr_backend_desc){.coverage = true}, &orig,
                                &mods, stdout, &err) != VKRR_OK ||
        vkrr_backend_open(&(vkrr_backend_desc){.name = "vulkan", .device = a.device,
                                                .ports_dir = a.c.ports, .no_builtin = a.no_builtin},
                          &port, &err) != VKRR_OK)
        goto fail;
    printf("stress %s: %u launch%s, up to %llu inputs each, seed %llu; the original on ptx, the port "
           "on vulkan\n",
           a.capdir, todo, todo == 1 ? "" : "es", (unsigned long long)a.runs,
           (unsigned long long)a.seed);
    vkrr_stress_opts o = {.port = &port, .original = &orig, .descs = ports, .rules = rules,
                          .runs = a.runs, .seed = a.seed, .out_dir = dir, .modules = &mods,
                          .progress = isatty(fileno(stderr)) != 0};
    double t0 = vkrr_now_s();
    uint32_t found = 0, errors = 0, done = 0, nothing = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        if (!selected(&a, l))
            continue;
        const char *name = l->kernel ? l->kernel : "?";
        if (l->damage >= VKRR_DAMAGE_INPUT || !orig.has_kernel(orig.self, name) ||
            !port.has_kernel(port.self, name)) {
            printf("  #%llu %s: ERROR: %s\n", (unsigned long long)l->sequence, name,
                   l->damage >= VKRR_DAMAGE_INPUT ? "its files cannot be read"
                   : !orig.has_kernel(orig.self, name) ? "no PTX module has it"
                                                       : "no port of it");
            if (js.f)
                vkrr_stress_json_launch(&js, l, "error", NULL,
                                        l->damage >= VKRR_DAMAGE_INPUT ? "its files cannot be read"
                                        : !orig.has_kernel(orig.self, name) ? "no PTX module has it"
                                                                            : "no port of it");
            errors++, done++;
            continue;
        }
        if (a.seconds > 0) {
            double left = a.seconds - (vkrr_now_s() - t0);
            o.seconds = left > 0 ? left / (double)(todo - done) : 1e-9;
        }
        vkrr_stress_result r;
        vkrr_status st = vkrr_stress_launch(&o, cap, l, &r, &err);
        done++;
        if (st != VKRR_OK)
            goto fail;
        if (js.f)
            vkrr_stress_json_launch(&js, l, r.nothing ? "nothing" : r.disagree ? "disagree"
                                            : r.note[0] ? "error" : "stressed", &r, NULL);
        if (r.nothing) {
            printf("  #%llu %s: %s\n", (unsigned long long)l->sequence, name, r.note);
            nothing++;
            continue;
        }
        if (r.note[0] && !r.disagree) {
            printf("  #%llu %s: ERROR: %s\n", (unsigned long long)l->sequence, name, r.note);
            errors++;
            continue;
        }
        printf("  #%llu %s: %llu inputs into %u of its buffers and textures, %u kept; branch directions "
               "taken %u of %u (the captured inputs: %u)%s\n",
               (unsigned long long)l->sequence, name, (unsigned long long)r.runs, r.mutable_inputs,
               r.kept, r.dirs_taken, r.dirs_total, r.dirs_captured,
               r.disagree ? "" : ": no disagreement");
        if (r.disagree) {
            found++;
            printf("    DISAGREE: %s\n", r.detail);
            printf("    on %u changed input element%s: %s\n", r.changed, r.changed == 1 ? "" : "s",
                   r.inputs);
            if (r.reproducer[0])
                printf("    reproducer: %s (vkrr validate %s%s%s fails on it)\n", r.reproducer,
                       r.reproducer, a.c.ports ? " --ports " : "", a.c.ports ? a.c.ports : "");
            if (r.note[0])
                printf("    note: %s\n", r.note);
        }
    }
    printf("summary: %u launch%s stressed, %u disagreement%s; %u with nothing to change, %u "
           "could not run\n", done - nothing - errors, done - nothing - errors == 1 ? "" : "es",
           found, found == 1 ? "" : "s", nothing, errors);
    rc = found ? 1 : errors ? 2 : 0;
    if (js.f) {
        vkrr_stress_json_run jr = {a.capdir, VKRR_VERSION, a.runs, a.seed, a.seconds,
                                   done - nothing - errors, found, nothing, errors};
        if (vkrr_stress_json_write(&js, a.c.json, &jr, &err) != VKRR_OK)
            goto fail;
        printf("json: %s\n", a.c.json);
    }
    goto out;
fail:
    rc = vkrr_cli_fail(&err);
out:
    vkrr_stress_json_close(&js);
    if (orig.destroy)
        orig.destroy(orig.self);
    vkrr_modules_free(&mods);
    if (port.destroy)
        port.destroy(port.self);
    vkrr_compare_tol_destroy(rules);
    vkrr_portdesc_set_destroy(ports);
    vkrr_cli_hw_done(hw);
    vkrr_capture_close(cap);
    return rc;
}
