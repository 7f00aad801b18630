/* ptx_internal.h - the PTX interpreter's shared internals (not an API).
 *
 * Pipeline: ptx_lex.c (tokens) -> ptx_parse.c (module: variables, functions,
 * raw instructions with resolved registers) -> ptx_decode.c (+ the family
 * decoders in ptx_int.c, ptx_float.c, ptx_cvt.c, ptx_mem.c, ptx_warp.c,
 * ptx_mma.c, ptx_tex.c: one compact ptx_inst per instruction, a handler
 * function chosen per type and modifier set) -> ptx_exec.c (warps, CTAs,
 * launch).  ptx_round.c holds the rounding helpers every numeric family
 * shares.
 *
 * Register files: R is nslots x 32 lanes of uint64_t (slot-major, so a
 * handler walks 32 consecutive words); a k-bit value is stored zero-extended
 * to 64 bits.  Predicates are one 32-bit lane mask each (P).  Slots
 * [0, nsreg) are special registers, [nsreg, nsreg+nconst) immediates and
 * symbol addresses (read-only), the rest are the function's registers packed
 * by liveness.
 */
#ifndef VKRR_PTX_INTERNAL_H
#define VKRR_PTX_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fpformat.h"
#include "ptx.h"

/* ---- types ----------------------------------------------------------- */
typedef enum ptx_type {
    PT_NONE = 0, PT_PRED,
    PT_B8, PT_B16, PT_B32, PT_B64, PT_B128,
    PT_U8, PT_U16, PT_U32, PT_U64,
    PT_S8, PT_S16, PT_S32, PT_S64,
    PT_F16, PT_F16X2, PT_BF16, PT_BF16X2, PT_F32, PT_F64, PT_TF32,
    PT_E4M3, PT_E5M2, PT_E4M3X2, PT_E5M2X2,
    PT_COUNT
} ptx_type;

unsigned ptx_type_bits(ptx_type t);
bool ptx_type_is_signed(ptx_type t);
bool ptx_type_is_float(ptx_type t); /* f16, f16x2, bf16, bf16x2, f32, f64, tf32, e*m* */
ptx_type ptx_type_from(const char *mod); /* ".u32" -> PT_U32; PT_NONE when not a type */
const char *ptx_type_name(ptx_type t);

/* ---- arena: every string and array of a module ------------------------ */
typedef struct ptx_arena_block ptx_arena_block;
typedef struct ptx_arena {
    ptx_arena_block *head;
} ptx_arena;
void *ptx_arena_alloc(ptx_arena *a, size_t n); /* zeroed; NULL when out of memory */
char *ptx_arena_strndup(ptx_arena *a, const char *s, size_t n);
void ptx_arena_free(ptx_arena *a);

/* Growable array helper: ensures room for one more element. */
bool ptx_grow(void **p, uint32_t *cap, uint32_t n, size_t elem);

/* ---- lexer ----------------------------------------------------------- */
enum { TK_EOF, TK_IDENT, TK_DOT, TK_INT, TK_F32, TK_F64, TK_DEC, TK_STRING, TK_PUNCT, TK_ERROR };
typedef struct ptx_tok {
    int kind;
    char punct;         /* TK_PUNCT: the character */
    uint32_t line;
    const char *s;      /* text (not NUL-terminated) */
    uint32_t len;
    uint64_t u;         /* TK_INT value (two's complement), TK_F32/TK_F64 bits */
    double d;           /* TK_DEC */
} ptx_tok;
typedef struct ptx_lexer {
    const char *p, *end;
    uint32_t line;
    ptx_tok la[4];
    int nla;
    const char *errmsg; /* set with the first bad token */
    uint32_t errline;
} ptx_lexer;
void ptx_lex_init(ptx_lexer *lx, const char *text, size_t len);
const ptx_tok *ptx_peek(ptx_lexer *lx, int k); /* k in 0..3 */
ptx_tok ptx_next(ptx_lexer *lx);

/* ---- module ---------------------------------------------------------- */
enum { SP_NONE, SP_REG, SP_SREG, SP_CONST, SP_GLOBAL, SP_LOCAL, SP_PARAM, SP_SHARED, SP_TEX,
       SP_GENERIC };

/* Opaque texture, sampler and surface variables and kernel parameters (.texref,
 * .samplerref, .surfref): 8 bytes each.  A kernel parameter holds a handle, as
 * a texture object does; a module variable's address is its handle (mov.u64
 * %rd, NAME), and a .samplerref's initializer is the sampler it names. */
enum { PTX_REF_NONE, PTX_REF_TEX, PTX_REF_SAMPLER, PTX_REF_SURF };
#define PTX_ADDR_CLAMP_OGL 0xffu /* addr_mode clamp_ogl: no CUDA address mode is it */
typedef struct ptx_sampler {
    uint8_t filter;       /* CU_TR_FILTER_MODE_*: 0 nearest, 1 linear */
    uint8_t addr[3];      /* CU_TR_ADDRESS_MODE_* (0 wrap, 1 clamp, 2 mirror, 3 border) */
    uint8_t unnorm;       /* force_unnormalized_coords */
} ptx_sampler;

typedef struct ptx_var {
    char *name;
    uint8_t space;
    ptx_type type;
    uint32_t align;
    uint64_t size;        /* bytes; 0 for .extern .shared x[] (dynamic) */
    uint8_t *init;        /* size bytes, or NULL (zeros) */
    bool dynamic;         /* .extern .shared NAME[] */
    bool param;           /* a .func's .param or one declared in a body: per-thread
                           * memory, laid out and addressed as .local */
    int32_t func;         /* declaring function, -1 for module scope */
    uint64_t offset;      /* module .global/.const: offset in the module image */
    uint32_t elem;        /* bytes of its scalar type: NAME[i] is i of them in (ptxas
                           * scales a .v2 .u32 array's index by 4, not 8) */
    uint8_t ref;          /* PTX_REF_*: an opaque variable */
    ptx_sampler smp;      /* a .samplerref's initializer */
} ptx_var;

typedef struct ptx_param {
    char *name;
    uint32_t align;
    uint64_t size;
    uint32_t offset;      /* in the parameter block */
    ptx_type type;
    uint8_t ref;          /* PTX_REF_*: a .texref/.samplerref/.surfref handle */
} ptx_param;

/* Special registers (ptx_sreg.c, which holds their names, widths and values,
 * and README "Special registers", which says where each value comes from).
 * A vector register's components are four consecutive ids, x y z w; the
 * whole vector (`mov.v4.u32 {a, b, c, d}, %tid`) is its x id | PTX_SREG_VEC.
 * Every register before SR_PRED_FIRST is a slot set when a warp starts
 * (ptx_exec.c); the predicate is decoded as a constant (ptx_int.c); the
 * timers from SR_TIMER_FIRST on change at every read, so only mov and cvt
 * read them, through handlers (ptx_move.c, ptx_cvt.c). */
#define SR_VEC4(NAME) SR_##NAME##_X, SR_##NAME##_Y, SR_##NAME##_Z, SR_##NAME##_W
enum {
    SR_VEC4(TID), SR_VEC4(NTID), SR_VEC4(CTAID), SR_VEC4(NCTAID),
    SR_VEC4(CLUSTERID), SR_VEC4(NCLUSTERID), SR_VEC4(CLUSTER_CTAID), SR_VEC4(CLUSTER_NCTAID),
    SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID, SR_GRIDID,
    SR_CLUSTER_CTARANK, SR_CLUSTER_NCTARANK,
    SR_LANEMASK_EQ, SR_LANEMASK_LE, SR_LANEMASK_LT, SR_LANEMASK_GE, SR_LANEMASK_GT,
    SR_DYN_SMEM, SR_TOTAL_SMEM, SR_AGGR_SMEM,
    SR_RSMEM_BEGIN, SR_RSMEM_END, SR_RSMEM_CAP, SR_RSMEM_0, SR_RSMEM_1,
    SR_CURRENT_GRAPH_EXEC,
    SR_PM0, SR_PM7 = SR_PM0 + 7, SR_PM0_64, SR_PM7_64 = SR_PM0_64 + 7, /* %pm<N>, %pm<N>_64 */
    SR_ENVREG0, SR_ENVREG31 = SR_ENVREG0 + 31,
    SR_FRAME, /* not PTX's: the lane's current frame (recursive functions' variables) */
    SR_PRED_FIRST,
    SR_IS_EXPLICIT_CLUSTER = SR_PRED_FIRST,
    SR_TIMER_FIRST,
    SR_CLOCK = SR_TIMER_FIRST, SR_CLOCK_HI, SR_CLOCK64, SR_GLOBALTIMER, SR_GLOBALTIMER_LO,
    SR_GLOBALTIMER_HI,
    SR_COUNT
};
#undef SR_VEC4
#define PTX_SREG_VEC 0x8000u
#define PTX_WARP_SZ 32u /* WARP_SZ, the warp size (the lexer reads it as this number) */
/* The id of "%tid.x" (base "%tid", comp ".x"), of a whole vector ("%tid", "")
 * with PTX_SREG_VEC, or -1. */
int ptx_sreg_lookup(const char *base, size_t blen, const char *comp, size_t clen);
const char *ptx_sreg_name(int sr);
unsigned ptx_sreg_bits(int sr); /* its width: 32 or 64 (1: the predicate) */

/* Raw operands, as parsed. */
enum { RO_REG, RO_INT, RO_F32, RO_F64, RO_DEC, RO_SYM, RO_PARAM, RO_FUNC, RO_NAME, RO_SREG,
       RO_VEC, RO_MEM, RO_SINK, RO_PAREN };
typedef struct ptx_rop {
    uint8_t kind;
    uint8_t neg;          /* '!' on a predicate, '-' on a number */
    uint16_t sreg;
    uint32_t id;          /* register / variable / param / function index, RO_NAME: name string */
    uint32_t n, first;    /* RO_VEC / RO_MEM / RO_PAREN: sub-operands in rops */
    int64_t ival;         /* RO_INT value; RO_MEM / symbol offset */
    uint64_t bits;        /* RO_F32 / RO_F64 bits */
    double d;             /* RO_DEC */
    const char *name;     /* RO_NAME (labels) */
    bool elem;            /* RO_SYM written NAME[i] (ival: i elements in): in ld/st, the element */
} ptx_rop;

typedef struct ptx_raw {
    uint32_t line;
    const char *op;        /* base opcode: "ld" */
    const char *text;      /* whole opcode with modifiers: "ld.global.v4.u32" */
    const char **mods;     /* ".global", ".v4", ".u32" */
    uint16_t nmods;
    uint16_t nops;
    uint32_t ops;          /* first operand in rops */
    int32_t guard;         /* predicate register id, -1 none */
    uint8_t guard_neg;
    int8_t pipe;           /* operand index followed by '|', -1 none */
    uint32_t src_file, src_line; /* the .loc before it (nvcc -lineinfo); 0: none */
} ptx_raw;

typedef struct ptx_reg {
    ptx_type type;
    uint8_t bits;          /* 1 for predicates, 128 for .b128 */
    uint32_t pair;         /* .b128: the hidden register of its high 64 bits (this one
                            * holds the low 64) */
} ptx_reg;

typedef struct ptx_label {
    const char *name;
    uint32_t at;           /* index of the raw instruction that follows it */
    const char **targets;  /* LABEL: .branchtargets A, B, ...; (brx.idx's list), or NULL */
    uint32_t ntargets;
} ptx_label;

/* A function linked into an entry's program (ptx_link.c): the entry is
 * segment 0, each .func it calls (transitively) one more, its instructions,
 * registers and labels appended to the entry's. */
typedef struct ptx_seg {
    int32_t func;            /* module function index */
    uint32_t pc0, pc1;       /* its instructions, the last an implicit ret */
    uint32_t lab0, lab1;     /* its labels */
    uint32_t reg0, reg1;     /* its registers */
    bool recursive;          /* on a cycle of calls: each call gets a frame of its own */
    uint32_t frame_locals;   /* recursive: bytes of its .local/.param variables in the frame */
    uint32_t frame_bytes;    /* the frame a call pushes: a call record, then locals and the
                              * callee's registers saved (recursive) */
    uint32_t *save_slots, nsave;   /* recursive: the R slots of its registers */
    uint32_t *save_preds, npsave;  /* and its predicates */
} ptx_seg;

/* The caller's side of a call's argument or result: its .param variable,
 * at off in the thread's local window (from the caller's frame when frame:
 * a recursive function's variable); the callee's side is the callee's own
 * parameter variables (ptx_func.param_var, ret_var). */
typedef struct ptx_copy {
    uint32_t off, bytes;
    uint8_t frame;
} ptx_copy;

enum { PTX_BI_NONE, PTX_BI_VPRINTF, PTX_BI_ASSERTFAIL, PTX_BI_MALLOC, PTX_BI_FREE };
typedef struct ptx_call {
    uint32_t seg;            /* callee segment */
    uint8_t builtin;         /* PTX_BI_*: a CUDA runtime function run here */
    bool indirect;           /* through a register (o[0]): the callee is each lane's; copies
                              * hold the caller's side only */
    uint32_t args0, nargs;   /* copies[]: the arguments */
    uint32_t rets0, nrets;   /* copies[]: where the results go */
} ptx_call;

typedef struct ptx_inst ptx_inst;
typedef struct ptx_warp ptx_warp;
/* A straight run of plain instructions compiled by the JIT (ptx_jit.c):
 * runs len instructions from its pc for the running lanes active, as the
 * interpreter would step through them (code: the function's decoded
 * instructions), then on through a branch or a converged .sync instruction
 * where the interpreter would without regrouping the warp, while w->jbudget
 * (steps) lasts; 0 with w->pc where it stopped (the next run's start, where
 * the scheduler's loop calls that run), or -1 after ptx_fault().  tab: the
 * run's own values (its registers' slots, its pcs, ...) where its code is
 * shared by runs of the same shape (ptx_jit_emit.c), else NULL. */
typedef int (*ptx_seq_fn)(ptx_warp *w, uint32_t active, const ptx_inst *code, const uint64_t *tab);
typedef struct ptx_jit_seq {
    ptx_seq_fn fn;
    const uint64_t *tab;
    uint32_t len;
} ptx_jit_seq;
typedef struct ptx_func {
    char *name;
    bool entry, defined;
    bool broken;           /* its body did not parse: status and err say why (ptx_parse.c) */
    ptx_param *params;
    uint32_t nparams, params_bytes;
    ptx_param *rets;
    uint32_t nrets;
    uint32_t *param_var, *ret_var; /* .func with a body: its params and results as variables */
    uint32_t maxntid[3], reqntid[3];
    uint32_t line;         /* of its .entry/.func */
    /* parse output */
    ptx_raw *raw;
    uint32_t nraw, capraw;
    ptx_rop *rops;
    uint32_t nrops, caprops;
    ptx_reg *regs;
    uint32_t nregs, capregs;
    ptx_label *labels;
    uint32_t nlabels, caplabels;
    /* decode output */
    vkrr_status status;    /* VKRR_OK when it decoded; else err says why */
    unsigned standins;     /* VKRR_STANDIN_* of instructions that always use one (approx.h) */
    vkrr_error err;
    ptx_inst *code;
    uint32_t ncode;
    uint32_t npreds;
    uint8_t *cov;          /* vkrr_ptx_coverage_on: per pc, PTX_COV_* bits; NULL: off */
    uint32_t nsreg, nconst, nslots;
    uint8_t sreg_of[SR_COUNT + 1]; /* slot of each used special register (0xff: unused) */
    uint8_t sreg_at[SR_COUNT + 1]; /* slot -> special register */
    uint64_t *const_val;   /* nconst */
    int32_t *const_var;    /* nconst: add this module variable's launch address, -1 none */
    uint64_t local_bytes;  /* per thread */
    uint64_t shared_static;
    uint64_t *var_off;     /* per module variable: offset in this kernel's shared/local window,
                            * or in its function's frame when var_frame */
    uint8_t *var_frame;    /* per module variable: 1 when frame-relative (a recursive function's) */
    bool uses_dynamic_shared;
    bool uses_heap;        /* it calls malloc/free: the launch gets a device heap */
    /* linking (ptx_link.c): the functions of this entry's program */
    ptx_seg *segs;
    uint32_t nsegs;
    int32_t *seg_of;       /* per module function: its segment, -1 when not linked */
    ptx_call *calls;
    uint32_t ncalls, capcalls;
    ptx_copy *copies;
    uint32_t ncopies, capcopies;
    uint64_t local_static; /* per thread: the variables; the call stack follows, to local_bytes */
    /* the JIT (ptx_jit.c): per pc, the run compiled there (fn NULL: none) */
    ptx_jit_seq *jit;
    bool jit_tried;
    uint32_t jit_runs, jit_fns; /* the JIT's compiled runs, and the functions they call */
    char jit_why[240];     /* why there is no jit */
    char jit_note[300];    /* engine_used when the JIT did not compile it */
} ptx_func;

/* An initializer word holding an address (`.global .u64 t[2] = {f, g};`,
 * `= generic(x)+8`): patched into each launch's copy of the image. */
typedef struct ptx_reloc {
    uint32_t var;            /* the initialized variable */
    uint64_t at;             /* byte offset in it */
    bool func;               /* target: a function (its address, ptx_fn_addr) or a variable */
    uint32_t target;
    int64_t addend;
} ptx_reloc;

/* Function addresses (mov.u64 %rd, f; tables of them): values no data
 * address takes, one a function; a call through a register decodes them. */
#define PTX_FN_BASE 0xfc00000000000000ull
static inline uint64_t ptx_fn_addr(uint32_t f) { return PTX_FN_BASE + 16ull * f; }
/* A launch's copy of the module's .global and .const variables: the images,
 * relocations patched in (ptx_data.c). */
struct vkrr_ptx_module;
void ptx_module_data(const struct vkrr_ptx_module *m, uint8_t *globals, uint8_t *constmem);

struct vkrr_ptx_module {
    char *name;
    ptx_arena arena;
    ptx_func *funcs;
    uint32_t nfuncs, capfuncs;
    ptx_var *vars;
    uint32_t nvars, capvars;
    uint32_t sm;             /* .target sm_NN */
    uint64_t global_bytes;   /* module .global variables, laid out */
    uint64_t const_bytes;    /* module .const variables */
    uint8_t *global_image;   /* initial contents (arena) */
    uint8_t *const_image;
    ptx_reloc *relocs;       /* initializers holding addresses */
    uint32_t nrelocs, caprelocs;
    struct ptx_srcfile {     /* .file N "path": the sources .loc points into */
        uint32_t index;
        const char *path;    /* arena */
    } *srcfiles;
    uint32_t nsrcfiles, capsrcfiles;
    struct ptx_jit_state *jit; /* the JIT's LLVM instance, made at its first kernel */
};

/* The JIT (ptx_jit.c): f's compiled runs, compiled at the first call (one
 * at a time; from and into the cache when cache); NULL with *why saying why when this build or this kernel has
 * none.  ptx_jit_free: the module's compiled code. */
const ptx_jit_seq *ptx_jit_code(vkrr_ptx_module *m, ptx_func *f, bool cache, const char **why);
void ptx_jit_free(vkrr_ptx_module *m);
bool ptx_jit_built(void);
/* One launch with l->engine one engine (ptx_exec.c; vkrr_ptx_run, in
 * ptx_run.c, resolves the engine and runs the oracle check). */
vkrr_status ptx_run_launch(const vkrr_ptx_module *m, const char *entry, const vkrr_ptx_launch *l,
                           vkrr_error *err);
/* The JIT's cache (ptx_jit_cache.c): a kernel's object code by key. */
typedef struct ptx_jit_key {
    uint64_t h0, h1, bytes;
} ptx_jit_key;
/* The key of IR ir (n bytes of bitcode) compiled under env (LLVM, CPU, passes). */
void ptx_jit_key_make(ptx_jit_key *k, const char *ir, size_t n, const char *env);
/* The entry's object (malloc'd, *size bytes), NULL when absent, damaged or
 * another key's. */
void *ptx_jit_cache_load(const ptx_jit_key *k, size_t *size);
/* Writes the entry (whole or not at all); false when it cannot. */
bool ptx_jit_cache_store(const ptx_jit_key *k, const void *obj, size_t n);
/* The engine a launch of f runs with (vkrr_ptx_engine, VKRR_PTX_ENGINE): *jit
 * the runs to use (NULL: interpret), *used its words for engine_used. */
vkrr_status ptx_jit_choose(vkrr_ptx_module *m, ptx_func *f, vkrr_ptx_engine engine, bool cache,
                           const ptx_jit_seq **jit, const char **used, vkrr_error *err);

vkrr_status ptx_parse(vkrr_ptx_module *m, const char *text, size_t len, vkrr_error *err);
void ptx_decode_module(vkrr_ptx_module *m); /* fills each function's status / code */

/* ---- decoded instructions ----------------------------------------------- */
/* Handler: runs the instruction for the lanes in m (non-empty); 0, or -1
 * after ptx_fault(). */
typedef int (*ptx_fn)(ptx_warp *w, const ptx_inst *in, uint32_t m);

/* K_WAIT: a plain handler that may end the warp's turn (w->yield): a wait on
 * an mbarrier phase that has not completed lets the other warps run. */
enum { K_PLAIN, K_BRA, K_EXIT, K_BAR, K_SYNC, K_TRAP, K_CALL, K_RET, K_WAIT,
       K_BRX /* brx.idx: o[0] the index, ox[0..imm-1] the targets' pcs */ };
enum { F_TARGET = 1 };           /* a branch target: lanes may meet here */

/* K_SYNC's target for the pre-.sync forms (vote.ballot.b32, shfl.bfly.b32):
 * the lanes that execute it form the group, nobody waits. */
#define PTX_MASK_ACTIVE (UINT32_MAX - 1u)

struct ptx_inst {
    ptx_fn fn;
    uint8_t kind, flags, gneg;
    uint8_t a, b, c, d, e;         /* small per-handler parameters (types, modes, counts) */
    uint8_t ruse, rdef;            /* o[i] is an R slot it reads (bit i of ruse), writes (rdef) */
    bool rox;                      /* it reads or writes R slots through ox too */
    int32_t guard;                 /* predicate index, -1 none */
    uint32_t target;               /* K_BRA: pc; K_SYNC: membermask slot, UINT32_MAX all
                                    * lanes, PTX_MASK_ACTIVE the lanes running */
    uint32_t o[8];                 /* operand slots (R or P index, by handler) */
    uint64_t imm;                  /* address offset / constant */
    uint32_t *ox;                  /* more operand slots (mma, tex), or NULL */
};

/* ---- what the JIT emits inline (ptx_jit_emit.c) --------------------------- */
/* A handler the JIT replaces by vector code over the warp's 32 lanes: the
 * operation it computes, in a table beside the handler (ptx_int.c,
 * ptx_move.c, ptx_cvt.c).  Every other handler the JIT calls.  The oracle
 * (tests: both engines on every PTX test kernel, byte for byte) keeps the
 * two definitions one.  Operands as the handlers read them: d o[0], a o[1],
 * b o[2]; setp compares o[4] with o[5] into predicates o[0] (and o[1] when
 * in->d), combined with predicate o[3] by in->b (1 and, 2 or, 3 xor; o[3]
 * negated when in->c); selp picks a where predicate o[3] is set. ptx_mem.c's
 * ld/st tables name the memory operations. */
enum {
    JOP_NONE, JOP_ADD, JOP_SUB, JOP_MULLO, JOP_AND, JOP_OR, JOP_XOR, JOP_NOT, JOP_CNOT,
    JOP_MIN, JOP_MAX, JOP_ABS, JOP_NEG, JOP_MULWIDE, JOP_SHL, JOP_SHRU, JOP_SHRS,
    JOP_SETP_EQ, JOP_SETP_NE, JOP_SETP_LT, JOP_SETP_LE, JOP_SETP_GT, JOP_SETP_GE,
    JOP_SELP, JOP_MOV, JOP_ZEXT, JOP_SEXT,
    JOP_F16_F32, JOP_F32_F64, /* cvt.f32.f16, cvt.f64.f32: exact (NaN payloads as the handlers) */
    JOP_PLOGIC, JOP_PIMM, /* predicates: in->a op (0 and, 1 or, 2 xor, 3 not, else mov),
                           * b, c negate o[1], o[2]; pimm: in->imm */
    JOP_LD, JOP_ST, /* ptx_mem.c's fields: in->a element bytes, b count, c sign, d space,
                     * e register bits; o[0] the base, o[1..] the data */
    JOP_PACK, JOP_UNPACK, /* ptx_move.c's x_pack / x_unpack: in->a elements of in->b bits */
    JOP_FADD, JOP_FSUB, JOP_FMUL, JOP_FFMA, /* f32 .rn, no .ftz/.sat (ptx_float.c) */
    JOP_F32_GEN, /* ptx_float.c's x_f32_gen: inline for add/sub/mul/fma .rn (.ftz, .sat) */
    JOP_F32_F16, /* cvt.rn.f16.f32 (vkrr_f32_to_f16_rne) */
    JOP_FSETP, /* ptx_float.c's x_fsetp: inline for .f32 */
    JOP_FMINMAX, JOP_FABSNEG, JOP_APPROX, JOP_CVT_F8X2, /* inline .f32 (abs/neg .f64 too); direct calls: ptx_jcalls.h */
};
typedef struct ptx_jop {
    ptx_fn fn;
    uint8_t op;     /* JOP_* */
    uint8_t bits;   /* operand width (JOP_MULWIDE: the sources') */
    uint8_t sign;   /* signed compare, min/max, shift, widening */
} ptx_jop;
extern const ptx_jop ptx_int_jops[], ptx_move_jops[], ptx_cvt_jops[], ptx_mem_jops[],
    ptx_float_jops[];
extern const ptx_fn ptx_fn_zext; /* ptx_cvt.c: d = a & in->imm (JOP_ZEXT) */
extern const unsigned ptx_int_njops, ptx_move_njops, ptx_cvt_njops, ptx_mem_njops,
    ptx_float_njops;

/* ---- decode context (used by the family decoders) --------------------- */
typedef struct ptx_dctx {
    vkrr_ptx_module *m;
    ptx_func *f;
    const ptx_raw *r;
    ptx_inst *in;
    uint32_t pc;
    uint32_t seg;                  /* the linked function pc is in (ptx_seg) */
    bool *mod_used;                /* per modifier of r */
    vkrr_error *err;
} ptx_dctx;

/* Fails the decode: VKRR_ERR_UNSUPPORTED (or st) naming the instruction and
 * FILE:LINE.  Returns -1. */
int ptx_dec_fail(ptx_dctx *c, vkrr_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Modifiers: take() consumes one if present; type() consumes the next type
 * modifier in order; rest_ok() fails on any modifier nobody consumed. */
bool ptx_take(ptx_dctx *c, const char *mod);
int ptx_take_any(ptx_dctx *c, const char *const *mods, int n); /* index or -1 */
ptx_type ptx_take_type(ptx_dctx *c);
void ptx_take_ignorable(ptx_dctx *c); /* cache/eviction hints, .volatile, scopes */
int ptx_rest_ok(ptx_dctx *c);
const ptx_rop *ptx_op(ptx_dctx *c, unsigned i); /* operand i, NULL when absent */
unsigned ptx_nops(ptx_dctx *c);
/* Operand -> slot.  src accepts registers, immediates (converted to type t),
 * special registers, symbol addresses; dst only registers.  wide_ok: the
 * register may be wider than t (ld/st/cvt). Each returns -1 after failing. */
int64_t ptx_src(ptx_dctx *c, const ptx_rop *o, ptx_type t, bool wide_ok);
int64_t ptx_dst(ptx_dctx *c, const ptx_rop *o, ptx_type t, bool wide_ok);
int64_t ptx_psrc(ptx_dctx *c, const ptx_rop *o, bool *neg); /* predicate register */
int64_t ptx_pdst(ptx_dctx *c, const ptx_rop *o);
int64_t ptx_const_slot(ptx_dctx *c, uint64_t v);
unsigned ptx_reg_bits(ptx_dctx *c, const ptx_rop *o); /* declared bits of a register operand, 0 if not */
/* Records that field (0..7: o[i], 8+k: ox[k]) of the current instruction is
 * an R slot that the instruction reads (use) and/or writes (def). */
void ptx_ref(ptx_dctx *c, unsigned field, bool use, bool def);
uint32_t *ptx_alloc_ox(ptx_dctx *c, unsigned n);
/* The usual way: sets field (0..7 o[i], 8+k ox[k], 31 target) to the slot of
 * operand o and records the use (src) or def (dst).  0, or -1 after failing. */
int ptx_set_src(ptx_dctx *c, unsigned field, const ptx_rop *o, ptx_type t, bool wide_ok);
int ptx_set_dst(ptx_dctx *c, unsigned field, const ptx_rop *o, ptx_type t, bool wide_ok);
int ptx_set_slot(ptx_dctx *c, unsigned field, int64_t slot, bool use, bool def);
/* A .b128 register operand as its two 64-bit halves into fields lo and hi
 * (dst: written, else read); fails on anything but a .b128 register. */
int ptx_set_b128(ptx_dctx *c, unsigned lo, unsigned hi, const ptx_rop *o, bool dst);

/* Slot ids during decoding: registers are their id, immediates and symbol
 * addresses TAG_CONST | index, special registers TAG_SREG | SR_*; field 31
 * names ptx_inst.target.  ptx_slots.c turns them into slots. */
#define TAG_CONST 0x40000000u
#define TAG_SREG 0x20000000u
#define ID_MASK 0x1fffffffu
#define FIELD_TARGET 255u /* above every o[] and ox[] field (wmma.mma: 8 + 32) */
typedef struct ptx_dref {
    uint32_t pc;
    uint8_t field, use, def;
} ptx_dref;

/* Decode state of one function (behind ptx_dctx): made by ptx_decode.c's
 * driver, kept up by ptx_operand.c's helpers. */
typedef struct ptx_dstate {
    ptx_dctx c;
    ptx_dref *refs;
    uint32_t nrefs, caprefs;
    uint32_t *pidx;          /* register id -> P index (predicates) */
    uint32_t capconst;
    uint32_t sink;           /* P index that '_' destinations write */
    bool nomem;
} ptx_dstate;
/* Slots for every field; group[r] (NULL: one group) keeps registers of
 * different groups out of one slot; *reg_slot_out (optional, the caller
 * frees) receives each register's slot, UINT32_MAX when never used. */
int ptx_finalize_slots(ptx_func *f, const ptx_dref *refs, uint32_t nrefs, const uint32_t *group,
                       uint32_t **reg_slot_out);
/* ptx_link.c: links the functions an entry calls into its arrays (segments);
 * after decoding, its slots (one group a function) and the frames of its
 * recursive functions. */
int ptx_link(vkrr_ptx_module *m, ptx_func *f);
int ptx_frames(ptx_dctx *c, const ptx_dref *refs, uint32_t nrefs, const uint32_t *pidx);
uint32_t ptx_seg_at(const ptx_func *f, uint32_t pc);
bool ptx_var_in_frame(const ptx_dctx *c, uint32_t var);
/* ptx_stack.c: alloca, stacksave, stackrestore; a program with any of them
 * gets a stack as a recursive one does */
int ptx_dec_stack(ptx_dctx *c);
bool ptx_is_stack_op(const char *op);
/* A recursive program's call stack, per thread. */
#define PTX_STACK_BYTES 16384u
/* A call's record on the stack, before the callee's frame. */
#define PTX_CALL_RECORD 16u

/* Family decoders: return 1 when they own the opcode and decoded it, 0 when
 * the opcode is not theirs, -1 after failing. */
int ptx_dec_int(ptx_dctx *c);
int ptx_dec_mov(ptx_dctx *c);  /* every type but .pred (ptx_move.c) */
int ptx_dec_bits(ptx_dctx *c);
int ptx_dec_warpsync(ptx_dctx *c);
int ptx_dec_float(ptx_dctx *c);
int ptx_dec_cvt(ptx_dctx *c);
int ptx_dec_mem(ptx_dctx *c);
/* An address operand [base+off] (or an array element a[N]) of ld/st and the
 * like: its base into field, its offset into *off (ptx_mem.c). */
int ptx_mem_operand(ptx_dctx *c, const ptx_rop *o, unsigned field, uint64_t *off);
int ptx_dec_mbarrier(ptx_dctx *c); /* mbarrier, cp.async.mbarrier.arrive, cp.async.bulk */
int ptx_dec_warp(ptx_dctx *c);
int ptx_dec_mma(ptx_dctx *c);
int ptx_dec_ldmatrix(ptx_dctx *c); /* ldmatrix, stmatrix, movmatrix (ptx_ldmatrix.c) */
/* operand o, a vector of n registers of type t, into fields field.. (ptx_mma.c) */
int ptx_vec_regs(ptx_dctx *c, const ptx_rop *o, unsigned n, ptx_type t, unsigned field, bool dst);
int ptx_dec_wmma(ptx_dctx *c); /* wmma.load/store/mma (ptx_wmma.c) */

int ptx_dec_tex(ptx_dctx *c);
int ptx_dec_call(ptx_dctx *c);   /* call (ptx_call.c) */
int ptx_dec_frame(ptx_dctx *c);  /* mov/cvta of a recursive function's variable */

/* ---- execution ----------------------------------------------------------- */
typedef struct ptx_rt ptx_rt;
/* A growable string and a launch's printf output (ptx_prints.c). */
typedef struct ptx_strbuf {
    char *p;
    size_t n, cap;
    bool nomem;
} ptx_strbuf;
typedef struct ptx_prints {
    struct ptx_print *v;
    uint32_t n, cap;
    uint64_t seq, bytes;
    bool cut;
} ptx_prints;
void ptx_strbuf_put(ptx_strbuf *b, const char *s, size_t n);
/* Keeps text (taking its buffer) as thread's output; the caller locks. */
void ptx_prints_add(ptx_prints *p, uint64_t cta, uint32_t thread, ptx_strbuf *text);
/* The output in thread order (malloc'd; NULL when none or !keep); frees
 * the records either way. */
char *ptx_prints_collect(ptx_prints *p, bool keep);
typedef struct ptx_cta ptx_cta;

struct ptx_warp {
    uint64_t *R;                  /* nslots * 32 */
    uint32_t *P;                  /* npreds */
    uint32_t pc;                  /* the running group's pc */
    uint32_t active;              /* the running group */
    uint32_t live;                /* lanes that exist and have not exited */
    uint32_t blocked;             /* lanes waiting at a CTA barrier */
    uint32_t parked;              /* lanes waiting at a warp collective */
    uint32_t cc;                  /* carry flags (add.cc ...) */
    uint32_t lpc[32];
    uint8_t lbar[32];             /* barrier a blocked lane waits at */
    uint32_t fp[32], sp[32];      /* each lane's current frame and stack top (ptx_call.c) */
    uint32_t depth[32];           /* and how many calls deep it is */
    uint8_t *local;               /* 32 * local_bytes */
    ptx_cta *cta;
    uint32_t index;
    uint64_t clock;
    bool yield;                   /* a K_WAIT handler asks to end this turn */
    bool yielded;                 /* the last turn ended so */
    uint32_t ylanes;              /* lanes that waited this turn: the others run first */
    uint64_t jbudget;             /* compiled runs: steps a run may still take */
    const struct ptx_jcalls *jcalls; /* what compiled code calls directly (ptx_jcalls.h) */
};

/* A region as the kernel sees it: device addresses [lo, hi), at host
 * address + delta (wrapping); index: the launch's region, or PTX_RG_* */
typedef struct ptx_region_rt {
    uintptr_t lo, hi;
    uintptr_t delta;
    int32_t index;
    bool writable;
} ptx_region_rt;
enum { PTX_RG_GLOBALS = -1, PTX_RG_CONST = -2, PTX_RG_HEAP = -3 };

/* n zeroed bytes the kernel addresses as host memory (windows, variables, heap), where
 * it sees no allocation of l's if any place is; NULL: no memory (ptx_host_mem.c) */
void *ptx_host_mem(const vkrr_ptx_launch *l, size_t n);
void ptx_host_mem_free(void *p);

/* The device heap malloc and free use (ptx_launch_mem.c): one arena per launch. */
typedef struct ptx_heap ptx_heap;
#define PTX_HEAP_BYTES (8u << 20) /* CUDA's default cudaLimitMallocHeapSize */
ptx_heap *ptx_heap_new(const vkrr_ptx_launch *l); /* its memory: ptx_host_mem's */
void ptx_heap_free(ptx_heap *h);
void ptx_heap_span(const ptx_heap *h, uintptr_t *lo, uintptr_t *hi);
uint8_t *ptx_heap_base(const ptx_heap *h);
/* the offset of a new live block of size bytes, or UINT64_MAX (none fits, or no memory) */
uint64_t ptx_heap_take(ptx_heap *h, uint64_t size);
/* frees the block at offset off; false when no live block starts there */
bool ptx_heap_give(ptx_heap *h, uint64_t off);
/* A runtime function's argument k and its result (ptx_runtime.c) */
uint64_t ptx_call_arg(ptx_warp *w, const ptx_inst *in, unsigned l, uint32_t k);
void ptx_call_result(ptx_warp *w, const ptx_inst *in, unsigned l, uint64_t v);
int ptx_bi_malloc(ptx_warp *w, const ptx_inst *in, uint32_t m);
int ptx_bi_free(ptx_warp *w, const ptx_inst *in, uint32_t m);
/* rt->regions: the launch's regions at the addresses the kernel sees, the
 * module's variables and the heap (when rt->heap) at their host addresses,
 * sorted by address, and rt->ihint for rt->f; fails naming two regions
 * that overlap (a launch's regions, or one of them and this host's memory
 * for the other windows: rt->params too) (ptx_launch_mem.c) */
vkrr_status ptx_rt_regions(ptx_rt *rt, vkrr_error *err);
/* Whether host memory [p, p + n) lies where the kernel sees one of the
 * launch's regions (shared and local windows are host memory seen as such). */
bool ptx_rt_clashes(const ptx_rt *rt, const void *p, size_t n, vkrr_error *err);
/* The same for a worker's shared and local windows: true after failing the
 * launch with the error. */
bool ptx_rt_windows_clash(ptx_rt *rt, const void *shared, size_t ns, const void *local, size_t nl);
/* "allocation 3 (0x7f0000000000, 256 bytes)", "the module's .global
 * variables", ... for messages */
void ptx_region_name(const ptx_region_rt *rg, char *buf, size_t cap);

/* What a conditional branch did, over every run since coverage was on. */
enum { PTX_COV_RAN = 1, PTX_COV_TAKEN = 2, PTX_COV_FELL = 4 };

struct ptx_rt {
    const vkrr_ptx_module *m;
    const ptx_func *f;
    const vkrr_ptx_launch *l;
    uint8_t *params;               /* the parameter window (params_bytes) */
    uint32_t params_bytes;
    ptx_region_rt *regions;        /* sorted by lo */
    uint32_t nregions;
    uint32_t *ihint;               /* per pc: the region its last global access hit (relaxed
                                    * atomics; UINT32_MAX: none yet) */
    char *memory_note;             /* the first neighbour note (ptx_addr.c), under lock */
    uint64_t *consts;              /* f->nconst, launch addresses patched in */
    uint8_t *globals, *constmem;   /* this launch's module variables */
    uint64_t local_bytes, shared_bytes;
    uint64_t local_static;         /* the variables; the call stack is the rest (not zeroed) */
    uint64_t max_steps;
    const ptx_jit_seq *jit;        /* the JIT's runs (NULL: interpret everything) */
    ptx_prints prints;             /* printf output (ptx_runtime.c), under lock */
    atomic_uint_fast64_t next_cta;
    atomic_int failed;
    atomic_uint standins;          /* VKRR_STANDIN_* the launch met (approx.h) */
    ptx_heap *heap;                /* malloc/free's arena (ptx_runtime.c), or NULL */
    pthread_mutex_t lock;
    vkrr_error err;
};

struct ptx_cta {
    ptx_rt *rt;
    ptx_warp *warps;
    uint32_t nwarps;
    uint8_t *shared;
    uint32_t ctaid[3];
    uint32_t nthreads;
    uint32_t bar_arrived[16], bar_count[16];
    uint32_t bar_red[16];          /* bar.red accumulator */
    uint8_t bar_red_op[16];
    uint64_t steps;
    uint64_t mbar_epoch;           /* counts changes of any mbarrier (ptx_mbarrier.c) */
};

/* Records the launch's first error (later ones are dropped) naming the
 * instruction, FILE:LINE and, when lane >= 0, the thread.  Returns -1. */
int ptx_fault(ptx_warp *w, const ptx_inst *in, int lane, vkrr_status st, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* .sync instructions (ptx_sync.c), lanes m there: every one in its own
 * membermask and the lanes of one mask all naming it, else a fault naming
 * them (-1); then the instruction run once a group of lanes of one mask. */
int ptx_sync_check(ptx_warp *w, const ptx_inst *in, uint32_t m);
int ptx_sync_groups(ptx_warp *w, const ptx_inst *in, uint32_t m);
/* The whole K_SYNC step where the warp is converged: 1 when it ran, 0 when
 * it is not (nothing done: the scheduler's), -1 after a fault. */
int ptx_sync_converged(ptx_warp *w, const ptx_inst *in);

/* Calls (ptx_call.c): lanes m enter the call at pc, each lane's lpc set to
 * its callee (-1, or the lane that cannot make the call, why saying why:
 * its stack is full, its function pointer is not a function's); lanes m
 * return (each lane's lpc set). */
int ptx_call_enter(ptx_warp *w, const ptx_inst *in, uint32_t m, uint32_t pc, char *why,
                   size_t cap);
void ptx_call_leave(ptx_warp *w, const ptx_inst *in, uint32_t m);
/* The CUDA runtime's device functions (ptx_runtime.c), as call handlers. */
int ptx_bi_vprintf(ptx_warp *w, const ptx_inst *in, uint32_t m);
int ptx_bi_assertfail(ptx_warp *w, const ptx_inst *in, uint32_t m);
/* Special registers (ptx_sreg.c): the value of sr (below SR_PRED_FIRST) in
 * lane l of warp w; and a timer read: lane l's value of timer sr, and the
 * warp's counter moved on once the instruction has read every lane. */
uint64_t ptx_sreg_value(const ptx_rt *rt, const ptx_cta *cta, const ptx_warp *w, int sr, unsigned l);
uint64_t ptx_timer_lane(const ptx_warp *w, int sr, unsigned l);
void ptx_timer_advance(ptx_warp *w);

/* Memory: a host pointer for `bytes` bytes at address a in state space sp
 * (SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST) for
 * lane l, checked (bounds, alignment to `align`, writability); NULL after
 * ptx_fault(). */
void *ptx_addr(ptx_warp *w, const ptx_inst *in, int l, unsigned sp, uint64_t a, unsigned bytes,
               unsigned align, bool write);

#define PTX_R(w, s) ((w)->R + (size_t)(s) * 32u)

/* Lane l's membermask of a .sync instruction. */
static inline uint32_t ptx_lane_mask(ptx_warp *w, const ptx_inst *in, unsigned l)
{
    return in->target == UINT32_MAX ? 0xffffffffu : (uint32_t)PTX_R(w, in->target)[l];
}

/* Runs body for each lane l in m. */
#define PTX_LANES(m, ...)                                                           \
    do {                                                                            \
        if ((m) == 0xffffffffu) {                                                   \
            for (unsigned l = 0; l < 32; l++) {                                     \
                __VA_ARGS__;                                                        \
            }                                                                       \
        } else {                                                                    \
            for (uint32_t mm_ = (m); mm_; mm_ &= mm_ - 1u) {                        \
                unsigned l = (unsigned)__builtin_ctz(mm_);                          \
                __VA_ARGS__;                                                        \
            }                                                                       \
        }                                                                           \
    } while (0)

/* ---- numeric helpers (ptx_round.c) -------------------------------------- */
#define RND_RN VKRR_RM_RN
#define RND_RZ VKRR_RM_RZ
#define RND_RM VKRR_RM_RM
#define RND_RP VKRR_RM_RP
#define RND_RNA VKRR_RM_RNA
/* Minifloat formats (vkrr_round_to, vkrr_decode_bits). */
#define FMT_F32 VKRR_FF_F32
#define FMT_F16 VKRR_FF_F16
#define FMT_BF16 VKRR_FF_BF16
#define FMT_E4M3 VKRR_FF_E4M3
#define FMT_E5M2 VKRR_FF_E5M2
#define FMT_TF32 VKRR_FF_TF32
static inline float ptx_f(uint64_t v) { float f; uint32_t u = (uint32_t)v; memcpy(&f, &u, 4); return f; }
static inline uint64_t ptx_fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double ptx_d(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static inline uint64_t ptx_db(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
/* Rounding to any format and decoding: src/base/fpformat.h (vkrr_round_to,
 * vkrr_decode_bits, vkrr_f32_to_f16_rne, vkrr_f16_to_f32, vkrr_ftz_f32). */
/* f32 arithmetic with any rounding mode, exact then rounded once. */
float ptx_add_f32(float a, float b, int mode);
float ptx_mul_f32(float a, float b, int mode);
float ptx_fma_f32(float a, float b, float c, int mode);
float ptx_div_f32(float a, float b, int mode);
float ptx_sqrt_f32(float a, int mode);
/* The same rounded to f16 / bf16 (fmt), inputs already decoded. */
uint16_t ptx_fma_small(double a, double b, double c, int fmt, int mode);
/* f64 with a rounding mode other than RN (ptx_fenv.c, -frounding-math). */
double ptx_f64_op(int op, double a, double b, double c, int mode); /* op: 0 add 1 mul 2 fma 3 div 4 sqrt */
/* Rounding of a double to an integer-valued double, per cvt's .rni/.rzi/.rmi/.rpi. */
double ptx_rint_mode(double x, int mode);
float ptx_canon_f32(float x);   /* NaN -> 0x7fffffff */

#endif
