/* compare_tol.c - the tolerance file (format in compare.h) and resolution of
 * the tolerance for one (kernel, occurrence, argument, dtype). */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapfile.h"
#include "textlist.h"

/* A tolerance file is a handful of lines; refuse anything that is clearly not one. */
#define TOL_FILE_MAX (4u << 20)

typedef struct tol_rule {
    char *kernel;      /* glob */
    int64_t occurrence; /* -1: any */
    int64_t arg;        /* -1: any */
    vkrr_tol_override set;
    long line;          /* in the file, for saying which rule decided */
} tol_rule;

struct vkrr_tol_rules {
    tol_rule *rules;
    size_t count, cap;
    vkrr_tol_override flags;
    char *name;         /* the file's */
};

bool vkrr_compare_glob(const char *p, const char *s)
{
    /* iterative '*' match with one backtrack point: linear enough for names */
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            resume = s;
        } else if (*p == *s) {
            p++;
            s++;
        } else if (star) {
            p = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

void vkrr_compare_tol_apply(vkrr_tolerance *t, const vkrr_tol_override *o)
{
    if (o->has_atol)
        t->atol = o->atol;
    if (o->has_rtol)
        t->rtol = o->rtol;
    if (o->has_max_ulp)
        t->max_ulp = o->max_ulp;
}

void vkrr_compare_tol_set_flags(vkrr_tol_rules *rules, const vkrr_tol_override *flags)
{
    if (rules && flags)
        rules->flags = *flags;
}

vkrr_tolerance vkrr_compare_tol_resolve(const vkrr_tol_rules *rules, const char *kernel,
                                        uint32_t occurrence, uint32_t arg_offset,
                                        vkrr_dtype dtype)
{
    return vkrr_compare_tol_resolve_from(rules, vkrr_tolerance_default(dtype), kernel, occurrence,
                                         arg_offset);
}

/* Whether rule r applies to that output of that launch (one place for what
 * resolving and naming what decided both ask). */
static bool rule_matches(const tol_rule *r, const char *kernel, uint32_t occurrence,
                         uint32_t arg_offset)
{
    return vkrr_compare_glob(r->kernel, kernel ? kernel : "") &&
           (r->occurrence < 0 || (uint32_t)r->occurrence == occurrence) &&
           (r->arg < 0 || (uint32_t)r->arg == arg_offset);
}

vkrr_tolerance vkrr_compare_tol_resolve_from(const vkrr_tol_rules *rules, vkrr_tolerance t,
                                             const char *kernel, uint32_t occurrence,
                                             uint32_t arg_offset)
{
    if (!rules)
        return t;
    for (size_t i = 0; i < rules->count; i++) {
        const tol_rule *r = &rules->rules[i];
        if (rule_matches(r, kernel, occurrence, arg_offset))
            vkrr_compare_tol_apply(&t, &r->set);
    }
    vkrr_compare_tol_apply(&t, &rules->flags);
    return t;
}

static bool sets_any(const vkrr_tol_override *o)
{
    return o->has_atol || o->has_rtol || o->has_max_ulp;
}

bool vkrr_compare_tol_decided(const vkrr_tol_rules *rules, const char *kernel, uint32_t occurrence,
                              uint32_t arg_offset, char *buf, size_t cap)
{
    buf[0] = 0;
    if (!rules)
        return false;
    char lines[160];
    vkrr_textlist ls;
    vkrr_textlist_init(&ls, lines, sizeof lines);
    for (size_t i = 0; i < rules->count; i++) { /* every rule that matches sets something */
        const tol_rule *r = &rules->rules[i];
        if (rule_matches(r, kernel, occurrence, arg_offset) && sets_any(&r->set))
            vkrr_textlist_add(&ls, ",", "%ld", r->line);
    }
    const vkrr_tol_override *f = &rules->flags;
    char flags[64] = "";
    snprintf(flags, sizeof flags, "%s%s%s", f->has_atol ? " --atol" : "", f->has_rtol ? " --rtol" : "",
             f->has_max_ulp ? " --max-ulp" : "");
    if (ls.at)
        snprintf(buf, cap, "%s:%s%s%s", rules->name, lines, sets_any(f) ? " and" : "", flags);
    else
        snprintf(buf, cap, "%s", flags[0] ? flags + 1 : "");
    return buf[0] != 0;
}

void vkrr_compare_tol_destroy(vkrr_tol_rules *rules)
{
    if (!rules)
        return;
    for (size_t i = 0; i < rules->count; i++)
        free(rules->rules[i].kernel);
    free(rules->rules);
    free(rules->name);
    free(rules);
}

/* ---- parsing ------------------------------------------------------------ */

/* Whole-token decimal in [0, max]. */
static bool parse_uint(const char *s, int64_t max, int64_t *out)
{
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > (unsigned long long)max)
        return false;
    *out = (int64_t)v;
    return true;
}

static bool parse_nonneg(const char *s, double *out)
{
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0) || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool vkrr_compare_tol_setting(const char *tok, vkrr_tol_override *o, const char **why)
{
    const char *eq = strchr(tok, '=');
    if (!eq || eq == tok || !eq[1]) {
        *why = "expected key=value";
        return false;
    }
    size_t klen = (size_t)(eq - tok);
    const char *val = eq + 1;
    bool off = !strcmp(val, "off");
    bool is_atol = klen == 4 && !strncmp(tok, "atol", 4);
    if (is_atol || (klen == 4 && !strncmp(tok, "rtol", 4))) {
        double v = -1;
        if (!off && !parse_nonneg(val, &v)) {
            *why = "expects a number >= 0 or off";
            return false;
        }
        if (is_atol) {
            o->has_atol = true;
            o->atol = v;
        } else {
            o->has_rtol = true;
            o->rtol = v;
        }
        return true;
    }
    if (klen == 7 && !strncmp(tok, "max_ulp", 7)) {
        int64_t v = -1;
        if (!off && !parse_uint(val, INT64_MAX / 2, &v)) {
            *why = "expects an integer >= 0 or off";
            return false;
        }
        o->has_max_ulp = true;
        o->max_ulp = v;
        return true;
    }
    *why = "unknown key (atol, rtol, max_ulp)";
    return false;
}

/* Splits line (modified in place) into a rule. */
static vkrr_status parse_line(char *line, tol_rule *r, bool *empty, const char *name, long lineno,
                              vkrr_error *err)
{
    char *tok[64];
    int nt = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t;
         t = strtok_r(NULL, " \t\r", &save)) {
        if (t[0] == '#')
            break;
        if (nt == 64)
            return vkrr_fail(err, VKRR_ERR_PARSE, name, lineno, -1, "too many fields (64 at most)");
        tok[nt++] = t;
    }
    *empty = nt == 0;
    if (nt == 0)
        return VKRR_OK;
    *r = (tol_rule){.occurrence = -1, .arg = -1};
    char *kernel = tok[0];
    char *hash = strchr(kernel, '#');
    if (strchr(kernel, '='))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, lineno, -1,
                         "a rule starts with a kernel name or '*', not '%s'", kernel);
    if (hash) {
        *hash = '\0';
        if (!parse_uint(hash + 1, UINT32_MAX, &r->occurrence))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, lineno, -1,
                             "bad occurrence '#%s' (a decimal 0-based count)", hash + 1);
    }
    if (!kernel[0])
        return vkrr_fail(err, VKRR_ERR_PARSE, name, lineno, -1, "empty kernel name");
    int i = 1;
    if (i < nt && !strncmp(tok[i], "arg", 3) && !strchr(tok[i], '=')) {
        if (strcmp(tok[i] + 3, "*") && !parse_uint(tok[i] + 3, UINT32_MAX, &r->arg))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, lineno, -1,
                             "bad argument '%s' (argOFF with a decimal byte offset, or arg*)",
                             tok[i]);
        i++;
    }
    if (i == nt)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, lineno, -1,
                         "rule for '%s' sets nothing (atol=, rtol=, max_ulp=)", kernel);
    for (; i < nt; i++) {
        const char *why = NULL;
        if (!vkrr_compare_tol_setting(tok[i], &r->set, &why))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, lineno, -1, "'%s': %s", tok[i], why);
    }
    r->kernel = strdup(kernel);
    if (!r->kernel)
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, lineno, -1, "out of memory");
    return VKRR_OK;
}

typedef struct tol_parse {
    vkrr_tol_rules *rs;
    const char *name;
} tol_parse;

static vkrr_status tol_line(void *ctx, char *line, long lineno, vkrr_error *err)
{
    tol_parse *p = ctx;
    vkrr_tol_rules *rs = p->rs;
    tol_rule r;
    bool empty = true;
    vkrr_status st = parse_line(line, &r, &empty, p->name, lineno, err);
    if (st != VKRR_OK || empty)
        return st;
    if (rs->count == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 8;
        tol_rule *nr = realloc(rs->rules, cap * sizeof *nr);
        if (!nr) {
            free(r.kernel);
            return vkrr_fail(err, VKRR_ERR_NOMEM, p->name, lineno, -1, "out of memory");
        }
        rs->rules = nr;
        rs->cap = cap;
    }
    r.line = lineno;
    rs->rules[rs->count++] = r;
    return VKRR_OK;
}

vkrr_status vkrr_compare_tol_parse(vkrr_tol_rules **out, const char *text, size_t len,
                                   const char *name, vkrr_error *err)
{
    *out = NULL;
    tol_parse p = {calloc(1, sizeof *p.rs), name};
    if (!p.rs || !(p.rs->name = strdup(name ? name : "(tolerance)"))) {
        free(p.rs);
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
    }
    vkrr_status st = vkrr_text_each_line(text, len, name, tol_line, &p, err);
    if (st != VKRR_OK) {
        vkrr_compare_tol_destroy(p.rs);
        return st;
    }
    *out = p.rs;
    return VKRR_OK;
}

vkrr_status vkrr_compare_tol_load(vkrr_tol_rules **out, const char *path, vkrr_error *err)
{
    *out = NULL;
    if (!path)
        return vkrr_compare_tol_parse(out, "", 0, "(none)", err);
    vkrr_status st;
    char *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return vkrr_fail(err, errno == ENOENT ? VKRR_ERR_MISSING : VKRR_ERR_IO, path, 0, -1,
                         "cannot open the tolerance file: %s", strerror(errno));
    size_t cap = TOL_FILE_MAX + 1; /* one byte more tells a file too large */
    text = malloc(cap);
    if (!text) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
        goto fail;
    }
    size_t len = fread(text, 1, cap, f);
    if (ferror(f)) {
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot read the tolerance file");
        goto fail;
    }
    if (len > TOL_FILE_MAX) {
        st = vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1,
                       "a tolerance file larger than %u bytes is not one", TOL_FILE_MAX);
        goto fail;
    }
    st = vkrr_compare_tol_parse(out, text, len, path, err);
fail:
    free(text);
    fclose(f);
    return st;
}
