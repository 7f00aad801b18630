/* portexpr.c - parsing and evaluating a descriptor's numbers (portexpr.h). */
#include "portexpr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

enum { PE_CONST, PE_WORD, PE_GRID, PE_BLOCK, PE_ADD, PE_SUB, PE_MUL, PE_DIV, PE_MOD };

typedef struct pe_parser {
    const char *s;
    vkrr_port_expr *e;
    const char *why;
} pe_parser;

static bool emit(pe_parser *p, vkrr_port_expr_item it)
{
    if (p->e->n == VKRR_PORT_EXPR_MAX) {
        p->why = "too long (32 terms at most)";
        return false;
    }
    p->e->it[p->e->n++] = it;
    return true;
}

static bool parse_sum(pe_parser *p, int depth);

/* grid.x .. block.z */
static bool parse_dim(pe_parser *p)
{
    static const char *const names[] = {"grid.x", "grid.y", "grid.z", "block.x", "block.y", "block.z"};
    for (unsigned i = 0; i < 6; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(p->s, names[i], n))
            continue;
        p->s += n;
        return emit(p, (vkrr_port_expr_item){.op = i < 3 ? PE_GRID : PE_BLOCK, .bytes = (uint8_t)(i % 3)});
    }
    return false;
}

/* NUMBER, TYPE@BYTE, grid.x ... block.z or (SUM) */
static bool parse_atom(pe_parser *p, int depth)
{
    static const struct { const char *name; uint8_t bytes; bool is_signed; } words[] = {
        {"u8", 1, false}, {"u16", 2, false}, {"u32", 4, false}, {"u64", 8, false},
        {"i32", 4, true}, {"i64", 8, true}};
    if (*p->s == '(') {
        if (depth > 8) {
            p->why = "parentheses nest too deep";
            return false;
        }
        p->s++;
        if (!parse_sum(p, depth + 1))
            return false;
        if (*p->s != ')') {
            p->why = "a '(' is not closed";
            return false;
        }
        p->s++;
        return true;
    }
    uint32_t run = 0; /* K:TYPE@BYTE: a word of launch K of a fused run (portexpr.h) */
    bool prefixed = *p->s >= '0' && *p->s <= '9' && p->s[1] == ':';
    if (prefixed && (run = (uint32_t)(*p->s - '0')) >= VKRR_PORT_MAX_RUN) {
        p->why = "a fused run's launch K is 0..7 (K:u32@24)";
        return false;
    }
    p->s += prefixed ? 2 : 0;
    if (!strncmp(p->s, "grid.", 5) || !strncmp(p->s, "block.", 6)) {
        if (parse_dim(p))
            return true;
        if (!p->why)
            p->why = "expected grid.x, grid.y, grid.z, block.x, block.y or block.z";
        return false;
    }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].name);
        if (strncmp(p->s, words[i].name, n) || p->s[n] != '@')
            continue;
        const char *d = p->s + n + 1;
        if (*d < '0' || *d > '9') {
            p->why = "expected a decimal byte offset after '@' (u32@24)";
            return false;
        }
        char *end;
        errno = 0;
        unsigned long long at = strtoull(d, &end, 10);
        if (errno || at >= VKRR_ARGS_MAX_BYTES) {
            p->why = "the byte offset is past any parameter block (4096 bytes)";
            return false;
        }
        p->s = end;
        return emit(p, (vkrr_port_expr_item){.op = PE_WORD, .at = (uint32_t)at + run * VKRR_ARGS_MAX_BYTES,
                                             .bytes = words[i].bytes, .is_signed = words[i].is_signed});
    }
    if (prefixed) {
        p->why = "expected a parameter word after 'K:' (1:u32@24: launch 1's word at byte 24)";
        return false;
    }
    if (*p->s >= '0' && *p->s <= '9') {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p->s, &end, 0);
        if (errno || v > (unsigned long long)INT64_MAX) {
            p->why = "the number is too large";
            return false;
        }
        p->s = end;
        return emit(p, (vkrr_port_expr_item){.op = PE_CONST, .value = (int64_t)v});
    }
    p->why = *p->s ? "expected a number, a parameter word (u32@24), grid.x .. block.z or '('"
                   : "the value ends where a number was expected";
    return false;
}

static bool parse_product(pe_parser *p, int depth)
{
    if (!parse_atom(p, depth))
        return false;
    while (*p->s == '*' || *p->s == '/' || *p->s == '%') {
        uint8_t op = *p->s == '*' ? PE_MUL : *p->s == '/' ? PE_DIV : PE_MOD;
        p->s++;
        if (!parse_atom(p, depth) || !emit(p, (vkrr_port_expr_item){.op = op}))
            return false;
    }
    return true;
}

static bool parse_sum(pe_parser *p, int depth)
{
    bool neg = *p->s == '-';
    if (neg) {
        p->s++;
        if (!emit(p, (vkrr_port_expr_item){.op = PE_CONST, .value = 0}))
            return false;
    }
    if (!parse_product(p, depth) || (neg && !emit(p, (vkrr_port_expr_item){.op = PE_SUB})))
        return false;
    while (*p->s == '+' || *p->s == '-') {
        uint8_t op = *p->s == '+' ? PE_ADD : PE_SUB;
        p->s++;
        if (!parse_product(p, depth) || !emit(p, (vkrr_port_expr_item){.op = op}))
            return false;
    }
    return true;
}

bool vkrr_port_expr_parse(const char *text, vkrr_port_expr *e, const char **why)
{
    pe_parser p = {text, e, NULL};
    e->n = 0;
    if (!parse_sum(&p, 0)) {
        *why = p.why;
        return false;
    }
    if (*p.s) {
        *why = "unexpected characters after the value";
        return false;
    }
    return true;
}

bool vkrr_port_expr_constant(const vkrr_port_expr *e, int64_t *out)
{
    for (unsigned i = 0; i < e->n; i++)
        if (e->it[i].op == PE_WORD || e->it[i].op == PE_GRID || e->it[i].op == PE_BLOCK)
            return false;
    char why[200];
    return vkrr_port_expr_eval(e, &(vkrr_port_env){0}, out, why, sizeof why);
}

/* A parameter word onto the stack; false with why when it is not there. */
static bool word(const vkrr_port_expr_item *it, const vkrr_port_env *env, int64_t *v, char *why,
                 size_t cap)
{
    if ((uint64_t)it->at + it->bytes > env->args_bytes) {
        snprintf(why, cap, "bytes %u..%u are past the %u-byte parameter block", it->at,
                 it->at + it->bytes - 1, env->args_bytes);
        return false;
    }
    uint64_t u = 0;
    for (unsigned b = 0; b < it->bytes; b++)
        u |= (uint64_t)env->args[it->at + b] << (8 * b);
    if (it->is_signed && it->bytes == 4) {
        *v = (int32_t)(uint32_t)u;
    } else if (!it->is_signed && u > (uint64_t)INT64_MAX) {
        snprintf(why, cap, "the u64 at byte %u is too large (%llu)", it->at, (unsigned long long)u);
        return false;
    } else {
        *v = (int64_t)u;
    }
    return true;
}

bool vkrr_port_expr_eval(const vkrr_port_expr *e, const vkrr_port_env *env, int64_t *out, char *why,
                         size_t cap)
{
    int64_t st[VKRR_PORT_EXPR_MAX];
    unsigned sp = 0;
    for (unsigned i = 0; i < e->n; i++) {
        const vkrr_port_expr_item *it = &e->it[i];
        switch (it->op) {
        case PE_CONST: st[sp++] = it->value; continue;
        case PE_GRID: st[sp++] = env->grid[it->bytes]; continue;
        case PE_BLOCK: st[sp++] = env->block[it->bytes]; continue;
        case PE_WORD:
            if (!word(it, env, &st[sp], why, cap))
                return false;
            sp++;
            continue;
        default: break;
        }
        int64_t b = st[--sp], a = st[--sp], r = 0;
        bool ok = true;
        switch (it->op) {
        case PE_ADD: ok = !__builtin_add_overflow(a, b, &r); break;
        case PE_SUB: ok = !__builtin_sub_overflow(a, b, &r); break;
        case PE_MUL: ok = !__builtin_mul_overflow(a, b, &r); break;
        case PE_DIV:
        case PE_MOD:
            if (b == 0) {
                snprintf(why, cap, "division by zero");
                return false;
            }
            ok = !(a == INT64_MIN && b == -1);
            r = ok ? (it->op == PE_DIV ? a / b : a % b) : 0;
            break;
        default: break;
        }
        if (!ok) {
            snprintf(why, cap, "the value overflows 64 bits");
            return false;
        }
        st[sp++] = r;
    }
    *out = st[0];
    return true;
}

bool vkrr_port_launch_prefix(char **tok, uint32_t *k)
{
    *k = 0;
    char *p = *tok;
    if (*p < '0' || *p > '9') /* argOFF: the run's first launch, or a launch's own */
        return true;
    if (p[1] != ':' || (uint32_t)(*p - '0') >= VKRR_PORT_MAX_RUN)
        return false;
    *k = (uint32_t)(*p - '0');
    *tok = p + 2;
    return true;
}
