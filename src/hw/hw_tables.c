/* hw_tables.c - measured table sets: manifest, lazy decompression, the
 * cache of decompressed copies (see hw_tables.h). */
#include "hw_tables.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzma.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "hw_blobs.h"
#include "mapfile.h"
#include "hw_tables.h"

static const char *const op_names[VKRR_HWOP_COUNT] = {
    "ex2.approx.ftz.f32", "ex2.approx.f32", "rsqrt.approx.ftz.f32", "rsqrt.approx.f32",
    "rcp.approx.ftz.f32", "rcp.approx.f32", "sqrt.approx.ftz.f32", "sqrt.approx.f32",
    "lg2.approx.ftz.f32", "lg2.approx.f32", "sin.approx.ftz.f32", "sin.approx.f32",
    "cos.approx.ftz.f32", "cos.approx.f32", "tanh.approx.f32", "ex2.approx.f16",
    "tanh.approx.f16", "ex2.approx.ftz.bf16", "tanh.approx.bf16"};

const char *vkrr_hw_op_name(unsigned op)
{
    return op < VKRR_HWOP_COUNT ? op_names[op] : "?";
}

static const char *const table_names[VKRR_HWT_COUNT] = {
#define VKRR_X_HWT(id, name, bytes) name,
    VKRR_HW_TABLE_LIST(VKRR_X_HWT)
#undef VKRR_X_HWT
};
static const size_t table_sizes[VKRR_HWT_COUNT] = {
#define VKRR_X_HWT(id, name, bytes) bytes,
    VKRR_HW_TABLE_LIST(VKRR_X_HWT)
#undef VKRR_X_HWT
};

const char *vkrr_hw_table_name(vkrr_hw_table_id id)
{
    return (unsigned)id < VKRR_HWT_COUNT ? table_names[id] : "?";
}

size_t vkrr_hw_table_bytes(vkrr_hw_table_id id)
{
    return (unsigned)id < VKRR_HWT_COUNT ? table_sizes[id] : 0;
}

vkrr_hw_table_id vkrr_hw_table_exceptions(vkrr_hw_table_id delta)
{
    switch (delta) {
    case VKRR_HWT_EX2_POS: return VKRR_HWT_EX2_POS_EXC;
    case VKRR_HWT_EX2_NEG: return VKRR_HWT_EX2_NEG_EXC;
    case VKRR_HWT_RSQRT: return VKRR_HWT_RSQRT_EXC;
    case VKRR_HWT_SQRT: return VKRR_HWT_SQRT_EXC;
    case VKRR_HWT_RCP: return VKRR_HWT_RCP_EXC;
    case VKRR_HWT_LG2: return VKRR_HWT_LG2_EXC;
    case VKRR_HWT_SIN: return VKRR_HWT_SIN_EXC;
    case VKRR_HWT_COS: return VKRR_HWT_COS_EXC;
    default: return VKRR_HWT_COUNT;
    }
}

/* What get() returns for a table of no bytes (an empty exceptions list). */
static const uint32_t empty_table[2];

struct vkrr_hw_tables {
    char arch[32], device[256], origin[1024];
    char dir[1024];                    /* a folder set; "" when built in */
    uint64_t set_hash;                 /* of the manifest: names the cache folder */
    size_t bytes[VKRR_HWT_COUNT];
    uint64_t hash[VKRR_HWT_COUNT];
    uint64_t cut[VKRR_HWT_COUNT];      /* "cut NAME N" */
    vkrr_hw_deviation dev[VKRR_HW_MAX_DEVIATIONS]; /* "deviate FORM IN OUT": a simulated GPU */
    unsigned ndev;
    bool dev_off;
    unsigned tex_bits;                 /* "texfilter_bits N"; 0: absent (8) */                      /* vkrr_hw_tables_ignore_deviations */
    const uint8_t *blob[VKRR_HWT_COUNT]; /* built in: the .xz bytes */
    size_t blob_size[VKRR_HWT_COUNT];
    _Atomic(const void *) map[VKRR_HWT_COUNT];
    _Atomic(const uint8_t *) delta2[VKRR_HWT_COUNT]; /* vkrr_hw_tables_delta2 */
    bool failed[VKRR_HWT_COUNT];
    pthread_mutex_t lock;
    bool has_err;
    vkrr_error err;
};

/* ---- the manifest --------------------------------------------------------- */

static int table_by_name(const char *name)
{
    for (int i = 0; i < VKRR_HWT_COUNT; i++)
        if (!strcmp(table_names[i], name))
            return i;
    return -1;
}

static bool hex32(const char *s, uint32_t *v)
{
    char *end = NULL;
    errno = 0;
    unsigned long long n = s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? strtoull(s, &end, 16) : 0;
    *v = (uint32_t)n;
    return end && !*end && end > s + 2 && !errno && n <= 0xffffffffull;
}

/* "deviate FORM INPUT OUTPUT" (hw_tables.h): a simulated GPU's value that
 * breaks a law at one input. */
static vkrr_status deviate_line(vkrr_hw_tables *t, const char *form, const char *in,
                                const char *out, const char *extra, const char *file, long ln,
                                vkrr_error *err)
{
    unsigned f = 0;
    while (form && f < VKRR_HWOP_F32_COUNT && strcmp(vkrr_hw_op_name(f), form))
        f++;
    vkrr_hw_deviation d = {f, 0, 0};
    if (!form || f == VKRR_HWOP_F32_COUNT || !hex32(in, &d.in) || !hex32(out, &d.out) || extra)
        return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1,
                         "expected 'deviate FORM 0xINPUT 0xOUTPUT' (FORM an f32 form such as "
                         "ex2.approx.ftz.f32, the bits in hex)");
    for (unsigned i = 0; i < t->ndev; i++)
        if (t->dev[i].form == f && t->dev[i].in == d.in)
            return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1, "%s at 0x%08x deviates twice", form,
                             d.in);
    if (t->ndev == VKRR_HW_MAX_DEVIATIONS)
        return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1, "more than %d deviate lines",
                         VKRR_HW_MAX_DEVIATIONS);
    t->dev[t->ndev++] = d;
    return VKRR_OK;
}

/* One line of tables.tsv (without its newline, NUL-terminated, writable). */
static vkrr_status manifest_line(vkrr_hw_tables *t, char *s, const char *file, long ln,
                                 bool *seen, vkrr_error *err)
{
    char *key = strtok(s, "\t "), *a = strtok(NULL, "\t ");
    if (!key || key[0] == '#')
        return VKRR_OK;
    if (!strcmp(key, "arch") && a && !strtok(NULL, "\t ")) {
        /* sm_ then digits and at most one letter (sm_90, sm_90a): the name
         * becomes part of the cache folder's path, so nothing else passes */
        size_t n = strlen(a), d = 3;
        while (d < n && a[d] >= '0' && a[d] <= '9')
            d++;
        bool ok = n < sizeof t->arch && !strncmp(a, "sm_", 3) && d > 3 &&
                  (d == n || (d + 1 == n && a[d] >= 'a' && a[d] <= 'z'));
        if (!ok)
            return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1, "arch must be sm_NN, not '%s'", a);
        snprintf(t->arch, sizeof t->arch, "%s", a);
        return VKRR_OK;
    }
    if (!strcmp(key, "device")) {
        char *rest = a ? a + strlen(a) + 1 : NULL; /* strtok cut the line after a */
        snprintf(t->device, sizeof t->device, "%s%s%s", a ? a : "", rest && *rest ? " " : "",
                 rest && *rest ? rest : "");
        return VKRR_OK;
    }
    char *b = strtok(NULL, "\t "), *h = strtok(NULL, "\t ");
    if (!strcmp(key, "cut")) {
        int id = a ? table_by_name(a) : -1;
        char *end = NULL;
        errno = 0;
        unsigned long long n = b && !h && b[0] != '-' ? strtoull(b, &end, 10) : 0;
        if (id < 0 || vkrr_hw_table_exceptions((vkrr_hw_table_id)id) == VKRR_HWT_COUNT || !end ||
            *end || errno || n == 0 || n > table_sizes[id])
            return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1,
                             "expected 'cut DELTA_TABLE N' (N entries saturated, 1..its size)");
        t->cut[id] = n;
        return VKRR_OK;
    }
    if (!strcmp(key, "texfilter_bits")) {
        char *end = NULL;
        unsigned long n = a && !b ? strtoul(a, &end, 10) : 0;
        if (!end || *end || n < VKRR_HW_TEX_BITS_MIN || n > VKRR_HW_TEX_BITS_MAX)
            return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1,
                             "expected 'texfilter_bits N' (the bilinear weights' fraction bits, "
                             "%d..%d)", VKRR_HW_TEX_BITS_MIN, VKRR_HW_TEX_BITS_MAX);
        t->tex_bits = (unsigned)n;
        return VKRR_OK;
    }
    if (!strcmp(key, "deviate"))
        return deviate_line(t, a, b, h, strtok(NULL, "\t "), file, ln, err);
    if (strcmp(key, "table") || !a || !b || !h || strtok(NULL, "\t "))
        return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1,
                         "expected 'arch sm_NN', 'device TEXT', 'table NAME BYTES HASH', "
                         "'cut NAME N', 'texfilter_bits N' or 'deviate FORM INPUT OUTPUT'");
    int id = table_by_name(a);
    if (id < 0)
        return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1, "unknown table '%s'", a);
    if (seen[id])
        return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1, "table '%s' listed twice", a);
    char *end;
    errno = 0;
    unsigned long long n = strtoull(b, &end, 10);
    if (errno || *end || b[0] == '-' || n > (1ull << 30) ||
        (table_sizes[id] ? n == 0 || n != table_sizes[id] : n % 8 != 0))
        return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1, "table '%s' cannot have %s bytes", a, b);
    unsigned long long hv = strtoull(h, &end, 16);
    if (*end || strlen(h) != 16)
        return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1, "hash '%s' is not 16 hex digits", h);
    seen[id] = true;
    t->bytes[id] = (size_t)n;
    t->hash[id] = (uint64_t)hv;
    return VKRR_OK;
}

static vkrr_status parse_manifest(vkrr_hw_tables *t, const char *text, size_t len,
                                  const char *file, vkrr_error *err)
{
    bool seen[VKRR_HWT_COUNT] = {0};
    t->set_hash = vkrr_fnv1a64(text, len);
    long ln = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        char line[1024];
        ln++;
        if (j - i >= sizeof line)
            return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1, "line too long");
        memcpy(line, text + i, j - i);
        line[j - i] = 0;
        if (memchr(line, 0, j - i))
            return vkrr_fail(err, VKRR_ERR_PARSE, file, ln, -1, "a NUL byte in the manifest");
        vkrr_status st = manifest_line(t, line, file, ln, seen, err);
        if (st != VKRR_OK)
            return st;
        i = j + 1;
    }
    if (!t->arch[0])
        return vkrr_fail(err, VKRR_ERR_PARSE, file, 0, -1, "no 'arch sm_NN' line");
    for (int i = 0; i < VKRR_HWT_COUNT; i++)
        if (!seen[i])
            return vkrr_fail(err, VKRR_ERR_PARSE, file, 0, -1, "table '%s' is not listed",
                             table_names[i]);
    return VKRR_OK;
}

static vkrr_hw_tables *tables_new(void)
{
    vkrr_hw_tables *t = calloc(1, sizeof *t);
    if (t)
        pthread_mutex_init(&t->lock, NULL);
    return t;
}

vkrr_status vkrr_hw_tables_open_shipped(vkrr_hw_tables **out, vkrr_error *err)
{
    *out = NULL;
    vkrr_hw_tables *t = tables_new();
    if (!t)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "hardware tables");
    snprintf(t->origin, sizeof t->origin, "built in");
    const vkrr_hw_blob *man = NULL;
    for (const vkrr_hw_blob *b = vkrr_hw_shipped_blobs; b->name; b++) {
        if (!strcmp(b->name, "tables.tsv"))
            man = b;
        for (int i = 0; i < VKRR_HWT_COUNT; i++) {
            size_t n = strlen(table_names[i]);
            if (!strncmp(b->name, table_names[i], n) && !strcmp(b->name + n, ".xz")) {
                t->blob[i] = b->start;
                t->blob_size[i] = (size_t)(b->end - b->start);
            }
        }
    }
    vkrr_status st = man ? parse_manifest(t, (const char *)man->start, (size_t)(man->end - man->start),
                                          "(built in) tables.tsv", err)
                         : vkrr_fail(err, VKRR_ERR_INTERNAL, NULL, 0, -1, "no built-in tables.tsv");
    for (int i = 0; st == VKRR_OK && i < VKRR_HWT_COUNT; i++)
        if (!t->blob[i])
            st = vkrr_fail(err, VKRR_ERR_INTERNAL, NULL, 0, -1, "no built-in %s.xz", table_names[i]);
    if (st != VKRR_OK) {
        vkrr_hw_tables_close(t);
        return st;
    }
    *out = t;
    return VKRR_OK;
}

static vkrr_status read_small_file(const char *path, char **text, size_t *len, vkrr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return vkrr_fail(err, errno == ENOENT ? VKRR_ERR_MISSING : VKRR_ERR_IO, path, 0, -1, "%s",
                         strerror(errno));
    char *buf = malloc(1 << 16);
    size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    bool big = buf && n == (1 << 16) - 1 && fgetc(f) != EOF;
    fclose(f);
    if (!buf)
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "reading the manifest");
    if (big) {
        free(buf);
        return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, -1, "a manifest is under 64 KiB");
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return VKRR_OK;
}

vkrr_status vkrr_hw_tables_open_dir(const char *dir, vkrr_hw_tables **out, vkrr_error *err)
{
    *out = NULL;
    vkrr_hw_tables *t = tables_new();
    if (!t)
        return vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "hardware tables");
    snprintf(t->dir, sizeof t->dir, "%s", dir);
    snprintf(t->origin, sizeof t->origin, "%s", dir);
    char path[1200], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/tables.tsv", dir);
    vkrr_status st = read_small_file(path, &text, &len, err);
    if (st == VKRR_OK)
        st = parse_manifest(t, text, len, path, err);
    free(text);
    for (int i = 0; st == VKRR_OK && i < VKRR_HWT_COUNT; i++) {
        snprintf(path, sizeof path, "%s/%s.xz", dir, table_names[i]);
        if (access(path, R_OK) != 0)
            st = vkrr_fail(err, VKRR_ERR_MISSING, path, 0, -1, "listed in tables.tsv but %s",
                           strerror(errno));
    }
    if (st != VKRR_OK) {
        vkrr_hw_tables_close(t);
        return st;
    }
    *out = t;
    return VKRR_OK;
}

void vkrr_hw_tables_close(vkrr_hw_tables *t)
{
    if (!t)
        return;
    for (int i = 0; i < VKRR_HWT_COUNT; i++) {
        const void *m = atomic_load(&t->map[i]);
        if (m && m != (const void *)empty_table)
            munmap((void *)m, t->bytes[i]);
        const uint8_t *p = atomic_load(&t->delta2[i]);
        if (p)
            munmap((void *)p, (t->bytes[i] + 3) / 4);
    }
    pthread_mutex_destroy(&t->lock);
    free(t);
}

const char *vkrr_hw_tables_arch(const vkrr_hw_tables *t) { return t->arch; }
const char *vkrr_hw_tables_device(const vkrr_hw_tables *t) { return t->device; }
const char *vkrr_hw_tables_origin(const vkrr_hw_tables *t) { return t->origin; }

uint64_t vkrr_hw_tables_hash(const vkrr_hw_tables *t, vkrr_hw_table_id id)
{
    return (unsigned)id < VKRR_HWT_COUNT ? t->hash[id] : 0;
}

uint64_t vkrr_hw_tables_set_hash(const vkrr_hw_tables *t) { return t->set_hash; }

uint64_t vkrr_hw_tables_cut(const vkrr_hw_tables *t, vkrr_hw_table_id id)
{
    return (unsigned)id < VKRR_HWT_COUNT ? t->cut[id] : 0;
}

bool vkrr_hw_tables_deviation(const vkrr_hw_tables *t, unsigned form, uint32_t in, uint32_t *out)
{
    for (unsigned i = 0; !t->dev_off && i < t->ndev; i++)
        if (t->dev[i].in == in && t->dev[i].form == form) {
            *out = t->dev[i].out;
            return true;
        }
    return false;
}

unsigned vkrr_hw_tables_deviations(const vkrr_hw_tables *t, const vkrr_hw_deviation **list)
{
    if (list)
        *list = t->dev;
    return t->ndev;
}

bool vkrr_hw_tables_form_deviates(const vkrr_hw_tables *t, unsigned form)
{
    for (unsigned i = 0; !t->dev_off && i < t->ndev; i++)
        if (t->dev[i].form == form)
            return true;
    return false;
}

void vkrr_hw_tables_ignore_deviations(vkrr_hw_tables *t) { t->dev_off = true; }

unsigned vkrr_hw_tables_tex_bits(const vkrr_hw_tables *t) { return t->tex_bits ? t->tex_bits : 8; }

void vkrr_hw_tables_print_cuts(const vkrr_hw_tables *t, FILE *f, const char *indent)
{
    if (t->tex_bits && t->tex_bits != 8)
        fprintf(f, "%stexture filter: bilinear weights with %u fraction bits (sm_90's: 8)\n", indent,
                t->tex_bits);
    if (t->ndev)
        fprintf(f, "%s%u deviate lines: a simulated GPU whose values break a law at those inputs "
                   "(no GPU's measurement writes them; src/hw/README.md)\n", indent, t->ndev);
    for (int i = 0; i < VKRR_HWT_COUNT; i++)
        if (t->cut[i])
            fprintf(f, "%s%s: %llu entries cut at +-127 ULP, the GPU's value not kept: a stand-in "
                       "there (compared within the PTX ISA's bound) until `vkrr hw measure` on a "
                       "GPU of architecture %s fills them\n",
                    indent, table_names[i], (unsigned long long)t->cut[i], t->arch);
}

size_t vkrr_hw_tables_size(const vkrr_hw_tables *t, vkrr_hw_table_id id)
{
    return (unsigned)id < VKRR_HWT_COUNT ? t->bytes[id] : 0;
}

void vkrr_hw_tables_manifest_line(vkrr_hw_table_id id, const void *data, size_t bytes, char *line,
                                  size_t cap)
{
    snprintf(line, cap, "table\t%s\t%zu\t%016" PRIx64 "\n", vkrr_hw_table_name(id), bytes,
             vkrr_fnv1a64w_update(VKRR_FNV1A64_INIT, data, bytes));
}

/* ---- decompression -------------------------------------------------------- */

/* Where decompressed bytes go: a file (fd >= 0) or memory (mem). */
typedef struct sink {
    int fd;
    uint8_t *mem;
    size_t at, cap;
    uint64_t hash;
} sink;

static bool sink_put(sink *s, const uint8_t *p, size_t n)
{
    if (s->at + n > s->cap)
        return false;
    s->hash = vkrr_fnv1a64w_update(s->hash, p, n);
    if (s->mem) {
        memcpy(s->mem + s->at, p, n);
    } else {
        for (size_t k = 0; k < n;) {
            ssize_t w = write(s->fd, p + k, n - k);
            if (w <= 0)
                return false;
            k += (size_t)w;
        }
    }
    s->at += n;
    return true;
}

/* Decompresses table id into s, checking its size and hash. */
static vkrr_status decompress(vkrr_hw_tables *t, int id, sink *s, vkrr_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s%s%s.xz", t->dir, t->dir[0] ? "/" : "(built in) ", table_names[id]);
    FILE *in = NULL;
    if (t->dir[0] && !(in = fopen(path, "rb")))
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "%s", strerror(errno));
    lzma_stream z = LZMA_STREAM_INIT;
    vkrr_status st = VKRR_OK;
    uint8_t *ibuf = malloc(1 << 16), *obuf = malloc(1 << 20);
    if (!ibuf || !obuf || lzma_stream_decoder(&z, UINT64_MAX, 0) != LZMA_OK) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "xz decoder");
        goto done;
    }
    if (!in) {
        z.next_in = t->blob[id];
        z.avail_in = t->blob_size[id];
    }
    for (;;) {
        if (in && z.avail_in == 0 && !feof(in)) {
            z.next_in = ibuf;
            z.avail_in = fread(ibuf, 1, 1 << 16, in);
            if (ferror(in)) {
                st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "read error");
                goto done;
            }
        }
        /* FINISH once every input byte has been handed over */
        lzma_action act = !in || feof(in) ? LZMA_FINISH : LZMA_RUN;
        if (z.avail_out == 0 || !z.next_out) {
            z.next_out = obuf;
            z.avail_out = 1 << 20;
        }
        lzma_ret r = lzma_code(&z, act);
        /* whole 1 MiB blocks (the hash takes 8-byte words), the rest at the end */
        size_t got = (size_t)(z.next_out - obuf);
        if ((z.avail_out == 0 || r == LZMA_STREAM_END) && got && !sink_put(s, obuf, got)) {
            st = s->at + got > s->cap
                     ? vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1,
                                 "decompresses to more than the %zu bytes tables.tsv says", s->cap)
                     : vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "writing the decompressed copy: %s",
                                 strerror(errno));
            goto done;
        }
        if (r == LZMA_STREAM_END)
            break;
        if (r != LZMA_OK) {
            st = vkrr_fail(err, VKRR_ERR_PARSE, path, 0, -1, "%s (liblzma error %d)",
                           r == LZMA_BUF_ERROR ? "the xz stream is cut short" : "not a valid xz stream",
                           (int)r);
            goto done;
        }
    }
    if (s->at != s->cap)
        st = vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1, "decompresses to %zu bytes, tables.tsv says %zu",
                       s->at, s->cap);
    else if (s->hash != t->hash[id])
        st = vkrr_fail(err, VKRR_ERR_CHANGED, path, 0, -1,
                       "decompresses to bytes whose hash %016" PRIx64 " is not tables.tsv's %016" PRIx64,
                       s->hash, t->hash[id]);
done:
    lzma_end(&z);
    free(ibuf);
    free(obuf);
    if (in)
        fclose(in);
    return st;
}

/* ---- the cache ------------------------------------------------------------- */

/* The cache folder of this set, created; false when there is none. */
static bool cache_dir(const vkrr_hw_tables *t, char *out, size_t cap)
{
    char sub[128];
    snprintf(sub, sizeof sub, "hw/%s-%016" PRIx64, t->arch, t->set_hash);
    return vkrr_cache_path(out, cap, sub) && vkrr_mkdirs(out, NULL) == VKRR_OK;
}

/* A mapping of the cached copy at path when it is whole and unchanged. */
static const void *map_cached(const vkrr_hw_tables *t, int id, const char *path, bool *damaged)
{
    *damaged = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat sb;
    const void *m = NULL;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (size_t)sb.st_size == t->bytes[id]) {
        uint8_t *buf = malloc(1 << 20);
        uint64_t h = VKRR_FNV1A64_INIT;
        size_t at = 0;
        while (buf && at < t->bytes[id]) {
            ssize_t r = pread(fd, buf, 1 << 20, (off_t)at);
            if (r <= 0)
                break;
            h = vkrr_fnv1a64w_update(h, buf, (size_t)r);
            at += (size_t)r;
        }
        free(buf);
        if (at == t->bytes[id] && h == t->hash[id]) {
            void *p = mmap(NULL, t->bytes[id], PROT_READ, MAP_SHARED, fd, 0);
            m = p == MAP_FAILED ? NULL : p;
        }
    }
    *damaged = m == NULL;
    close(fd);
    return m;
}

/* Decompresses into a fresh cache file and maps it; NULL with err on a bad
 * table, NULL without err when the cache cannot be written. */
static const void *build_cached(vkrr_hw_tables *t, int id, const char *path, vkrr_error *err,
                                bool *bad)
{
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    *bad = false;
    if (fd < 0)
        return NULL;
    sink s = {.fd = fd, .cap = t->bytes[id], .hash = VKRR_FNV1A64_INIT};
    vkrr_status st = decompress(t, id, &s, err);
    void *p = MAP_FAILED;
    if (st == VKRR_OK && fchmod(fd, 0644) == 0 && rename(tmp, path) == 0)
        p = mmap(NULL, t->bytes[id], PROT_READ, MAP_SHARED, fd, 0);
    else
        unlink(tmp);
    close(fd);
    *bad = st != VKRR_OK && st != VKRR_ERR_IO;
    return p == MAP_FAILED ? NULL : p;
}

static const void *build_in_memory(vkrr_hw_tables *t, int id, vkrr_error *err)
{
    void *p = mmap(NULL, t->bytes[id], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "%zu bytes for %s", t->bytes[id], table_names[id]);
        return NULL;
    }
    sink s = {.fd = -1, .mem = p, .cap = t->bytes[id], .hash = VKRR_FNV1A64_INIT};
    if (decompress(t, id, &s, err) != VKRR_OK) {
        munmap(p, t->bytes[id]);
        return NULL;
    }
    mprotect(p, t->bytes[id], PROT_READ);
    return p;
}

static const void *load(vkrr_hw_tables *t, int id, vkrr_error *err)
{
    char dir[1024], path[1100];
    if (t->bytes[id] == 0) { /* nothing to map: the file must decompress to nothing */
        sink s = {.fd = -1, .mem = (uint8_t *)empty_table, .hash = VKRR_FNV1A64_INIT};
        return decompress(t, id, &s, err) == VKRR_OK ? empty_table : NULL;
    }
    if (cache_dir(t, dir, sizeof dir)) {
        snprintf(path, sizeof path, "%s/%s", dir, table_names[id]);
        bool damaged, bad;
        const void *m = map_cached(t, id, path, &damaged);
        if (m)
            return m;
        if (damaged)
            vkrr_warn("%s: a cached hardware table was damaged; rebuilt from %s", path, t->origin);
        m = build_cached(t, id, path, err, &bad);
        if (m || bad)
            return m;
    }
    return build_in_memory(t, id, err);
}

/* vkrr_hw_tables_get's first use of table id: loaded under the lock.  A
 * function of its own, so that the look-up every approximate instruction
 * makes does not set up this one's frame (its error record). */
static __attribute__((noinline)) const void *get_first(vkrr_hw_tables *t, vkrr_hw_table_id id)
{
    pthread_mutex_lock(&t->lock);
    const void *m = atomic_load_explicit(&t->map[id], memory_order_relaxed);
    if (!m && !t->failed[id]) {
        vkrr_error e = {0};
        m = load(t, id, &e);
        if (m) {
            atomic_store_explicit(&t->map[id], m, memory_order_release);
        } else {
            t->failed[id] = true;
            if (!t->has_err) {
                t->err = e;
                t->has_err = true;
            }
        }
    }
    pthread_mutex_unlock(&t->lock);
    return m;
}

const void *vkrr_hw_tables_get(vkrr_hw_tables *t, vkrr_hw_table_id id, size_t *bytes)
{
    if ((unsigned)id >= VKRR_HWT_COUNT)
        return NULL;
    const void *m = atomic_load_explicit(&t->map[id], memory_order_acquire);
    if (!m)
        m = get_first(t, id);
    if (bytes)
        *bytes = m ? t->bytes[id] : 0;
    return m;
}

const uint8_t *vkrr_hw_tables_delta2(vkrr_hw_tables *t, vkrr_hw_table_id id)
{
    if ((unsigned)id >= VKRR_HWT_COUNT)
        return NULL;
    const uint8_t *p = atomic_load_explicit(&t->delta2[id], memory_order_acquire);
    size_t n = 0;
    const int8_t *d = p ? NULL : vkrr_hw_tables_get(t, id, &n);
    if (p || !d || n == 0 || n % (UINT32_C(1) << 23) != 0) /* vkrr_hw_delta2_pos maps [0, n) to itself */
        return p;
    pthread_mutex_lock(&t->lock);
    p = atomic_load_explicit(&t->delta2[id], memory_order_relaxed);
    uint8_t *q = p ? MAP_FAILED : mmap(NULL, (n + 3) / 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
        madvise(q, (n + 3) / 4, MADV_HUGEPAGE);
#endif
        for (size_t j = 0; j < n; j++) { /* fresh pages are zeros */
            uint32_t pos = vkrr_hw_delta2_pos((uint32_t)j);
            q[pos / 4] |= (uint8_t)((d[j] >= -1 && d[j] <= 1 ? (unsigned)(d[j] + 1) : 3u) << (2 * (pos % 4)));
        }
        mprotect(q, (n + 3) / 4, PROT_READ);
        p = q;
        atomic_store_explicit(&t->delta2[id], p, memory_order_release);
    }
    pthread_mutex_unlock(&t->lock);
    return p;
}

bool vkrr_hw_tables_error(vkrr_hw_tables *t, vkrr_error *err)
{
    pthread_mutex_lock(&t->lock);
    bool has = t->has_err;
    if (has && err)
        *err = t->err;
    pthread_mutex_unlock(&t->lock);
    return has;
}
