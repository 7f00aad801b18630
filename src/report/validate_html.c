/* The validate report as one self-contained HTML page and as JUnit XML, and
 * the atomic writes of every report file (HTML, JUnit, JSON).
 * Nothing in the page is fetched: CSS and the SVG profile are inline, there
 * is no script, heatmaps are relative links into DIR/heatmaps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapfile.h"
#include "validate_chain.h"
#include "heatmap.h"
#include "validate_report.h"

static void esc(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                fputc(*s, f);
        }
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A heatmap's table of values (heatmap.h: a buffer too small for a picture,
 * or the worst values beside a thin one's wrapped picture): the elements,
 * worst first, at most VALUES_SHOWN of them, and a link to the whole file.
 * With --dump-values the file has a line per element (a thin buffer of a
 * real capture: millions), so only the worst VALUES_SHOWN are kept, in
 * order as they come: O(lines x VALUES_SHOWN), the order a stable sort of
 * the whole file would give. */
enum { VALUES_SHOWN = 64 };

static void values_table(FILE *f, const char *path)
{
    FILE *in = fopen(path, "r");
    fputs("<a href='heatmaps/", f);
    esc(f, base_name(path));
    fputs("'>values</a>", f);
    if (!in)
        return;
    typedef struct row {
        char text[512]; /* a line of the file */
        double err;
    } row;
    row worst[VALUES_SHOWN]; /* worst first; ties in file order (33 KB) */
    size_t n = 0, kept = 0;
    char line[512];
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#' || !strncmp(line, "index", 5))
            continue;
        line[strcspn(line, "\n")] = 0;
        const char *e = strrchr(line, '\t');
        double err = e ? strtod(e + 1, NULL) : 0;
        n++;
        if (kept == VALUES_SHOWN && !(worst[kept - 1].err < err))
            continue;
        size_t j = kept < VALUES_SHOWN ? kept++ : kept - 1;
        for (; j > 0 && worst[j - 1].err < err; j--)
            worst[j] = worst[j - 1];
        snprintf(worst[j].text, sizeof worst[j].text, "%s", line);
        worst[j].err = err;
    }
    fclose(in);
    fputs("<table class='v'><tr><th>i</th><th>x</th><th>y</th><th>plane</th><th>ch</th>"
          "<th>reference</th><th>port</th><th>|error|</th></tr>", f);
    for (size_t i = 0; i < kept; i++) {
        fputs("<tr>", f);
        for (char *s = worst[i].text, *t; s; s = t) {
            t = strchr(s, '\t');
            if (t)
                *t++ = 0;
            fputs("<td>", f);
            esc(f, s);
            fputs("</td>", f);
        }
        fputs("</tr>", f);
    }
    fputs("</table>", f);
    if (n > kept)
        fprintf(f, "%zu more in the file", n - kept);
}

/* y of a value on a log scale in [lo, hi] mapped to [top, bottom] */
static double ylog(double v, double lo, double hi, double top, double bottom)
{
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    return bottom - (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * (bottom - top);
}

static void polyline(FILE *f, const vkrr_launch_result *res, uint32_t n, bool chained, bool psnr,
                     double x0, double dx, double lo, double hi, double top, double bottom,
                     const char *colour, const char *dash)
{
    fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5' %s points='", colour, dash);
    for (uint32_t i = 0; i < n; i++) {
        if (chained ? !res[i].has_chained : !res[i].has_isolated)
            continue;
        int64_t u;
        double p, m;
        vkrr_report_launch_worst(&res[i], chained, &u, &p, &m);
        double v = psnr ? (isfinite(p) ? p : hi) : (double)u + 1; /* ULP+1: 0 sits on the axis */
        fprintf(f, "%.1f,%.1f ", x0 + dx * i, ylog(v, lo, hi, top, bottom));
    }
    fputs("'/>\n", f);
}

static void profile(FILE *f, const vkrr_launch_result *res, uint32_t n, const vkrr_bisect *b)
{
    const double W = 900, H = 200, x0 = 60, top = 20, bottom = 170;
    double dx = n > 1 ? (W - x0 - 20) / (n - 1) : 0;
    fprintf(f, "<h2>Error profile</h2>\n<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' "
               "height='%.0f' role='img' aria-label='max ULP per launch'>\n", W, H);
    fprintf(f, "<rect x='%.0f' y='%.0f' width='%.0f' height='%.0f' fill='#fafafa' "
               "stroke='#999'/>\n", x0, top, W - x0 - 20, bottom - top);
    for (int d = 0; d <= 6; d += 2)
        fprintf(f, "<text x='5' y='%.1f' font-size='10'>%s1e%d</text>\n",
                ylog(pow(10, d), 1, 1e6, top, bottom) + 3, "ULP ", d);
    if (b->first_fail >= 0)
        fprintf(f, "<line id='first-divergence' x1='%.1f' x2='%.1f' y1='%.0f' y2='%.0f' "
                   "stroke='red' stroke-width='2'/><text x='%.1f' y='14' font-size='11' "
                   "fill='red'>first divergence #%llu</text>\n",
                x0 + dx * b->first_fail, x0 + dx * b->first_fail, top, bottom,
                x0 + dx * b->first_fail + 3,
                (unsigned long long)res[b->first_fail].launch->sequence);
    polyline(f, res, n, false, false, x0, dx, 1, 1e6, top, bottom, "#1f77b4", "");
    polyline(f, res, n, true, false, x0, dx, 1, 1e6, top, bottom, "#d62728", "");
    fprintf(f, "<text x='%.0f' y='195' font-size='11'>launch order &#8594;  "
               "<tspan fill='#1f77b4'>isolated max ULP+1</tspan>  "
               "<tspan fill='#d62728'>chained max ULP+1</tspan> (log)</text>\n</svg>\n", x0);
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' role='img' "
               "aria-label='PSNR per launch'>\n<rect x='%.0f' y='%.0f' width='%.0f' height='%.0f' "
               "fill='#fafafa' stroke='#999'/>\n", W, H, x0, top, W - x0 - 20, bottom - top);
    for (int d = 10; d <= 1000; d *= 10)
        fprintf(f, "<text x='5' y='%.1f' font-size='10'>%d dB</text>\n",
                ylog(d, 1, 1000, top, bottom) + 3, d);
    polyline(f, res, n, false, true, x0, dx, 1, 1000, top, bottom, "#1f77b4", "");
    polyline(f, res, n, true, true, x0, dx, 1, 1000, top, bottom, "#d62728",
             "stroke-dasharray='4 2'");
    fprintf(f, "<text x='%.0f' y='195' font-size='11'>PSNR per launch (log; identical = top)"
               "</text>\n</svg>\n", x0);
}

/* Worst max abs, max ULP and PSNR of one mode, formatted. */
static int64_t worst_strings(const vkrr_launch_result *r, bool chained, char ms[32], char ps[32])
{
    int64_t u;
    double p, m;
    vkrr_report_launch_worst(r, chained, &u, &p, &m);
    vkrr_report_fmt_num(ps, 32, p);
    vkrr_report_fmt_num(ms, 32, m);
    return u;
}

static void metric_cells(FILE *f, const vkrr_launch_result *r, bool chained)
{
    bool has = chained ? r->has_chained : r->has_isolated;
    if (!has) {
        fputs("<td>-</td><td>-</td><td>-</td><td>-</td>", f);
        return;
    }
    char ps[32], ms[32];
    int64_t u = worst_strings(r, chained, ms, ps);
    vkrr_launch_status st = chained ? r->chained_status : r->status;
    bool unread = st == VKRR_LAUNCH_SKIPPED || (st == VKRR_LAUNCH_ERROR && r->damaged);
    fprintf(f, "<td>%s</td><td>%lld</td><td>%s</td><td class='%s'>%s</td>", ms, (long long)u, ps,
            st == VKRR_LAUNCH_PASS ? "pass" : unread ? "unread" : "fail",
            vkrr_launch_status_name(st));
}

/* --coverage: per kernel, what its launches reached and each thing none did. */
static void coverage_html(FILE *f, const vkrr_kernel_coverage *c, uint32_t n)
{
    if (!c)
        return;
    fputs("<h2>Coverage of the original kernels</h2>\n", f);
    for (uint32_t i = 0; i < n; i++, c++) {
        fputs("<h3>", f);
        esc(f, c->kernel);
        fprintf(f, "</h3>\n<p>branch directions taken: %u of %u; instructions run: %u of %u "
                   "(<code>", c->dirs_taken, c->dirs_total, c->ran, c->instructions);
        esc(f, c->module);
        fputs("</code>)</p>\n", f);
        if (!c->nmiss)
            continue;
        fputs("<table><thead><tr><th>PTX line</th><th>never</th><th>source</th></tr></thead>"
              "<tbody>\n", f);
        for (uint32_t k = 0; k < c->nmiss; k++) {
            const vkrr_cov_miss *x = &c->miss[k];
            if (x->span)
                fprintf(f, "<tr><td>%u-%u</td><td>%u instructions ran</td><td>", x->line0, x->line1,
                        x->count);
            else
                fprintf(f, "<tr><td>%u</td><td>%s</td><td>", x->line0, x->what + 6);
            if (x->src[0]) {
                esc(f, x->src);
                fprintf(f, ":%u", x->src_line);
                if (x->text[0]) {
                    fputs(" <code>", f);
                    esc(f, x->text);
                    fputs("</code>", f);
                }
            }
            fputs("</td></tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
}

static void html(FILE *f, const vkrr_report_info *info, const vkrr_launch_result *res, uint32_t n)
{
    vkrr_bisect b;
    vkrr_bisect_analyze(res, n, &b);
    fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n<title>vkrr validate: ",
          f);
    esc(f, info->capture);
    fputs("</title>\n<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:"
          "collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
          "td.k{text-align:left}.pass{color:#060}.fail{color:#b00;font-weight:bold}"
          "tr.div{background:#fee}img.t{width:160px;border:1px solid #aaa}"
          ".unread{color:#a60;font-weight:bold}</style>\n"
          "</head><body>\n<h1>vkrr validate</h1>\n<p id='summary'>capture <code>", f);
    esc(f, info->capture);
    fprintf(f, "</code>, port %s on ", info->backend);
    esc(f, info->device ? info->device : "?");
    char counts[200];
    vkrr_report_counts(counts, sizeof counts, info->counts);
    fprintf(f, ", mode %s, %u launches: %s", info->mode ? info->mode : "isolated", n, counts);
    if (info->hw_model) {
        fputs("; hardware model ", f);
        esc(f, info->hw_model);
        if (info->hw_note && info->hw_note[0]) {
            fputs(" (", f);
            esc(f, info->hw_note);
            fputs(")", f);
        }
    }
    if (info->mode && !strcmp(info->mode, "both")) {
        vkrr_report_counts(counts, sizeof counts, info->chained_counts);
        fprintf(f, "; chained: %s", counts);
    }
    if (info->unreadable)
        fprintf(f, "; <span class='unread'>%u launches could not be validated</span>",
                info->unreadable);
    if (info->perturb) {
        fputs("; perturbed: <code>", f);
        esc(f, info->perturb);
        fputs("</code>", f);
    }
    fputs(".</p>\n", f);
    if (info->interrupted)
        fprintf(f, "<p id='interrupted' class='unread'>interrupted: the results of the first %u "
                   "of %u launches</p>\n", n, info->total);
    for (uint32_t i = 0; i < info->ndamage; i++) {
        char buf[1400];
        vkrr_error_format(&info->damage[i], buf, sizeof buf);
        fputs("<p class='damage unread'>damaged: ", f);
        esc(f, buf);
        fputs("</p>\n", f);
    }
    fputs("<p id='bisect'>", f);
    char *vb = NULL;
    size_t vl = 0;
    FILE *m = open_memstream(&vb, &vl);
    if (m) {
        vkrr_bisect_print(m, &b, res);
        fclose(m);
        esc(f, vb);
        free(vb);
    }
    fputs("</p>\n", f);
    profile(f, res, n, &b);
    fputs("<h2>Launches</h2>\n<table id='launches'>\n<thead><tr><th>seq</th><th>kernel</th>"
          "<th>frame</th><th>occ</th><th>max abs</th><th>max ULP</th><th>PSNR</th>"
          "<th>isolated</th><th>chained max abs</th><th>chained max ULP</th><th>chained PSNR"
          "</th><th>chained</th><th>role</th>", f);
    bool orig = false; /* a rerun backend ran the original on chained inputs */
    for (uint32_t i = 0; i < n; i++)
        orig = orig || res[i].chained_original_ran;
    if (orig)
        fputs("<th title='max ULP of the port against the original kernel run on the same "
              "chained inputs'>chained vs original</th>", f);
    fputs("<th>port</th><th>heatmaps</th><th>note</th></tr></thead>\n<tbody>\n", f);
    for (uint32_t i = 0; i < n; i++) {
        const vkrr_launch_result *r = &res[i];
        fprintf(f, "<tr%s><td>%llu</td><td class='k'>", (int)i == b.first_fail ? " class='div'" : "",
                (unsigned long long)r->launch->sequence);
        esc(f, vkrr_launch_name(r->launch));
        fprintf(f, "</td><td>%u</td><td>%u</td>", r->launch->frame, r->launch->occurrence);
        metric_cells(f, r, false);
        metric_cells(f, r, true);
        fprintf(f, "<td class='k'>%s", vkrr_bisect_role(r));
        if (vkrr_bisect_role(r)[0] && vkrr_bisect_evidence_of(r) != VKRR_EVIDENCE_NONE)
            fprintf(f, " (by %s)", vkrr_bisect_evidence_name(vkrr_bisect_evidence_of(r)));
        fputs("</td>", f);
        if (orig && r->chained_original_ran)
            fprintf(f, "<td class='%s'>%lld %s</td>", r->chained_original_pass ? "pass" : "fail",
                    (long long)vkrr_report_original_ulp(r), r->chained_original_pass ? "ok" : "BAD");
        else if (orig)
            fputs("<td>-</td>", f);
        fputs("<td class='k'>", f);
        esc(f, r->port[0] ? r->port : "-");
        fputs("</td><td class='k'>", f);
        for (uint32_t k = 0; k < r->nres; k++)
            for (int c = 0; c < 2; c++) {
                const char *h = c ? r->res[k].chained.heatmap : r->res[k].isolated.heatmap;
                if (!h[0])
                    continue;
                size_t hl = strlen(h);
                if (hl > 4 && !strcmp(h + hl - 4, ".tsv")) { /* too small for a picture */
                    values_table(f, h);
                    continue;
                }
                fputs("<a href='heatmaps/", f);
                esc(f, base_name(h));
                fputs("'><img class='t' alt='heatmap' src='heatmaps/", f);
                esc(f, base_name(h));
                fputs("'></a>", f);
                char tsv[sizeof r->res[k].isolated.heatmap];
                snprintf(tsv, sizeof tsv, "%s", h);
                vkrr_heatmap_table_path(tsv); /* a wrapped picture's worst values beside it */
                if (strcmp(tsv, h) && access(tsv, R_OK) == 0)
                    values_table(f, tsv);
            }
        fputs("</td><td class='k'>", f);
        esc(f, r->note);
        if (r->hw_note[0]) {
            fputs(r->note[0] ? "<br>model: " : "model: ", f);
            esc(f, r->hw_note);
        }
        if (r->printed) {
            fputs("<details><summary>printf</summary><pre>", f);
            esc(f, r->printed);
            fputs("</pre></details>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    coverage_html(f, info->coverage, info->ncoverage);
    fputs("</body></html>\n", f);
}

static vkrr_status write_mem(const char *path, void (*fn)(FILE *, const vkrr_report_info *,
                                                          const vkrr_launch_result *, uint32_t),
                             const vkrr_report_info *info, const vkrr_launch_result *res,
                             uint32_t n, vkrr_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
    fn(m, info, res, n);
    fclose(m);
    vkrr_status s = vkrr_write_file_atomic(path, buf, len, err);
    free(buf);
    return s;
}

vkrr_status vkrr_report_html_write(const char *dir, const vkrr_report_info *info,
                                   const vkrr_launch_result *res, uint32_t n, vkrr_error *err)
{
    vkrr_status s = vkrr_mkdirs(dir, err);
    if (s != VKRR_OK)
        return s;
    char path[4096];
    snprintf(path, sizeof path, "%s/index.html", dir);
    return write_mem(path, html, info, res, n, err);
}

static void junit_failure(FILE *f, const vkrr_launch_result *r, bool chained)
{
    char ps[32], ms[32];
    int64_t u = worst_strings(r, chained, ms, ps);
    fprintf(f, "%s %s: max abs %s, max ULP %lld, PSNR %s dB", chained ? "chained" : "isolated",
            vkrr_launch_status_name(chained ? r->chained_status : r->status), ms, (long long)u, ps);
    if (chained && vkrr_bisect_role(r)[0])
        fprintf(f, " (%s)", vkrr_bisect_role(r));
    fputs("; ", f);
}

/* One launch for JUnit: a failure of the port, a launch that could not be
 * validated (an error: the capture's, not the port's), or one with nothing
 * to judge (no port, skipped). */
typedef enum junit_kind { JUNIT_PASS, JUNIT_FAILURE, JUNIT_ERROR, JUNIT_SKIPPED } junit_kind;

static junit_kind junit_kind_of(const vkrr_launch_result *r)
{
    bool ib = r->has_isolated && r->status != VKRR_LAUNCH_PASS && r->status != VKRR_LAUNCH_NO_PORT &&
              !(r->status == VKRR_LAUNCH_ERROR && r->damaged);
    bool cb = r->has_chained && r->chained_status != VKRR_LAUNCH_PASS &&
              r->chained_status != VKRR_LAUNCH_NO_PORT && r->chained_status != VKRR_LAUNCH_SKIPPED &&
              !(r->chained_status == VKRR_LAUNCH_ERROR && r->damaged);
    if (ib || cb)
        return JUNIT_FAILURE;
    if (r->damaged || (r->has_chained && r->chained_status == VKRR_LAUNCH_SKIPPED))
        return JUNIT_ERROR;
    if ((!r->has_isolated || r->status == VKRR_LAUNCH_NO_PORT) &&
        (!r->has_chained || r->chained_status == VKRR_LAUNCH_NO_PORT))
        return JUNIT_SKIPPED;
    return JUNIT_PASS;
}

static void junit(FILE *f, const vkrr_report_info *info, const vkrr_launch_result *res, uint32_t n)
{
    unsigned count[4] = {0};
    for (uint32_t i = 0; i < n; i++)
        count[junit_kind_of(&res[i])]++;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"", f);
    esc(f, info->capture);
    fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n", n,
            count[JUNIT_FAILURE], count[JUNIT_ERROR], count[JUNIT_SKIPPED]);
    fputs("  <properties>", f);
    if (info->hw_model) {
        fputs("<property name=\"hardware_model\" value=\"", f);
        esc(f, info->hw_model);
        if (info->hw_note && info->hw_note[0]) {
            fputs(" (", f);
            esc(f, info->hw_note);
            fputs(")", f);
        }
        fputs("\"/>", f);
    }
    if (info->interrupted)
        fprintf(f, "<property name=\"interrupted\" value=\"the first %u of %u launches\"/>", n,
                info->total);
    if (info->capture_id)
        fprintf(f, "<property name=\"capture_id\" value=\"%016llx\"/>",
                (unsigned long long)info->capture_id);
    if (info->shards)
        fprintf(f, "<property name=\"shard\" value=\"%u/%u\"/>", info->shard, info->shards);
    fputs("</properties>\n", f);
    for (uint32_t i = 0; i < n; i++) {
        const vkrr_launch_result *r = &res[i];
        const vkrr_launch *l = r->launch;
        fputs("  <testcase classname=\"", f);
        esc(f, l->kernel);
        fprintf(f, "\" name=\"seq %llu frame %u occ %u\" time=\"%.6f\"",
                (unsigned long long)l->sequence, l->frame, l->occurrence, r->seconds);
        junit_kind k = junit_kind_of(r);
        if (k == JUNIT_PASS && !r->port[0]) {
            fputs("/>\n", f);
            continue;
        }
        fputs(">\n", f);
        if (r->port[0]) { /* which port ran: a run-time file or the built-in one */
            fputs("    <properties><property name=\"port\" value=\"", f);
            esc(f, r->port);
            fputs("\"/></properties>\n", f);
        }
        if (k == JUNIT_PASS) {
            /* passed: the properties are all there is to say */
        } else if (k == JUNIT_SKIPPED) {
            fputs("    <skipped message=\"no port\"/>\n", f);
        } else if (k == JUNIT_ERROR) {
            fputs("    <error message=\"could not be validated: ", f);
            esc(f, r->note);
            fputs("\"/>\n", f);
        } else {
            char *mb = NULL;
            size_t ml = 0;
            FILE *m = open_memstream(&mb, &ml);
            if (m) {
                if (r->has_isolated)
                    junit_failure(m, r, false);
                if (r->has_chained)
                    junit_failure(m, r, true);
                if (r->note[0])
                    fprintf(m, "note: %s", r->note);
                if (r->hw_note[0])
                    fprintf(m, "%smodel: %s", r->note[0] ? "; " : "", r->hw_note);
                fclose(m);
            }
            fputs("    <failure message=\"", f);
            esc(f, mb ? mb : "out of tolerance");
            fputs("\"/>\n", f);
            free(mb);
        }
        fputs("  </testcase>\n", f);
    }
    fputs("</testsuite>\n</testsuites>\n", f);
}

vkrr_status vkrr_report_junit_write(const char *path, const vkrr_report_info *info,
                                    const vkrr_launch_result *res, uint32_t n, vkrr_error *err)
{
    return write_mem(path, junit, info, res, n, err);
}

vkrr_status vkrr_report_json_write(const char *path, const vkrr_report_info *info,
                                   const vkrr_launch_result *res, uint32_t n, vkrr_error *err)
{
    return write_mem(path, vkrr_report_json, info, res, n, err);
}
