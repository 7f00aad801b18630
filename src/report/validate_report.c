/* The validate report: the terminal table and the JSON document.  Names in
 * the JSON are an interface: scripts depend on them. */
#include "validate_report.h"

#include "approx.h"
#include "color.h"
#include "json.h"
#include "validate_chain.h"

#include <math.h>
#include <string.h>

void vkrr_report_fmt_num(char *buf, size_t cap, double v)
{
    if (isinf(v))
        snprintf(buf, cap, "%s", v > 0 ? "inf" : "-inf");
    else if (isnan(v))
        snprintf(buf, cap, "nan");
    else if (v == 0)
        snprintf(buf, cap, "0");
    else if (fabs(v) >= 1e-3 && fabs(v) < 1e5)
        snprintf(buf, cap, "%.4g", v);
    else
        snprintf(buf, cap, "%.3e", v);
}

void vkrr_report_counts(char *buf, size_t cap, const unsigned *c)
{
    snprintf(buf, cap, "%u PASS, %u FAIL, %u NO PORT, %u TIMEOUT, %u ERROR, %u SKIPPED",
             c[VKRR_LAUNCH_PASS], c[VKRR_LAUNCH_FAIL], c[VKRR_LAUNCH_NO_PORT],
             c[VKRR_LAUNCH_TIMEOUT], c[VKRR_LAUNCH_ERROR], c[VKRR_LAUNCH_SKIPPED]);
}

void vkrr_report_launch_worst(const vkrr_launch_result *r, bool chained, int64_t *max_ulp,
                              double *psnr, double *max_abs)
{
    *max_ulp = 0;
    *psnr = INFINITY;
    *max_abs = 0;
    for (uint32_t i = 0; i < r->nres; i++) {
        const vkrr_comparison *c = chained ? &r->res[i].chained : &r->res[i].isolated;
        const vkrr_metrics *m = &c->m;
        if (chained ? !c->done : !r->has_isolated)
            continue;
        if (m->max_ulp > *max_ulp)
            *max_ulp = m->max_ulp;
        if (m->psnr < *psnr)
            *psnr = m->psnr;
        if (m->max_abs > *max_abs)
            *max_abs = m->max_abs;
    }
}

void vkrr_report_model_line(FILE *f, const vkrr_report_info *info)
{
    if (!info->hw_model)
        return;
    fprintf(f, "hardware model: %s", info->hw_model);
    if (info->hw_note && info->hw_note[0])
        fprintf(f, " (%s)", info->hw_note);
    fputc('\n', f);
}

void vkrr_report_table_header(FILE *f, bool rerun, bool chained, const char *last)
{
    fprintf(f, "%8s  %-32s %5s  %-14s %10s %8s %8s  %-7s", "seq", "kernel", "frame",
            "worst", "max abs", "max ULP", "PSNR dB", "status");
    if (chained)
        fprintf(f, "  %10s %8s %8s  %-7s %-9s", "ch max abs", "ch ULP", "ch PSNR", "chained",
                "role");
    if (rerun)
        fprintf(f, "  %12s %14s", "ULP vs rerun", "rerun vs cap");
    if (rerun && chained)
        fprintf(f, "  %13s", "ch vs orig");
    if (last)
        fprintf(f, "  %s", last);
    fputc('\n', f);
}

/* Chained with a rerun: the port's worst ULP against the original kernel on
 * the same chained inputs, and whether it is within tolerance. */
int64_t vkrr_report_original_ulp(const vkrr_launch_result *r)
{
    int64_t u = 0;
    for (uint32_t i = 0; i < r->nres; i++)
        if (r->res[i].chained_original.done && r->res[i].chained_original.m.max_ulp > u)
            u = r->res[i].chained_original.m.max_ulp;
    return u;
}

static void original_cell(FILE *f, const vkrr_launch_result *r)
{
    if (!r->chained_original_ran) {
        fprintf(f, "  %13s", "-");
        return;
    }
    bool nan = false; /* NaN/Inf mismatches have no ULP distance: say so */
    for (uint32_t i = 0; i < r->nres; i++)
        nan = nan || r->res[i].chained_original.m.nan_mismatch ||
              r->res[i].chained_original.m.inf_mismatch;
    char u[32];
    snprintf(u, sizeof u, "%lld", (long long)vkrr_report_original_ulp(r));
    fprintf(f, "  %8s", nan ? "NaN/Inf" : u);
    vkrr_color_word(f, " %-4s", r->chained_original_pass ? "ok" : "BAD");
}

/* What the kernel printed, under its row: the first lines, then how many
 * more (all of it is in the JSON and HTML reports). */
/* "buffer arg8", "surface arg16"; an argument of launch K of a fused run
 * "buffer 1:arg8" (its offset K * 4096 + OFF, fused_runs.h). */
static const char *res_name(bool is_buffer, uint32_t off, char *buf, size_t cap)
{
    const char *kind = is_buffer ? "buffer" : "surface";
    if (off >= VKRR_ARGS_MAX_BYTES)
        snprintf(buf, cap, "%s %u:arg%u", kind, off / VKRR_ARGS_MAX_BYTES, off % VKRR_ARGS_MAX_BYTES);
    else
        snprintf(buf, cap, "%s arg%u", kind, off);
    return buf;
}

static void print_printed(FILE *f, const char *s)
{
    enum { SHOWN = 8 };
    if (!s || !*s)
        return;
    unsigned lines = 0, total = 0;
    for (const char *p = s; *p; total++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (lines < SHOWN) {
            fprintf(f, "%8s  printf: %.*s\n", "", (int)(n > 200 ? 200 : n), p);
            lines++;
        }
        p += n + (nl ? 1 : 0);
    }
    if (total > lines)
        fprintf(f, "%8s  printf: ... %u more lines (all in --json and --report)\n", "",
                total - lines);
}

void vkrr_report_table_row(FILE *f, const vkrr_launch_result *r, bool rerun, bool chained, bool port)
{
    const vkrr_launch *l = r->launch;
    char worst[32] = "-", abs_s[32] = "-", ulp_s[32] = "-", psnr_s[32] = "-";
    if (r->worst >= 0) {
        const vkrr_resource_result *w = &r->res[r->worst];
        res_name(w->is_buffer, w->offset, worst, sizeof worst);
        vkrr_report_fmt_num(abs_s, sizeof abs_s, w->isolated.m.max_abs);
        snprintf(ulp_s, sizeof ulp_s, "%lld", (long long)w->isolated.m.max_ulp);
        vkrr_report_fmt_num(psnr_s, sizeof psnr_s, w->isolated.m.psnr);
    } else if (r->chained_worst >= 0) {
        const vkrr_resource_result *w = &r->res[r->chained_worst];
        res_name(w->is_buffer, w->offset, worst, sizeof worst);
    }
    fprintf(f, "%8llu  %-32s %5u  %-14s %10s %8s %8s", (unsigned long long)l->sequence,
            vkrr_launch_name(l), l->frame, worst, abs_s, ulp_s, psnr_s);
    vkrr_color_word(f, "  %-7s", r->has_isolated ? vkrr_launch_status_name(r->status) : "-");
    if (chained) {
        char ca[32] = "-", cu[32] = "-", cp[32] = "-";
        if (r->has_chained && r->nres) {
            int64_t u;
            double p, m;
            vkrr_report_launch_worst(r, true, &u, &p, &m);
            vkrr_report_fmt_num(ca, sizeof ca, m);
            snprintf(cu, sizeof cu, "%lld", (long long)u);
            vkrr_report_fmt_num(cp, sizeof cp, p);
        }
        fprintf(f, "  %10s %8s %8s", ca, cu, cp);
        vkrr_color_word(f, "  %-7s", r->has_chained ? vkrr_launch_status_name(r->chained_status) : "-");
        vkrr_color_word(f, " %-9s", vkrr_bisect_role(r));
    }
    if (rerun) {
        if (r->rerun && r->worst >= 0) {
            int64_t vr = 0, rc = 0;
            bool rc_pass = true;
            for (uint32_t i = 0; i < r->nres; i++) {
                if (r->res[i].isolated_original.m.max_ulp > vr)
                    vr = r->res[i].isolated_original.m.max_ulp;
                if (r->res[i].original_capture.m.max_ulp > rc)
                    rc = r->res[i].original_capture.m.max_ulp;
                rc_pass = rc_pass && r->res[i].original_capture.m.pass;
            }
            fprintf(f, "  %12lld %9lld", (long long)vr, (long long)rc);
            vkrr_color_word(f, " %-4s", rc_pass ? "ok" : "BAD");
        } else {
            fprintf(f, "  %12s %14s", "-", "-");
        }
    }
    if (rerun && chained)
        original_cell(f, r);
    if (port)
        fprintf(f, "  %s", r->port[0] ? r->port : "-");
    fputc('\n', f);
    if (r->note[0])
        fprintf(f, "%8s  note: %s\n", "", r->note);
    if (r->hw_note[0])
        fprintf(f, "%8s  model: %s\n", "", r->hw_note);
    if (r->perturbed)
        fprintf(f, "%8s  note: perturbed on purpose (--perturb)\n", "");
    print_printed(f, r->printed);
    for (uint32_t i = 0; i < r->nres; i++) {
        const vkrr_resource_result *x = &r->res[i];
        const vkrr_comparison *c = &x->chained, *o = &x->chained_original;
        char nm[48];
        if (c->done && !c->pass && !x->changed)
            fprintf(f, "%8s  chained %s: %.4f%% exact, max ULP %lld, %llu out of "
                       "tolerance%s%s\n", "", res_name(x->is_buffer, x->offset, nm, sizeof nm),
                    c->m.exact_pct, (long long)c->m.max_ulp, (unsigned long long)c->m.out_of_tol,
                    c->heatmap[0] ? "; heatmap: " : "", c->heatmap);
        if (o->done && !o->pass)
            fprintf(f, "%8s  chained %s against the original kernel on the same inputs: "
                       "%.4f%% exact, max ULP %lld, %llu out of tolerance, %llu NaN mismatches, "
                       "%llu bytes differ outside the windows\n", "",
                    res_name(x->is_buffer, x->offset, nm, sizeof nm), o->m.exact_pct,
                    (long long)o->m.max_ulp, (unsigned long long)o->m.out_of_tol,
                    (unsigned long long)o->m.nan_mismatch, (unsigned long long)o->outside);
        if (x->changed && r->has_isolated) {
            fprintf(f, "%8s  %s: not judged: its dump changed since capture\n", "",
                    res_name(x->is_buffer, x->offset, nm, sizeof nm));
            continue;
        }
        const vkrr_comparison *p = &x->isolated;
        if (p->pass || !r->has_isolated)
            continue;
        fprintf(f, "%8s  %s: %.4f%% exact, %llu out of tolerance, %llu NaN and %llu Inf "
                   "mismatches, %llu unwritten",
                "", res_name(x->is_buffer, x->offset, nm, sizeof nm), p->m.exact_pct,
                (unsigned long long)p->m.out_of_tol, (unsigned long long)p->m.nan_mismatch,
                (unsigned long long)p->m.inf_mismatch, (unsigned long long)p->m.unwritten);
        if (x->unchanged)
            fprintf(f, ", %llu the port left at their pre-launch bytes where CUDA wrote",
                    (unsigned long long)x->unchanged);
        if (x->cuda_unchanged)
            fprintf(f, ", %llu CUDA left at their pre-launch bytes where the port wrote",
                    (unsigned long long)x->cuda_unchanged);
        if (p->outside)
            fprintf(f, ", %llu bytes differ outside the layer's windows",
                    (unsigned long long)p->outside);
        if (p->m.max_abs_index != UINT64_MAX)
            fprintf(f, "; worst at x=%u y=%u plane=%u channel=%u", p->m.max_abs_pos.x,
                    p->m.max_abs_pos.y, p->m.max_abs_pos.plane, p->m.max_abs_pos.channel);
        fputc('\n', f);
        if (p->heatmap[0])
            fprintf(f, "%8s  heatmap: %s\n", "", p->heatmap);
    }
}

/* JSON has no Inf/NaN: an infinite PSNR (identical data) is written as null. */
static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void json_metrics(FILE *f, const vkrr_metrics *m)
{
    fprintf(f, "{\"type\": ");
    vkrr_json_put_string(f, vkrr_dtype_name(m->dtype));
    fprintf(f, ", \"count\": %llu, \"exact_pct\": ", (unsigned long long)m->count);
    json_num(f, m->exact_pct);
    fprintf(f, ", \"max_abs\": ");
    json_num(f, m->max_abs);
    if (m->max_abs_index != UINT64_MAX)
        fprintf(f, ", \"max_abs_at\": {\"index\": %llu, \"x\": %u, \"y\": %u, \"plane\": %u, "
                   "\"channel\": %u}",
                (unsigned long long)m->max_abs_index, m->max_abs_pos.x, m->max_abs_pos.y,
                m->max_abs_pos.plane, m->max_abs_pos.channel);
    else
        fprintf(f, ", \"max_abs_at\": null");
    fprintf(f, ", \"mean_abs\": ");
    json_num(f, m->mean_abs);
    fprintf(f, ", \"rmse\": ");
    json_num(f, m->rmse);
    fprintf(f, ", \"psnr\": ");
    json_num(f, m->psnr);
    fprintf(f, ", \"nmse\": ");
    json_num(f, m->nmse);
    fprintf(f, ", \"max_ulp\": %lld, \"within_1_ulp_pct\": ", (long long)m->max_ulp);
    json_num(f, m->within1_ulp_pct);
    fprintf(f, ", \"within_4_ulp_pct\": ");
    json_num(f, m->within4_ulp_pct);
    fprintf(f, ", \"nan_mismatches\": %llu, \"inf_mismatches\": %llu, \"unwritten\": %llu, "
               "\"out_of_tolerance\": %llu, \"tolerance\": {\"atol\": ",
            (unsigned long long)m->nan_mismatch, (unsigned long long)m->inf_mismatch,
            (unsigned long long)m->unwritten, (unsigned long long)m->out_of_tol);
    if (m->tol.atol >= 0) json_num(f, m->tol.atol); else fputs("null", f);
    fprintf(f, ", \"rtol\": ");
    if (m->tol.rtol >= 0) json_num(f, m->tol.rtol); else fputs("null", f);
    fprintf(f, ", \"max_ulp\": ");
    if (m->tol.max_ulp >= 0) fprintf(f, "%lld", (long long)m->tol.max_ulp); else fputs("null", f);
    fprintf(f, "}, \"pass\": %s}", m->pass ? "true" : "false");
}

/* The headline fields of a resource, in both modes: "pass" ... "nmse". */
static void json_headline(FILE *f, bool pass, const vkrr_metrics *m)
{
    fprintf(f, "\"pass\": %s, \"exact_pct\": ", pass ? "true" : "false");
    json_num(f, m->exact_pct);
    fprintf(f, ", \"max_abs\": ");
    json_num(f, m->max_abs);
    fprintf(f, ", \"max_ulp\": %lld, \"psnr\": ", (long long)m->max_ulp);
    json_num(f, m->psnr);
    fprintf(f, ", \"nmse\": ");
    json_num(f, m->nmse);
}

/* A pass's comparison of one resource: the headline, the bytes outside its
 * windows, its heatmap when the pass draws one, the metrics. */
static void json_comparison(FILE *f, const vkrr_comparison *c, bool heatmap)
{
    json_headline(f, c->pass, &c->m);
    fprintf(f, ", \"outside_window_bytes\": %llu", (unsigned long long)c->outside);
    if (heatmap) {
        fprintf(f, ", \"heatmap\": ");
        if (c->heatmap[0]) vkrr_json_put_string(f, c->heatmap); else fputs("null", f);
    }
    fprintf(f, ", \"metrics\": ");
    json_metrics(f, &c->m);
}

/* "coverage": [{kernel, module, branches: {taken, total}, instructions:
 * {ran, total}, missed: [...]}] */
static void json_coverage(FILE *f, const vkrr_kernel_coverage *c, uint32_t n)
{
    fprintf(f, ",\n  \"coverage\": [");
    for (uint32_t i = 0; i < n; i++, c++) {
        fprintf(f, "%s\n    {\"kernel\": ", i ? "," : "");
        vkrr_json_put_string(f, c->kernel);
        fprintf(f, ", \"module\": ");
        vkrr_json_put_string(f, c->module);
        fprintf(f, ", \"branch_directions\": {\"taken\": %u, \"total\": %u}, "
                   "\"instructions\": {\"ran\": %u, \"total\": %u}, \"missed\": [",
                c->dirs_taken, c->dirs_total, c->ran, c->instructions);
        for (uint32_t k = 0; k < c->nmiss; k++) {
            const vkrr_cov_miss *x = &c->miss[k];
            fprintf(f, "%s{\"kind\": \"%s\", \"line\": %u", k ? ", " : "",
                    x->span ? "instructions" : "branch", x->line0);
            if (x->span)
                fprintf(f, ", \"last_line\": %u, \"count\": %u", x->line1, x->count);
            else {
                fprintf(f, ", \"what\": ");
                vkrr_json_put_string(f, x->what);
            }
            fprintf(f, ", \"source\": ");
            if (x->src[0]) {
                vkrr_json_put_string(f, x->src);
                fprintf(f, ", \"source_line\": %u, \"text\": ", x->src_line);
                vkrr_json_put_string(f, x->text);
            } else {
                fputs("null", f);
            }
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("\n  ]", f);
}

/* "chain_restart": launches without a replay folder before it (0: none);
 * "links": each texture the chain fed from an earlier surface, or from the
 * capture where none is known, and how. */
static void json_feeds(FILE *f, const vkrr_launch_result *r)
{
    fprintf(f, ", \"chain_restart\": %llu, \"links\": [", (unsigned long long)r->chain_gap);
    for (uint32_t k = 0; k < r->nfeeds; k++) {
        const vkrr_chain_feed *d = &r->feeds[k];
        fprintf(f, "%s{\"arg\": %u, \"from\": ", k ? ", " : "", d->arg);
        if (d->from) {
            fprintf(f, "{\"launch\": %llu, \"kernel\": ", (unsigned long long)d->from->sequence);
            vkrr_json_put_string(f, d->from->kernel);
            fprintf(f, ", \"arg\": %u}, \"alike_args\": [", d->from_arg);
            for (uint32_t a = 0; a < d->nalike; a++)
                fprintf(f, "%s%u", a ? ", " : "", d->alike_arg[a]);
            fputc(']', f);
        } else {
            fputs("\"capture\"", f);
        }
        fputs(", \"how\": ", f);
        vkrr_json_put_string(f, vkrr_link_how_name(d->from ? d->how : VKRR_LINK_NONE));
        fputc('}', f);
    }
    fputc(']', f);
}

void vkrr_report_json(FILE *f, const vkrr_report_info *info, const vkrr_launch_result *res,
                      uint32_t n)
{
    fprintf(f, "{\n  ");
    vkrr_json_put_header(f, VKRR_SCHEMA_RESULTS, info->version);
    fprintf(f, ",\n  \"capture\": ");
    vkrr_json_put_string(f, info->capture);
    fprintf(f, ",\n  \"command\": ");
    vkrr_json_put_string(f, info->command ? info->command : "validate");
    fprintf(f, ",\n  \"capture_id\": \"%016llx\", \"capture_launches\": %u",
            (unsigned long long)info->capture_id, info->capture_launches);
    fprintf(f, ",\n  \"shard\": ");
    if (info->shards)
        fprintf(f, "{\"index\": %u, \"count\": %u}", info->shard, info->shards);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"only\": ");
    if (info->only) vkrr_json_put_string(f, info->only); else fputs("null", f);
    fprintf(f, ",\n  \"strict\": %s", info->strict ? "true" : "false");
    /* the backend the ports ran on; each launch's "port" names the port itself */
    fprintf(f, ",\n  \"port_backend\": ");
    vkrr_json_put_string(f, info->backend);
    fprintf(f, ",\n  \"device\": ");
    vkrr_json_put_string(f, info->device ? info->device : "");
    fprintf(f, ",\n  \"reference\": ");
    vkrr_json_put_string(f, info->reference);
    fprintf(f, ",\n  \"hardware_model\": ");
    if (info->hw_model) {
        fprintf(f, "{\"name\": ");
        vkrr_json_put_string(f, info->hw_model);
        fprintf(f, ", \"note\": ");
        vkrr_json_put_string(f, info->hw_note ? info->hw_note : "");
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    if (info->coverage)
        json_coverage(f, info->coverage, info->ncoverage);
    unsigned reused = 0, not_rerun = 0;
    for (uint32_t i = 0; i < n; i++) {
        reused += res[i].chained_reused;
        not_rerun += res[i].rerun_failed;
    }
    for (int chained = 0; chained < 2; chained++) {
        const unsigned *c = chained ? info->chained_counts : info->counts;
        if (chained && !(info->mode && !strcmp(info->mode, "both")))
            break;
        fprintf(f, ",\n  \"%s\": {\"launches\": %u, \"pass\": %u, \"fail\": %u, "
                   "\"no_port\": %u, \"timeout\": %u, \"error\": %u, \"skipped\": %u",
                chained ? "chained_summary" : "summary", n, c[VKRR_LAUNCH_PASS],
                c[VKRR_LAUNCH_FAIL], c[VKRR_LAUNCH_NO_PORT], c[VKRR_LAUNCH_TIMEOUT],
                c[VKRR_LAUNCH_ERROR], c[VKRR_LAUNCH_SKIPPED]);
        if (!chained)
            fprintf(f, ", \"unreadable\": %u, \"launches_total\": %u, \"interrupted\": %s",
                    info->unreadable, info->total ? info->total : n,
                    info->interrupted ? "true" : "false");
        if (!chained)
            fprintf(f, ", \"dispatches\": %u, \"chained_reused\": %u, \"original_not_rerun\": %u",
                    info->dispatches, reused, not_rerun);
        fputc('}', f);
    }
    fprintf(f, ",\n  \"damage\": [");
    for (uint32_t i = 0; i < info->ndamage; i++) {
        char buf[1400];
        vkrr_error_format(&info->damage[i], buf, sizeof buf);
        fputs(i ? ", " : "", f);
        vkrr_json_put_string(f, buf);
    }
    fprintf(f, "],\n");
    vkrr_bisect b;
    vkrr_bisect_analyze(res, n, &b);
    fprintf(f, "  \"mode\": ");
    vkrr_json_put_string(f, info->mode ? info->mode : "isolated");
    fprintf(f, ",\n  \"perturb\": ");
    if (info->perturb) vkrr_json_put_string(f, info->perturb); else fputs("null", f);
    fprintf(f, ",\n  \"bisect\": {\"first_divergence\": ");
    if (b.first_fail >= 0) fprintf(f, "%llu", (unsigned long long)res[b.first_fail].launch->sequence);
    else fputs("null", f);
    fprintf(f, ", \"class\": ");
    vkrr_json_put_string(f, b.first_fail < 0 ? "" : b.evidence == VKRR_EVIDENCE_NONE ? "unknown"
                : b.culprit ? "culprit" : "amplifier");
    fprintf(f, ", \"evidence\": ");
    if (b.evidence != VKRR_EVIDENCE_NONE) vkrr_json_put_string(f, vkrr_bisect_evidence_name(b.evidence));
    else fputs("null", f);
    fprintf(f, ", \"upstream\": ");
    if (b.first_fail >= 0 && !b.culprit && b.first_inexact >= 0 && b.first_inexact < b.first_fail)
        fprintf(f, "%llu", (unsigned long long)res[b.first_inexact].launch->sequence);
    else fputs("null", f);
    fprintf(f, ", \"later_culprits\": [");
    for (uint32_t i = b.first_fail < 0 ? n : (uint32_t)b.first_fail + 1, k = 0; i < n; i++)
        if (!strcmp(vkrr_bisect_role(&res[i]), "culprit"))
            fprintf(f, "%s%llu", k++ ? ", " : "", (unsigned long long)res[i].launch->sequence);
    fputc(']', f);
    fprintf(f, "},\n  \"launches\": [");
    for (uint32_t i = 0; i < n; i++) {
        const vkrr_launch_result *r = &res[i];
        const vkrr_launch *l = r->launch;
        fprintf(f, "%s\n    {\"sequence\": %llu, \"kernel\": ", i ? "," : "",
                (unsigned long long)l->sequence);
        vkrr_json_put_string(f, l->kernel);
        if (l->nfused) { /* a fused run (fused_runs.h): the launches it stands for */
            fprintf(f, ", \"fused\": {\"name\": ");
            vkrr_json_put_string(f, l->label);
            fprintf(f, ", \"sequences\": [");
            for (uint32_t k = 0; k < l->nfused; k++)
                fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)l->fused_seq[k]);
            fputc(']', f);
            fputc('}', f);
        }
        fprintf(f, ", \"frame\": %u, \"occurrence\": %u, \"status\": ", l->frame, l->occurrence);
        if (r->has_isolated) vkrr_json_put_string(f, vkrr_launch_status_name(r->status)); else fputs("null", f);
        if (r->has_chained) {
            fprintf(f, ", \"chained_status\": ");
            vkrr_json_put_string(f, vkrr_launch_status_name(r->chained_status));
            fprintf(f, ", \"chained_exact\": %s, \"role\": ", r->chained_exact ? "true" : "false");
            vkrr_json_put_string(f, vkrr_bisect_role(r));
            fprintf(f, ", \"role_evidence\": ");
            vkrr_json_put_string(f, vkrr_bisect_evidence_name(vkrr_bisect_evidence_of(r)));
            fprintf(f, ", \"chained\": \"%s\"",
                    r->chained_reused ? "same as isolated" : "dispatched");
            fprintf(f, ", \"chained_vs_original\": ");
            if (r->chained_original_ran)
                fprintf(f, "{\"pass\": %s, \"max_ulp\": %lld}",
                        r->chained_original_pass ? "true" : "false", (long long)vkrr_report_original_ulp(r));
            else
                fputs("null", f);
            if (r->skipped_for) {
                const vkrr_launch *sf = r->skipped_for;
                fprintf(f, ", \"skipped_for\": %llu, \"skipped_for_launch\": {\"sequence\": %llu, "
                           "\"kernel\": ", (unsigned long long)sf->sequence,
                        (unsigned long long)sf->sequence);
                vkrr_json_put_string(f, sf->kernel);
                fprintf(f, ", \"frame\": %u}", sf->frame);
            }
            fprintf(f, ", \"chained_worst\": ");
            if (r->chained_worst >= 0) fprintf(f, "%d", r->chained_worst); else fputs("null", f);
            json_feeds(f, r);
        }
        fprintf(f, ", \"worst\": ");
        if (r->worst >= 0) fprintf(f, "%d", r->worst); else fputs("null", f);
        fprintf(f, ", \"rerun\": %s, \"rerun_matches_capture\": %s, \"rerun_failed\": %s",
                r->rerun ? "true" : "false", r->rerun_matches_capture ? "true" : "false",
                r->rerun_failed ? "true" : "false");
        fprintf(f, ", \"port\": ");
        if (r->port[0]) vkrr_json_put_string(f, r->port); else fputs("null", f);
        fprintf(f, ", \"perturbed\": %s, \"damaged\": %s", r->perturbed ? "true" : "false",
                r->damaged ? "true" : "false");
        fprintf(f, ", \"note\": ");
        vkrr_json_put_string(f, r->note);
        fprintf(f, ", \"hw_note\": ");
        vkrr_json_put_string(f, r->hw_note);
        fprintf(f, ", \"printf\": ");
        if (r->printed) vkrr_json_put_string(f, r->printed); else fputs("null", f);
        fprintf(f, ", \"standins\": [");
        for (unsigned b = 0, k = 0; b < VKRR_STANDIN_COUNT; b++)
            if (r->standins & (1u << b)) {
                char nm[96];
                vkrr_approx_standin_names(1u << b, nm, sizeof nm);
                fputs(k++ ? ", " : "", f);
                vkrr_json_put_string(f, nm);
            }
        fputc(']', f);
        fprintf(f, ", \"seconds\": ");
        json_num(f, r->seconds);
        fprintf(f, ", \"resources\": [");
        for (uint32_t k = 0; k < r->nres; k++) {
            const vkrr_resource_result *x = &r->res[k];
            const vkrr_comparison *p = &x->isolated;
            const vkrr_metrics *m = &p->m;
            fprintf(f, "%s\n      {\"offset\": %u, \"kind\": \"%s\", \"type\": ", k ? "," : "",
                    x->offset, x->is_buffer ? "buffer" : "surface");
            vkrr_json_put_string(f, vkrr_dtype_name(p->done ? m->dtype : x->chained.m.dtype));
            if (x->is_buffer)
                fprintf(f, ", \"base\": \"0x%llx\", \"window_offset\": %llu",
                        (unsigned long long)x->base, (unsigned long long)x->view.offset);
            fprintf(f, ", \"width\": %u, \"height\": %u, \"planes\": %u, \"channels\": %u",
                    x->view.width, x->view.height, x->view.planes, x->view.channels);
            if (x->changed)
                fputs(", \"changed_since_capture\": true", f);
            if (p->done) {
                fputs(", ", f);
                json_headline(f, p->pass, m);
                fprintf(f, ", \"nan_mismatches\": %llu, \"outside_window_bytes\": %llu, "
                           "\"left_at_pre_launch\": %llu, \"cuda_left_at_pre_launch\": %llu, "
                           "\"output\": %s, \"heatmap\": ",
                        (unsigned long long)m->nan_mismatch, (unsigned long long)p->outside,
                        (unsigned long long)x->unchanged, (unsigned long long)x->cuda_unchanged,
                        x->output ? "true" : "false");
                if (p->heatmap[0]) vkrr_json_put_string(f, p->heatmap); else fputs("null", f);
                fprintf(f, ", \"metrics\": ");
                json_metrics(f, m);
            } else { /* not compared in isolation (chained only, or a dump that failed) */
                fputs(", \"pass\": null, \"metrics\": null", f);
            }
            if (x->isolated_original.done) {
                fprintf(f, ", \"port_vs_rerun\": ");
                json_metrics(f, &x->isolated_original.m);
                fprintf(f, ", \"rerun_vs_capture\": ");
                json_metrics(f, &x->original_capture.m);
            }
            if (x->chained.done) {
                fprintf(f, ", \"chained\": {");
                json_comparison(f, &x->chained, true);
                fputc('}', f);
            }
            if (x->chained_original.done) {
                fprintf(f, ", \"chained_vs_original\": {");
                json_comparison(f, &x->chained_original, false);
                fputc('}', f);
            }
            fputc('}', f);
        }
        fprintf(f, "%s]}", r->nres ? "\n    " : "");
    }
    fprintf(f, "\n  ]\n}\n");
}
