/* cli_coverage.c - --coverage (rerun, validate --ref ptx): what the
 * original kernels did over a run's launches, gathered once per kernel from
 * the backend that ran them, printed after the summary and handed to the
 * JSON and HTML reports (vkrr_report_info.coverage). */
#include "cli_coverage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line n (1-based) of a source file, as the PTX names it (a relative path:
 * from the current folder, else beside the module), trimmed; false when it
 * cannot be read. */
static bool source_line(const char *src, const char *module, uint32_t n, char *out, size_t cap)
{
    FILE *f = fopen(src, "r");
    if (!f && src[0] != '/') {
        char path[4096];
        const char *slash = strrchr(module, '/');
        snprintf(path, sizeof path, "%.*s/%s", slash ? (int)(slash - module) : 1,
                 slash ? module : ".", src);
        f = fopen(path, "r");
    }
    if (!f)
        return false;
    char line[1024];
    bool got = false;
    for (uint32_t i = 1; fgets(line, sizeof line, f); i += strchr(line, '\n') != NULL) {
        if (i == n) {
            const char *s = line;
            while (*s == ' ' || *s == '\t')
                s++;
            size_t l = strcspn(s, "\r\n");
            snprintf(out, cap, "%.*s", (int)l, s);
            got = true;
            break;
        }
    }
    fclose(f);
    return got;
}

static void miss_source(vkrr_cov_miss *x, const char *src, uint32_t line, const char *module)
{
    if (!src)
        return;
    snprintf(x->src, sizeof x->src, "%s", src);
    x->src_line = line;
    if (!source_line(src, module, line, x->text, sizeof x->text))
        x->text[0] = 0;
}

static bool kernel_coverage(const vkrr_backend *be, const char *k, vkrr_kernel_coverage *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->kernel, sizeof c->kernel, "%s", k);
    const char *mod = "";
    uint32_t nb = be->coverage(be->self, k, NULL, 0, &mod);
    uint32_t ran = 0, total = 0;
    uint32_t ns = be->instr_coverage ? be->instr_coverage(be->self, k, &ran, &total, NULL, 0) : 0;
    vkrr_branch_cov *b = malloc((nb ? nb : 1) * sizeof *b);
    vkrr_span_cov *s = malloc((ns ? ns : 1) * sizeof *s);
    c->miss = calloc(nb + ns + 1, sizeof *c->miss);
    if (!b || !s || !c->miss) {
        free(b);
        free(s);
        free(c->miss);
        c->miss = NULL;
        return false;
    }
    nb = be->coverage(be->self, k, b, nb, &mod);
    if (be->instr_coverage)
        ns = be->instr_coverage(be->self, k, &ran, &total, s, ns);
    snprintf(c->module, sizeof c->module, "%s", mod);
    c->dirs_total = 2 * nb;
    c->ran = ran;
    c->instructions = total;
    for (uint32_t q = 0; q < nb; q++) {
        c->dirs_taken += b[q].taken + b[q].fell;
        if (b[q].taken && b[q].fell)
            continue;
        vkrr_cov_miss *x = &c->miss[c->nmiss++];
        x->line0 = x->line1 = b[q].line;
        x->what = !b[q].ran ? "never reached" : !b[q].taken ? "never taken" : "never fell through";
        miss_source(x, b[q].src, b[q].src_line, mod);
    }
    for (uint32_t q = 0; q < ns; q++) {
        vkrr_cov_miss *x = &c->miss[c->nmiss++];
        x->span = true;
        x->line0 = s[q].line0, x->line1 = s[q].line1, x->count = s[q].count;
        miss_source(x, s[q].src, s[q].src_line, mod);
    }
    free(b);
    free(s);
    return true;
}

vkrr_kernel_coverage *vkrr_cli_coverage(const vkrr_backend *be, const vkrr_launch_result *res,
                                        uint32_t n, uint32_t *count)
{
    *count = 0;
    if (!be || !be->coverage)
        return NULL;
    vkrr_kernel_coverage *c = calloc(n ? n : 1, sizeof *c);
    if (!c)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        const char *k = res[i].launch->kernel;
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = !strcmp(res[j].launch->kernel, k);
        if (!seen && be->has_kernel(be->self, k) && kernel_coverage(be, k, &c[*count]))
            ++*count;
    }
    return c;
}

void vkrr_cli_coverage_print(FILE *f, const vkrr_kernel_coverage *c, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++, c++) {
        fprintf(f, "coverage: %s: branches: %u of %u directions taken; instructions: %u of %u ran\n",
                c->kernel, c->dirs_taken, c->dirs_total, c->ran, c->instructions);
        for (uint32_t k = 0; k < c->nmiss; k++) {
            const vkrr_cov_miss *x = &c->miss[k];
            if (x->span && x->line1 != x->line0)
                fprintf(f, "coverage:   %s:%u-%u", c->module, x->line0, x->line1);
            else
                fprintf(f, "coverage:   %s:%u", c->module, x->line0);
            if (x->src[0])
                fprintf(f, " (%s:%u)", x->src, x->src_line);
            if (x->span)
                fprintf(f, ": %u instruction%s never ran\n", x->count, x->count == 1 ? "" : "s");
            else
                fprintf(f, ": %s\n", x->what);
            if (x->text[0])
                fprintf(f, "coverage:     | %s\n", x->text);
        }
    }
}

void vkrr_cli_coverage_free(vkrr_kernel_coverage *c, uint32_t n)
{
    for (uint32_t i = 0; c && i < n; i++)
        free(c[i].miss);
    free(c);
}
