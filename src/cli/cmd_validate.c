/* vkrr validate: replay every captured launch through the Vulkan port,
 * compare each output with what CUDA wrote, print the per-layer table, write
 * heatmaps and JSON, and exit non-zero when a layer is out of tolerance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend_vk.h"
#include "capture.h"
#include "cli.h"
#include "compare.h"
#include "cpu_backend.h"
#include "cuda_backend.h"
#include "ptx.h"
#include "rrref_host.h"
#include "validate.h"
#include "validate_chain.h"
#include "validate_report.h"

static const char validate_help[] =
    "usage: vkrr validate CAPDIR [options]\n"
    "\n"
    "Replays every launch of the capture through the Vulkan port, each from its own\n"
    "captured inputs (isolated: the error shown is the port's own), and compares\n"
    "every output with what CUDA wrote: each allocation with a post-launch dump (the\n"
    "window the layer writes, in its own type, and the rest byte for byte) and\n"
    "every surface.  One row per launch, then a summary.\n"
    "\n"
    "modes:\n"
    "  --mode isolated|chained|both   (default both) chained runs the capture on the\n"
    "                       port from the first launch's inputs, each launch reading\n"
    "                       the port's own earlier outputs: the error accumulated up\n"
    "                       to it.  The summary names the first launch whose chained\n"
    "                       error leaves tolerance: the CULPRIT when its isolated\n"
    "                       error is out too, else an AMPLIFIER of error that began\n"
    "                       upstream (the first launch whose chained output is inexact)\n"
    "  --perturb KERNEL[#OCC]=ULPS  move every element of that launch's outputs by\n"
    "                       ULPS steps of its own type (occurrence 0 without #OCC), in\n"
    "                       both modes, to see how far an error travels\n"
    "\n"
    "output:\n"
    "  --out DIR            heatmaps go to DIR/heatmaps (default: vkrr-out)\n"
    "  --heatmaps WHICH     failing (default), all, or none\n"
    "  --json FILE          every metric of every resource of every launch\n"
    "  -q, --quiet          only the summary line and failures (no progress lines\n"
    "                       when stderr is not a terminal)\n"
    "  --report DIR         a self-contained HTML page DIR/index.html (summary, table,\n"
    "                       error profile, heatmaps copied to DIR/heatmaps)\n"
    "  --junit FILE         JUnit XML, one test case per launch\n"
    "  progress goes to stderr (rewritten in place on a terminal)\n"
    "\n"
    "reference:\n"
    "  --ref capture        compare the port with the capture (default)\n"
    "  --ref cpu            also rerun the original kernels on the CPU (where vkrr has\n"
    "                       their source) and show port vs rerun and rerun vs capture\n"
    "  --ref cuda           the same through libcuda on an NVIDIA GPU, with the modules\n"
    "                       of CAPDIR/modules (or --modules DIR); exit 3 without one\n"
    "  --ref ptx            the same from the modules' PTX, run by vkrr's PTX\n"
    "                       interpreter on this CPU (any kernel, no GPU, no source)\n"
    "  --modules DIR        CUDA modules (*.ptx, *.cubin, *.fatbin) for --ref cuda/ptx\n"
    "\n"
    "tolerance (defaults per type: f16 2 ULP, f32 4 ULP or 1e-6 + 1e-5*|ref|,\n"
    "e4m3 1 ULP, integers and bytes exact):\n"
    "  --tolerance FILE     per-kernel and per-argument rules, one per line:\n"
    "                         KERNEL[#OCC] [argOFF] atol=X rtol=X max_ulp=N|off\n"
    "                       ('*' matches any run of characters; later lines win)\n"
    "  --atol X, --rtol X, --max-ulp N   override every rule\n"
    "  --buffer-type T      type of buffers no port describes (default f16;\n"
    "                       bytes, f32, e4m3, ...)\n"
    "  --strict             a kernel with no port is a failure\n"
    "\n"
    "device:\n"
    "  --device INDEX|NAME  Vulkan device (default: first discrete GPU, else any)\n"
    "  --timeout SECONDS    a launch running longer is reported TIMEOUT (default 60)\n"
    "  --ports DIR          load NAME.spv port shaders from DIR over the built-in ones\n"
    "  --validation         enable the Khronos validation layer\n"
    "\n"
    "exit: 0 every launch passes, 1 a launch failed or timed out, 2 bad input or\n"
    "usage, 3 no usable Vulkan device or library.\n"
    "\n"
    "example:\n"
    "  vkrr synth /tmp/cap && vkrr validate /tmp/cap --json /tmp/cap.json\n";

static const char bisect_help[] =
    "usage: vkrr bisect CAPDIR [options]\n"
    "\n"
    "Runs the capture chained on the Vulkan port (each launch reading the port's own\n"
    "earlier outputs) and stops at the first launch whose chained error leaves\n"
    "tolerance.  It prints that launch and its class: the CULPRIT when its isolated\n"
    "error (from its own captured inputs) is out of tolerance too, else an\n"
    "AMPLIFIER, naming the upstream launch where the chained error first grew.\n"
    "\n"
    "options: --perturb, --tolerance, --atol, --rtol, --max-ulp, --buffer-type,\n"
    "--device, --timeout, --ports, --validation, --out, --heatmaps, --json, -q as for\n"
    "'vkrr validate' (see vkrr validate --help).\n"
    "\n"
    "exit: 0 no divergence, 1 a divergence was found, 2 bad input or usage, 3 no\n"
    "usable Vulkan device or library.\n";

typedef struct validate_args {
    const char *capdir, *out, *json, *ref, *heatmaps, *tolerance, *device, *ports, *modules;
    const char *buffer_type, *mode, *report, *junit, *perturb_text;
    vkrr_perturb perturb;
    bool bisect;
    vkrr_tol_override flags;
    double timeout;
    bool strict, validation, quiet;
} validate_args;

static int parse_args(int argc, char **argv, validate_args *a)
{
    bool bisect = !strcmp(argv[0], "bisect");
    *a = (validate_args){.out = "vkrr-out", .ref = "capture", .heatmaps = "failing",
                         .buffer_type = "f16", .mode = "both", .bisect = bisect};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                                  \
    do {                                                                              \
        if (!v)                                                                       \
            return vkrr_cli_usage_error(argv[0], "%s needs a value", o);           \
        i++;                                                                          \
    } while (0)
        if (vkrr_cli_is_help(o)) {
            fputs(bisect ? bisect_help : validate_help, stdout);
            return -1;
        } else if (!strcmp(o, "--mode") && !bisect) {
            NEED_VALUE();
            if (strcmp(v, "isolated") && strcmp(v, "chained") && strcmp(v, "both"))
                return vkrr_cli_usage_error(argv[0], "--mode takes isolated, chained or both, not '%s'", v);
            a->mode = v;
        } else if (!strcmp(o, "--perturb")) {
            NEED_VALUE();
            if (!vkrr_perturb_parse(v, &a->perturb))
                return vkrr_cli_usage_error(argv[0], "--perturb takes KERNEL[#OCC]=ULPS, not '%s'", v);
            a->perturb_text = v;
        } else if (!strcmp(o, "--report") && !bisect) {
            NEED_VALUE();
            a->report = v;
        } else if (!strcmp(o, "--junit") && !bisect) {
            NEED_VALUE();
            a->junit = v;
        } else if (!strcmp(o, "--out")) {
            NEED_VALUE();
            a->out = v;
        } else if (!strcmp(o, "--json")) {
            NEED_VALUE();
            a->json = v;
        } else if (!strcmp(o, "--ref")) {
            NEED_VALUE();
            if (strcmp(v, "capture") && strcmp(v, "cpu") && strcmp(v, "cuda") && strcmp(v, "ptx"))
                return vkrr_cli_usage_error(argv[0], "--ref takes capture, cpu, cuda or ptx, not '%s'", v);
            a->ref = v;
        } else if (!strcmp(o, "--heatmaps")) {
            NEED_VALUE();
            if (strcmp(v, "failing") && strcmp(v, "all") && strcmp(v, "none"))
                return vkrr_cli_usage_error(argv[0], "--heatmaps takes failing, all or none, not '%s'", v);
            a->heatmaps = v;
        } else if (!strcmp(o, "--tolerance")) {
            NEED_VALUE();
            a->tolerance = v;
        } else if (!strcmp(o, "--atol") || !strcmp(o, "--rtol")) {
            NEED_VALUE();
            double x;
            if (!vkrr_cli_parse_double(v, &x) || x < 0)
                return vkrr_cli_usage_error(argv[0], "%s takes a number >= 0, not '%s'", o, v);
            if (o[2] == 'a')
                a->flags.has_atol = true, a->flags.atol = x;
            else
                a->flags.has_rtol = true, a->flags.rtol = x;
        } else if (!strcmp(o, "--max-ulp")) {
            NEED_VALUE();
            uint64_t x;
            if (!strcmp(v, "off"))
                a->flags.has_max_ulp = true, a->flags.max_ulp = -1;
            else if (vkrr_cli_parse_u64(v, INT64_MAX, &x))
                a->flags.has_max_ulp = true, a->flags.max_ulp = (int64_t)x;
            else
                return vkrr_cli_usage_error(argv[0], "--max-ulp takes an integer >= 0 or off, not '%s'", v);
        } else if (!strcmp(o, "--buffer-type")) {
            NEED_VALUE();
            vkrr_dtype t;
            if (!vkrr_dtype_parse(v, &t))
                return vkrr_cli_usage_error(argv[0], "--buffer-type: unknown type '%s'", v);
            a->buffer_type = v;
        } else if (!strcmp(o, "--device")) {
            NEED_VALUE();
            a->device = v;
        } else if (!strcmp(o, "--timeout")) {
            NEED_VALUE();
            if (!vkrr_cli_parse_double(v, &a->timeout) || a->timeout <= 0)
                return vkrr_cli_usage_error(argv[0], "--timeout takes seconds > 0, not '%s'", v);
        } else if (!strcmp(o, "--modules")) {
            NEED_VALUE();
            a->modules = v;
        } else if (!strcmp(o, "--ports")) {
            NEED_VALUE();
            a->ports = v;
        } else if (!strcmp(o, "--strict")) {
            a->strict = true;
        } else if (!strcmp(o, "--validation")) {
            a->validation = true;
        } else if (!strcmp(o, "-q") || !strcmp(o, "--quiet")) {
            a->quiet = true;
        } else if (o[0] == '-') {
            return vkrr_cli_usage_error(argv[0], "unknown option '%s'", o);
        } else if (!a->capdir) {
            a->capdir = o;
        } else {
            return vkrr_cli_usage_error(argv[0], "unexpected argument '%s'", o);
        }
#undef NEED_VALUE
    }
    if (!a->capdir)
        return vkrr_cli_usage_error(argv[0], "missing CAPDIR");
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Launch i/N, frame, elapsed and an estimate of what is left: rewritten in
 * place on a terminal, one plain line per launch otherwise (logs, CI).  No
 * colour is used, so NO_COLOR has nothing to turn off. */
static void progress(bool tty, uint32_t i, uint32_t n, const vkrr_launch *l, double elapsed)
{
    double left = i ? elapsed / i * (n - i) : 0;
    if (tty)
        fprintf(stderr, "\r\033[Klaunch %u/%u  frame %u  %s  %.1fs elapsed  ~%.1fs left", i + 1,
                n, l->frame, l->kernel, elapsed, left);
    else
        fprintf(stderr, "progress: launch %u/%u frame %u %s %.1fs elapsed ~%.1fs left\n", i + 1,
                n, l->frame, l->kernel, elapsed, left);
    fflush(stderr);
}

int vkrr_cmd_validate(int argc, char **argv)
{
    validate_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;

    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    vkrr_tol_rules *rules = NULL;
    vkrr_backend port = {0}, rerun_be = {0};
    vkrr_launch_result *res = NULL;
    vkrr_chain *chain = NULL;
    char heatmap_dir[4096] = "";
    rc = 2;

    if (vkrr_capture_open(&cap, a.capdir, &err) != VKRR_OK)
        goto fail;
    if (cap->nlaunches == 0) {
        vkrr_fail(&err, VKRR_ERR_MISSING, a.capdir, 0, -1, "the capture holds no launches");
        goto fail;
    }
    if (vkrr_compare_tol_load(&rules, a.tolerance, &err) != VKRR_OK)
        goto fail;
    vkrr_compare_tol_set_flags(rules, &a.flags);
    if (strcmp(a.heatmaps, "none")) {
        /* with --report the heatmaps live next to the page that links them */
        snprintf(heatmap_dir, sizeof heatmap_dir, "%s/heatmaps", a.report ? a.report : a.out);
        if (vkrr_mkdirs(heatmap_dir, &err) != VKRR_OK)
            goto fail;
    }
    vkrr_vk_desc vd = {.device = a.device, .timeout_s = a.timeout, .ports_dir = a.ports,
                       .validation = a.validation};
    if (vkrr_vk_backend_create(&port, &vd, &err) != VKRR_OK)
        goto fail;
    char modules[4096];
    snprintf(modules, sizeof modules, "%s/modules", a.capdir);
    if (!strcmp(a.ref, "cpu") && vkrr_cpu_backend_create(&rerun_be, &err) != VKRR_OK)
        goto fail;
    if (!strcmp(a.ref, "cuda") &&
        vkrr_cuda_backend_create(&rerun_be, &(vkrr_cuda_desc){.module_dir = a.modules ? a.modules : modules},
                                 &err) != VKRR_OK)
        goto fail;
    if (!strcmp(a.ref, "ptx") &&
        vkrr_ptx_backend_create_dir(&rerun_be, a.modules ? a.modules : modules, &err) != VKRR_OK)
        goto fail;
    vkrr_vk_stats st;
    vkrr_vk_backend_stats(port.self, &st);

    vkrr_dtype bt = VKRR_DT_F16;
    vkrr_dtype_parse(a.buffer_type, &bt);
    vkrr_validate_opts opts = {
        .port = &port,
        .rerun = rerun_be.run ? &rerun_be : NULL,
        .rules = rules,
        .describe = rrref_describe_output,
        .buffer_dtype = bt,
        .heatmap_dir = heatmap_dir[0] ? heatmap_dir : NULL,
        .heatmaps_all = !strcmp(a.heatmaps, "all"),
    };
    res = calloc(cap->nlaunches, sizeof *res);
    if (!res) {
        vkrr_fail(&err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        goto fail;
    }
    bool rerun = opts.rerun != NULL;
    bool iso = !a.bisect && strcmp(a.mode, "chained");
    bool chn = a.bisect || strcmp(a.mode, "isolated");
    if (a.perturb_text)
        opts.perturb = &a.perturb;
    if (chn && vkrr_chain_create(&chain, cap, &err) != VKRR_OK)
        goto fail;
    printf("%s %s: %u launches in %u frames, port on %s%s%s, %s\n", argv[0], a.capdir,
           cap->nlaunches, cap->nframes, st.device_name, rerun ? ", original kernels rerun on " : "",
           rerun ? rerun_be.name : "",
           a.bisect ? "chained until the first divergence" : iso && chn ? "isolated and chained"
                                                            : iso ? "isolated" : "chained");
    if (!a.quiet && !a.bisect)
        vkrr_report_table_header(stdout, rerun, chn);
    vkrr_report_info info = {.capture = a.capdir, .port = port.name, .device = st.device_name,
                             .reference = a.ref, .mode = a.bisect ? "chained" : a.mode,
                             .perturb = a.perturb_text};
    uint32_t done = 0;
    unsigned chained_bad = 0;
    bool tty = isatty(fileno(stderr));
    double t0 = now_s();
    for (; done < cap->nlaunches; done++) {
        const vkrr_launch *l = &cap->launches[done];
        if (tty || !a.quiet) /* -q in a log: no per-launch lines */
            progress(tty, done, cap->nlaunches, l, now_s() - t0);
        if (iso && vkrr_validate_launch(&opts, cap, l, &res[done], &err) != VKRR_OK)
            goto fail;
        if (chn && vkrr_chain_run(chain, &opts, done, &res[done], &err) != VKRR_OK)
            goto fail;
        if (iso)
            info.counts[res[done].status]++;
        else
            info.counts[res[done].chained_status]++;
        bool cbad = chn && res[done].chained_status != VKRR_LAUNCH_PASS &&
                    res[done].chained_status != VKRR_LAUNCH_NO_PORT;
        chained_bad += cbad;
        if (a.bisect && cbad) {
            /* the verdict needs this launch's own error */
            vkrr_launch_result ir;
            if (vkrr_validate_launch(&opts, cap, l, &ir, &err) != VKRR_OK)
                goto fail;
            res[done].has_isolated = true;
            res[done].status = ir.status;
            for (uint32_t k = 0; k < res[done].nres && k < ir.nres; k++) {
                res[done].res[k].port = ir.res[k].port;
                res[done].res[k].pass = ir.res[k].pass;
                res[done].res[k].outside_diff = ir.res[k].outside_diff;
            }
            res[done].worst = ir.worst;
            vkrr_launch_result_free(&ir);
        }
        if (tty)
            fputs("\r\033[K", stderr);
        bool show = !a.quiet || res[done].status != VKRR_LAUNCH_PASS || cbad;
        if (show && !(a.bisect && !cbad))
            vkrr_report_table_row(stdout, &res[done], rerun, chn);
        fflush(stdout);
        if (a.bisect && cbad) {
            done++;
            break;
        }
    }
    if (tty)
        fputs("\r\033[K", stderr);
    unsigned bad = info.counts[VKRR_LAUNCH_FAIL] + info.counts[VKRR_LAUNCH_TIMEOUT] +
                   info.counts[VKRR_LAUNCH_ERROR] +
                   (a.strict ? info.counts[VKRR_LAUNCH_NO_PORT] : 0);
    if (!a.bisect)
        printf("summary: %u launches%s: %u PASS, %u FAIL, %u NO PORT, %u TIMEOUT, %u ERROR -> %s\n",
               cap->nlaunches, iso ? "" : " (chained)", info.counts[VKRR_LAUNCH_PASS],
               info.counts[VKRR_LAUNCH_FAIL], info.counts[VKRR_LAUNCH_NO_PORT],
               info.counts[VKRR_LAUNCH_TIMEOUT], info.counts[VKRR_LAUNCH_ERROR],
               bad || (chn && !iso && chained_bad) ? "FAIL" : "PASS");
    for (uint32_t i = 0; iso && i < done; i++)
        if (res[i].status == VKRR_LAUNCH_FAIL) {
            printf("first failing launch: #%llu %s (frame %u, occurrence %u)\n",
                   (unsigned long long)res[i].launch->sequence, res[i].launch->kernel,
                   res[i].launch->frame, res[i].launch->occurrence);
            break;
        }
    vkrr_bisect bis;
    vkrr_bisect_analyze(res, done, &bis);
    if (chn) {
        vkrr_bisect_print(stdout, &bis, res);
        uint64_t peak = 0;
        vkrr_chain_bytes(chain, &peak);
        if (!a.quiet)
            printf("chain: at most %.1f MiB of intermediate state held\n", peak / 1048576.0);
    }
    if (a.bisect)
        bad = bis.first_fail >= 0;
    else if (chn && !iso)
        bad += chained_bad;
    if (heatmap_dir[0])
        printf("heatmaps: %s\n", heatmap_dir);
    /* Any validation-layer message means the bridge or a port misuses Vulkan:
     * the results cannot be trusted, so the run fails. */
    vkrr_vk_backend_stats(port.self, &st);
    info.dispatches = st.pipelines_created + st.pipeline_hits;
    if (chn && !a.quiet) {
        unsigned reused = 0;
        for (uint32_t i = 0; i < done; i++)
            reused += res[i].chained_reused;
        printf("port: %u dispatches; %u chained results are the isolated ones (same inputs, "
               "not run again)\n", info.dispatches, reused);
    }
    if (a.validation) {
        printf("validation layer: %u messages\n", st.validation_messages);
        if (st.validation_messages)
            bad++;
    }
    if (a.json) {
        char *buf = NULL;
        size_t len = 0;
        FILE *mf = open_memstream(&buf, &len);
        if (!mf) {
            vkrr_fail(&err, VKRR_ERR_NOMEM, a.json, 0, -1, "out of memory");
            goto fail;
        }
        vkrr_report_json(mf, &info, res, done);
        fclose(mf);
        vkrr_status s = vkrr_write_file_atomic(a.json, buf, len, &err);
        free(buf);
        if (s != VKRR_OK)
            goto fail;
        printf("json: %s\n", a.json);
    }
    if (a.report) {
        if (vkrr_report_html_write(a.report, &info, res, done, &err) != VKRR_OK)
            goto fail;
        printf("report: %s/index.html\n", a.report);
    }
    if (a.junit) {
        if (vkrr_report_junit_write(a.junit, &info, res, done, &err) != VKRR_OK)
            goto fail;
        printf("junit: %s\n", a.junit);
    }
    rc = bad ? 1 : 0;
    goto out;
fail:
    rc = vkrr_cli_fail(&err);
out:
    for (uint32_t i = 0; res && cap && i < cap->nlaunches; i++)
        vkrr_launch_result_free(&res[i]);
    free(res);
    vkrr_chain_destroy(chain);
    if (port.destroy)
        port.destroy(port.self);
    if (rerun_be.destroy)
        rerun_be.destroy(rerun_be.self);
    vkrr_compare_tol_destroy(rules);
    vkrr_capture_close(cap);
    return rc;
}

int vkrr_cmd_bisect(int argc, char **argv)
{
    return vkrr_cmd_validate(argc, argv);
}
