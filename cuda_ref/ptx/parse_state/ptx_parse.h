/* ptx_parse.h - the parser's private state, shared by ptx_parse.c (module
 * level: directives, functions), ptx_parse_body.c (function bodies:
 * operands, instructions, labels, scopes), ptx_parse_decl.c (variables,
 * registers, parameters) and ptx_parse_tok.c (tokens, symbols, scopes),
 * each calling only those after it in that list.  Not an API. */
#ifndef VKRR_PTX_PARSE_H
#define VKRR_PTX_PARSE_H

#include "ptx_internal.h"

enum { SK_REG, SK_RANGE, SK_VAR, SK_PARAM, SK_FUNC };

typedef struct sym {
    const char *name;
    uint32_t len;
    uint8_t kind;
    uint32_t id, count;
    int depth;
    int32_t next;
} sym;

#define NBUCKET 4096u

typedef struct parser {
    vkrr_ptx_module *m;
    ptx_lexer lx;
    vkrr_error *err;
    bool failed;
    sym *syms;
    uint32_t nsyms, capsyms;
    int32_t bucket[NBUCKET];
    int depth;
    ptx_func *f;     /* function being parsed */
    int32_t fidx;
    uint32_t loc_file, loc_line; /* the last .loc in the function being parsed */
} parser;


int ps_fail(parser *ps, vkrr_status st, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define FAIL(ps, tok, ...) ps_fail(ps, VKRR_ERR_PARSE, (tok)->line, __VA_ARGS__)
const ptx_tok *ps_peek(parser *ps, int k);
ptx_tok ps_next(parser *ps);
bool ps_is_punct(const ptx_tok *t, char c);
bool ps_is_word(const ptx_tok *t, int kind, const char *w);
bool ps_expect(parser *ps, char c);
char *ps_dup(parser *ps, const char *s, size_t n);
bool ps_sym_add(parser *ps, const char *name, uint32_t len, int kind, uint32_t id, uint32_t count);
const sym *ps_sym_find(parser *ps, const char *name, uint32_t len, int kind);
bool ps_sym_here(parser *ps, const char *name, uint32_t len);
void ps_scope_pop(parser *ps);
int32_t ps_reg_lookup(parser *ps, const char *name, uint32_t len);
bool ps_take_int(parser *ps, uint64_t *v);
void ps_skip_line(parser *ps, uint32_t line);
/* .file N "path" [, ...] and .loc F L [C] [, ...] (after the directive's
 * word): recorded (the module's source files, the parser's current place),
 * the rest of the line skipped. */
bool ps_file_loc(parser *ps, const ptx_tok *d);
bool ps_reg_decl(parser *ps, const ptx_tok *at);
bool ps_var_decl(parser *ps, unsigned space, const ptx_tok *at, bool is_extern);
bool ps_param_list(parser *ps, ptx_param **out, uint32_t *nout, uint32_t *bytes, bool entry);
bool ps_func_param_vars(parser *ps, ptx_func *f);
bool ps_body(parser *ps);

#endif
