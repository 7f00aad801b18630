/* ptx_sreg.c - PTX's special registers: their names, widths and the value
 * each holds in a launch (WARP_SZ, PTX's one predefined constant, is a
 * number to the lexer, ptx_lex.c).
 *
 * Where the PTX ISA defines a value (%tid, %ntid, %laneid, the lane masks,
 * the shared memory sizes, a CTA's cluster of one, %current_graph_exec) it
 * is that.  Where the value is the hardware's (which SM and warp slot,
 * clocks and timers, performance counters, driver registers) it is vkrr's
 * choice, deterministic so that two runs of a launch, and the interpreter
 * and the JIT, agree; README "Special registers" lists every choice, and
 * tests/test_ptx_sreg.c checks every value from its own arithmetic.
 *
 * Registers below SR_PRED_FIRST are slots filled when a warp starts
 * (ptx_exec.c, from ptx_sreg_value), read by both engines as registers;
 * %is_explicit_cluster is decoded as false (ptx_int.c); the timers are
 * read by mov and cvt handlers (ptx_move.c, ptx_cvt.c) through
 * ptx_timer_lane and ptx_timer_advance. */
#include "ptx_internal.h"

/* vkrr's choices for what the hardware decides (README "Special registers") */
enum {
    NSMID = 132,  /* %nsmid: an H100 SXM's SMs (the hardware model's GPU, sm_90) */
    NWARPID = 64, /* %nwarpid: warp slots of an sm_80/sm_90 SM */
    SMEM_UNIT = 128, /* %total_smem_size's allocation unit on sm_8x and sm_9x (the ISA's table) */
};

#define VEC4(N) N ".x", N ".y", N ".z", N ".w"
#define EIGHT(P, S) P "0" S, P "1" S, P "2" S, P "3" S, P "4" S, P "5" S, P "6" S, P "7" S
static const char *const names[] = {
    VEC4("%tid"), VEC4("%ntid"), VEC4("%ctaid"), VEC4("%nctaid"),
    VEC4("%clusterid"), VEC4("%nclusterid"), VEC4("%cluster_ctaid"), VEC4("%cluster_nctaid"),
    "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
    "%cluster_ctarank", "%cluster_nctarank",
    "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
    "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size",
    "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
    "%reserved_smem_offset_0", "%reserved_smem_offset_1",
    "%current_graph_exec",
    EIGHT("%pm", ""), EIGHT("%pm", "_64"),
    "%envreg0", "%envreg1", "%envreg2", "%envreg3", "%envreg4", "%envreg5", "%envreg6", "%envreg7",
    "%envreg8", "%envreg9", "%envreg10", "%envreg11", "%envreg12", "%envreg13", "%envreg14", "%envreg15",
    "%envreg16", "%envreg17", "%envreg18", "%envreg19", "%envreg20", "%envreg21", "%envreg22", "%envreg23",
    "%envreg24", "%envreg25", "%envreg26", "%envreg27", "%envreg28", "%envreg29", "%envreg30", "%envreg31",
    "%<frame>", /* never in PTX text ('<' ends a name) */
    "%is_explicit_cluster",
    "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
};
#undef VEC4
#undef EIGHT
_Static_assert(sizeof names / sizeof names[0] == SR_COUNT, "a name for every special register");
_Static_assert(SR_COUNT < 0xff, "ptx_func.sreg_of and sreg_at hold a special register in a byte");

const char *ptx_sreg_name(int sr)
{
    if (sr >= 0 && (sr & PTX_SREG_VEC))
        sr &= ~(int)PTX_SREG_VEC;
    return sr >= 0 && sr < SR_COUNT ? names[sr] : "?";
}

unsigned ptx_sreg_bits(int sr)
{
    switch (sr) {
    case SR_GRIDID: case SR_CURRENT_GRAPH_EXEC: case SR_CLOCK64: case SR_GLOBALTIMER:
    case SR_FRAME:
        return 64;
    case SR_IS_EXPLICIT_CLUSTER:
        return 1;
    default:
        return sr >= SR_PM0_64 && sr <= SR_PM7_64 ? 64 : 32;
    }
}

int ptx_sreg_lookup(const char *base, size_t blen, const char *comp, size_t clen)
{
    char buf[64];
    if (blen + clen + 3 > sizeof buf)
        return -1;
    memcpy(buf, base, blen);
    memcpy(buf + blen, comp, clen);
    buf[blen + clen] = 0;
    for (int i = 0; i < SR_COUNT; i++)
        if (!strcmp(names[i], buf))
            return i == SR_FRAME ? -1 : i;
    if (clen == 0) { /* a whole vector: its .x is in the table */
        memcpy(buf + blen, ".x", 3);
        for (int i = 0; i < SR_COUNT; i++)
            if (!strcmp(names[i], buf))
                return i | (int)PTX_SREG_VEC;
    }
    return -1;
}

/* A launch without clusters (vkrr refuses the cluster directives, ptx_parse.c)
 * runs each CTA as a cluster of one, as CUDA does: the cluster registers
 * follow from %ctaid and %nctaid. */
static uint64_t cluster_value(const ptx_rt *rt, const ptx_cta *cta, int sr)
{
    const uint32_t *g = rt->l->grid;
    if (sr >= SR_CLUSTERID_X && sr <= SR_CLUSTERID_Z)
        return cta->ctaid[sr - SR_CLUSTERID_X];
    if (sr >= SR_NCLUSTERID_X && sr <= SR_NCLUSTERID_Z)
        return g[sr - SR_NCLUSTERID_X];
    if (sr >= SR_CLUSTER_NCTAID_X && sr <= SR_CLUSTER_NCTAID_Z)
        return 1;
    if (sr == SR_CLUSTER_NCTARANK)
        return 1;
    return 0; /* %cluster_ctaid, %cluster_ctarank, the .w components */
}

uint64_t ptx_sreg_value(const ptx_rt *rt, const ptx_cta *cta, const ptx_warp *w, int sr,
                        unsigned l)
{
    const uint32_t *b = rt->l->block, *g = rt->l->grid;
    uint32_t t = w->index * 32u + l;
    uint64_t cta_index = cta->ctaid[0] + (uint64_t)g[0] * (cta->ctaid[1] + (uint64_t)g[1] * cta->ctaid[2]);
    if (sr >= SR_CLUSTERID_X && sr <= SR_CLUSTER_NCTAID_W)
        return cluster_value(rt, cta, sr);
    switch (sr) {
    case SR_TID_X: return t % b[0];
    case SR_TID_Y: return (t / b[0]) % b[1];
    case SR_TID_Z: return t / (b[0] * b[1]);
    case SR_NTID_X: return b[0];
    case SR_NTID_Y: return b[1];
    case SR_NTID_Z: return b[2];
    case SR_CTAID_X: return cta->ctaid[0];
    case SR_CTAID_Y: return cta->ctaid[1];
    case SR_CTAID_Z: return cta->ctaid[2];
    case SR_NCTAID_X: return g[0];
    case SR_NCTAID_Y: return g[1];
    case SR_NCTAID_Z: return g[2];
    case SR_LANEID: return l;
    case SR_WARPID: return w->index; /* the warp's index in its CTA */
    case SR_NWARPID: return NWARPID;
    case SR_SMID: return cta_index % NSMID; /* CTAs dealt to the SMs in turn */
    case SR_NSMID: return NSMID;
    case SR_CLUSTER_CTARANK: case SR_CLUSTER_NCTARANK: return cluster_value(rt, cta, sr);
    case SR_LANEMASK_EQ: return 1u << l;
    case SR_LANEMASK_LE: return l == 31 ? 0xffffffffu : (2u << l) - 1u;
    case SR_LANEMASK_LT: return (1u << l) - 1u;
    case SR_LANEMASK_GE: return ~((1u << l) - 1u) & 0xffffffffu;
    case SR_LANEMASK_GT: return l == 31 ? 0u : ~((2u << l) - 1u) & 0xffffffffu;
    case SR_DYN_SMEM: return rt->l->shared_bytes;
    case SR_TOTAL_SMEM: /* static and dynamic, in the allocation unit; nothing reserved */
    case SR_AGGR_SMEM: return (rt->shared_bytes + SMEM_UNIT - 1) / SMEM_UNIT * SMEM_UNIT;
    case SR_FRAME: return rt->local_static;
    default:
        /* 0: the .w components, %gridid (every launch is grid 0), the reserved
         * shared memory (none), %current_graph_exec (no device graph), the
         * performance counters and driver registers (nothing counted, none set) */
        return 0;
    }
}

/* The timers: one counter a warp, from 0 when its CTA starts.  A read gives
 * lane l the counter + l (the low 32 bits for %clock and %globaltimer_lo, the
 * high ones for %clock_hi and %globaltimer_hi), and then moves the counter by
 * 32: reads are distinct in a warp and increase along it, whichever timer. */
uint64_t ptx_timer_lane(const ptx_warp *w, int sr, unsigned l)
{
    uint64_t v = w->clock + l;
    switch (sr) {
    case SR_CLOCK: case SR_GLOBALTIMER_LO: return v & 0xffffffffu;
    case SR_CLOCK_HI: case SR_GLOBALTIMER_HI: return v >> 32;
    default: return v;
    }
}

void ptx_timer_advance(ptx_warp *w) { w->clock += 32; }
