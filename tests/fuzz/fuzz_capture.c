/* fuzz_capture - libFuzzer target: a whole capture, damaged, through the
 * commands a user runs on it.
 *
 * Once per process a small capture is synthesised (`vkrr synth`, 16x16, one
 * frame, eight launches).  Each input is a short program of edits to a copy
 * of it, one record each:
 *     OP FILE A B LEN PAYLOAD[LEN]
 * OP (mod 6): cut the file to A/255 of its size; append PAYLOAD (an
 * oversized dump, a longer args.bin); overwrite PAYLOAD at A/255 of the way
 * in; delete the file; replace text line A with PAYLOAD; insert PAYLOAD as
 * line A.  FILE picks a file of the capture (manifest.txt, args.bin,
 * alloc-N.bin, dump/ files, run/run.log; not modules/, which only a build
 * with nvcc writes) by index, in path order; B repeats the
 * payload (0..255 times) so an edit can make a file much larger.
 *
 * Then `vkrr info`, `vkrr validate --mode both` (the launches the edits touch;
 * launch 3, the input layer, when the log was edited; every launch when
 * nothing was) and `vkrr rerun --backend cpu` run in this process on the damaged copy.  What must hold:
 * each exits 0, 1 or 2 (never a crash: ASan and UBSan are on; never a hang:
 * libFuzzer's -timeout); an exit of 2 prints a message (an error, or an
 * ERROR row's note) naming a file of the capture; and no command changes a byte of the capture (every file's size
 * and hash are the same after as before).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "hash.h"

#define MAX_FILES 256
#define MAX_EDITS 8

typedef struct file {
    char rel[256];   /* path relative to the capture */
    uint8_t *data;   /* the synthesised bytes */
    size_t size;
    unsigned seq;    /* the launch it belongs to; 0: the whole capture (log, modules) */
} file;

static char root[256], base[300], cap[300], out[300], errpath[300], outpath[300];
static file files[MAX_FILES];
static unsigned nfiles;

static bool read_all(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc(n > 0 ? (size_t)n : 1);
    *size = *data && n >= 0 ? fread(*data, 1, (size_t)n, f) : 0;
    fclose(f);
    return *data && *size == (size_t)n;
}

static void write_all(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size))
        abort();
    fclose(f);
}

static int collect(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (type != FTW_F || nfiles == MAX_FILES)
        return 0;
    file *f = &files[nfiles];
    snprintf(f->rel, sizeof f->rel, "%s", path + strlen(base) + 1);
    if (!strncmp(f->rel, "preview/", 8) || !strncmp(f->rel, "modules/", 8))
        return 0; /* pictures for people, and the PTX/fatbin a build with nvcc adds
                   * (fuzz_ptx has the PTX): left out, the copy is the same in
                   * every build, so an input means the same edits everywhere */
    if (!read_all(path, &f->data, &f->size))
        abort();
    const char *name = strrchr(f->rel, '/') ? strrchr(f->rel, '/') + 1 : f->rel;
    const char *dir = strstr(f->rel, "replay-");
    f->seq = dir ? (unsigned)atoi(dir + 7) : !strncmp(name, "launch-", 7) ? (unsigned)atoi(name + 7) : 0;
    nfiles++;
    return 0;
}

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const file *)a)->rel, ((const file *)b)->rel);
}

static int remove_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void rmtree(const char *dir) { nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

/* The real stderr while a command's goes to errpath: a sanitizer's report
 * from inside the command lands in errpath, and the fuzzer's log would show
 * nothing of it (a CI run once said only "crashed"). */
static int real_stderr = -1;
/* The sanitizers' runtime has it; a build without them (ctest's replay of
 * the regression inputs) has no such symbol, and nothing to report. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
static void on_death(void)
{
    if (real_stderr < 0)
        return;
    int f = open(errpath, O_RDONLY);
    char buf[4096];
    ssize_t n;
    while (f >= 0 && (n = read(f, buf, sizeof buf)) > 0)
        if (write(real_stderr, buf, (size_t)n) != n)
            break;
    if (f >= 0)
        close(f);
}

/* Runs one command in this process, its stdout kept in outpath and its
 * stderr in errpath; the exit code. */
static int run(int argc, char **argv, int (*cmd)(int, char **))
{
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    real_stderr = se;
    int dn = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0644), ef = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(dn, 1);
    dup2(ef, 2);
    int rc = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    real_stderr = -1;
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    close(dn);
    close(ef);
    return rc;
}

/* The capture's identity: every file's path, size and bytes. */
static uint64_t snapshot_h;
static int snap_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)ftw;
    snapshot_h = vkrr_fnv1a64_update(snapshot_h, path, strlen(path) + 1);
    if (type == FTW_F) {
        uint8_t *d;
        size_t n;
        if (!read_all(path, &d, &n))
            abort();
        snapshot_h = vkrr_fnv1a64_update(snapshot_h, &sb->st_size, sizeof sb->st_size);
        snapshot_h = vkrr_fnv1a64_update(snapshot_h, d, n);
        free(d);
    }
    return 0;
}
static uint64_t snapshot(void)
{
    snapshot_h = VKRR_FNV1A64_INIT;
    nftw(cap, snap_one, 16, FTW_PHYS);
    return snapshot_h;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(root, sizeof root, "%s/vkrr-fuzz-capture.XXXXXX", tmp);
    if (!mkdtemp(root))
        abort();
    snprintf(base, sizeof base, "%s/base", root);
    snprintf(cap, sizeof cap, "%s/cap", root);
    snprintf(out, sizeof out, "%s/out", root);
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", root);
    snprintf(outpath, sizeof outpath, "%s/stdout.txt", root);
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", root);
    setenv("XDG_CACHE_HOME", cache, 1); /* the hardware tables' copies */
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(on_death);
    char *synth[] = {"synth", base, "--size", "16x16", "--frames", "1", NULL};
    if (run(6, synth, vkrr_cmd_synth) != 0)
        abort();
    nftw(base, collect, 16, FTW_PHYS);
    if (nfiles < 10)
        abort();
    qsort(files, nfiles, sizeof files[0], by_rel); /* FILE indices independent of readdir order */
    return 0;
}

/* The copy of the base capture at cap, fresh. */
static void fresh_copy(void)
{
    rmtree(cap);
    for (unsigned i = 0; i < nfiles; i++) {
        char p[700];
        if (snprintf(p, sizeof p, "%s/%s", cap, files[i].rel) >= (int)sizeof p)
            abort();
        for (char *s = p + strlen(root) + 1; *s; s++)
            if (*s == '/') {
                *s = 0;
                mkdir(p, 0755);
                *s = '/';
            }
        write_all(p, files[i].data, files[i].size);
    }
}

/* Line `at` (mod the line count) of text replaced by, or preceded by, payload. */
static uint8_t *edit_line(const uint8_t *d, size_t n, unsigned at, bool insert, const uint8_t *pl,
                          size_t pn, size_t *outn)
{
    size_t lines = 1;
    for (size_t i = 0; i < n; i++)
        lines += d[i] == '\n';
    at %= (unsigned)lines;
    size_t s = 0;
    for (unsigned k = 0; k < at; k++) {
        while (s < n && d[s] != '\n')
            s++;
        s += s < n;
    }
    size_t e = s;
    while (e < n && d[e] != '\n')
        e++;
    if (insert)
        e = s;
    uint8_t *r = malloc(n + pn + 2);
    size_t k = 0;
    memcpy(r, d, s);
    k = s;
    memcpy(r + k, pl, pn);
    k += pn;
    if (insert)
        r[k++] = '\n';
    memcpy(r + k, d + e, n - e);
    *outn = k + n - e;
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!nfiles)
        LLVMFuzzerInitialize(NULL, NULL);
    fresh_copy();
    unsigned touched[MAX_EDITS];
    unsigned ntouched = 0;
    bool whole = false;
    size_t at = 0;
    for (unsigned e = 0; e < MAX_EDITS && at + 5 <= size; e++) {
        unsigned op = data[at] % 6, fi = data[at + 1] % nfiles, a = data[at + 2], b = data[at + 3];
        size_t pn = data[at + 4];
        at += 5;
        if (pn > size - at)
            pn = size - at;
        const uint8_t *pl = data + at;
        at += pn;
        char p[700];
        if (snprintf(p, sizeof p, "%s/%s", cap, files[fi].rel) >= (int)sizeof p)
            abort();
        uint8_t *d = NULL, *nd = NULL;
        size_t n = 0, nn = 0;
        if (!read_all(p, &d, &n)) {
            free(d);
            continue; /* deleted by an earlier edit */
        }
        switch (op) {
        case 0: /* cut short */
            write_all(p, d, n * a / 255);
            break;
        case 1: { /* grow: the payload, repeated */
            FILE *f = fopen(p, "ab");
            for (unsigned r = 0; f && r <= b; r++)
                fwrite(pl, 1, pn, f);
            if (f)
                fclose(f);
            break;
        }
        case 2: { /* overwrite in place */
            size_t off = n * a / 255;
            if (off + pn > n)
                pn = n - off;
            memcpy(d + off, pl, pn);
            write_all(p, d, n);
            break;
        }
        case 3:
            unlink(p);
            break;
        default: /* a text line replaced or inserted */
            nd = edit_line(d, n, a, op == 5, pl, pn, &nn);
            write_all(p, nd, nn);
            break;
        }
        free(d);
        free(nd);
        if (files[fi].seq)
            touched[ntouched++] = files[fi].seq;
        else
            whole = true;
    }
    uint64_t before = snapshot();

    char *info[] = {"info", cap, NULL};
    char *validate[8 + 2 * MAX_EDITS] = {"validate", cap, "--mode", "both", "--out", out, "-q"};
    int nv = 7;
    char seqs[MAX_EDITS][16];
    /* the launches an edit touched; the log (read for every launch) is
     * exercised through one, the input layer (textures, samplers, arrays) */
    if (whole || !ntouched) {
        ntouched = 0;
        if (whole)
            touched[ntouched++] = 3;
    }
    for (unsigned i = 0; i < ntouched; i++) {
        snprintf(seqs[i], sizeof seqs[i], "%u", touched[i]);
        validate[nv++] = "--only";
        validate[nv++] = seqs[i];
    }
    validate[nv] = NULL;
    char *rerun[] = {"rerun", cap, "--backend", "cpu", "--out", out, "-q", NULL};
    struct {
        char **argv;
        int argc;
        int (*cmd)(int, char **);
    } runs[] = {{info, 2, vkrr_cmd_info}, {validate, nv, vkrr_cmd_validate}, {rerun, 7, vkrr_cmd_rerun}};
    for (unsigned r = 0; r < 3; r++) {
        int rc = run(runs[r].argc, runs[r].argv, runs[r].cmd);
        uint8_t *msg = NULL, *o = NULL;
        size_t mn = 0, on = 0;
        read_all(errpath, &msg, &mn);
        read_all(outpath, &o, &on);
        /* the error, or the ERROR row's note, names a file of the capture */
        bool names = (msg && memmem(msg, mn, cap, strlen(cap))) || (o && memmem(o, on, cap, strlen(cap)));
        if (rc < 0 || rc > 2 || (rc == 2 && !names)) {
            fprintf(stderr, "fuzz_capture: vkrr %s exited %d; its stdout:\n%.*s\nits stderr:\n%.*s\n",
                    runs[r].argv[0], rc, (int)(on > 4000 ? 4000 : on), o ? (const char *)o : "",
                    (int)(mn > 4000 ? 4000 : mn), msg ? (const char *)msg : "");
            abort();
        }
        free(msg);
        free(o);
        rmtree(out);
    }
    if (snapshot() != before) {
        fprintf(stderr, "fuzz_capture: a command changed the capture\n");
        abort();
    }
    return 0;
}
