/* ptx_slots.c - register-file slots for a decoded function: special
 * registers first, then immediates and symbol addresses, then the function's
 * registers packed by liveness.  Liveness is per thread (each lane's writes
 * are masked to the lanes running, so one lane only ever sees its own path),
 * over basic blocks; a register's interval is the linear span of everywhere
 * it is live, and two registers share a slot only when one interval ends
 * strictly before the other begins (so no instruction ever reads and writes
 * one slot as two different registers), and both belong to one function of
 * the program (ptx_link.c: a call then clobbers none of its caller's). */
#include <stdlib.h>

#include "ptx_internal.h"

/* ---- slot assignment ------------------------------------------------------------- */
static uint32_t *field_ptr(ptx_inst *in, unsigned field)
{
    if (field == FIELD_TARGET)
        return &in->target;
    return field < 8 ? &in->o[field] : &in->ox[field - 8];
}

/* Packs registers into slots by live interval (see the top of this file).
 * reg_slot[r] = slot index relative to the register base, or UINT32_MAX. */
static uint32_t pack_registers(ptx_func *f, const ptx_dref *refs, uint32_t nrefs,
                               const uint32_t *group, uint32_t *reg_slot)
{
    uint32_t n = f->ncode, nr = f->nregs;
    uint32_t *lo = malloc(sizeof *lo * (nr ? nr : 1)), *hi = malloc(sizeof *hi * (nr ? nr : 1));
    uint32_t *leader = calloc(n + 1, sizeof *leader), *blk = malloc(sizeof *blk * (n + 1));
    uint32_t nslot = 0;
    uint64_t *bits = NULL;
    uint32_t *order = NULL, *slot_end = NULL, *slot_group = NULL;
    if (!lo || !hi || !leader || !blk)
        goto identity;
    for (uint32_t r = 0; r < nr; r++)
        lo[r] = UINT32_MAX, hi[r] = 0;
    for (uint32_t i = 0; i < nrefs; i++) {
        uint32_t id = *field_ptr(&f->code[refs[i].pc], refs[i].field);
        if (id & (TAG_CONST | TAG_SREG) || id >= nr)
            continue;
        if (refs[i].pc < lo[id])
            lo[id] = refs[i].pc;
        if (refs[i].pc > hi[id])
            hi[id] = refs[i].pc;
    }
    /* basic blocks */
    leader[0] = 1;
    for (uint32_t pc = 0; pc < n; pc++) {
        const ptx_inst *in = &f->code[pc];
        if (in->flags & F_TARGET)
            leader[pc] = 1;
        if (in->kind == K_BRA || in->kind == K_BRX || in->kind == K_EXIT || in->kind == K_TRAP ||
            in->kind == K_RET)
            leader[pc + 1] = 1;
        if (in->kind == K_BRA)
            leader[in->target] = 1;
    }
    uint32_t nb = 0;
    for (uint32_t pc = 0; pc < n; pc++) {
        if (leader[pc])
            nb++;
        blk[pc] = nb - 1;
    }
    uint32_t words = (nr + 63) / 64;
    if (nb == 0 || (uint64_t)nb * words > (1u << 24))
        goto identity;
    /* gen, kill, in, out per block */
    bits = calloc((size_t)nb * words * 4, sizeof *bits);
    uint32_t *bstart = malloc(sizeof *bstart * (nb + 1));
    if (!bits || !bstart) {
        free(bstart);
        goto identity;
    }
#define GEN(b) (bits + ((size_t)(b) * 4 + 0) * words)
#define KILL(b) (bits + ((size_t)(b) * 4 + 1) * words)
#define LIN(b) (bits + ((size_t)(b) * 4 + 2) * words)
#define LOUT(b) (bits + ((size_t)(b) * 4 + 3) * words)
    for (uint32_t pc = 0, b = 0; pc < n; pc++)
        if (leader[pc])
            bstart[b++] = pc;
    bstart[nb] = n;
    /* per block: GEN = used before any full def in the block, KILL = fully defined */
    {
        uint32_t i = 0;
        while (i < nrefs) {
            uint32_t pc = refs[i].pc, j = i;
            while (j < nrefs && refs[j].pc == pc)
                j++;
            uint32_t b = blk[pc];
            for (uint32_t k = i; k < j; k++) {
                uint32_t id = *field_ptr(&f->code[pc], refs[k].field);
                if (id & (TAG_CONST | TAG_SREG) || id >= nr || !refs[k].use)
                    continue;
                if (!(KILL(b)[id / 64] & (1ull << (id % 64))))
                    GEN(b)[id / 64] |= 1ull << (id % 64);
            }
            for (uint32_t k = i; k < j; k++) {
                uint32_t id = *field_ptr(&f->code[pc], refs[k].field);
                if (id & (TAG_CONST | TAG_SREG) || id >= nr || !refs[k].def || refs[k].use)
                    continue;
                KILL(b)[id / 64] |= 1ull << (id % 64);
            }
            i = j;
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = nb; b-- > 0;) {
            uint32_t last = bstart[b + 1] - 1;
            const ptx_inst *in = &f->code[last];
            uint32_t succ[2], ns = 0;
            bool falls = !(in->kind == K_EXIT || in->kind == K_TRAP || in->kind == K_BRA ||
                           in->kind == K_BRX || in->kind == K_RET) ||
                         in->guard >= 0;
            if (in->kind == K_BRA)
                succ[ns++] = blk[in->target];
            if (falls && last + 1 < n)
                succ[ns++] = blk[last + 1];
            uint64_t *out = LOUT(b), *lin = LIN(b), *gen = GEN(b), *kill = KILL(b);
            for (uint32_t w = 0; w < words; w++) {
                uint64_t o = 0;
                for (uint32_t s = 0; s < ns; s++)
                    o |= LIN(succ[s])[w];
                for (uint32_t s = 0; in->kind == K_BRX && s < in->imm; s++) /* every target */
                    o |= LIN(blk[in->ox[s]])[w];
                uint64_t li = gen[w] | (o & ~kill[w]);
                if (o != out[w] || li != lin[w]) {
                    out[w] = o;
                    lin[w] = li;
                    changed = true;
                }
            }
        }
    }
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t s = bstart[b], e = bstart[b + 1] - 1;
        for (uint32_t w = 0; w < words; w++) {
            for (uint64_t v = LIN(b)[w]; v; v &= v - 1) {
                uint32_t r = w * 64 + (uint32_t)__builtin_ctzll(v);
                if (s < lo[r])
                    lo[r] = s;
                if (s > hi[r])
                    hi[r] = s;
            }
            for (uint64_t v = LOUT(b)[w]; v; v &= v - 1) {
                uint32_t r = w * 64 + (uint32_t)__builtin_ctzll(v);
                if (e < lo[r])
                    lo[r] = e;
                if (e > hi[r])
                    hi[r] = e;
            }
        }
    }
    free(bstart);
#undef GEN
#undef KILL
#undef LIN
#undef LOUT
    /* linear scan: a slot is reused only after its last occupant's interval
     * has ended strictly before the next one starts */
    order = malloc(sizeof *order * (nr ? nr : 1));
    slot_end = malloc(sizeof *slot_end * (nr ? nr : 1));
    slot_group = malloc(sizeof *slot_group * (nr ? nr : 1));
    if (!order || !slot_end || !slot_group)
        goto identity;
    uint32_t no = 0;
    for (uint32_t r = 0; r < nr; r++)
        if (lo[r] != UINT32_MAX)
            order[no++] = r;
        else
            reg_slot[r] = UINT32_MAX;
    /* counting sort by lo */
    {
        uint32_t *cnt = calloc(n + 1, sizeof *cnt), *tmp = malloc(sizeof *tmp * (no ? no : 1));
        if (!cnt || !tmp) {
            free(cnt);
            free(tmp);
            goto identity;
        }
        for (uint32_t i = 0; i < no; i++)
            cnt[lo[order[i]]]++;
        for (uint32_t i = 1; i <= n; i++)
            cnt[i] += cnt[i - 1];
        for (uint32_t i = no; i-- > 0;)
            tmp[--cnt[lo[order[i]]]] = order[i];
        memcpy(order, tmp, sizeof *tmp * no);
        free(cnt);
        free(tmp);
    }
    uint32_t hint = 0;
    for (uint32_t i = 0; i < no; i++) {
        uint32_t r = order[i], s = UINT32_MAX;
        for (uint32_t k = 0; k < nslot; k++) {
            uint32_t cand = (hint + k) % nslot;
            if (slot_end[cand] < lo[r] && (!group || slot_group[cand] == group[r])) {
                s = cand;
                break;
            }
        }
        if (s == UINT32_MAX)
            s = nslot++;
        slot_end[s] = hi[r];
        slot_group[s] = group ? group[r] : 0;
        reg_slot[r] = s;
        hint = s + 1;
    }
    free(lo);
    free(hi);
    free(leader);
    free(blk);
    free(bits);
    free(order);
    free(slot_end);
    free(slot_group);
    return nslot;
identity:
    free(lo);
    free(hi);
    free(leader);
    free(blk);
    free(bits);
    free(order);
    free(slot_end);
    free(slot_group);
    for (uint32_t r = 0; r < nr; r++)
        reg_slot[r] = r;
    return nr;
}

int ptx_finalize_slots(ptx_func *f, const ptx_dref *refs, uint32_t nrefs, const uint32_t *group,
                       uint32_t **reg_slot_out)
{
    memset(f->sreg_of, 0xff, sizeof f->sreg_of);
    /* special registers first */
    for (uint32_t i = 0; i < nrefs; i++) {
        uint32_t id = *field_ptr(&f->code[refs[i].pc], refs[i].field);
        if ((id & TAG_SREG) && !(id & TAG_CONST)) {
            uint32_t sr = id & ID_MASK;
            if (sr < SR_COUNT && f->sreg_of[sr] == 0xff) {
                f->sreg_at[f->nsreg] = (uint8_t)sr;
                f->sreg_of[sr] = (uint8_t)f->nsreg++;
            }
        }
    }
    uint32_t *reg_slot = malloc(sizeof *reg_slot * (f->nregs ? f->nregs : 1));
    if (!reg_slot)
        return -1;
    uint32_t nreg_slots = pack_registers(f, refs, nrefs, group, reg_slot);
    uint32_t base = f->nsreg + f->nconst;
    for (uint32_t i = 0; i < nrefs; i++) {
        uint32_t *p = field_ptr(&f->code[refs[i].pc], refs[i].field);
        uint32_t id = *p;
        if (id & TAG_CONST)
            *p = f->nsreg + (id & ID_MASK);
        else if (id & TAG_SREG)
            *p = f->sreg_of[id & ID_MASK];
        else
            *p = base + reg_slot[id];
    }
    if (reg_slot_out) {
        for (uint32_t r = 0; r < f->nregs; r++)
            if (reg_slot[r] != UINT32_MAX)
                reg_slot[r] += base;
        *reg_slot_out = reg_slot;
    } else {
        free(reg_slot);
    }
    f->nslots = base + nreg_slots;
    if (f->nslots == 0)
        f->nslots = 1;
    return 0;
}

