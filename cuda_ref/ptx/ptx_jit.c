/* ptx_jit.c - the PTX JIT: an entry's straight runs of instructions as
 * native code, through LLVM 15's ORC JIT (C API).
 *
 * It defines no instruction of its own.  The interpreter's handlers (one
 * definition of each instruction, ptx_int.c, ptx_float.c, ...) are compiled
 * to bitcode at build time by clang-15 with the interpreter's flags and
 * embedded here.  For a kernel, each straight run of K_PLAIN instructions
 * (none of them after the first a branch target) becomes one function
 * that, for each instruction, computes the lanes its guard leaves and calls
 * that instruction's handler with a constant copy of the decoded
 * instruction.  LLVM inlines the handlers, folds the operand slots to
 * constants and vectorises their loops over the warp's 32 lanes, so the
 * result is the interpreter's arithmetic without its dispatch, byte for
 * byte.  Branches, barriers, warp collectives and calls stay with the
 * interpreter's scheduler (ptx_exec.c), which calls a run's function where
 * it would have stepped through the run.  A handler the bitcode does not
 * hold (a static one) is called through its address.
 *
 * Without LLVM at build time (VKRR_PTX_JIT_BC undefined) the entry points
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
    *why = "this build has no PTX JIT (llvm-15-dev was not found when it was built)";
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

/* Keeps what (and LLVM's message for e, consumed) in f->jit_why. */
static const char *llvm_why(ptx_func *f, const char *what, LLVMErrorRef e)
{
    char *msg = e ? LLVMGetErrorMessage(e) : NULL;
    snprintf(f->jit_why, sizeof f->jit_why, "%s%s%s", what, msg ? ": " : "", msg ? msg : "");
    if (msg)
        LLVMDisposeErrorMessage(msg);
    return f->jit_why;
}

/* Code generation: what the cache key must hold besides the IR.  LLVM's
 * usual -O2 pipeline and code generator: measured on rrref at 720p, the
 * lighter ones saved no compile time worth their slower code (cached rerun
 * 13.2 s at -O2, 14.7 s with instcombine, early-cse, dse and simplifycfg
 * alone, 16 s+ with the fast instruction selector). */
#define JIT_VERSION "vkrr-ptx-jit 2"
#define JIT_PASSES "default<O2>"
#define JIT_CODEGEN LLVMCodeGenLevelDefault

/* This host's target machine (CPU and features: vectors as wide as it has);
 * env (optional) gets what identifies it. */
static LLVMTargetMachineRef host_machine(char *env, size_t cap)
{
    char *triple = LLVMGetDefaultTargetTriple(), *cpu = LLVMGetHostCPUName(),
         *features = LLVMGetHostCPUFeatures(), *terr = NULL;
    LLVMTargetRef target;
    LLVMTargetMachineRef tm = NULL;
    if (!LLVMGetTargetFromTriple(triple, &target, &terr))
        tm = LLVMCreateTargetMachine(target, triple, cpu, features, JIT_CODEGEN, LLVMRelocDefault,
                                     LLVMCodeModelJITDefault);
    if (env)
        snprintf(env, cap, "%s|LLVM %s|%s|%s|%s|%s|cg%d", JIT_VERSION, LLVM_VERSION_STRING, triple,
                 cpu, features, JIT_PASSES, (int)JIT_CODEGEN);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
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

/* A run starts at pc: plain instructions, none after the first a branch
 * target (where the scheduler may regroup the warp's lanes). */
static uint32_t run_length(const ptx_func *f, uint32_t pc)
{
    uint32_t n = 0;
    while (pc + n < f->ncode && f->code[pc + n].kind == K_PLAIN &&
           (n == 0 || !(f->code[pc + n].flags & F_TARGET)))
        n++;
    return n;
}

/* The object code of mod (consumed), optimised for this host. */
static LLVMErrorRef codegen(LLVMModuleRef mod, LLVMMemoryBufferRef *obj)
{
    LLVMTargetMachineRef tm = host_machine(NULL, 0);
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
    LLVMErrorRef err = LLVMRunPasses(mod, JIT_PASSES, tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (!err && LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &msg, obj)) {
        err = LLVMCreateStringError(msg ? msg : "code generation failed");
        LLVMDisposeMessage(msg);
    }
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(mod);
    return err;
}

/* Emits f's runs into a fresh module: its IR's key, and each run's
 * function name (seq[pc].len set where one starts). */
static LLVMModuleRef emit_module(LLVMContextRef ctx, ptx_func *f, ptx_jit_seq *seq,
                                 char (*names)[48], ptx_jit_key *key, const char **why)
{
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("vkrr_kernel", ctx);
    jit_emit e;
    if (!ptx_jit_emit_init(&e, ctx, mod, f)) {
        ptx_jit_emit_done(&e);
        LLVMDisposeModule(mod);
        *why = llvm_why(f, "out of memory", NULL);
        return NULL;
    }
    for (uint32_t pc = 0; pc < f->ncode;) {
        uint32_t n = run_length(f, pc);
        if (!n) {
            pc++;
            continue;
        }
        snprintf(names[pc], sizeof names[pc], "vkrr_pc%u", pc);
        seq[pc].len = n;
        pc += n;
    }
    LLVMValueRef *fns = calloc(f->ncode ? f->ncode : 1, sizeof *fns);
    if (fns)
        ptx_jit_emit_runs(&e, seq, fns, names);
    free(fns);
    ptx_jit_emit_done(&e);
    if (!fns) {
        LLVMDisposeModule(mod);
        *why = llvm_why(f, "out of memory", NULL);
        return NULL;
    }
    char env[1024];
    LLVMTargetMachineRef tm = host_machine(env, sizeof env);
    if (!tm) {
        LLVMDisposeModule(mod);
        *why = llvm_why(f, "LLVM has no target machine for this host", NULL);
        return NULL;
    }
    LLVMDisposeTargetMachine(tm);
    /* the key: the IR's bitcode (as exact as its text, and quicker to make) */
    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(mod);
    if (!bc) {
        LLVMDisposeModule(mod);
        *why = llvm_why(f, "LLVM did not write the kernel's bitcode", NULL);
        return NULL;
    }
    ptx_jit_key_make(key, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc), env);
    LLVMDisposeMemoryBuffer(bc);
    /* names unique in the process's JIT: the key's */
    for (uint32_t pc = 0; pc < f->ncode; pc++) {
        if (!seq[pc].len)
            continue;
        LLVMValueRef fn = LLVMGetNamedFunction(mod, names[pc]);
        snprintf(names[pc], sizeof names[pc], "vkrr_%016llx_pc%u", (unsigned long long)key->h0, pc);
        LLVMSetValueName2(fn, names[pc], strlen(names[pc]));
    }
    return mod;
}

/* Kernels larger than this many instructions are interpreted: LLVM takes
 * about a millisecond an instruction.  VKRR_PTX_JIT_MAX overrides it. */
#define JIT_MAX_INSTRUCTIONS 200000u

static const ptx_jit_seq *compile(vkrr_ptx_module *m, ptx_func *f, bool cache, const char **why)
{
    struct timespec tc0;
    clock_gettime(CLOCK_MONOTONIC, &tc0);
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
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    ptx_jit_key key;
    LLVMModuleRef mod =
        emit_module(LLVMOrcThreadSafeContextGetContext(tsc), f, seq, names, &key, why);
    if (!mod) {
        LLVMOrcDisposeThreadSafeContext(tsc);
        goto fail;
    }
    for (uint32_t i = 0; i < s->ndone; i++) /* an entry of this module with the same code */
        if (s->done[i].key.h0 == key.h0 && s->done[i].key.h1 == key.h1 &&
            s->done[i].key.bytes == key.bytes && s->done[i].f->ncode == f->ncode) {
            LLVMDisposeModule(mod);
            LLVMOrcDisposeThreadSafeContext(tsc);
            memcpy(seq, s->done[i].f->jit, f->ncode * sizeof *seq);
            how = "shared with an identical entry";
            goto done;
        }
    size_t n = 0;
    void *bytes = cache ? ptx_jit_cache_load(&key, &n) : NULL;
    how = bytes ? "loaded from the cache" : cache ? "compiled (cached)" : "compiled (no cache)";
    LLVMMemoryBufferRef obj = NULL;
    if (bytes) {
        LLVMDisposeModule(mod);
        obj = LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes, n, "vkrr_kernel.o");
        free(bytes);
    } else {
        LLVMErrorRef err = codegen(mod, &obj);
        if (err) {
            LLVMOrcDisposeThreadSafeContext(tsc);
            *why = llvm_why(f, "LLVM did not compile the kernel", err);
            goto fail;
        }
        if (cache)
            ptx_jit_cache_store(&key, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj));
    }
    LLVMOrcDisposeThreadSafeContext(tsc);
    LLVMErrorRef err = LLVMOrcLLJITAddObjectFile(jit, LLVMOrcLLJITGetMainJITDylib(jit), obj);
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
        struct timespec t2;
        clock_gettime(CLOCK_MONOTONIC, &t2);
        fprintf(stderr, "ptx-jit: %s: %u instructions, %s in %.3f s\n", f->name, f->ncode,
                how, (double)(t2.tv_sec - tc0.tv_sec) + 1e-9 * (double)(t2.tv_nsec - tc0.tv_nsec));
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
