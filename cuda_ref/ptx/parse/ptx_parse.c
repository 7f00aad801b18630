/* ptx_parse.c - PTX text -> module: the module's directives and functions
 * (params, performance directives); declarations are ptx_parse_decl.c's,
 * bodies (registers, labels and raw instructions with every name resolved
 * through PTX's block scopes) ptx_parse_body.c's, both below this file.
 * Anything malformed is VKRR_ERR_PARSE naming the file and line; a directive
 * this interpreter cannot honour is VKRR_ERR_UNSUPPORTED. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_parse.h"

/* .section NAME { ... }: debug information, skipped. */
static void skip_section(parser *ps)
{
    int depth = 0;
    while (!ps->failed) {
        ptx_tok t = ps_next(ps);
        if (t.kind == TK_EOF) {
            FAIL(ps, &t, "unterminated .section");
            return;
        }
        if (ps_is_punct(&t, '{'))
            depth++;
        else if (ps_is_punct(&t, '}') && --depth <= 0)
            return;
    }
}

static bool dims(parser *ps, uint32_t d[3])
{
    d[0] = d[1] = d[2] = 1;
    for (int i = 0; i < 3; i++) {
        uint64_t v;
        if (!ps_take_int(ps, &v))
            return false;
        d[i] = v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
        if (!ps_is_punct(ps_peek(ps, 0), ','))
            return true;
        ps_next(ps);
    }
    return true;
}

/* A body that does not parse costs only its function: the error is kept as
 * the function's (its launches are ERROR, naming it; a caller of a broken
 * .func fails when decoded), the parser's state is put back as it was at the
 * body's '{' and the lexer goes on past the matching '}', found by counting
 * every brace from there (vector operands' braces balance too).  False
 * where the module cannot go on: no memory, a token the lexer cannot read, a
 * body never closed. */
static bool skip_broken_body(parser *ps, ptx_func *f, const ptx_lexer *at_body, int depth)
{
    if (!ps->failed || ps->err->status == VKRR_ERR_NOMEM || ps->lx.errmsg)
        return false;
    f->broken = true;
    f->err = *ps->err;
    f->status = ps->err->status;
    snprintf(f->err.msg, sizeof f->err.msg, "the body of '%s' does not parse: %.600s", f->name,
             ps->err->msg);
    memset(ps->err, 0, sizeof *ps->err);
    ps->failed = false;
    while (ps->depth > depth)
        ps_scope_pop(ps);
    ps->lx = *at_body;
    for (int open = 0;;) {
        ptx_tok t = ps_next(ps);
        if (ps->failed)
            return false;
        if (t.kind == TK_EOF)
            return FAIL(ps, &t, "the body of '%s' is not closed", f->name), false;
        if (ps_is_punct(&t, '{'))
            open++;
        else if (ps_is_punct(&t, '}') && --open == 0)
            return true;
    }
}

static bool function(parser *ps, bool entry, const ptx_tok *at)
{
    vkrr_ptx_module *m = ps->m;
    ptx_param *rets = NULL;
    uint32_t nrets = 0, rb = 0;
    ps->depth++; /* params live here */
    if (!entry && ps_is_punct(ps_peek(ps, 0), '(')) {
        if (!ps_param_list(ps, &rets, &nrets, &rb, false))
            return false;
    }
    ptx_tok name = ps_next(ps);
    if (name.kind != TK_IDENT)
        return FAIL(ps, &name, "expected a function name"), false;
    /* a later definition completes an earlier declaration */
    int32_t idx = -1;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (strlen(m->funcs[i].name) == name.len && !memcmp(m->funcs[i].name, name.s, name.len))
            idx = (int32_t)i;
    if (idx < 0) {
        if (!ptx_grow((void **)&m->funcs, &m->capfuncs, m->nfuncs, sizeof *m->funcs))
            return ps_fail(ps, VKRR_ERR_NOMEM, name.line, "out of memory"), false;
        idx = (int32_t)m->nfuncs++;
        ptx_func *nf = &m->funcs[idx];
        memset(nf, 0, sizeof *nf);
        nf->name = ps_dup(ps, name.s, name.len);
        /* visible from the module scope (depth 0) */
        int save = ps->depth;
        ps->depth = 0;
        uint32_t mark = ps->nsyms;
        bool ok = ps_sym_add(ps, nf->name, name.len, SK_FUNC, (uint32_t)idx, 0);
        ps->depth = save;
        /* the entry must sit below the function's scope entries: it does, as
         * nothing was added at depth 1 yet. */
        (void)mark;
        if (!ok)
            return false;
    }
    ptx_func *f = &m->funcs[idx];
    ps->f = f;
    ps->fidx = idx;
    ps->loc_file = ps->loc_line = 0;
    f->entry = entry;
    f->line = at->line;
    f->rets = rets;
    f->nrets = nrets;
    f->maxntid[0] = f->maxntid[1] = f->maxntid[2] = 0;
    if (ps_is_punct(ps_peek(ps, 0), '(')) {
        if (!ps_param_list(ps, &f->params, &f->nparams, &f->params_bytes, entry))
            return false;
    }
    for (;;) {
        const ptx_tok *t = ps_peek(ps, 0);
        if (t->kind != TK_DOT)
            break;
        ptx_tok d = ps_next(ps);
        if (ps_is_word(&d, TK_DOT, ".maxntid")) {
            if (!dims(ps, f->maxntid))
                return false;
        } else if (ps_is_word(&d, TK_DOT, ".reqntid")) {
            if (!dims(ps, f->reqntid))
                return false;
        } else if (ps_is_word(&d, TK_DOT, ".minnctapersm") || ps_is_word(&d, TK_DOT, ".maxnreg") ||
                   ps_is_word(&d, TK_DOT, ".maxnctapersm")) {
            uint64_t v;
            if (!ps_take_int(ps, &v))
                return false;
        } else if (ps_is_word(&d, TK_DOT, ".noreturn")) {
        } else if (ps_is_word(&d, TK_DOT, ".pragma")) {
            while (!ps->failed && !ps_is_punct(ps_peek(ps, 0), ';') && ps_peek(ps, 0)->kind != TK_EOF)
                ps_next(ps);
            if (!ps_expect(ps, ';'))
                return false;
        } else {
            return ps_fail(ps, VKRR_ERR_UNSUPPORTED, d.line, "function directive '%.*s'", (int)d.len,
                           d.s),
                   false;
        }
    }
    bool ok = true;
    if (ps_is_punct(ps_peek(ps, 0), ';')) {
        ps_next(ps);
    } else if (ps_is_punct(ps_peek(ps, 0), '{')) {
        if (f->defined)
            return FAIL(ps, &name, "'%s' is defined twice", f->name), false;
        ptx_lexer at_body = ps->lx;
        int depth = ps->depth;
        ps_next(ps);
        f->defined = true;
        ok = (entry || ps_func_param_vars(ps, f)) && ps_body(ps);
        if (!ok)
            ok = skip_broken_body(ps, f, &at_body, depth);
    } else {
        const ptx_tok *t = ps_peek(ps, 0);
        return FAIL(ps, t, "expected '{' or ';' after '%s'", f->name), false;
    }
    if (!ok)
        return false;
    ps_scope_pop(ps); /* the params */
    ps->f = NULL;
    ps->fidx = -1;
    return true;
}

static bool module_item(parser *ps)
{
    ptx_tok t = ps_next(ps);
    if (t.kind == TK_ERROR)
        return false;
    if (t.kind != TK_DOT)
        return FAIL(ps, &t, "expected a directive, found '%.*s'", (int)t.len, t.s), false;
    if (ps_is_word(&t, TK_DOT, ".file") || ps_is_word(&t, TK_DOT, ".loc"))
        return ps_file_loc(ps, &t);
    if (ps_is_word(&t, TK_DOT, ".version") || ps_is_word(&t, TK_DOT, ".address_size")) {
        ps_skip_line(ps, t.line);
        return true;
    }
    if (ps_is_word(&t, TK_DOT, ".target")) {
        while (!ps->failed && ps_peek(ps, 0)->line == t.line && ps_peek(ps, 0)->kind != TK_EOF) {
            ptx_tok w = ps_next(ps);
            if (w.kind == TK_IDENT && w.len > 3 && !memcmp(w.s, "sm_", 3))
                ps->m->sm = (uint32_t)strtoul(w.s + 3, NULL, 10);
        }
        return true;
    }
    if (ps_is_word(&t, TK_DOT, ".section")) {
        skip_section(ps);
        return true;
    }
    if (ps_is_word(&t, TK_DOT, ".pragma")) {
        while (!ps->failed && !ps_is_punct(ps_peek(ps, 0), ';') && ps_peek(ps, 0)->kind != TK_EOF)
            ps_next(ps);
        return ps_expect(ps, ';');
    }
    bool is_extern = false;
    while (ps_is_word(&t, TK_DOT, ".visible") || ps_is_word(&t, TK_DOT, ".extern") ||
           ps_is_word(&t, TK_DOT, ".weak") || ps_is_word(&t, TK_DOT, ".common")) {
        if (ps_is_word(&t, TK_DOT, ".extern"))
            is_extern = true;
        t = ps_next(ps);
    }
    if (ps_is_word(&t, TK_DOT, ".entry"))
        return function(ps, true, &t);
    if (ps_is_word(&t, TK_DOT, ".func"))
        return function(ps, false, &t);
    if (ps_is_word(&t, TK_DOT, ".global"))
        return ps_var_decl(ps, SP_GLOBAL, &t, is_extern);
    if (ps_is_word(&t, TK_DOT, ".const"))
        return ps_var_decl(ps, SP_CONST, &t, is_extern);
    if (ps_is_word(&t, TK_DOT, ".shared"))
        return ps_var_decl(ps, SP_SHARED, &t, is_extern);
    if (ps_is_word(&t, TK_DOT, ".local"))
        return ps_var_decl(ps, SP_LOCAL, &t, is_extern);
    if (t.kind == TK_DOT)
        return ps_fail(ps, VKRR_ERR_UNSUPPORTED, t.line, "module directive '%.*s'", (int)t.len, t.s),
               false;
    return FAIL(ps, &t, "expected a directive"), false;
}

vkrr_status ptx_parse(vkrr_ptx_module *m, const char *text, size_t len, vkrr_error *err)
{
    parser *ps = calloc(1, sizeof *ps);
    if (!ps)
        return vkrr_fail(err, VKRR_ERR_NOMEM, m->name, 0, -1, "out of memory");
    ps->m = m;
    ps->err = err;
    ps->fidx = -1;
    memset(ps->bucket, 0xff, sizeof ps->bucket);
    ptx_lex_init(&ps->lx, text, len);
    while (!ps->failed && ps_peek(ps, 0)->kind != TK_EOF)
        module_item(ps);
    /* a function cut short by an error still owns its arrays: freed with the module */
    vkrr_status st = ps->failed ? err->status : VKRR_OK;
    if (ps->failed && err->status == VKRR_OK)
        st = VKRR_ERR_PARSE;
    free(ps->syms);
    free(ps);
    return st;
}
