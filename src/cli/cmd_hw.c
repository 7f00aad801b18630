/* vkrr hw: the hardware model's tables.  `vkrr hw measure` makes them for the
 * GPU at hand (src/hw/measure.h; the kernels shipped with vkrr, through
 * libcuda); `vkrr hw list` says which sets vkrr finds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "backends.h"
#include "hw_blobs.h"
#include "hw_model.h"
#include "hw_texture.h"
#include "measure.h"
#include "textlist.h"

static const char hw_help[] =
    "usage: vkrr hw measure OUTDIR [--device N] [--backend cuda|ptx --sample N\n"
    "                              [--hw-tables SET]] [--no-laws] [-q]\n"
    "       vkrr hw list [--hw-tables DIR]\n"
    "\n"
    "The approximate instructions (ex2.approx, rsqrt.approx, sin.approx, ...) return\n"
    "what the GPU's hardware returns, not the correctly rounded value, so vkrr models\n"
    "them from tables measured on a GPU (README \"The hardware model\").  vkrr ships\n"
    "sm_90's (an H200).  For another architecture, measure it:\n"
    "\n"
    "measure: runs vkrr's measurement kernels (PTX shipped inside vkrr; no nvcc)\n"
    "through libcuda on the NVIDIA GPU, writes OUTDIR/sm_NN/ (tables.tsv and the\n"
    "tables, xz-compressed; the same files as the built-in sm_90 set), then checks\n"
    "every law of the model over every f32 input and prints which hold.  Minutes.\n"
    "  --device N           CUDA device ordinal (default 0)\n"
    "  --backend ptx --sample N   run the kernels on vkrr's PTX backend (its JIT) over\n"
    "                       every N-th input instead: the backend computes the\n"
    "                       current model, so this checks the measurement itself\n"
    "                       (the tables it writes must equal the model's), not a GPU;\n"
    "                       the laws at every 2^20-th input, against that model\n"
    "                       (N = 1: every input and every law, hours)\n"
    "  --hw-tables SET      with --backend ptx: the interpreter computes the model of\n"
    "                       the set in folder SET (a simulated GPU) instead of sm_90's\n"
    "  --no-laws            every table point, but no law check over every f32\n"
    "                       input (the tables alone: what --backend ptx can do in\n"
    "                       minutes, where the law checks would take hours)\n"
    "  -q                   no progress lines\n"
    "Then validate and rerun use the tables for captures from that architecture\n"
    "with --hw-tables OUTDIR, or by default once copied to\n"
    "$XDG_DATA_HOME/vkrr/hw/sm_NN (~/.local/share/vkrr/hw/sm_NN).\n"
    "\n"
    "list: the table sets vkrr finds (built in, the folder above, --hw-tables DIR).\n"
    "\n"
    "Every law is reported with the inputs it was tested on and the fraction that\n"
    "held; lg2 and tanh have no exact law, so theirs is a fraction, never a failure.\n"
    "\n"
    "exit: 0 every law holds, 1 a law does not (the tables are still written: the\n"
    "model then is not exact there), 2 bad usage or a file that cannot be written,\n"
    "3 no libcuda or no GPU.\n"
    "\n"
    "example, on a machine with an RTX 4090 (sm_89):\n"
    "  vkrr hw measure hw-tables && mkdir -p ~/.local/share/vkrr/hw &&\n"
    "    cp -r hw-tables/sm_89 ~/.local/share/vkrr/hw/\n";

/* The measurement kernels as files (both backends load modules from a folder). */
static vkrr_status kernel_dir(char *dir, size_t cap, vkrr_error *err)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, cap, "%s/vkrr-hw-XXXXXX", t && t[0] ? t : "/tmp");
    if (!mkdtemp(dir))
        return vkrr_fail(err, VKRR_ERR_IO, dir, 0, -1, "cannot create a temporary folder");
    for (const vkrr_hw_blob *b = vkrr_hw_kernel_blobs; b->name; b++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, b->name);
        FILE *f = fopen(path, "wb");
        size_t n = (size_t)(b->end - b->start);
        bool ok = f && fwrite(b->start, 1, n, f) == n;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok)
            return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot write");
    }
    return VKRR_OK;
}

static void remove_kernel_dir(const char *dir)
{
    for (const vkrr_hw_blob *b = vkrr_hw_kernel_blobs; b->name; b++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, b->name);
        unlink(path);
    }
    rmdir(dir);
}

/* out[i] = OP(in[i]) through a backend (measure.h's runner). */
static vkrr_status run_op(void *ctx, unsigned op, const uint32_t *in, uint32_t *out, uint32_t n,
                          vkrr_error *err)
{
    const vkrr_backend *be = ctx;
    const uint64_t in_base = 0x100000000ull, out_base = 0x200000000ull;
    uint8_t args[24];
    uint32_t nop[2] = {n, op};
    memcpy(args, &in_base, 8);
    memcpy(args + 8, &out_base, 8);
    memcpy(args + 16, nop, 8);
    vkrr_replay_alloc allocs[2] = {{in_base, (uint64_t)n * 4, in, NULL, NULL},
                                   {out_base, (uint64_t)n * 4, NULL, out, NULL}};
    vkrr_pointer ptrs[2] = {{0, 0, 0}, {8, 1, 0}};
    vkrr_replay r = {.kernel = op >= VKRR_HWOP_EX2_BF16 ? "vkrr_hw_measure_bf16" : "vkrr_hw_measure",
                     .grid = {(n + 255) / 256, 1, 1}, .block = {256, 1, 1}, .args = args,
                     .args_bytes = sizeof args, .allocs = allocs, .nallocs = 2, .pointers = ptrs,
                     .npointers = 2};
    return be->run(be->self, &r, err);
}

/* Says whether the measured set equals ref (the built-in set of its
 * architecture, or the model the interpreter computed), table for table. */
static void compare_set(const char *dir, vkrr_hw_tables *ref, const char *what)
{
    vkrr_hw_tables *m = NULL;
    vkrr_error err = {0};
    if (!ref || vkrr_hw_tables_open_dir(dir, &m, &err) != VKRR_OK ||
        strcmp(vkrr_hw_tables_arch(m), vkrr_hw_tables_arch(ref))) {
        vkrr_hw_tables_close(m);
        return;
    }
    char differ[512];
    vkrr_textlist dl;
    vkrr_textlist_init(&dl, differ, sizeof differ);
    for (int i = 0; i < VKRR_HWT_COUNT; i++)
        if (vkrr_hw_tables_hash(m, (vkrr_hw_table_id)i) != vkrr_hw_tables_hash(ref, (vkrr_hw_table_id)i))
            vkrr_textlist_add(&dl, ", ", "%s", vkrr_hw_table_name((vkrr_hw_table_id)i));
    if (differ[0])
        printf("tables: differ from %s %s set (%s) in: %s\n", what, vkrr_hw_tables_arch(ref),
               vkrr_hw_tables_device(ref), differ);
    else
        printf("tables: equal %s %s set (%s), table for table\n", what, vkrr_hw_tables_arch(ref),
               vkrr_hw_tables_device(ref));
    vkrr_hw_tables_close(m);
}

/* The laws as measured: inputs, violations and the fraction that held. */
static unsigned print_laws(const vkrr_hw_measure_result *res)
{
    unsigned failed = 0;
    for (unsigned i = 0; i < res->nlaws; i++) {
        const vkrr_hw_law *l = &res->laws[i];
        bool held = l->violations == 0;
        failed += !held && !l->standin;
        double frac = l->tested ? 100.0 * (double)(l->tested - l->violations) / (double)l->tested : 0;
        printf("%-7s %s: %llu inputs, %llu not as modelled, %.4f %% held\n",
               l->standin ? "reaches" : held ? "holds" : "FAILS", l->name,
               (unsigned long long)l->tested, (unsigned long long)l->violations, frac);
    }
    return failed;
}

/* The survey's weight fraction bits into the set's manifest (hw_tables.h). */
static vkrr_status add_tex_bits(const char *dir, unsigned bits, vkrr_error *err)
{
    char path[1300];
    snprintf(path, sizeof path, "%s/tables.tsv", dir);
    FILE *f = fopen(path, "a");
    bool ok = f && fprintf(f, "texfilter_bits\t%u\n", bits) > 0;
    if (f && fclose(f) != 0)
        ok = false;
    return ok ? VKRR_OK : vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot write");
}

static int measure(int argc, char **argv)
{
    const char *out = NULL, *backend = "cuda", *sim = NULL;
    uint64_t sample = 0, device = 0;
    bool quiet = false, no_laws = false;
    enum { O_BACKEND, O_SAMPLE, O_DEVICE, O_QUIET, O_HW_TABLES, O_NO_LAWS };
    static const vkrr_cli_opt opts[] = {
        {"backend", 0, true, O_BACKEND, false}, {"sample", 0, true, O_SAMPLE, false},
        {"device", 0, true, O_DEVICE, false},   {"quiet", 'q', false, O_QUIET, false},
        {"hw-tables", 0, true, O_HW_TABLES, false}, {"no-laws", 0, false, O_NO_LAWS, false},
        {0}};
    vkrr_cli_opts p = vkrr_cli_opts_begin("hw", argc, argv, 2, opts, NULL);
    const char *v;
    for (int id; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        switch (id) {
        case VKRR_OPT_ERROR:
            return p.rc;
        case VKRR_OPT_HELP:
            fputs(hw_help, stdout);
            return 0;
        case VKRR_OPT_ARG:
            if (out)
                return vkrr_cli_usage_error("hw", "one OUTDIR only ('%s' is extra)", v);
            out = v;
            break;
        case O_BACKEND:
            backend = v;
            if (strcmp(backend, "cuda") && strcmp(backend, "ptx"))
                return vkrr_cli_usage_error("hw", "--backend takes cuda or ptx, not '%s'", backend);
            break;
        case O_SAMPLE:
            if (!vkrr_cli_parse_u64(v, 1u << 20, &sample) || sample < 1)
                return vkrr_cli_usage_error("hw", "--sample takes an integer 1..%u, not '%s'",
                                            1u << 20, v);
            break;
        case O_DEVICE:
            if (!vkrr_cli_parse_u64(v, 64, &device))
                return vkrr_cli_usage_error("hw", "--device takes a CUDA device ordinal, not '%s'", v);
            break;
        case O_HW_TABLES:
            sim = v;
            break;
        case O_NO_LAWS:
            no_laws = true;
            break;
        default: quiet = true; /* O_QUIET */
        }
    }
    if (!out)
        return vkrr_cli_usage_error("hw", "measure needs OUTDIR");
    bool ptx = !strcmp(backend, "ptx");
    if (ptx && sample == 0 && !no_laws)
        return vkrr_cli_usage_error("hw", "--backend ptx measures vkrr's own model: give --sample "
                                          "N to check the measurement on every N-th input (1: every "
                                          "input and every law, hours on the PTX backend), or "
                                          "--no-laws for every table point without the law checks "
                                          "(minutes)");
    if (ptx && sample == 1 && !no_laws && !quiet)
        fprintf(stderr, "vkrr hw measure: --sample 1 on the PTX backend: every table point and "
                        "every law over every f32 input, hours here (--no-laws: the tables alone, "
                        "minutes)\n");
    if (sim && !ptx)
        return vkrr_cli_usage_error("hw", "--hw-tables simulates a GPU in the PTX interpreter: it "
                                          "needs --backend ptx");
    vkrr_error err = {0};
    vkrr_hw_model *sim_model = NULL, *law_model = NULL;
    vkrr_hw_tables *ref = NULL;
    vkrr_backend be = {0};
    char kdir[1024] = "", dir[1200], name[128] = "vkrr PTX backend", arch[32] = "sm_90";
    int rc = 2, ma = 9, mi = 0;
    if (kernel_dir(kdir, sizeof kdir, &err) != VKRR_OK)
        goto fail;
    if (sim) { /* the simulated GPU: the model of that set, whatever its architecture */
        vkrr_hw_tables *t = NULL;
        if (vkrr_hw_tables_open_dir(sim, &t, &err) != VKRR_OK)
            goto fail;
        snprintf(arch, sizeof arch, "%s", vkrr_hw_tables_arch(t));
        vkrr_hw_tables_close(t);
        if (vkrr_hw_model_open(&(vkrr_hw_choice){.approx = arch, .tables_dir = sim}, &sim_model,
                               &err) != VKRR_OK)
            goto fail;
        vkrr_hw_use(sim_model);
    }
    if (ptx) {
        if (vkrr_backend_open(&(vkrr_backend_desc){.name = "ptx", .modules = kdir}, &be, &err) != VKRR_OK)
            goto fail;
        /* the interpreter computes the current model: its tables' architecture */
        vkrr_hw_tables *t = vkrr_hw_model_tables(vkrr_hw_current());
        snprintf(arch, sizeof arch, "%s", t ? vkrr_hw_tables_arch(t) : "sm_90");
    } else {
        char ordinal[24];
        snprintf(ordinal, sizeof ordinal, "%llu", (unsigned long long)device);
        if (vkrr_backend_open(&(vkrr_backend_desc){.name = "cuda", .modules = kdir, .device = ordinal},
                              &be, &err) != VKRR_OK)
            goto fail;
        if (be.device)
            be.device(be.self, name, sizeof name, &ma, &mi);
        vkrr_hw_arch_name(ma, mi, arch, sizeof arch);
    }
    snprintf(dir, sizeof dir, "%s/%s", out, arch);
    char device_line[256];
    char words[160];
    snprintf(device_line, sizeof device_line, "%s, compute capability %d.%d%s%s%s", name, ma, mi,
             ptx ? " (the model, through " : "",
             ptx ? vkrr_cli_ptx_engine_words(NULL, false, words, sizeof words) : "", ptx ? ")" : "");
    printf("hw measure: %s (%s) into %s%s\n", name, arch, dir, sample > 1 ? ", sampled" : "");
    /* sampled tables are no model: the interpreter's laws are checked
     * against its own set, the simulated GPU's deviations ignored */
    vkrr_hw_model *laws_of = ptx && sample > 1 && !no_laws ? vkrr_hw_current() : NULL;
    if (sim && laws_of) {
        if (vkrr_hw_model_open(&(vkrr_hw_choice){.approx = arch, .tables_dir = sim}, &law_model,
                               &err) != VKRR_OK)
            goto fail;
        vkrr_hw_tables_ignore_deviations(vkrr_hw_model_tables(law_model));
        laws_of = law_model;
    }
    vkrr_hw_measure_result res;
    vkrr_hw_measure_desc d = {.law_model = laws_of, .run = run_op, .ctx = &be, .dir = dir, .arch = arch,
                              .device = device_line, .sample = (uint32_t)sample,
                              .bf16 = ma >= 9, .no_laws = no_laws,
                              .progress = quiet ? NULL : stderr,
                              .batch = ptx ? (1u << 16) : 0,
                              .cuts_from = ptx ? vkrr_hw_model_tables(vkrr_hw_current()) : NULL};
    if (vkrr_hw_measure_run(&d, &res, &err) != VKRR_OK)
        goto fail;
    printf("tables: %s (sin: %llu exceptions, %llu turn indexes no input reaches; cos: %llu, %llu; "
           "beyond an int8 delta: ex2 %llu, %llu, rsqrt %llu, sqrt %llu, rcp %llu, lg2 %llu)\n",
           dir, (unsigned long long)res.exceptions[0], (unsigned long long)res.unreachable[0],
           (unsigned long long)res.exceptions[1], (unsigned long long)res.unreachable[1],
           (unsigned long long)res.grid_exceptions[0], (unsigned long long)res.grid_exceptions[1],
           (unsigned long long)res.grid_exceptions[2], (unsigned long long)res.grid_exceptions[3],
           (unsigned long long)res.grid_exceptions[4], (unsigned long long)res.grid_exceptions[5]);
    unsigned failed = print_laws(&res);
    if (sample <= 1 && !ptx && vkrr_hw_tables_open_shipped(&ref, &err) == VKRR_OK)
        compare_set(dir, ref, "the built-in");
    else if (sample <= 1 && ptx)
        compare_set(dir, vkrr_hw_model_tables(vkrr_hw_current()), sim ? "the simulated GPU's" : "the model's");
    if (no_laws || (sample > 1 && !ptx))
        printf("%s: no law checked (every law needs every input)\n", no_laws ? "--no-laws" : "sampled");
    else if (sample > 1)
        printf("sampled: the laws at every 2^20-th f32 input, against the model of the set the "
               "interpreter computes (a simulated GPU's deviate lines aside): %s\n",
               failed ? "some do not hold there" : "each holds there");
    else
        printf("%s\n", failed ? "some laws do not hold on this GPU: vkrr's model of it is not exact"
                              : "every law holds: vkrr's model of this GPU is exact");
    unsigned exact_cases = 0, tex_bits = 0;
    if (vkrr_hw_texture_survey(&be, sample > 1 ? 256 : 4096, stdout, &exact_cases, &tex_bits,
                               &err) != VKRR_OK ||
        (tex_bits && add_tex_bits(dir, tex_bits, &err) != VKRR_OK))
        goto fail;
    printf("texture filter: the measured model holds entirely in %u of 108 cases; vkrr applies "
           "it only to 4-channel HALF arrays, clamp, unnormalized (src/hw/texfilter.h)\n",
           exact_cases);
    rc = vkrr_status_exit_code(failed ? VKRR_ERR_MISMATCH : VKRR_OK);
    goto out;
fail:
    rc = vkrr_cli_fail(&err);
out:
    if (be.destroy)
        be.destroy(be.self);
    if (kdir[0])
        remove_kernel_dir(kdir);
    vkrr_hw_tables_close(ref);
    vkrr_hw_model_close(law_model);
    if (sim_model) {
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(sim_model);
    }
    return rc;
}

static void list_set(const char *dir)
{
    vkrr_hw_tables *t = NULL;
    vkrr_error err = {0};
    char man[1200];
    snprintf(man, sizeof man, "%s/tables.tsv", dir);
    if (access(man, F_OK) != 0)
        return;
    if (vkrr_hw_tables_open_dir(dir, &t, &err) != VKRR_OK) {
        char buf[1400];
        vkrr_error_format(&err, buf, sizeof buf);
        printf("  %s: DAMAGED: %s\n", dir, buf);
        return;
    }
    printf("  %-6s %s (%s)\n", vkrr_hw_tables_arch(t), dir, vkrr_hw_tables_device(t));
    vkrr_hw_tables_print_cuts(t, stdout, "         ");
    vkrr_hw_tables_close(t);
}

/* Sets in dir itself and in dir/sm_NN. */
static void list_folder(const char *dir)
{
    list_set(dir);
    for (int a = 50; a < 200; a++) {
        char sub[1100];
        snprintf(sub, sizeof sub, "%s/sm_%d", dir, a);
        list_set(sub);
    }
}

static int list(int argc, char **argv)
{
    const char *extra = NULL;
    static const vkrr_cli_opt opts[] = {{"hw-tables", 0, true, 0, false}, {0}};
    vkrr_cli_opts p = vkrr_cli_opts_begin("hw", argc, argv, 2, opts, NULL);
    const char *v;
    for (int id; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        if (id == VKRR_OPT_ERROR)
            return p.rc;
        if (id == VKRR_OPT_HELP) {
            fputs(hw_help, stdout);
            return 0;
        }
        if (id == VKRR_OPT_ARG)
            return vkrr_cli_usage_error("hw", "list: unexpected '%s'", v);
        extra = v;
    }
    vkrr_hw_tables *t = NULL;
    vkrr_error err = {0};
    printf("hardware tables vkrr finds, in the order it looks:\n");
    if (extra)
        list_folder(extra);
    const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    char user[1024] = "";
    if (x && x[0] == '/')
        snprintf(user, sizeof user, "%s/vkrr/hw", x);
    else if (home && home[0] == '/')
        snprintf(user, sizeof user, "%s/.local/share/vkrr/hw", home);
    if (user[0])
        list_folder(user);
    if (vkrr_hw_tables_open_shipped(&t, &err) == VKRR_OK) {
        printf("  %-6s built in (%s)\n", vkrr_hw_tables_arch(t), vkrr_hw_tables_device(t));
        vkrr_hw_tables_print_cuts(t, stdout, "         ");
        vkrr_hw_tables_close(t);
    }
    return 0;
}

int vkrr_cmd_hw(int argc, char **argv)
{
    if (argc < 2 || vkrr_cli_is_help(argv[1])) {
        fputs(hw_help, stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "measure"))
        return measure(argc, argv);
    if (!strcmp(argv[1], "list"))
        return list(argc, argv);
    static const char *const subs[] = {"measure", "list", NULL};
    return vkrr_cli_unknown_subcommand("hw", argv[1], subs);
}
