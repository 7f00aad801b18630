/* ptx_lex.c - PTX tokens (the predefined constant WARP_SZ is a number here,
 * so it is one wherever a number may be), plus the type table every stage
 * shares and the module arena.  Special registers: ptx_sreg.c. */
#include <stdlib.h>

#include "ptx_internal.h"

/* ---- arena --------------------------------------------------------------- */
struct ptx_arena_block {
    ptx_arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *ptx_arena_alloc(ptx_arena *a, size_t n)
{
    n = (n + 15u) & ~(size_t)15u;
    if (n == 0)
        n = 16;
    ptx_arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > (1u << 20) ? n : (1u << 20);
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *ptx_arena_strndup(ptx_arena *a, const char *s, size_t n)
{
    char *d = ptx_arena_alloc(a, n + 1);
    if (d)
        memcpy(d, s, n);
    return d;
}

void ptx_arena_free(ptx_arena *a)
{
    while (a->head) {
        ptx_arena_block *n = a->head->next;
        free(a->head);
        a->head = n;
    }
}

bool ptx_grow(void **p, uint32_t *cap, uint32_t n, size_t elem)
{
    if (n < *cap)
        return true;
    if (*cap > (1u << 28))
        return false;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q)
        return false;
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
    *p = q;
    *cap = nc;
    return true;
}

/* ---- types --------------------------------------------------------------- */
static const struct {
    const char *name;
    uint8_t bits;
    bool is_signed, is_float;
} types[PT_COUNT] = {
    [PT_NONE] = {"", 0, 0, 0},          [PT_PRED] = {".pred", 1, 0, 0},
    [PT_B8] = {".b8", 8, 0, 0},         [PT_B16] = {".b16", 16, 0, 0},
    [PT_B32] = {".b32", 32, 0, 0},      [PT_B64] = {".b64", 64, 0, 0},
    [PT_B128] = {".b128", 128, 0, 0},   [PT_U8] = {".u8", 8, 0, 0},
    [PT_U16] = {".u16", 16, 0, 0},      [PT_U32] = {".u32", 32, 0, 0},
    [PT_U64] = {".u64", 64, 0, 0},      [PT_S8] = {".s8", 8, 1, 0},
    [PT_S16] = {".s16", 16, 1, 0},      [PT_S32] = {".s32", 32, 1, 0},
    [PT_S64] = {".s64", 64, 1, 0},      [PT_F16] = {".f16", 16, 1, 1},
    [PT_F16X2] = {".f16x2", 32, 1, 1},  [PT_BF16] = {".bf16", 16, 1, 1},
    [PT_BF16X2] = {".bf16x2", 32, 1, 1}, [PT_F32] = {".f32", 32, 1, 1},
    [PT_F64] = {".f64", 64, 1, 1},      [PT_TF32] = {".tf32", 32, 1, 1},
    [PT_E4M3] = {".e4m3", 8, 1, 1},     [PT_E5M2] = {".e5m2", 8, 1, 1},
    [PT_E4M3X2] = {".e4m3x2", 16, 1, 1}, [PT_E5M2X2] = {".e5m2x2", 16, 1, 1},
};

unsigned ptx_type_bits(ptx_type t) { return t < PT_COUNT ? types[t].bits : 0; }
bool ptx_type_is_signed(ptx_type t) { return t < PT_COUNT && types[t].is_signed; }
bool ptx_type_is_float(ptx_type t) { return t < PT_COUNT && types[t].is_float; }
const char *ptx_type_name(ptx_type t) { return t < PT_COUNT ? types[t].name : "?"; }

ptx_type ptx_type_from(const char *mod)
{
    for (int t = PT_PRED; t < PT_COUNT; t++)
        if (!strcmp(types[t].name, mod))
            return (ptx_type)t;
    return PT_NONE;
}

/* ---- lexer ---------------------------------------------------------------- */
void ptx_lex_init(ptx_lexer *lx, const char *text, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->p = text;
    lx->end = text + len;
    lx->line = 1;
}

static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_follow(int c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$'; }
static int hexval(int c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static ptx_tok lex_error(ptx_lexer *lx, const char *msg)
{
    ptx_tok t = {.kind = TK_ERROR, .line = lx->line};
    if (!lx->errmsg) {
        lx->errmsg = msg;
        lx->errline = lx->line;
    }
    lx->p = lx->end;
    return t;
}

/* Numbers: 0x.. 0b.. 0.. octal, decimal (U suffix), 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX,
 * decimal floats (digits '.' digits, exponent). */
static ptx_tok lex_number(ptx_lexer *lx)
{
    const char *s = lx->p, *p = s;
    ptx_tok t = {.kind = TK_INT, .line = lx->line, .s = s};
    if (p + 1 < lx->end && p[0] == '0' && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D')) {
        int want = (p[1] == 'f' || p[1] == 'F') ? 8 : 16;
        uint64_t v = 0;
        p += 2;
        for (int i = 0; i < want; i++, p++) {
            if (p >= lx->end || hexval(*p) < 0)
                return lex_error(lx, "a 0f/0d float literal needs 8/16 hex digits");
            v = v << 4 | (uint64_t)hexval(*p);
        }
        t.kind = want == 8 ? TK_F32 : TK_F64;
        t.u = v;
    } else if (p + 1 < lx->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        uint64_t v = 0;
        int n = 0;
        for (p += 2; p < lx->end && hexval(*p) >= 0; p++, n++)
            v = v << 4 | (uint64_t)hexval(*p);
        if (n == 0 || n > 16)
            return lex_error(lx, "bad hexadecimal literal");
        t.u = v;
    } else if (p + 1 < lx->end && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        uint64_t v = 0;
        int n = 0;
        for (p += 2; p < lx->end && (*p == '0' || *p == '1'); p++, n++)
            v = v << 1 | (uint64_t)(*p - '0');
        if (n == 0 || n > 64)
            return lex_error(lx, "bad binary literal");
        t.u = v;
    } else {
        const char *q = p;
        bool flt = false;
        while (q < lx->end && is_digit(*q))
            q++;
        if (q < lx->end && (*q == '.' || *q == 'e' || *q == 'E'))
            flt = true;
        if (flt) {
            char buf[128];
            const char *r = q;
            if (r < lx->end && *r == '.')
                for (r++; r < lx->end && is_digit(*r); r++)
                    ;
            if (r < lx->end && (*r == 'e' || *r == 'E')) {
                r++;
                if (r < lx->end && (*r == '+' || *r == '-'))
                    r++;
                if (r >= lx->end || !is_digit(*r))
                    return lex_error(lx, "bad float literal exponent");
                while (r < lx->end && is_digit(*r))
                    r++;
            }
            if ((size_t)(r - p) >= sizeof buf)
                return lex_error(lx, "float literal too long");
            memcpy(buf, p, (size_t)(r - p));
            buf[r - p] = 0;
            t.kind = TK_DEC;
            t.d = strtod(buf, NULL);
            p = r;
        } else {
            uint64_t v = 0;
            bool octal = p[0] == '0' && q - p > 1;
            for (const char *r = p; r < q; r++) {
                unsigned dgt = (unsigned)(*r - '0');
                if (octal && dgt > 7)
                    return lex_error(lx, "bad octal literal");
                uint64_t nv = v * (octal ? 8u : 10u) + dgt;
                if (nv / (octal ? 8u : 10u) != v)
                    return lex_error(lx, "integer literal out of range");
                v = nv;
            }
            t.u = v;
            p = q;
        }
    }
    if (t.kind == TK_INT && p < lx->end && (*p == 'U' || *p == 'u'))
        p++;
    if (p < lx->end && is_follow(*p))
        return lex_error(lx, "bad number");
    t.len = (uint32_t)(p - s);
    lx->p = p;
    return t;
}

static ptx_tok lex_one(ptx_lexer *lx)
{
    for (;;) {
        while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' ||
                                   *lx->p == '\n' || *lx->p == '\f' || *lx->p == '\v')) {
            if (*lx->p == '\n')
                lx->line++;
            lx->p++;
        }
        if (lx->p + 1 < lx->end && lx->p[0] == '/' && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
            continue;
        }
        if (lx->p + 1 < lx->end && lx->p[0] == '/' && lx->p[1] == '*') {
            const char *q = lx->p + 2;
            uint32_t line = lx->line;
            while (q + 1 < lx->end && !(q[0] == '*' && q[1] == '/')) {
                if (*q == '\n')
                    line++;
                q++;
            }
            if (q + 1 >= lx->end)
                return lex_error(lx, "unterminated comment");
            lx->line = line;
            lx->p = q + 2;
            continue;
        }
        break;
    }
    ptx_tok t = {.kind = TK_EOF, .line = lx->line, .s = lx->p};
    if (lx->p >= lx->end)
        return t;
    int c = (unsigned char)*lx->p;
    if (c == 0)
        return lex_error(lx, "NUL byte in the text");
    if (is_alpha(c) || c == '_' || c == '$' || c == '%') {
        const char *p = lx->p + 1;
        while (p < lx->end && is_follow(*p))
            p++;
        if (c == '%' && p == lx->p + 1)
            return lex_error(lx, "'%' without a name");
        t.kind = TK_IDENT;
        t.len = (uint32_t)(p - lx->p);
        lx->p = p;
        if (t.len == 7 && !memcmp(t.s, "WARP_SZ", 7)) { /* PTX's predefined constant */
            t.kind = TK_INT;
            t.u = PTX_WARP_SZ;
        }
        return t;
    }
    if (c == '.' && lx->p + 1 < lx->end && (is_follow(lx->p[1]))) {
        const char *p = lx->p + 1;
        for (;;) {
            while (p < lx->end && is_follow(*p))
                p++;
            if (p + 2 < lx->end && p[0] == ':' && p[1] == ':' && is_follow(p[2])) {
                p += 2;
                continue;
            }
            break;
        }
        t.kind = TK_DOT;
        t.len = (uint32_t)(p - lx->p);
        lx->p = p;
        return t;
    }
    if (is_digit(c))
        return lex_number(lx);
    if (c == '"') {
        const char *p = lx->p + 1;
        while (p < lx->end && *p != '"' && *p != '\n') {
            if (*p == '\\' && p + 1 < lx->end)
                p++;
            p++;
        }
        if (p >= lx->end || *p != '"')
            return lex_error(lx, "unterminated string");
        t.kind = TK_STRING;
        t.s = lx->p + 1;
        t.len = (uint32_t)(p - lx->p - 1);
        lx->p = p + 1;
        return t;
    }
    if (strchr("{}[]();,:|@!+-<>=*/&~^?", c)) {
        t.kind = TK_PUNCT;
        t.punct = (char)c;
        t.len = 1;
        lx->p++;
        return t;
    }
    return lex_error(lx, "unexpected character");
}

const ptx_tok *ptx_peek(ptx_lexer *lx, int k)
{
    while (lx->nla <= k)
        lx->la[lx->nla++] = lex_one(lx);
    return &lx->la[k];
}

ptx_tok ptx_next(ptx_lexer *lx)
{
    ptx_peek(lx, 0);
    ptx_tok t = lx->la[0];
    memmove(lx->la, lx->la + 1, sizeof lx->la[0] * (size_t)(lx->nla - 1));
    lx->nla--;
    return t;
}
