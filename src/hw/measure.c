/* measure.c - the tables of the GPU at hand, and the law checks (measure.h). */
#include "measure.h"

#include <errno.h>
#include <lzma.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "approx.h"
#include "cores.h"
#include "cuformat.h"
#include "hw_internal.h"
#include "hw_model.h"

/* What approx.h computes for op (0..14) and ftz. */
static const struct {
    vkrr_approx_op op;
    int ftz;
} f32_ops[VKRR_HWOP_F32_COUNT] = {
    {VKRR_APPROX_EX2, 1}, {VKRR_APPROX_EX2, 0}, {VKRR_APPROX_RSQRT, 1}, {VKRR_APPROX_RSQRT, 0},
    {VKRR_APPROX_RCP, 1}, {VKRR_APPROX_RCP, 0}, {VKRR_APPROX_SQRT, 1}, {VKRR_APPROX_SQRT, 0},
    {VKRR_APPROX_LG2, 1}, {VKRR_APPROX_LG2, 0}, {VKRR_APPROX_SIN, 1}, {VKRR_APPROX_SIN, 0},
    {VKRR_APPROX_COS, 1}, {VKRR_APPROX_COS, 0}, {VKRR_APPROX_TANH, 0}};

#define fbits vkrr_f32_bits
#define bitsf vkrr_f32_from_bits
#define ord vkrr_hw_ord

float vkrr_hw_grid_input(vkrr_hw_table_id id, uint32_t j, unsigned *op)
{
    double g = (double)j * 0x1p-23;
    switch (id) {
    case VKRR_HWT_EX2_POS: *op = 0; return (float)g;
    case VKRR_HWT_EX2_NEG: *op = 0; return (float)-g;
    case VKRR_HWT_RSQRT:
    case VKRR_HWT_SQRT:
        *op = id == VKRR_HWT_RSQRT ? 2 : 6;
        return (float)(j < (1u << 23) ? 1.0 + g : 2.0 + (double)(j - (1u << 23)) * 0x1p-22);
    case VKRR_HWT_RCP: *op = 4; return (float)(1.0 + g);
    case VKRR_HWT_LG2: *op = 8; return (float)(1.0 + g);
    default: *op = 0; return NAN;
    }
}

/* ---- running the kernel in batches ---------------------------------------- */

typedef struct runner {
    const vkrr_hw_measure_desc *d;
    uint32_t *in, *out;
    uint32_t batch;
} runner;

static void say(const vkrr_hw_measure_desc *d, const char *fmt, const char *a, double b)
{
    if (d->progress) {
        fprintf(d->progress, fmt, a, b);
        fflush(d->progress);
    }
}

/* ---- writing a table --------------------------------------------------------- */

static vkrr_status write_xz(const char *dir, vkrr_hw_table_id id, const void *data, size_t bytes,
                            FILE *manifest, vkrr_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.xz", dir, vkrr_hw_table_name(id));
    size_t cap = lzma_stream_buffer_bound(bytes), out = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "compressing %zu bytes", bytes);
    lzma_ret r = lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, data, bytes, buf, &out, cap);
    vkrr_status st = VKRR_OK;
    FILE *f = r == LZMA_OK ? fopen(path, "wb") : NULL;
    if (r != LZMA_OK)
        st = vkrr_fail(err, VKRR_ERR_INTERNAL, path, 0, -1, "xz compression failed (%d)", (int)r);
    else if (!f || fwrite(buf, 1, out, f) != out)
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot write: %s", strerror(errno));
    if (f && fclose(f) != 0 && st == VKRR_OK)
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot write: %s", strerror(errno));
    free(buf);
    if (st == VKRR_OK) {
        char line[256];
        vkrr_hw_tables_manifest_line(id, data, bytes, line, sizeof line);
        fputs(line, manifest);
    }
    return st;
}

/* ---- the delta tables ------------------------------------------------------ */

static bool sampled(const vkrr_hw_measure_desc *d, uint32_t j)
{
    return d->sample <= 1 || j % d->sample == 0;
}

/* An exceptions list being made: sorted (j, hw bits) pairs. */
typedef struct exc_list {
    uint32_t *e;
    size_t n, cap;
} exc_list;

static bool exc_add(exc_list *x, uint32_t j, uint32_t bits)
{
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 1024;
        uint32_t *g = realloc(x->e, cap * 8);
        if (!g)
            return false;
        x->e = g;
        x->cap = cap;
    }
    x->e[2 * x->n] = j;
    x->e[2 * x->n + 1] = bits;
    x->n++;
    return true;
}

/* The grid-indexed tables: the inputs of every (sampled) point in batches;
 * a value an int8 delta cannot hold goes to the exceptions list, the table
 * keeping the delta saturated at +-127 (hw_tables.h). */
static vkrr_status grid_table(runner *R, vkrr_hw_table_id id, int8_t *delta, exc_list *exc,
                              vkrr_error *err)
{
    const vkrr_hw_measure_desc *d = R->d;
    uint32_t n = (uint32_t)vkrr_hw_table_bytes(id), k = 0;
    unsigned op = 0;
    uint32_t *js = malloc((size_t)R->batch * sizeof *js);
    if (!js)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "measuring %s", vkrr_hw_table_name(id));
    vkrr_status st = VKRR_OK;
    for (uint32_t j = 0; j <= n && st == VKRR_OK; j++) {
        if (j < n && sampled(d, j)) {
            R->in[k] = fbits(vkrr_hw_grid_input(id, j, &op));
            js[k++] = j;
        }
        if (k == R->batch || (j == n && k)) {
            st = d->run(d->ctx, op, R->in, R->out, k, err);
            for (uint32_t i = 0; st == VKRR_OK && i < k; i++) {
                int64_t dl = ord(R->out[i]) - ord(fbits(vkrr_hw_grid_ref(id, js[i])));
                delta[js[i]] = (int8_t)(dl < -127 ? -127 : dl > 127 ? 127 : dl);
                if ((dl < -127 || dl > 127) && !exc_add(exc, js[i], R->out[i]))
                    st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "the exceptions of %s",
                                   vkrr_hw_table_name(id));
            }
            k = 0;
        }
    }
    free(js);
    return st;
}

/* sin/cos: entries by turn index.  Full: every positive finite f32
 * (each j's first input kept, later ones in the same j must agree); sampled:
 * for every sample-th j an input found near j 2^-25 / (1/(2 pi)). */
typedef struct turns {
    uint32_t *hw;        /* [2^25] */
    uint8_t *seen;       /* [2^25]: 0 no, 1 yes */
    uint64_t tested, disagree;
} turns;

static vkrr_status turn_inputs(runner *R, unsigned op, turns *T, vkrr_error *err)
{
    const vkrr_hw_measure_desc *d = R->d;
    uint32_t k = 0, *js = malloc((size_t)R->batch * sizeof *js);
    if (!js)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "measuring sin/cos");
    vkrr_status st = VKRR_OK;
    const float c = bitsf(0x3e22f983u);
    /* full: every positive finite f32.  Beyond one turn the indexes repeat,
     * but below it not all are reached: from x = 2 on, the inputs' spacing
     * times 1/(2 pi) exceeds t's ULP, and each later binade of turns fills
     * some of the gaps (on the H200's sin table: 776,820 indexes from the
     * second turn, 204,418 more from later ones) */
    uint32_t n = d->sample > 1 ? (1u << 25) / d->sample : 0x7f800000u;
    for (uint32_t i = 0; i <= n && st == VKRR_OK; i++) {
        if (i < n) {
            float x;
            if (d->sample > 1) {
                uint32_t j = i * d->sample;
                x = (float)((double)j * 0x1p-25 / (double)c);
                for (int t = 0; t < 64 && vkrr_hw_turn_index(x) != j; t++)
                    x = nextafterf(x, vkrr_hw_turn_index(x) < j ? INFINITY : 0.0f);
                if (vkrr_hw_turn_index(x) != j)
                    continue; /* unreachable near there */
            } else {
                x = bitsf(i);
            }
            R->in[k] = fbits(x);
            js[k++] = vkrr_hw_turn_index(x);
        }
        if (k == R->batch || (i == n && k)) {
            st = d->run(d->ctx, op, R->in, R->out, k, err);
            for (uint32_t q = 0; st == VKRR_OK && q < k; q++) {
                T->tested++;
                if (!T->seen[js[q]]) {
                    T->seen[js[q]] = 1;
                    T->hw[js[q]] = R->out[q];
                } else if (T->hw[js[q]] != R->out[q]) {
                    T->disagree++;
                }
            }
            k = 0;
        }
    }
    free(js);
    return st;
}

/* delta[j] and the exceptions list from the measured turns (the shipped
 * sin/cos rule: beyond 126 ULP, marked 127 when the delta is 127, else -127). */
static vkrr_status turn_table(vkrr_hw_table_id id, const turns *T, int8_t *delta, exc_list *exc,
                              uint64_t *unreachable, vkrr_error *err)
{
    *unreachable = 0;
    for (uint32_t j = 0; j < (1u << 25); j++) {
        if (!T->seen[j]) {
            delta[j] = -128;
            ++*unreachable;
            continue;
        }
        int64_t dl = ord(T->hw[j]) - ord(fbits(vkrr_hw_grid_ref(id, j)));
        if (dl >= -126 && dl <= 126) {
            delta[j] = (int8_t)dl;
            continue;
        }
        delta[j] = dl == 127 ? 127 : -127; /* the shipped tables' marker of an exception */
        if (!exc_add(exc, j, T->hw[j]))
            return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "the exceptions of %s",
                             vkrr_hw_table_name(id));
    }
    return VKRR_OK;
}

/* ---- the f16 inputs and the native 16-bit forms ------------------------------ */

/* Every (sampled) 16-bit code h as an input (f16: its f32 value, else the
 * code itself) through ops first..first+n-1 (skip: not run, rows left as
 * they are); row r, code h of the result goes to put(rows, r, h, word). */
static vkrr_status code_rows(runner *R, bool as_f16, unsigned first, unsigned n, unsigned skip_from,
                             void (*put)(void *, unsigned, uint32_t, uint32_t), void *rows,
                             vkrr_error *err)
{
    const vkrr_hw_measure_desc *d = R->d;
    uint32_t *in = malloc(65536 * 4), *out = malloc(65536 * 4);
    vkrr_status st = in && out ? VKRR_OK : vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "16-bit codes");
    uint32_t k = 0;
    for (uint32_t h = 0; h < 65536; h++)
        if (sampled(d, h))
            in[k++] = as_f16 ? fbits(vkrr_f16_to_f32((uint16_t)h)) : h;
    for (unsigned r = 0; st == VKRR_OK && r < n && first + r < skip_from; r++) {
        st = d->run(d->ctx, first + r, in, out, k, err);
        for (uint32_t h = 0, i = 0; st == VKRR_OK && h < 65536; h++)
            if (sampled(d, h))
                put(rows, r, h, out[i++]);
    }
    free(in);
    free(out);
    return st;
}

static void put_u32(void *rows, unsigned r, uint32_t h, uint32_t v)
{
    ((uint32_t *)rows)[(size_t)r * 65536u + h] = v;
}

static void put_u16(void *rows, unsigned r, uint32_t h, uint32_t v)
{
    ((uint16_t *)rows)[(size_t)r * 65536u + h] = (uint16_t)v;
}

/* f16_inputs: the 15 f32 forms of every f16 value. */
static vkrr_status f16_table(runner *R, uint32_t *rows, vkrr_error *err)
{
    return code_rows(R, true, 0, VKRR_HWOP_F32_COUNT, VKRR_HWOP_COUNT, put_u32, rows, err);
}

/* native16: the four 16-bit forms; a GPU without the bf16 ones (before
 * sm_90) gets NaN rows: no kernel of it can use them. */
static vkrr_status native16_table(runner *R, uint16_t *rows, vkrr_error *err)
{
    for (uint32_t i = 2u * 65536u; !R->d->bf16 && i < 4u * 65536u; i++)
        rows[i] = 0x7fff;
    return code_rows(R, false, VKRR_HWOP_EX2_F16, 4, R->d->bf16 ? VKRR_HWOP_COUNT : VKRR_HWOP_EX2_BF16,
                     put_u16, rows, err);
}

/* ---- the laws over every f32 input ------------------------------------------- */

typedef struct check_job {
    unsigned op;
    const uint32_t *in, *out;
    uint32_t from, to;
    uint64_t bad;
} check_job;

static void *check_part(void *arg)
{
    check_job *j = arg;
    for (uint32_t i = j->from; i < j->to; i++) {
        float y = vkrr_approx_f32(f32_ops[j->op].op, bitsf(j->in[i]), f32_ops[j->op].ftz);
        j->bad += fbits(y) != j->out[i];
    }
    return NULL;
}

/* Violations of the model in one batch, on every core. */
static uint64_t check_batch(unsigned op, const uint32_t *in, const uint32_t *out, uint32_t n)
{
    enum { MAXT = 64 };
    unsigned t = vkrr_cores(MAXT);
    check_job jobs[MAXT];
    pthread_t th[MAXT];
    bool started[MAXT] = {0};
    for (unsigned i = 0; i < t; i++) {
        jobs[i] = (check_job){op, in, out, (uint32_t)((uint64_t)n * i / t),
                              (uint32_t)((uint64_t)n * (i + 1) / t), 0};
        if (i)
            started[i] = pthread_create(&th[i], NULL, check_part, &jobs[i]) == 0;
        if (i && !started[i])
            check_part(&jobs[i]);
    }
    check_part(&jobs[0]);
    uint64_t bad = jobs[0].bad;
    for (unsigned i = 1; i < t; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        bad += jobs[i].bad;
    }
    return bad;
}

/* Every stride-th f32 input (1: all 2^32) of the fifteen forms against
 * the model lm; the hardware runs under the model current on entry (the
 * one the PTX interpreter computes; nothing to a GPU). */
static vkrr_status check_laws(runner *R, uint32_t stride, vkrr_hw_model *lm,
                              vkrr_hw_measure_result *res, vkrr_error *err)
{
    vkrr_hw_model *hw = vkrr_hw_current();
    const uint64_t total = (1ull << 32) / stride;
    const vkrr_hw_measure_desc *d = R->d;
    vkrr_status st = VKRR_OK;
    for (unsigned op = 0; st == VKRR_OK && op < VKRR_HWOP_F32_COUNT; op++) {
        vkrr_hw_law *law = &res->laws[res->nlaws++];
        /* lg2 and tanh have no exact law (src/hw/README.md): how far the
         * tables and the stand-ins reach is reported, not judged */
        law->standin = f32_ops[op].op == VKRR_APPROX_LG2 || f32_ops[op].op == VKRR_APPROX_TANH;
        snprintf(law->name, sizeof law->name, "%s: the model over every %sf32 input%s",
                 vkrr_hw_op_name(op), stride > 1 ? "2^20-th " : "",
                 law->standin ? " (tables and stand-in)" : "");
        for (uint64_t b = 0; st == VKRR_OK && b < total; b += R->batch) {
            uint32_t n = (uint32_t)(total - b < R->batch ? total - b : R->batch);
            for (uint32_t i = 0; i < n; i++)
                R->in[i] = (uint32_t)((b + i) * stride);
            vkrr_hw_use(hw);
            st = d->run(d->ctx, op, R->in, R->out, n, err);
            vkrr_hw_use(lm);
            if (st == VKRR_OK) {
                law->tested += n;
                law->violations += check_batch(op, R->in, R->out, n);
            }
        }
        say(d, "vkrr hw measure: %s checked (%.0f violations)\n", vkrr_hw_op_name(op),
            (double)law->violations);
    }
    vkrr_hw_use(hw);
    return st;
}

/* ---- the whole measurement ------------------------------------------------------ */

static bool mkdirs(const char *dir)
{
    char p[1100];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0755) != 0 && errno != EEXIST)
                return false;
            *s = '/';
        }
    return mkdir(p, 0755) == 0 || errno == EEXIST;
}

static vkrr_status measure_tables(runner *R, FILE *man, vkrr_hw_measure_result *res, vkrr_error *err)
{
    const vkrr_hw_measure_desc *d = R->d;
    static const vkrr_hw_table_id grid[] = {VKRR_HWT_EX2_POS, VKRR_HWT_EX2_NEG, VKRR_HWT_RSQRT,
                                            VKRR_HWT_SQRT, VKRR_HWT_RCP, VKRR_HWT_LG2};
    vkrr_status st = VKRR_OK;
    for (unsigned g = 0; st == VKRR_OK && g < sizeof grid / sizeof grid[0]; g++) {
        size_t n = vkrr_hw_table_bytes(grid[g]);
        int8_t *delta = calloc(n, 1);
        exc_list exc = {0};
        st = delta ? grid_table(R, grid[g], delta, &exc, err)
                   : vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "a table of %zu bytes", n);
        if (st == VKRR_OK)
            st = write_xz(d->dir, grid[g], delta, n, man, err);
        if (st == VKRR_OK)
            st = write_xz(d->dir, vkrr_hw_table_exceptions(grid[g]), exc.e, exc.n * 8, man, err);
        res->grid_exceptions[g] = exc.n;
        free(delta);
        free(exc.e);
        say(d, "vkrr hw measure: %s%.0s done\n", vkrr_hw_table_name(grid[g]), 0);
    }
    for (int s = 0; st == VKRR_OK && s < 2; s++) {
        vkrr_hw_table_id id = s ? VKRR_HWT_COS : VKRR_HWT_SIN;
        turns T = {malloc((size_t)4 << 25), calloc((size_t)1 << 25, 1), 0, 0};
        int8_t *delta = malloc((size_t)1 << 25);
        exc_list exc = {0};
        if (!T.hw || !T.seen || !delta)
            st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "measuring %s", vkrr_hw_table_name(id));
        if (st == VKRR_OK)
            st = turn_inputs(R, s ? 12 : 10, &T, err);
        if (st == VKRR_OK)
            st = turn_table(id, &T, delta, &exc, &res->unreachable[s], err);
        if (st == VKRR_OK)
            st = write_xz(d->dir, id, delta, (size_t)1 << 25, man, err);
        if (st == VKRR_OK)
            st = write_xz(d->dir, s ? VKRR_HWT_COS_EXC : VKRR_HWT_SIN_EXC, exc.e, exc.n * 8, man, err);
        if (st == VKRR_OK && d->sample <= 1) {
            vkrr_hw_law *law = &res->laws[res->nlaws++];
            snprintf(law->name, sizeof law->name, "%s: every input of one turn index gives one value",
                     vkrr_hw_op_name(s ? 12 : 10));
            law->tested = T.tested;
            law->violations = T.disagree;
        }
        res->exceptions[s] = exc.n;
        free(T.hw);
        free(T.seen);
        free(delta);
        free(exc.e);
        say(d, "vkrr hw measure: %s%.0s done\n", vkrr_hw_table_name(id), 0);
    }
    uint32_t *f16 = st == VKRR_OK ? calloc(15u * 65536u, 4) : NULL;
    uint16_t *n16 = st == VKRR_OK ? calloc(4u * 65536u, 2) : NULL;
    if (st == VKRR_OK && (!f16 || !n16))
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "the f16 tables");
    if (st == VKRR_OK && (st = f16_table(R, f16, err)) == VKRR_OK)
        st = write_xz(d->dir, VKRR_HWT_F16_INPUTS, f16, 15u * 65536u * 4u, man, err);
    if (st == VKRR_OK && (st = native16_table(R, n16, err)) == VKRR_OK)
        st = write_xz(d->dir, VKRR_HWT_NATIVE16, n16, 4u * 65536u * 2u, man, err);
    free(f16);
    free(n16);
    return st;
}

vkrr_status vkrr_hw_measure_run(const vkrr_hw_measure_desc *d, vkrr_hw_measure_result *res,
                                vkrr_error *err)
{
    memset(res, 0, sizeof *res);
    if (!d->dir || !d->arch || !d->run)
        return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "measure: no folder, architecture or runner");
    if (!mkdirs(d->dir))
        return vkrr_fail(err, VKRR_ERR_IO, d->dir, 0, -1, "cannot create: %s", strerror(errno));
    runner R = {d, NULL, NULL, d->batch ? d->batch : 1u << 24};
    R.in = malloc((size_t)R.batch * 4);
    R.out = malloc((size_t)R.batch * 4);
    char tmp[1200], man_path[1200];
    snprintf(tmp, sizeof tmp, "%s/tables.tsv.tmp", d->dir);
    snprintf(man_path, sizeof man_path, "%s/tables.tsv", d->dir);
    FILE *man = R.in && R.out ? fopen(tmp, "w") : NULL;
    vkrr_status st = VKRR_OK;
    if (!R.in || !R.out)
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "measurement buffers");
    else if (!man)
        st = vkrr_fail(err, VKRR_ERR_IO, tmp, 0, -1, "cannot create: %s", strerror(errno));
    if (st == VKRR_OK) {
        fprintf(man, "# vkrr hardware tables, written by `vkrr hw measure`%s\n",
                d->sample > 1 ? " (SAMPLED: every N-th point only; not for use)" : "");
        fprintf(man, "arch\t%s\ndevice\t%s\n", d->arch, d->device ? d->device : "");
        for (int i = 0; d->cuts_from && i < VKRR_HWT_COUNT; i++)
            if (vkrr_hw_tables_cut(d->cuts_from, (vkrr_hw_table_id)i))
                fprintf(man, "cut\t%s\t%llu\n", vkrr_hw_table_name((vkrr_hw_table_id)i),
                        (unsigned long long)vkrr_hw_tables_cut(d->cuts_from, (vkrr_hw_table_id)i));
        st = measure_tables(&R, man, res, err);
    }
    if (man && fclose(man) != 0 && st == VKRR_OK)
        st = vkrr_fail(err, VKRR_ERR_IO, tmp, 0, -1, "cannot write: %s", strerror(errno));
    if (st == VKRR_OK && rename(tmp, man_path) != 0)
        st = vkrr_fail(err, VKRR_ERR_IO, man_path, 0, -1, "cannot rename into place: %s", strerror(errno));
    else if (st != VKRR_OK)
        unlink(tmp);
    if (st == VKRR_OK && d->sample <= 1 && !d->no_laws) {
        /* the laws, under the model of the tables just written */
        vkrr_hw_model *m = NULL;
        st = vkrr_hw_model_open(&(vkrr_hw_choice){.approx = d->arch, .tables_dir = d->dir}, &m, err);
        if (st == VKRR_OK)
            st = check_laws(&R, 1, m, res, err);
        vkrr_hw_model_close(m);
    } else if (st == VKRR_OK && d->sample > 1 && d->law_model && !d->no_laws) {
        /* sampled tables are no model: the laws under the one given */
        st = check_laws(&R, VKRR_HW_SAMPLED_LAW_STRIDE, d->law_model, res, err);
    }
    free(R.in);
    free(R.out);
    return st;
}
