/* ptx_parse_tok.c - the parser's footing: failing with a place, tokens
 * (peek, next, expect), names copied into the module, the symbol table with
 * PTX's block scopes, integers.  It calls no other part of the parser. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse.h"

int ps_fail(parser *ps, vkrr_status st, uint32_t line, const char *fmt, ...)
{
    if (ps->failed)
        return -1;
    ps->failed = true;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    vkrr_fail(ps->err, st, ps->m->name, (long)line, -1, "%s", msg);
    return -1;
}
const ptx_tok *ps_peek(parser *ps, int k)
{
    const ptx_tok *t = ptx_peek(&ps->lx, k);
    if (t->kind == TK_ERROR && !ps->failed)
        ps_fail(ps, VKRR_ERR_PARSE, ps->lx.errline, "%s", ps->lx.errmsg);
    return t;
}
ptx_tok ps_next(parser *ps)
{
    ps_peek(ps, 0);
    return ptx_next(&ps->lx);
}
bool ps_is_punct(const ptx_tok *t, char c) { return t->kind == TK_PUNCT && t->punct == c; }
bool ps_is_word(const ptx_tok *t, int kind, const char *w)
{
    return t->kind == kind && t->len == strlen(w) && !memcmp(t->s, w, t->len);
}
bool ps_expect(parser *ps, char c)
{
    const ptx_tok *t = ps_peek(ps, 0);
    if (!ps_is_punct(t, c)) {
        if (t->kind != TK_ERROR)
            FAIL(ps, t, "expected '%c', found '%.*s'", c, (int)(t->len ? t->len : 3),
                 t->len ? t->s : "EOF");
        return false;
    }
    ps_next(ps);
    return true;
}
char *ps_dup(parser *ps, const char *s, size_t n)
{
    char *d = ptx_arena_strndup(&ps->m->arena, s, n);
    if (!d)
        ps_fail(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory");
    return d;
}

/* ---- symbols ------------------------------------------------------------ */
static uint32_t hash(const char *s, uint32_t n)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h & (NBUCKET - 1u);
}

bool ps_sym_add(parser *ps, const char *name, uint32_t len, int kind, uint32_t id, uint32_t count)
{
    if (!ptx_grow((void **)&ps->syms, &ps->capsyms, ps->nsyms, sizeof *ps->syms)) {
        ps_fail(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory");
        return false;
    }
    uint32_t h = hash(name, len);
    sym *s = &ps->syms[ps->nsyms];
    *s = (sym){name, len, (uint8_t)kind, id, count, ps->depth, ps->bucket[h]};
    ps->bucket[h] = (int32_t)ps->nsyms++;
    return true;
}

const sym *ps_sym_find(parser *ps, const char *name, uint32_t len, int kind)
{
    for (int32_t i = ps->bucket[hash(name, len)]; i >= 0; i = ps->syms[i].next) {
        const sym *s = &ps->syms[i];
        if (s->len == len && !memcmp(s->name, name, len) && (kind < 0 || s->kind == kind))
            return s;
    }
    return NULL;
}

/* Declared at the current depth already? */
bool ps_sym_here(parser *ps, const char *name, uint32_t len)
{
    const sym *s = ps_sym_find(ps, name, len, -1);
    return s && s->depth == ps->depth;
}

void ps_scope_pop(parser *ps)
{
    while (ps->nsyms > 0 && ps->syms[ps->nsyms - 1].depth >= ps->depth) {
        sym *s = &ps->syms[--ps->nsyms];
        ps->bucket[hash(s->name, s->len)] = s->next;
    }
    ps->depth--;
}

/* A register name: exact, or PREFIX<digits> inside a %r<N> range. */
int32_t ps_reg_lookup(parser *ps, const char *name, uint32_t len)
{
    const sym *s = ps_sym_find(ps, name, len, SK_REG);
    const sym *any = ps_sym_find(ps, name, len, -1);
    if (s && any == s)
        return (int32_t)s->id;
    uint32_t d = len;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d == len || d == 0 || (len - d > 1 && name[d] == '0') || len - d > 9)
        return -1;
    const sym *r = ps_sym_find(ps, name, d, SK_RANGE);
    if (!r)
        return -1;
    uint32_t n = (uint32_t)strtoul(name + d, NULL, 10);
    return n < r->count ? (int32_t)(r->id + n) : -1;
}

/* ---- small syntax pieces ------------------------------------------------- */
bool ps_take_int(parser *ps, uint64_t *v)
{
    const ptx_tok *t = ps_peek(ps, 0);
    if (t->kind != TK_INT) {
        if (t->kind != TK_ERROR)
            FAIL(ps, t, "expected an integer, found '%.*s'", (int)t->len, t->s);
        return false;
    }
    *v = ps_next(ps).u;
    return true;
}

bool ps_file_loc(parser *ps, const ptx_tok *d)
{
    bool file = ps_is_word(d, TK_DOT, ".file");
    const ptx_tok *n = ps_peek(ps, 0);
    if (n->line == d->line && n->kind == TK_INT) {
        uint32_t idx = (uint32_t)ps_next(ps).u;
        const ptx_tok *v = ps_peek(ps, 0);
        if (file && v->line == d->line && v->kind == TK_STRING) {
            vkrr_ptx_module *m = ps->m;
            ptx_tok path = ps_next(ps);
            char *p = ps_dup(ps, path.s, path.len);
            if (!p || !ptx_grow((void **)&m->srcfiles, &m->capsrcfiles, m->nsrcfiles,
                                sizeof *m->srcfiles))
                return ps_fail(ps, VKRR_ERR_NOMEM, d->line, "out of memory"), false;
            m->srcfiles[m->nsrcfiles++] = (struct ptx_srcfile){idx, p};
        } else if (!file && v->line == d->line && v->kind == TK_INT) {
            ps->loc_file = idx;
            ps->loc_line = (uint32_t)ps_next(ps).u;
        }
    }
    ps_skip_line(ps, d->line);
    return !ps->failed;
}

/* Skips the rest of a line-oriented directive (.version, .target, .file, .loc). */
void ps_skip_line(parser *ps, uint32_t line)
{
    while (!ps->failed) {
        const ptx_tok *t = ps_peek(ps, 0);
        if (t->kind == TK_EOF || t->line != line)
            return;
        ps_next(ps);
    }
}
