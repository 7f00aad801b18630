/* heatmap_table.c - a resource's values as text (heatmap.h): every value of
 * a small one, else its worst VKRR_HEATMAP_TABLE_MAX and the counts, so the
 * file does not grow with the capture (every value only when asked). */
#include "heatmap.h"
#include "mapfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void tsv_num(FILE *f, float v)
{
    if (isnan(v))
        fputs("\tnan", f);
    else if (isinf(v))
        fputs(v > 0 ? "\tinf" : "\t-inf", f);
    else
        fprintf(f, "\t%.9g", (double)v);
}

static void row(FILE *f, const vkrr_heatmap_desc *d, uint64_t i)
{
    const vkrr_view *v = &d->view;
    uint64_t t = i / v->channels;
    fprintf(f, "%llu\t%u\t%u\t%u\t%u", (unsigned long long)i, (uint32_t)(t % v->width),
            (uint32_t)(t / v->width % v->height), (uint32_t)(t / v->width / v->height),
            (uint32_t)(i % v->channels));
    tsv_num(f, d->ref[i]);
    tsv_num(f, d->cand[i]);
    tsv_num(f, d->err[i]);
    fputc('\n', f);
}

/* NaN ranks with the non-finite: a mismatch is as bad as it gets */
static float rank(float e)
{
    return isnan(e) ? INFINITY : e;
}

/* a before b in the table: the larger error, then the lower index */
static int worse(const float *e, uint64_t a, uint64_t b)
{
    return rank(e[a]) != rank(e[b]) ? rank(e[a]) > rank(e[b]) : a < b;
}

/* heap[0] is the least bad kept: replaced when a worse one comes */
static void sift_down(uint64_t *heap, uint32_t n, const float *e, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && worse(e, heap[m], heap[l]))
            m = l;
        if (r < n && worse(e, heap[m], heap[r]))
            m = r;
        if (m == i)
            return;
        uint64_t t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
}

static const float *sort_err; /* qsort has no context argument */
static int by_error(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return worse(sort_err, x, y) ? -1 : worse(sort_err, y, x) ? 1 : 0;
}

/* The worst (non-zero error) elements, worst first, at most cap: their count. */
static uint32_t worst_of(const float *e, uint64_t n, uint64_t *heap, uint32_t cap)
{
    uint32_t k = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (!(rank(e[i]) > 0))
            continue;
        if (k < cap) {
            heap[k++] = i;
            if (k == cap)
                for (uint32_t j = cap / 2 + 1; j-- > 0;)
                    sift_down(heap, k, e, j);
        } else if (worse(e, i, heap[0])) {
            heap[0] = i;
            sift_down(heap, k, e, 0);
        }
    }
    sort_err = e;
    qsort(heap, k, sizeof *heap, by_error);
    return k;
}

vkrr_status vkrr_heatmap_write_table(const vkrr_heatmap_desc *d, const char *path,
                                     vkrr_error *err)
{
    const vkrr_view *v = &d->view;
    uint64_t n = (uint64_t)v->width * v->height * v->planes * v->channels;
    uint64_t differ = 0, nonfinite = 0;
    for (uint64_t i = 0; i < n; i++) {
        differ += rank(d->err[i]) > 0;
        nonfinite += isinf(rank(d->err[i]));
    }
    bool every = d->all_values || n <= VKRR_HEATMAP_TABLE_MAX;
    uint64_t *worst = every ? NULL : malloc(VKRR_HEATMAP_TABLE_MAX * sizeof *worst);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = every || worst ? open_memstream(&buf, &len) : NULL;
    if (!f) {
        free(worst);
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory for the table");
    }
    if (d->title)
        fprintf(f, "# %s\n", d->title);
    fprintf(f, "# %ux%u, %u planes, %u channels: %llu elements, %llu differ (%llu NaN/Inf "
               "mismatches or unwritten); error: |reference - port|, inf for those\n",
            v->width, v->height, v->planes, v->channels, (unsigned long long)n,
            (unsigned long long)differ, (unsigned long long)nonfinite);
    uint32_t k = every ? 0 : worst_of(d->err, n, worst, VKRR_HEATMAP_TABLE_MAX);
    if (every)
        fprintf(f, "# every value, in index order%s\n", d->all_values ? " (--dump-values)" : "");
    else
        fprintf(f, "# the worst %u of the %llu that differ, worst first (every value: "
                   "--dump-values)\n", k, (unsigned long long)differ);
    fputs("index\tx\ty\tplane\tchannel\treference\tport\terror\n", f);
    for (uint64_t i = 0; every && i < n; i++)
        row(f, d, i);
    for (uint32_t j = 0; j < k; j++)
        row(f, d, worst[j]);
    fclose(f);
    free(worst);
    vkrr_status st = vkrr_write_file_atomic(path, buf, len, err); /* makes the folder */
    free(buf);
    return st;
}
