/* shard.c - which launches shard K of N validates (shard.h). */
#include "shard.h"

#include <stdlib.h>
#include <string.h>

uint64_t vkrr_shard_cost(const vkrr_launch *l)
{
    uint64_t c = 0;
    for (uint32_t i = 0; i < l->nallocs; i++)
        c += 2 * l->allocs[i].size;
    for (uint32_t i = 0; i < l->nimages; i++)
        c += l->images[i].dump_bytes;
    c += (uint64_t)l->grid[0] * l->grid[1] * l->grid[2] * l->block[0] * l->block[1] * l->block[2];
    return c;
}

typedef struct item {
    uint64_t cost;
    uint32_t first; /* the launch, or the frame's first launch */
} item;

/* Costliest first; equal costs in capture order. */
static int by_cost(const void *x, const void *y)
{
    const item *a = x, *b = y;
    if (a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* Launch by launch: the costliest to the shard with the least so far. */
static void by_launch(const vkrr_capture *cap, const bool *sel, uint32_t k, uint32_t n, bool *mine)
{
    item *it = malloc((cap->nlaunches ? cap->nlaunches : 1) * sizeof *it);
    uint64_t *load = calloc(n, sizeof *load);
    uint32_t m = 0;
    if (!it || !load) { /* no memory for a balance: a plain round robin is still a split */
        for (uint32_t i = 0, j = 0; i < cap->nlaunches; i++)
            if (!sel || sel[i])
                mine[i] = j++ % n == k - 1;
        free(it);
        free(load);
        return;
    }
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (!sel || sel[i])
            it[m++] = (item){vkrr_shard_cost(&cap->launches[i]), i};
    qsort(it, m, sizeof *it, by_cost);
    for (uint32_t j = 0; j < m; j++) {
        uint32_t best = 0;
        for (uint32_t s = 1; s < n; s++)
            if (load[s] < load[best])
                best = s;
        load[best] += it[j].cost;
        mine[it[j].first] = best == k - 1;
    }
    free(it);
    free(load);
}

/* Whole frames, in order: shard s takes the frames whose cost, summed from
 * the first frame, reaches past s/n of the total at their middle. */
static void by_frames(const vkrr_capture *cap, const bool *sel, uint32_t k, uint32_t n, bool *mine)
{
    long double total = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (!sel || sel[i])
            total += (long double)vkrr_shard_cost(&cap->launches[i]);
    long double before = 0;
    for (uint32_t i = 0, e; i < cap->nlaunches; i = e) {
        uint32_t frame = cap->launches[i].frame;
        long double cost = 0;
        for (e = i; e < cap->nlaunches && cap->launches[e].frame == frame; e++)
            if (!sel || sel[e])
                cost += (long double)vkrr_shard_cost(&cap->launches[e]);
        /* the shard whose share holds the frame's middle */
        long double mid = total > 0 ? (before + cost / 2) / total : 0;
        uint32_t s = (uint32_t)(mid * n);
        if (s >= n)
            s = n - 1;
        for (uint32_t j = i; j < e; j++)
            if (!sel || sel[j])
                mine[j] = s == k - 1;
        before += cost;
    }
}

uint32_t vkrr_shard_plan(const vkrr_capture *cap, const bool *selected, uint32_t k, uint32_t n,
                         bool whole_frames, bool *mine)
{
    memset(mine, 0, cap->nlaunches * sizeof *mine);
    if (n < 1 || k < 1 || k > n)
        return 0;
    if (whole_frames)
        by_frames(cap, selected, k, n, mine);
    else
        by_launch(cap, selected, k, n, mine);
    uint32_t count = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        count += mine[i];
    return count;
}
