/* ptx_mbarrier.c - mbarrier objects (cuda::barrier, cuda::pipeline, TMA-style
 * copies): mbarrier.init/inval/arrive/arrive_drop/expect_tx/complete_tx/
 * test_wait/try_wait/pending_count, cp.async.mbarrier.arrive and the
 * non-tensor bulk copies cp.async.bulk (global -> shared with complete_tx;
 * shared -> global with bulk groups).
 *
 * An mbarrier is 8 bytes of shared memory whose layout the ISA leaves to the
 * implementation; here (bits): 0-19 the pending arrivals of the current
 * phase, 20-39 the expected arrivals, 40-60 the transaction count (21 bits,
 * two's complement: complete_tx may come before expect_tx), 62 valid (set by
 * init: a wait or arrive on an object never initialised is a fault, not a
 * guess), 63 the current phase's parity.  A phase completes when its pending
 * count and transaction count are both 0: the parity flips and the pending
 * count is the expected one again.  The state an arrive returns is the
 * parity of its phase (bit 63) and the pending count after it (bits 0-19).
 *
 * Every copy here completes when it is issued (as cp.async does in
 * ptx_mem.c), so a bulk copy's complete_tx happens at once, and
 * cp.async.mbarrier.arrive is an arrive-on with .noinc and nothing without
 * it (the ISA: the pending count is incremented first, then the arrive).
 *
 * Waiting: test_wait and try_wait give false while the phase has not
 * completed, as the ISA allows, and the waiting lanes step aside (K_WAIT):
 * first the warp's other lanes run (a producer lane of the same warp), then,
 * when none can, the warp's turn ends so the CTA's other warps run and
 * arrive; a CTA whose every running warp only waits while no mbarrier
 * changes is a deadlock (ptx_exec.c).
 */
#include "ptx_internal.h"

#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)
#define A_(i) PTX_R(w, in->o[i])

enum { MB_INIT, MB_INVAL, MB_ARRIVE, MB_EXPECT_TX, MB_COMPLETE_TX, MB_WAIT, MB_PENDING, MB_CP_ARRIVE,
       MB_BULK_G2S, MB_BULK_S2G };
/* in->b flags */
enum { MF_EXPECT_TX = 1, MF_DROP = 2, MF_PARITY = 4, MF_NOINC = 8, MF_NOCOMPLETE = 16 };

#define MB_MAX ((1u << 20) - 1u)
#define MB_VALID (1ull << 62)
#define MB_PHASE (1ull << 63)

typedef struct mbar {
    uint32_t pending, expected;
    int32_t tx;
    bool valid, phase;
} mbar;

static mbar mb_get(uint64_t v)
{
    uint32_t t = (uint32_t)(v >> 40) & 0x1fffffu;
    return (mbar){(uint32_t)v & MB_MAX, (uint32_t)(v >> 20) & MB_MAX,
                  (int32_t)(t & 0x100000u ? t | 0xffe00000u : t), (v & MB_VALID) != 0, (v & MB_PHASE) != 0};
}

static uint64_t mb_put(mbar b)
{
    return (uint64_t)b.pending | (uint64_t)b.expected << 20 | (uint64_t)((uint32_t)b.tx & 0x1fffffu) << 40 |
           (b.valid ? MB_VALID : 0) | (b.phase ? MB_PHASE : 0);
}

/* The lane's mbarrier object: 8 aligned bytes of this CTA's shared memory. */
static uint8_t *mb_at(ptx_warp *w, const ptx_inst *in, unsigned l, uint64_t a)
{
    uint8_t *p = ptx_addr(w, in, (int)l, in->d, a, 8, 8, true);
    if (!p)
        return NULL;
    const uint8_t *s = w->cta->shared;
    if (p < s || p + 8 > s + w->cta->rt->shared_bytes) {
        ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "an mbarrier at 0x%llx, not in shared memory",
                  (unsigned long long)a);
        return NULL;
    }
    return p;
}

static int mb_load(ptx_warp *w, const ptx_inst *in, unsigned l, uint8_t *p, mbar *b)
{
    uint64_t v;
    memcpy(&v, p, 8);
    *b = mb_get(v);
    if (!b->valid)
        return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "an mbarrier used before mbarrier.init (or after inval)");
    return 0;
}

static void mb_store(ptx_warp *w, uint8_t *p, mbar b)
{
    if (b.pending == 0 && b.tx == 0) { /* the phase completes */
        b.phase = !b.phase;
        b.pending = b.expected;
    }
    uint64_t v = mb_put(b);
    memcpy(p, &v, 8);
    w->cta->mbar_epoch++;
}

/* One lane's arrive-on of count arrivals (and drop: the expected count too). */
static int mb_arrive(ptx_warp *w, const ptx_inst *in, unsigned l, uint8_t *p, uint32_t count, int32_t tx,
                     bool drop, uint64_t *state)
{
    mbar b;
    if (mb_load(w, in, l, p, &b) < 0)
        return -1;
    if (count == 0 || count > b.pending)
        return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                         "an arrive of %u on an mbarrier with %u arrivals pending (undefined)", count, b.pending);
    if ((in->b & MF_NOCOMPLETE) && count == b.pending && b.tx + tx == 0)
        return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "arrive.noComplete would complete the phase (undefined)");
    b.tx += tx;
    b.pending -= count;
    if (drop)
        b.expected -= count > b.expected ? b.expected : count;
    *state = (b.phase ? MB_PHASE : 0) | b.pending;
    mb_store(w, p, b);
    return 0;
}

HANDLER(x_mbar)
{
    const uint64_t *A = A_(0);
    const uint64_t *N = in->o[2] != UINT32_MAX ? A_(2) : NULL;
    uint64_t *D = in->a != MB_WAIT && in->o[1] != UINT32_MAX ? A_(1) : NULL;
    uint32_t done = 0;
    PTX_LANES(m, {
        uint8_t *p = mb_at(w, in, l, A[l] + in->imm);
        if (!p)
            return -1;
        uint32_t n = N ? (uint32_t)N[l] : 1u;
        mbar b;
        uint64_t state = 0;
        switch (in->a) {
        case MB_INIT:
            if (n == 0 || n > MB_MAX)
                return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "mbarrier.init with count %u (1..%u)", n, MB_MAX);
            mb_store(w, p, (mbar){n, n, 0, true, false});
            break;
        case MB_INVAL:
            memset(p, 0, 8);
            w->cta->mbar_epoch++;
            break;
        case MB_ARRIVE:
            if (in->b & MF_EXPECT_TX) { /* arrive.expect_tx: the count operand is the tx count */
                if (mb_arrive(w, in, l, p, 1, (int32_t)n, in->b & MF_DROP, &state) < 0)
                    return -1;
            } else if (mb_arrive(w, in, l, p, n, 0, in->b & MF_DROP, &state) < 0) {
                return -1;
            }
            if (D)
                D[l] = state;
            break;
        case MB_EXPECT_TX:
        case MB_COMPLETE_TX:
            if (mb_load(w, in, l, p, &b) < 0)
                return -1;
            b.tx += in->a == MB_EXPECT_TX ? (int32_t)n : -(int32_t)n;
            if (b.tx > (int32_t)MB_MAX || b.tx < -(int32_t)MB_MAX)
                return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "an mbarrier transaction count out of range");
            mb_store(w, p, b);
            break;
        case MB_WAIT: {
            if (mb_load(w, in, l, p, &b) < 0)
                return -1;
            /* the phase waited for: the parity operand's, or the one the state's arrive was in */
            bool parity = (in->b & MF_PARITY) ? (n & 1u) != 0 : (N[l] & MB_PHASE) != 0;
            if (b.phase != parity)
                done |= 1u << l;
            break;
        }
        case MB_CP_ARRIVE:
            if ((in->b & MF_NOINC) && mb_arrive(w, in, l, p, 1, 0, false, &state) < 0)
                return -1;
            break;
        default:
            return ptx_fault(w, in, (int)l, VKRR_ERR_INTERNAL, "mbarrier operation %u", in->a);
        }
    });
    if (in->a == MB_WAIT) {
        uint32_t *P = &w->P[in->o[1]];
        *P = (*P & ~m) | done;
        if (m & ~done)
            w->yield = true;
    }
    return 0;
}

/* mbarrier.pending_count.b64 d, state */
HANDLER(x_mbar_pending)
{
    uint64_t *D = A_(0);
    const uint64_t *S = A_(1);
    PTX_LANES(m, D[l] = S[l] & MB_MAX);
    return 0;
}

/* cp.async.bulk: o[0] destination, o[1] source, o[2] size, o[3] mbarrier (g2s);
 * in->imm and ox[0] the destination and source offsets, ox[1] the mbarrier's */
HANDLER(x_bulk)
{
    const uint64_t *D = A_(0), *S = A_(1), *Z = A_(2);
    const bool g2s = in->a == MB_BULK_G2S;
    PTX_LANES(m, {
        uint32_t n = (uint32_t)Z[l];
        if (n % 16)
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "a bulk copy of %u bytes (a multiple of 16)", n);
        uint8_t *d = n ? ptx_addr(w, in, (int)l, g2s ? SP_SHARED : SP_GLOBAL, D[l] + in->imm, n, 16, true) : NULL;
        const uint8_t *s = n ? ptx_addr(w, in, (int)l, g2s ? SP_GLOBAL : SP_SHARED, S[l] + in->ox[0], n, 16, false)
                             : NULL;
        if (n && (!d || !s))
            return -1;
        if (n)
            memmove(d, s, n);
        if (g2s) { /* the copy is complete: its bytes complete the transaction */
            uint8_t *p = mb_at(w, in, l, PTX_R(w, in->o[3])[l] + in->ox[1]);
            mbar b;
            if (!p || mb_load(w, in, l, p, &b) < 0)
                return -1;
            b.tx -= (int32_t)n;
            mb_store(w, p, b);
        }
    });
    return 0;
}

static int x_nothing(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    (void)w, (void)in, (void)m;
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
static unsigned take_space(ptx_dctx *c)
{
    if (ptx_take(c, ".shared") || ptx_take(c, ".shared::cta"))
        return SP_SHARED;
    return SP_GENERIC;
}

/* .release/.relaxed/.acquire and .cta: every effect here is immediate */
static bool take_order(ptx_dctx *c)
{
    static const char *const sem[] = {".release", ".relaxed", ".acquire"};
    ptx_take_any(c, sem, 3);
    ptx_take(c, ".cta");
    if (ptx_take(c, ".cluster") || ptx_take(c, ".shared::cluster"))
        return false;
    return true;
}

static int dec_mbarrier(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    static const char *const ops[] = {".init", ".inval", ".arrive", ".arrive_drop", ".expect_tx", ".complete_tx",
                                      ".test_wait", ".try_wait", ".pending_count"};
    int op = ptx_take_any(c, ops, 9);
    if (op < 0)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "this mbarrier operation");
    if (op == 8) { /* pending_count.b64 count, state */
        if (!ptx_take(c, ".b64") || ptx_rest_ok(c) < 0 || ptx_nops(c) != 2 ||
            ptx_set_dst(c, 0, ptx_op(c, 0), PT_B64, false) < 0 || ptx_set_src(c, 1, ptx_op(c, 1), PT_B64, false) < 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "mbarrier.pending_count.b64 count, state");
        in->fn = x_mbar_pending;
        return 1;
    }
    bool expect = op >= 2 && op <= 3 && ptx_take(c, ".expect_tx");
    bool nocomplete = op == 2 && ptx_take(c, ".noComplete");
    bool parity = (op == 6 || op == 7) && ptx_take(c, ".parity");
    bool local = take_order(c);
    in->d = (uint8_t)take_space(c);
    if (!local)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mbarrier operations on another CTA of a cluster");
    if (!ptx_take(c, ".b64") || ptx_rest_ok(c) < 0)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "this form of mbarrier (.b64 objects)");
    static const uint8_t code[] = {MB_INIT, MB_INVAL, MB_ARRIVE, MB_ARRIVE, MB_EXPECT_TX, MB_COMPLETE_TX,
                                   MB_WAIT, MB_WAIT};
    in->a = code[op];
    in->b = (uint8_t)((expect ? MF_EXPECT_TX : 0) | (op == 3 ? MF_DROP : 0) | (parity ? MF_PARITY : 0) |
                      (nocomplete ? MF_NOCOMPLETE : 0));
    /* operands: [d,] [addr] [, n]; the waits' d is a predicate, try_wait's time hint ignored */
    unsigned n = ptx_nops(c), first = op >= 2 && op != 4 && op != 5 ? 1 : 0;
    unsigned max = first + 1 + (op == 1 ? 0 : op >= 6 ? 2 : 1);
    if (n < first + 1 + (op == 0 || op >= 4) || n > max)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "wrong operands for mbarrier%s", ops[op]);
    uint64_t off;
    if (ptx_mem_operand(c, ptx_op(c, first), 0, &off) < 0)
        return -1;
    in->imm = off;
    in->o[1] = in->o[2] = UINT32_MAX;
    if (first) {
        const ptx_rop *d = ptx_op(c, 0);
        if (op >= 6) {
            int64_t p = ptx_pdst(c, d);
            if (p < 0)
                return -1;
            in->o[1] = (uint32_t)p;
        } else if (d->kind != RO_SINK && ptx_set_dst(c, 1, d, PT_B64, false) < 0) {
            return -1;
        }
    }
    if (n > first + 1 && ptx_set_src(c, 2, ptx_op(c, first + 1), op >= 6 && !parity ? PT_B64 : PT_U32, false) < 0)
        return -1;
    in->fn = x_mbar;
    if (op >= 6)
        in->kind = K_WAIT;
    return 1;
}

/* cp.async.mbarrier.arrive{.noinc}{.shared}.b64 [addr] */
static int dec_cp_arrive(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    bool noinc = ptx_take(c, ".noinc");
    in->d = (uint8_t)take_space(c);
    if (!ptx_take(c, ".b64") || ptx_rest_ok(c) < 0 || ptx_nops(c) != 1)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "cp.async.mbarrier.arrive{.noinc}.b64 [addr]");
    uint64_t off;
    if (ptx_mem_operand(c, ptx_op(c, 0), 0, &off) < 0)
        return -1;
    in->imm = off;
    in->o[1] = in->o[2] = UINT32_MAX;
    in->a = MB_CP_ARRIVE;
    in->b = noinc ? MF_NOINC : 0;
    in->fn = x_mbar;
    return 1;
}

/* cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [s], size, [mbar]
 * cp.async.bulk.global.shared::cta.bulk_group [d], [s], size; commit_group, wait_group */
static int dec_bulk(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    if (ptx_take(c, ".commit_group") || ptx_take(c, ".wait_group") || ptx_take(c, ".wait_group.read")) {
        ptx_take(c, ".read");
        if (ptx_rest_ok(c) < 0)
            return -1;
        in->fn = x_nothing; /* every bulk copy completed at issue */
        return 1;
    }
    /* .dst.src: the first space after .bulk is the destination's */
    const char *dst = c->r->nmods > 2 ? c->r->mods[2] : "";
    bool to_shared = !strncmp(dst, ".shared", 7);
    bool g2s = to_shared && (ptx_take(c, ".shared::cluster") || ptx_take(c, ".shared::cta")) &&
               ptx_take(c, ".global") && ptx_take(c, ".mbarrier::complete_tx::bytes");
    bool s2g = !to_shared && ptx_take(c, ".global") && ptx_take(c, ".shared::cta") && ptx_take(c, ".bulk_group");
    if (ptx_take(c, ".multicast::cluster") || ptx_take(c, ".L2::cache_hint") || (!g2s && !s2g))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "this cp.async.bulk form (global to shared with an "
                            "mbarrier, shared to global with a bulk group)");
    if (ptx_rest_ok(c) < 0)
        return -1;
    unsigned n = ptx_nops(c);
    if (n != (g2s ? 4u : 3u))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "cp.async.bulk takes [dst], [src], size%s", g2s ? ", [mbar]" : "");
    uint64_t doff, soff, moff = 0;
    in->ox = ptx_alloc_ox(c, 2);
    if (!in->ox || ptx_mem_operand(c, ptx_op(c, 0), 0, &doff) < 0 ||
        ptx_mem_operand(c, ptx_op(c, 1), 1, &soff) < 0 || ptx_set_src(c, 2, ptx_op(c, 2), PT_U32, false) < 0 ||
        (g2s && ptx_mem_operand(c, ptx_op(c, 3), 3, &moff) < 0))
        return -1;
    if (soff > UINT32_MAX || moff > UINT32_MAX)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "an address offset over 4 GiB");
    in->imm = doff;
    in->ox[0] = (uint32_t)soff;
    in->ox[1] = (uint32_t)moff;
    in->a = g2s ? MB_BULK_G2S : MB_BULK_S2G;
    in->d = SP_SHARED;
    in->fn = x_bulk;
    return 1;
}

int ptx_dec_mbarrier(ptx_dctx *c)
{
    const char *op = c->r->op;
    if (!strcmp(op, "mbarrier"))
        return dec_mbarrier(c);
    if (strcmp(op, "cp") || c->r->nmods < 2 || strcmp(c->r->mods[0], ".async"))
        return 0;
    if (!strcmp(c->r->mods[1], ".mbarrier") && c->r->nmods >= 3 && !strcmp(c->r->mods[2], ".arrive")) {
        ptx_take(c, ".async");
        ptx_take(c, ".mbarrier");
        ptx_take(c, ".arrive");
        return dec_cp_arrive(c);
    }
    if (!strcmp(c->r->mods[1], ".bulk")) {
        ptx_take(c, ".async");
        ptx_take(c, ".bulk");
        return dec_bulk(c);
    }
    return 0;
}
