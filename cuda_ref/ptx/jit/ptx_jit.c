/* ptx_jit.c - the PTX JIT: an entry's straight runs of instructions as
 * native code, through LLVM 15's ORC JIT (C API).
 *
 * For a kernel, each straight run of K_PLAIN instructions (none after the
 * first a branch target) becomes one function (ptx_jit_emit.c): the
 * operations of the ptx_jop tables (integer arithmetic, compares,
 * predicates, moves, ld/st) as vector code over the warp's 32 lanes, every
 * other instruction a call of its interpreter handler with its decoded
 * instruction.  A run goes on into the next where the interpreter would
 * without regrouping the warp, through a warp collective (.sync: mma,
 * shfl, ...) where the warp is converged; divergent branches, barriers,
 * the other collectives and calls stay with the interpreter's scheduler (ptx_exec.c),
 * which calls a run's function where it would have stepped through the
 * run.  The code holds no addresses, so it is cached on disk
 * (ptx_jit_cache.c), keyed by its IR and the code generator.
 *
 * Without LLVM at build time (VKRR_PTX_JIT_LLVM undefined) the entry points
 * say there is no JIT and the interpreter runs everything. */
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "ptx_internal.h"

bool vkrr_ptx_engine_parse(const char *s, vkrr_ptx_engine *out)
{
    if (s && !strcmp(s, "jit"))
        *out = VKRR_PTX_ENGINE_JIT;
    else if (s && !strcmp(s, "interp"))
        *out = VKRR_PTX_ENGINE_INTERP;
    else if (s && !strcmp(s, "both"))
        *out = VKRR_PTX_ENGINE_BOTH;
    else
        return false;
    return true;
}

bool vkrr_ptx_jit_built(void)
{
    return ptx_jit_built();
}

vkrr_status ptx_jit_choose(vkrr_ptx_module *m, ptx_func *f, vkrr_ptx_engine engine, bool cache,
                           const ptx_jit_seq **jit, const char **used, vkrr_error *err)
{
    *jit = NULL;
    if (engine == VKRR_PTX_ENGINE_DEFAULT)
        engine = ptx_jit_built() ? VKRR_PTX_ENGINE_JIT : VKRR_PTX_ENGINE_INTERP;
    if (engine == VKRR_PTX_ENGINE_BOTH)
        return vkrr_fail(err, VKRR_ERR_INTERNAL, NULL, 0, -1, "one engine a run");
    if (engine == VKRR_PTX_ENGINE_INTERP) {
        *used = "interp";
        return VKRR_OK;
    }
    if (f->cov) { /* coverage counts each instruction the interpreter steps through */
        *used = "interp (coverage is on)";
        return VKRR_OK;
    }
    const char *why = NULL;
    *jit = ptx_jit_code(m, f, cache, &why);
    *used = *jit ? "jit" : f->jit_note;
    return VKRR_OK;
}

#ifndef VKRR_PTX_JIT_LLVM

const ptx_jit_seq *ptx_jit_code(vkrr_ptx_module *m, ptx_func *f, bool cache, const char **why)
{
    (void)m;
    (void)cache;
    *why = "this build has no PTX JIT (built without LLVM 15: llvm-15-dev missing or VKRR_PTX_JIT=OFF)";
    snprintf(f->jit_note, sizeof f->jit_note, "interp (%s)", *why);
    return NULL;
}

void ptx_jit_free(vkrr_ptx_module *m)
{
    (void)m;
}

bool ptx_jit_built(void)
{
    return false;
}

const char *vkrr_ptx_jit_llvm_version(void)
{
    return NULL;
}

#else

#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm/Config/llvm-config.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "cores.h"
#include "ptx_jit_emit.h"

struct ptx_jit_done { /* a kernel compiled into this module's JIT */
    ptx_jit_key key;
    const ptx_func *f;
};
struct ptx_jit_state {
    LLVMOrcLLJITRef jit;
    struct ptx_jit_done *done;
    uint32_t ndone, capdone;
};

static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t jit_once = PTHREAD_ONCE_INIT;

static void init_llvm(void)
{
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
}

bool ptx_jit_built(void)
{
    return true;
}

const char *vkrr_ptx_jit_llvm_version(void)
{
    return LLVM_VERSION_STRING; /* the headers it was compiled against: llvm/Config/llvm-config.h */
}

/* Keeps what (and LLVM's message for e, consumed) in f->jit_why. */
static const char *llvm_why(ptx_func *f, const char *what, LLVMErrorRef e)
{
    char *msg = e ? LLVMGetErrorMessage(e) : NULL;
    snprintf(f->jit_why, sizeof f->jit_why, "%s%s%s", what, msg ? ": " : "", msg ? msg : "");
    if (msg)
        LLVMDisposeErrorMessage(msg);
    return f->jit_why;
}

/* Code generation: what the cache key must hold besides the IR.  Two tiers,
 * by the kernel's size (issue 44):
 *
 * - kernels under JIT_QUICK_MIN instructions (rrref's are 75 to 5,010):
 *   everything, through LLVM's usual -O2 pipeline and code generator.
 *   Measured on rrref at 720p, the lighter ones saved no compile time worth
 *   their slower code (cached rerun 13.2 s at -O2, 14.7 s with instcombine,
 *   early-cse, dse and simplifycfg alone, 16 s+ with the fast instruction
 *   selector).
 *
 * - larger kernels, the quick tier: a short pipeline, LLVM's -O0 code
 *   generator (fast instruction selection and register allocation), and
 *   only the runs where compiling pays.  At -O2 a kernel costs about 0.9 ms
 *   of CPU an instruction, linear (no pass is superlinear: the inliner and
 *   instcombine, then SelectionDAG and the greedy allocator on <32 x i64>
 *   vectors, are the time), so enc0_bench's 80k-instruction kernel would
 *   take 75 s of CPU; the quick tier's code generation halves that (0.42 ms
 *   an instruction) and its code ran as fast on enc0 (within the bench's
 *   noise).  The rest comes from compiling less: a run made mostly of
 *   handler calls saves only the interpreter's dispatch when compiled
 *   (enc0 at -O2: 3.14 ms a warp in the JIT, 3.27 interpreted, 81% of its
 *   instructions calls), so a run under JIT_QUICK_INLINE_PCT percent inline
 *   instructions stays with the interpreter, which steps through it as
 *   through any instruction the JIT left; and runs costing at most
 *   JIT_QUICK_BUDGET a kernel are compiled (an instruction costs 1, an
 *   inline ld/st 4: its address checks and gathers took about 1.5 ms of
 *   CPU each, against 0.36 ms), the runs with the most inline instructions
 *   a unit of cost first (float runs before ld/st runs, which cost 4
 *   times as much to compile and save no more), so that no kernel's cold
 *   compile takes much over 6.5 s of CPU, whatever its size or however
 *   much of it is inline (more of it will be as the JIT inlines more).  Cold compiles of enc0_bench's
 *   kernels (2 cores, load 6 to 8; CPU seconds, wall seconds, peak RSS):
 *
 *       instructions     -O2 (before)            quick tier (after)
 *       10k              8.7 s  15.5 s  140 MB   0.5 s   0.9 s   85 MB
 *       20k             18.7 s  21.8 s  223 MB   1.3 s   2.7 s  109 MB
 *       40k             37.4 s  38.6 s  390 MB   2.7 s   5.6 s  145 MB
 *       80k             (~75 s, extrapolated)    6.5 s  13.0 s  242 MB
 *
 *   (80k: 4,096 of its instructions compiled, its ld/st runs, cut by the
 *   budget, when the runs with the largest share of inline instructions
 *   came first; by inline instructions a unit of cost, 10,951, its fma
 *   runs, in 9.9 s of CPU against 12.6, and a warp 19.5 ms against 28.0
 *   in the JIT, 24-26 ms interpreted: CPU times, load 5 to 7.)  Every
 *   run in the quick tier without the budget (VKRR_PTX_JIT_INLINE_PCT=0
 *   VKRR_PTX_JIT_BUDGET=0): 4.1, 8.7, 17.2,
 *   35.3 s of CPU, 142 to 851 MB; with it, 40k 5.0 s, 80k 6.5 s.  A warp
 *   took as long in the JIT as in the interpreter before and after (10k:
 *   3.14 against 3.27 ms before, 4.04 against 4.12 after, under a varying
 *   load): enc0's time is the mma and float handlers'.
 *
 *   Those figures are from a host this note did not record.  On a 2-core
 *   AVX2 EPYC without AVX-512 (LLVM's znver3), the same 10k kernel took
 *   26 s to compile at -O2 (505 MB) and 22.8 s in the quick tier, 94 % of
 *   it in LLVM (SelectionDAG), and its code ran no faster than the
 *   interpreter; rrref's kernels, warm, still ran 2.5x faster.  The lane
 *   vectors and masks above are a few AVX-512 registers, and many AVX2
 *   ones; bench/enc0_bench now names the host's vector extension.
 *
 *   Runs of one shape share one function in the quick tier (t->share;
 *   ptx_jit_emit.h's jit_tabs): an unrolled layer is the same code over
 *   other registers and offsets, and those values, read from each run's
 *   table, are all that differ.  Each run is emitted, then kept only when
 *   no kept function has its IR (ptx_jit_shape.c); the budget then weighs
 *   the functions, each saving its inline instructions in every run that
 *   calls it, and where the functions kept cost at most
 *   JIT_SHARED_FULL_COST they are compiled at -O2, as a small kernel.  On
 *   that AVX2 host, a 68,630-instruction enc0 kernel (536 phases) is 1,073
 *   runs in 9 functions: all but 1,075 instructions compiled, cold in 3.1 s
 *   (52.7 s, 11k instructions, before), 155 MB, loaded from the cache in
 *   0.8 s (emitting the IR again, for the key), and a warp 9.6 ms against
 *   the interpreter's 15.3 (no faster before; 12.5 ms with the functions at
 *   -O0).  VKRR_PTX_JIT_SHARE=0 turns sharing off.
 *
 * VKRR_PTX_JIT_QUICK sets the size from which the quick tier is used (0:
 * every kernel; tests); VKRR_PTX_JIT_INLINE_PCT and VKRR_PTX_JIT_BUDGET its
 * share of inline instructions and its budget (0: every run, no budget;
 * benches).  The tier is part of the cache key. */
#define JIT_VERSION "vkrr-ptx-jit 10" /* 4: regions at device addresses; 5: tiers; 6: .sync in runs;
                                            * 7: a run returns where it went on into the next;
                                            * 8: runs of one shape share a function;
                                            * 9: direct calls through ptx_warp.jcalls;
                                            * 10: cvt f8x2.f16x2 a direct call */
#define JIT_QUICK_MIN 8192u
#define JIT_QUICK_INLINE_PCT 25u
#define JIT_QUICK_BUDGET 16384u
#define JIT_SHARED_FULL_COST 2048u

typedef struct jit_tier {
    const char *name, *passes;
    LLVMCodeGenOptLevel codegen;
    unsigned inline_pct; /* runs with fewer inline instructions (percent) are interpreted */
    uint32_t budget;     /* at most this cost in compiled functions (0: no limit) */
    bool share;          /* runs of one shape share a function (ptx_jit_emit.h's jit_tabs) */
} jit_tier;

static const jit_tier tier_full = {"full", "default<O2>", LLVMCodeGenLevelDefault, 0, 0, false};
static const jit_tier tier_quick = {"quick", "function(instcombine,simplifycfg,early-cse)",
                                    LLVMCodeGenLevelNone, JIT_QUICK_INLINE_PCT, JIT_QUICK_BUDGET,
                                    true};

static jit_tier tier_of(const ptx_func *f)
{
    const char *env = getenv("VKRR_PTX_JIT_QUICK"), *pct = getenv("VKRR_PTX_JIT_INLINE_PCT"),
               *budget = getenv("VKRR_PTX_JIT_BUDGET"), *share = getenv("VKRR_PTX_JIT_SHARE");
    unsigned long min = env && *env ? strtoul(env, NULL, 10) : JIT_QUICK_MIN;
    if (f->ncode < min)
        return tier_full;
    jit_tier t = tier_quick;
    if (pct && *pct)
        t.inline_pct = (unsigned)strtoul(pct, NULL, 10);
    if (budget && *budget)
        t.budget = (uint32_t)strtoul(budget, NULL, 10);
    if (share && *share)
        t.share = strcmp(share, "0") != 0;
    return t;
}

/* This host's target machine (CPU and features: vectors as wide as it has)
 * for tier t; env (optional) gets what identifies it.  VKRR_PTX_JIT_CPU
 * names another CPU, with its own features alone, which this host must be
 * able to run (x86-64-v3: AVX2 without AVX-512): the JIT's figures depend
 * on the vectors more than on anything else, so a bench measures another
 * host's code on this one (bench/enc0.sh). */
static LLVMTargetMachineRef host_machine(const jit_tier *t, char *env, size_t cap)
{
    const char *want = getenv("VKRR_PTX_JIT_CPU");
    bool other = want && *want;
    char *triple = LLVMGetDefaultTargetTriple(), *host = LLVMGetHostCPUName(),
         *host_features = LLVMGetHostCPUFeatures(), *terr = NULL;
    const char *cpu = other ? want : host, *features = other ? "" : host_features;
    LLVMTargetRef target;
    LLVMTargetMachineRef tm = NULL;
    if (!LLVMGetTargetFromTriple(triple, &target, &terr))
        tm = LLVMCreateTargetMachine(target, triple, cpu, features, t->codegen, LLVMRelocDefault,
                                     LLVMCodeModelJITDefault);
    if (env)
        snprintf(env, cap, "%s|LLVM %s|%s|%s|%s|%s|%s|cg%d|inline%u|budget%u|share%d", JIT_VERSION,
                 LLVM_VERSION_STRING, triple, cpu, features, t->name, t->passes, (int)t->codegen,
                 t->inline_pct, t->budget, (int)t->share);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(host);
    LLVMDisposeMessage(host_features);
    LLVMDisposeMessage(terr);
    return tm;
}

static LLVMOrcLLJITRef get_jit(vkrr_ptx_module *m, ptx_func *f, const char **why)
{
    if (m->jit)
        return m->jit->jit;
    struct ptx_jit_state *s = calloc(1, sizeof *s);
    if (!s) {
        *why = llvm_why(f, "out of memory", NULL);
        return NULL;
    }
    LLVMErrorRef e = LLVMOrcCreateLLJIT(&s->jit, LLVMOrcCreateLLJITBuilder());
    if (e) {
        *why = llvm_why(f, "LLVM's JIT did not start", e);
        free(s);
        return NULL;
    }
    m->jit = s;
    return s->jit;
}

void ptx_jit_free(vkrr_ptx_module *m)
{
    if (!m->jit)
        return;
    LLVMOrcDisposeLLJIT(m->jit->jit);
    free(m->jit->done);
    free(m->jit);
    m->jit = NULL;
}

/* The object code of mod (consumed), optimised for this host as tier t says. */
static LLVMErrorRef codegen(const jit_tier *t, LLVMModuleRef mod, LLVMMemoryBufferRef *obj)
{
    LLVMTargetMachineRef tm = host_machine(t, NULL, 0);
    if (!tm) {
        LLVMDisposeModule(mod);
        return LLVMCreateStringError("LLVM has no target machine for this host");
    }
    char *triple = LLVMGetTargetMachineTriple(tm), *msg = NULL;
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(mod, dl);
    LLVMSetTarget(mod, triple);
    LLVMDisposeTargetData(dl);
    LLVMDisposeMessage(triple);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(mod, t->passes, tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (!err && LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &msg, obj)) {
        err = LLVMCreateStringError(msg ? msg : "code generation failed");
        LLVMDisposeMessage(msg);
    }
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(mod);
    return err;
}

/* A kernel is compiled in parts, one a core (up to JIT_PARTS), each a
 * module of its own LLVM context holding the runs of one stretch of pcs:
 * LLVM compiles a module on one thread, and its code generator is most of
 * a first run's time.  A run that goes on into another part's returns to
 * the scheduler, which calls it (ptx_jit_emit.c's chain).  Kernels under JIT_PART_MIN
 * instructions a part are one part (VKRR_PTX_JIT_PARTS, 1 to 8, sets the
 * count, for tests). */
#define JIT_PARTS 8u
#define JIT_PART_MIN 800u

typedef struct jit_part {
    const jit_tier *tier;
    LLVMOrcThreadSafeContextRef tsc;
    LLVMModuleRef mod;
    LLVMMemoryBufferRef obj;
    LLVMErrorRef err;
    pthread_t th;
    bool started;
} jit_part;

static void parts_free(jit_part *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (p[i].mod)
            LLVMDisposeModule(p[i].mod);
        if (p[i].obj)
            LLVMDisposeMemoryBuffer(p[i].obj);
        if (p[i].err)
            LLVMConsumeError(p[i].err);
        if (p[i].tsc)
            LLVMOrcDisposeThreadSafeContext(p[i].tsc);
    }
}

/* Emits the runs ptx_jit_select_runs marked into the modules of nparts parts (tier
 * t; where runs share functions, tabs gets their tables and *ncompiled the
 * instructions left compiled by ptx_jit_budget_shapes), named by the key of their
 * IR, which goes to key. */
static bool emit_parts(ptx_func *f, jit_tier *t, ptx_jit_seq *seq, char (*names)[48],
                       jit_part *parts, unsigned nparts, jit_tabs *tabs, uint32_t *ncompiled,
                       ptx_jit_key *key, const char **why)
{
    LLVMValueRef *fns = calloc(f->ncode ? f->ncode : 1, sizeof *fns);
    LLVMMemoryBufferRef bc[JIT_PARTS] = {0};
    size_t total = 0;
    bool ok = fns != NULL;
    for (unsigned i = 0; ok && i < nparts; i++) { /* pcs [lo, hi), cut where a run starts */
        uint32_t lo = (uint32_t)((uint64_t)f->ncode * i / nparts);
        uint32_t hi = (uint32_t)((uint64_t)f->ncode * (i + 1) / nparts);
        while (lo > 0 && lo < f->ncode && !seq[lo].len && f->code[lo].kind == K_PLAIN)
            lo--;
        while (i + 1 < nparts && hi > 0 && hi < f->ncode && !seq[hi].len && f->code[hi].kind == K_PLAIN)
            hi--;
        parts[i].tier = t;
        parts[i].tsc = LLVMOrcCreateNewThreadSafeContext();
        LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(parts[i].tsc);
        parts[i].mod = LLVMModuleCreateWithNameInContext("vkrr_kernel", ctx);
        jit_emit e;
        ok = ptx_jit_emit_init(&e, ctx, parts[i].mod, f);
        e.tabs = tabs;
        if (ok)
            ok = ptx_jit_emit_runs(&e, seq, fns, names, i ? lo : 0, i + 1 < nparts ? hi : f->ncode);
        ptx_jit_emit_done(&e);
    }
    if (ok && tabs) {
        uint64_t cost = 0;
        *ncompiled = ptx_jit_budget_shapes(f, t->budget, seq, tabs, fns, &cost);
        ok = *ncompiled != UINT32_MAX;
        if (cost <= JIT_SHARED_FULL_COST) { /* few functions: as well optimised as a small kernel */
            t->name = "quick (shared functions at -O2)";
            t->passes = tier_full.passes;
            t->codegen = tier_full.codegen;
        }
    }
    free(fns);
    /* the key: the IR's bitcode (as exact as its text, and quicker to make) */
    for (unsigned i = 0; ok && i < nparts; i++) {
        if (!(bc[i] = LLVMWriteBitcodeToMemoryBuffer(parts[i].mod)))
            ok = false;
        if (ok)
            total += LLVMGetBufferSize(bc[i]);
    }
    char env[1024];
    LLVMTargetMachineRef tm = ok ? host_machine(t, env, sizeof env) : NULL;
    char *all = ok && tm ? malloc(total ? total : 1) : NULL;
    if (all) {
        size_t at = 0;
        for (unsigned i = 0; i < nparts; i++) {
            memcpy(all + at, LLVMGetBufferStart(bc[i]), LLVMGetBufferSize(bc[i]));
            at += LLVMGetBufferSize(bc[i]);
        }
        ptx_jit_key_make(key, all, total, env);
        free(all);
    }
    for (unsigned i = 0; i < nparts; i++)
        if (bc[i])
            LLVMDisposeMemoryBuffer(bc[i]);
    if (tm)
        LLVMDisposeTargetMachine(tm);
    if (!ok || !tm || !all) {
        *why = llvm_why(f, !ok ? "LLVM did not write the kernel's bitcode (out of memory?)"
                           : !tm ? "LLVM has no target machine for this host"
                                 : "out of memory", NULL);
        return false;
    }
    /* names unique in the process's JIT: the key's (definitions and declarations) */
    for (unsigned i = 0; i < nparts; i++)
        for (LLVMValueRef fn = LLVMGetFirstFunction(parts[i].mod); fn; fn = LLVMGetNextFunction(fn)) {
            size_t len = 0;
            const char *name = LLVMGetValueName2(fn, &len);
            unsigned pc;
            if (sscanf(name, "vkrr_pc%u", &pc) != 1 || pc >= f->ncode)
                continue; /* an intrinsic */
            snprintf(names[pc], sizeof names[pc], "vkrr_%016llx_pc%u", (unsigned long long)key->h0, pc);
            LLVMSetValueName2(fn, names[pc], strlen(names[pc]));
        }
    for (uint32_t pc = 0; tabs && pc < f->ncode; pc++) /* a run of a shared function: its name */
        if (seq[pc].len && tabs->rep[pc] != pc)
            memcpy(names[pc], names[tabs->rep[pc]], sizeof names[pc]);
    return true;
}

static void *codegen_part(void *arg)
{
    jit_part *p = arg;
    p->err = codegen(p->tier, p->mod, &p->obj);
    p->mod = NULL; /* codegen consumed it */
    return NULL;
}

/* Every part's object code, the parts on threads of their own. */
static LLVMErrorRef codegen_parts(jit_part *parts, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        parts[i].started = pthread_create(&parts[i].th, NULL, codegen_part, &parts[i]) == 0;
    for (unsigned i = 0; i < n; i++)
        if (!i || !parts[i].started)
            codegen_part(&parts[i]);
    for (unsigned i = 1; i < n; i++)
        if (parts[i].started)
            pthread_join(parts[i].th, NULL);
    for (unsigned i = 0; i < n; i++)
        if (parts[i].err) {
            LLVMErrorRef e = parts[i].err;
            parts[i].err = NULL;
            return e;
        }
    return NULL;
}

/* A cache entry holds the parts' objects: "vkrrjitp", their count, their
 * sizes (u64), then their bytes. */
static void *pack_parts(const jit_part *parts, unsigned n, size_t *size)
{
    size_t total = 12 + 8u * n;
    for (unsigned i = 0; i < n; i++)
        total += LLVMGetBufferSize(parts[i].obj);
    unsigned char *b = malloc(total), *at = b;
    if (!b)
        return NULL;
    memcpy(at, "vkrrjitp", 8);
    uint32_t n32 = n;
    memcpy(at + 8, &n32, 4);
    at += 12;
    for (unsigned i = 0; i < n; i++, at += 8) {
        uint64_t sz = LLVMGetBufferSize(parts[i].obj);
        memcpy(at, &sz, 8);
    }
    for (unsigned i = 0; i < n; i++) {
        memcpy(at, LLVMGetBufferStart(parts[i].obj), LLVMGetBufferSize(parts[i].obj));
        at += LLVMGetBufferSize(parts[i].obj);
    }
    *size = total;
    return b;
}

/* The objects of a cache entry (n parts) into parts[].obj; false when it
 * does not hold n of them exactly. */
static bool unpack_parts(const unsigned char *b, size_t size, jit_part *parts, unsigned n)
{
    uint32_t n32;
    if (size < 12 || memcmp(b, "vkrrjitp", 8) || (memcpy(&n32, b + 8, 4), n32 != n) ||
        size < 12 + 8u * n)
        return false;
    size_t at = 12 + 8u * n;
    for (unsigned i = 0; i < n; i++) {
        uint64_t sz;
        memcpy(&sz, b + 12 + 8u * i, 8);
        if (sz > size - at)
            return false;
        parts[i].obj = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)b + at, sz, "vkrr_kernel.o");
        at += sz;
    }
    return at == size;
}

/* Kernels larger than this many instructions are interpreted.
 * VKRR_PTX_JIT_MAX overrides it. */
#define JIT_MAX_INSTRUCTIONS 200000u

static const ptx_jit_seq *compile(vkrr_ptx_module *m, ptx_func *f, bool cache, const char **why)
{
    struct timespec tc0, cpu0;
    clock_gettime(CLOCK_MONOTONIC, &tc0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
    const char *env = getenv("VKRR_PTX_JIT_MAX");
    unsigned long max = env && *env ? strtoul(env, NULL, 10) : JIT_MAX_INSTRUCTIONS;
    if (f->ncode > max) {
        snprintf(f->jit_why, sizeof f->jit_why,
                 "its %u instructions are more than the JIT compiles (%lu%s)", f->ncode, max,
                 env && *env ? ", VKRR_PTX_JIT_MAX" : "");
        *why = f->jit_why;
        return NULL;
    }
    LLVMOrcLLJITRef jit = get_jit(m, f, why);
    if (!jit)
        return NULL;
    struct ptx_jit_state *s = m->jit;
    const char *how = "";
    ptx_jit_seq *seq = calloc(f->ncode, sizeof *seq);
    char (*names)[48] = calloc(f->ncode, sizeof *names);
    if (!seq || !names || !ptx_grow((void **)&s->done, &s->capdone, s->ndone, sizeof *s->done)) {
        *why = llvm_why(f, "out of memory", NULL);
        goto fail;
    }
    jit_part parts[JIT_PARTS];
    memset(parts, 0, sizeof parts);
    jit_tier tier_ = tier_of(f), *tier = &tier_;
    uint32_t ncompiled = ptx_jit_select_runs(f, tier->inline_pct, tier->share ? 0 : tier->budget, seq, names);
    if (ncompiled == UINT32_MAX) {
        *why = llvm_why(f, "out of memory", NULL);
        goto fail;
    }
    unsigned nparts = vkrr_cores(JIT_PARTS);
    if (nparts > ncompiled / JIT_PART_MIN)
        nparts = ncompiled / JIT_PART_MIN ? ncompiled / JIT_PART_MIN : 1;
    const char *penv = getenv("VKRR_PTX_JIT_PARTS"); /* tests: kernels of any size split */
    if (penv && atoi(penv) >= 1 && (unsigned)atoi(penv) <= JIT_PARTS)
        nparts = (unsigned)atoi(penv);
    ptx_jit_key key;
    jit_tabs tabs_ = {0}, *tabs = tier->share ? &tabs_ : NULL;
    if (tabs && (!(tabs->at = calloc(f->ncode, sizeof *tabs->at)) ||
                 !(tabs->rep = calloc(f->ncode, sizeof *tabs->rep)))) {
        *why = llvm_why(f, "out of memory", NULL);
        ptx_jit_tabs_free(tabs);
        goto fail;
    }
    bool emitted = emit_parts(f, tier, seq, names, parts, nparts, tabs, &ncompiled, &key, why);
    f->jit_runs = f->jit_fns = 0;
    for (uint32_t pc = 0; emitted && pc < f->ncode; pc++)
        if (seq[pc].len) {
            f->jit_runs++;
            f->jit_fns += !tabs || tabs->rep[pc] == pc;
        }
    if (emitted && tabs) { /* the runs' tables after seq, in its block (ptx_module.c frees f->jit) */
        ptx_jit_seq *grown = realloc(seq, f->ncode * sizeof *seq + tabs->n * sizeof *tabs->v);
        if (grown) {
            seq = grown;
            uint64_t *v = (uint64_t *)(seq + f->ncode);
            if (tabs->n)
                memcpy(v, tabs->v, tabs->n * sizeof *v);
            for (uint32_t pc = 0; pc < f->ncode; pc++)
                seq[pc].tab = seq[pc].len ? v + tabs->at[pc] : NULL;
        } else {
            emitted = false;
            *why = llvm_why(f, "out of memory", NULL);
        }
    }
    ptx_jit_tabs_free(tabs);
    if (!emitted) {
        parts_free(parts, nparts);
        goto fail;
    }
    for (uint32_t i = 0; i < s->ndone; i++) /* an entry of this module with the same code */
        if (s->done[i].key.h0 == key.h0 && s->done[i].key.h1 == key.h1 &&
            s->done[i].key.bytes == key.bytes && s->done[i].f->ncode == f->ncode) {
            parts_free(parts, nparts);
            memcpy(seq, s->done[i].f->jit, f->ncode * sizeof *seq);
            how = "shared with an identical entry";
            goto done;
        }
    size_t n = 0;
    void *bytes = cache ? ptx_jit_cache_load(&key, &n) : NULL;
    if (bytes && !unpack_parts(bytes, n, parts, nparts)) { /* another split: compiled again */
        for (unsigned i = 0; i < nparts; i++)
            if (parts[i].obj) {
                LLVMDisposeMemoryBuffer(parts[i].obj);
                parts[i].obj = NULL;
            }
        free(bytes);
        bytes = NULL;
    }
    how = bytes ? "loaded from the cache" : cache ? "compiled (cached)" : "compiled (no cache)";
    if (bytes) {
        free(bytes);
    } else {
        LLVMErrorRef err = codegen_parts(parts, nparts);
        if (err) {
            parts_free(parts, nparts);
            *why = llvm_why(f, "LLVM did not compile the kernel", err);
            goto fail;
        }
        void *blob = cache ? pack_parts(parts, nparts, &n) : NULL;
        if (blob)
            ptx_jit_cache_store(&key, blob, n);
        free(blob);
    }
    LLVMErrorRef err = NULL;
    for (unsigned i = 0; i < nparts; i++) {
        if (!err)
            err = LLVMOrcLLJITAddObjectFile(jit, LLVMOrcLLJITGetMainJITDylib(jit), parts[i].obj);
        else
            LLVMDisposeMemoryBuffer(parts[i].obj);
        parts[i].obj = NULL; /* the JIT owns it */
    }
    parts_free(parts, nparts);
    if (err) {
        *why = llvm_why(f, "LLVM's JIT refused the kernel's code", err);
        goto fail;
    }
    for (uint32_t pc = 0; pc < f->ncode; pc++) {
        if (!seq[pc].len)
            continue;
        LLVMOrcExecutorAddress a = 0;
        err = LLVMOrcLLJITLookup(jit, &a, names[pc]);
        if (err) {
            *why = llvm_why(f, "LLVM's JIT did not link the kernel", err);
            goto fail;
        }
        seq[pc].fn = (ptx_seq_fn)(uintptr_t)a;
    }
    s->done[s->ndone++] = (struct ptx_jit_done){key, f};
done:
    if (getenv("VKRR_PTX_JIT_LOG")) { /* what the JIT did, for timing it */
        struct timespec t2, cpu2; /* the CPU time counts the parts' threads */
        clock_gettime(CLOCK_MONOTONIC, &t2);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu2);
        fprintf(stderr, "ptx-jit: %s: %u instructions, %s in %.3f s (%.3f s of CPU; %s tier, %u "
                "instructions in its %u runs, %u functions)\n", f->name, f->ncode, how,
                (double)(t2.tv_sec - tc0.tv_sec) + 1e-9 * (double)(t2.tv_nsec - tc0.tv_nsec),
                (double)(cpu2.tv_sec - cpu0.tv_sec) + 1e-9 * (double)(cpu2.tv_nsec - cpu0.tv_nsec),
                tier->name, ncompiled, f->jit_runs, f->jit_fns);
    }
    free(names);
    return seq;
fail:
    free(seq);
    free(names);
    return NULL;
}

const ptx_jit_seq *ptx_jit_code(vkrr_ptx_module *m, ptx_func *f, bool cache, const char **why)
{
    pthread_once(&jit_once, init_llvm);
    pthread_mutex_lock(&jit_lock);
    if (!f->jit_tried) {
        f->jit_tried = true;
        const char *w = NULL;
        f->jit = (ptx_jit_seq *)compile(m, f, cache, &w);
        if (!f->jit && w != f->jit_why)
            snprintf(f->jit_why, sizeof f->jit_why, "%s", w ? w : "the JIT failed");
        if (!f->jit)
            snprintf(f->jit_note, sizeof f->jit_note, "interp (the JIT did not compile it: %s)",
                     f->jit_why);
    }
    pthread_mutex_unlock(&jit_lock);
    *why = f->jit ? NULL : f->jit_why;
    return f->jit;
}

#endif
