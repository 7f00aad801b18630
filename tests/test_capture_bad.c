/* test_capture_bad - every malformed capture is one error naming the file
 * (and the line or argument offset), with exit code 2, through the library
 * and through `vkrr info`; and CAPDIR is never changed by reading it.  Opened
 * keeping damaged launches, the same problem is recorded against the launch
 * (or the capture) instead, unless nothing could be read at all. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "capture_write.h"
#include "testutil.h"

#define KA "cuda_dldn_engine_swin_enc0_kernel"
#define RDIR "replay/replay-000998-" KA
#define MAN RDIR "/manifest.txt"
#define TEXDUMP "dump/launch-998-" KA "-arg016-texture-5x3x4-fmt1.bin"
#define BUFDUMP "dump/launch-998-" KA "-arg000-buffer-base0x7f0000000000+0x0-fmt-1.bin"

static char *root;
static char good[4096];

/* One launch: two allocations (37 and 100 bytes), a texture, a surface. */
static void write_good(void)
{
    snprintf(good, sizeof good, "%s/good", root);
    uint8_t args[44] = {0}, pre0[37], pre1[100], tex[60], surf[56];
    memset(pre0, 1, sizeof pre0);
    memset(pre1, 2, sizeof pre1);
    memset(tex, 3, sizeof tex);
    memset(surf, 4, sizeof surf);
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = good, .log_prefix = "[d4r nvcuda] ",
                                                    .first_sequence = 998},
                           &err) == VKRR_OK);
    uint64_t ta = vkrr_writer_array_create(w, 5, 3, 1, 4);
    uint64_t sa = vkrr_writer_array_create(w, 7, 2, 32, 1);
    uint64_t th = vkrr_writer_texture_create(w, ta, &(vkrr_sampler){.filter = 1}, 0);
    uint64_t sh = vkrr_writer_surface_create(w, sa, 0);
    uint64_t words[5] = {0x7f0000000000ull, 0x7f0000100000ull + 16, th, 7, sh};
    memcpy(args, words, sizeof words);
    vkrr_alloc_record ar[2] = {{0x7f0000000000ull, 37, pre0, pre0},
                               {0x7f0000100000ull, 100, pre1, pre1}};
    vkrr_pointer_record pr[2] = {{0, 0, 0}, {8, 1, 16}};
    vkrr_image_record ir[2] = {{.offset = 16, .kind = VKRR_IMAGE_TEXTURE, .handle = th, .width = 5,
                                .height = 3, .channels = 4, .format = 1, .post = tex},
                               {.offset = 32, .kind = VKRR_IMAGE_SURFACE, .handle = sh, .width = 7,
                                .height = 2, .channels = 1, .format = 32, .post = surf}};
    CHECK(vkrr_writer_launch(w, &(vkrr_launch_record){.kernel = KA, .grid = {3, 2, 1},
                                                      .block = {32, 4, 1}, .shared_bytes = 64,
                                                      .args = args, .args_bytes = 44,
                                                      .allocs = ar, .nallocs = 2,
                                                      .pointers = pr, .npointers = 2,
                                                      .images = ir, .nimages = 2},
                             NULL, &err) == VKRR_OK);
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
    vkrr_capture *cap = NULL;
    CHECK(vkrr_capture_open(&cap, good, &err) == VKRR_OK);
    vkrr_capture_close(cap);
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        fprintf(stderr, "command failed: %s\n", cmd);
}

/* Replaces 1-based line k of a text file (NULL text: deletes it; k past the
 * end: appends). */
static void set_line(const char *path, int k, const char *text)
{
    size_t n = 0;
    char *s = test_read_file(path, &n);
    FILE *f = fopen(path, "wb");
    int ln = 1;
    const char *p = s;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (ln == k) {
            if (text)
                fprintf(f, "%s\n", text);
        } else {
            fwrite(p, 1, len, f);
        }
        p += len;
        ln++;
    }
    if (k >= ln && text)
        fprintf(f, "%s\n", text);
    fclose(f);
    free(s);
}

static int count_lines(const char *path)
{
    char *s = test_read_file(path, NULL);
    int n = 0;
    for (char *p = s; p && *p; p++)
        n += *p == '\n';
    free(s);
    return n;
}

/* A listing of every file with its size and checksum, to see that reading
 * changed nothing. */
static char *snapshot(const char *dir)
{
    char cmd[4200], tmp[] = "/tmp/vkrr-snap.XXXXXX";
    int fd = mkstemp(tmp);
    close(fd);
    snprintf(cmd, sizeof cmd,
             "cd '%s' 2>/dev/null && find . -printf '%%p %%s %%T@ %%m\\n' | sort >%s && "
             "find . -type f -exec md5sum {} + | sort >>%s",
             dir, tmp, tmp);
    char *s = system(cmd) == 0 ? test_read_file(tmp, NULL) : NULL;
    unlink(tmp);
    return s;
}

static char *fresh(const char *name)
{
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    sh("rm -rf '%s' && cp -a '%s' '%s'", dir, good, dir);
    return dir;
}

/* Opens dir; expects `status`, an error file ending in `file`, and the given
 * line (> 0) or offset (>= 0) when asked; then the same through vkrr info. */
static void expect(const char *dir, vkrr_status status, const char *file, long line, long offset)
{
    char *before = snapshot(dir);
    vkrr_capture *cap = NULL;
    vkrr_error err = {0};
    FILE *quiet = fopen("/dev/null", "w");
    vkrr_warn_set_stream(quiet);
    vkrr_status st = vkrr_capture_open(&cap, dir, &err);
    vkrr_warn_set_stream(stderr);
    fclose(quiet);
    char msg[1400];
    vkrr_error_format(&err, msg, sizeof msg);
    if (!test_check(st == status && !cap, __FILE__, __LINE__, "status"))
        fprintf(stderr, "    %s: got %s, want %s: %s\n", dir, vkrr_status_name(st),
                vkrr_status_name(status), msg);
    CHECK_EQ_U64(vkrr_status_exit_code(st), 2);
    size_t fl = strlen(file), el = strlen(err.file);
    if (!test_check(el >= fl && !strcmp(err.file + el - fl, file), __FILE__, __LINE__, "file"))
        fprintf(stderr, "    error names '%s', want '...%s' (%s)\n", err.file, file, msg);
    if (line > 0 && !test_check(err.line == line, __FILE__, __LINE__, "line"))
        fprintf(stderr, "    line %ld, want %ld (%s)\n", err.line, line, msg);
    if (offset >= 0 && !test_check(err.offset == offset, __FILE__, __LINE__, "offset"))
        fprintf(stderr, "    offset %ld, want %ld (%s)\n", err.offset, offset, msg);
    vkrr_capture_close(cap);

    /* Keeping damaged launches: the open fails only when nothing could be
     * read; otherwise the same problem is recorded against the launch (or,
     * when no launch owns it, the capture) and the capture is there. */
    cap = NULL;
    vkrr_error kerr = {0};
    quiet = fopen("/dev/null", "w");
    vkrr_warn_set_stream(quiet);
    st = vkrr_capture_open_ex(&cap, dir, VKRR_CAPTURE_KEEP_DAMAGED, &kerr);
    vkrr_warn_set_stream(stderr);
    fclose(quiet);
    if (st != VKRR_OK) {
        CHECK_EQ_U64(st, status);
        CHECK(!cap);
    } else {
        const vkrr_error *d = &cap->first_damage;
        size_t dl = strlen(d->file);
        CHECK_EQ_U64(d->status, status);
        CHECK(dl >= fl && !strcmp(d->file + dl - fl, file));
        CHECK(line <= 0 || d->line == line);
        CHECK(offset < 0 || d->offset == offset);
        /* the one launch is damaged, or the problem is the capture's */
        if (!test_check(cap->ndamaged == 1 || cap->ndamage >= 1, __FILE__, __LINE__, "recorded"))
            fprintf(stderr, "    %s: %u damaged launches, %u capture problems\n", dir,
                    cap->ndamaged, cap->ndamage);
        if (cap->ndamaged)
            CHECK(cap->nlaunches == 1 && cap->launches[0].damage != VKRR_DAMAGE_NONE &&
                  cap->launches[0].damage_error);
    }
    vkrr_capture_close(cap);

    char args[4200], *errs = NULL;
    snprintf(args, sizeof args, "info --json '%s'", dir);
    CHECK_EQ_U64(test_run_vkrr(args, NULL, &errs), 2);
    if (!test_check(errs && strstr(errs, file) && strstr(errs, "vkrr: error: "), __FILE__,
                    __LINE__, "vkrr info names the file"))
        fprintf(stderr, "    stderr: %s\n", errs ? errs : "(none)");
    if (line > 0) {
        char at[600];
        snprintf(at, sizeof at, "%s:%ld:", file, line);
        CHECK(errs && strstr(errs, at));
    }
    free(errs);
    char *after = snapshot(dir);
    if (access(dir, F_OK) != 0) /* the missing-capture case: still missing */
        CHECK(!before && !after);
    else
        CHECK(before && after && !strcmp(before, after));
    free(before);
    free(after);
}

static void bad_manifest(const char *name, int line, const char *text, vkrr_status st,
                         long offset)
{
    char *dir = fresh(name), path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, MAN);
    set_line(path, line, text);
    expect(dir, st, MAN, line, offset);
}

/* Renames the dump matching `glob` to `to`; expects the error to name `to`
 * (or `file` when given). */
static void bad_dump_name(const char *name, const char *glob, const char *to, vkrr_status st,
                          const char *file, long line, long offset)
{
    char *dir = fresh(name);
    sh("cd '%s/dump' && mv %s '%s'", dir, glob, to);
    expect(dir, st, file ? file : to, line, offset);
}

/* Truncates or extends the file at rel to `size` bytes. */
static void bad_size(const char *name, const char *rel, long size, vkrr_status st)
{
    char *dir = fresh(name);
    sh("truncate -s %ld '%s/%s'", size, dir, rel);
    expect(dir, st, rel, -1, -1);
}

static void bad_log_line(const char *name, const char *text, vkrr_status st)
{
    char *dir = fresh(name), path[4300];
    snprintf(path, sizeof path, "%s/run/run.log", dir);
    int n = count_lines(path);
    set_line(path, n + 1, text);
    expect(dir, st, "run/run.log", n + 1, -1);
}

int main(void)
{
    root = test_tmpdir("cap_bad");
    write_good();
    char *d;
    char p[4300];

    /* manifest.txt: the fixed header lines */
    d = fresh("trunc_manifest");
    snprintf(p, sizeof p, "%s/%s", d, MAN);
    test_write_file(p, "kernel " KA "\n", strlen("kernel " KA "\n"));
    expect(d, VKRR_ERR_PARSE, MAN, 2, -1);
    bad_manifest("kernel_line", 1, "kernal " KA, VKRR_ERR_PARSE, -1);
    bad_manifest("grid_text", 2, "launch 3 x 1 32 4 1 64", VKRR_ERR_PARSE, -1);
    bad_manifest("grid_overflow", 2, "launch 3 99999999999999999999999 1 32 4 1 64",
                 VKRR_ERR_RANGE, -1);
    bad_manifest("grid_u32", 2, "launch 4294967296 2 1 32 4 1 64", VKRR_ERR_RANGE, -1);
    bad_manifest("launch_short", 2, "launch 3 2 1 32 4", VKRR_ERR_PARSE, -1);
    bad_manifest("args_big", 3, "args 5000", VKRR_ERR_RANGE, -1);
    bad_manifest("args_neg", 3, "args -4", VKRR_ERR_PARSE, -1);
    /* known kinds, malformed */
    bad_manifest("alloc_nohex", 4, "alloc 0 7f0000000000 37", VKRR_ERR_PARSE, -1);
    bad_manifest("alloc_size_text", 4, "alloc 0 0x7f0000000000 3x7", VKRR_ERR_PARSE, -1);
    bad_manifest("alloc_base_overflow", 4, "alloc 0 0x1ffffffffffffffff 37", VKRR_ERR_RANGE, -1);
    bad_manifest("alloc_fields", 4, "alloc 0 0x7f0000000000", VKRR_ERR_PARSE, -1);
    bad_manifest("alloc_dup", 6, "alloc 0 0x7f0000100000 100", VKRR_ERR_INCONSISTENT, -1);
    bad_manifest("ptr_past_args", 5, "pointer 40 0 0", VKRR_ERR_RANGE, 40);
    bad_manifest("ptr_undeclared", 5, "pointer 0 5 0", VKRR_ERR_INCONSISTENT, 0);
    bad_manifest("ptr_delta", 7, "pointer 8 1 101", VKRR_ERR_RANGE, 8);
    bad_manifest("ptr_text", 5, "pointer 0 zero 0", VKRR_ERR_PARSE, -1);
    bad_manifest("tex_text", 8, "texture sixteen", VKRR_ERR_PARSE, -1);
    bad_manifest("tex_past_args", 8, "texture 4096", VKRR_ERR_RANGE, 4096);
    bad_manifest("word_twice", 9, "surface 16", VKRR_ERR_INCONSISTENT, 16);
    d = fresh("manifest_nul");
    snprintf(p, sizeof p, "%s/%s", d, MAN);
    { /* a NUL byte inside line 10 */
        size_t n = 0;
        char *s = test_read_file(p, &n);
        char *buf = malloc(n + 8);
        memcpy(buf, s, n);
        memcpy(buf + n, "tex\0ure\n", 8);
        test_write_file(p, buf, n + 8);
        free(buf);
        free(s);
    }
    expect(d, VKRR_ERR_PARSE, MAN, 10, -1);
    d = fresh("manifest_cut"); /* cut mid-line: what is left would parse as numbers */
    snprintf(p, sizeof p, "%s/%s", d, MAN);
    {
        int nl = count_lines(p);
        size_t n = 0;
        char *s = test_read_file(p, &n);
        test_write_file(p, s, n - 3);
        free(s);
        expect(d, VKRR_ERR_PARSE, MAN, nl, -1);
    }
    d = fresh("manifest_huge");
    sh("head -c 1100000 /dev/zero | tr '\\0' ' ' >> '%s/%s'", d, MAN);
    expect(d, VKRR_ERR_SIZE, MAN, -1, -1);
    d = fresh("manifest_missing");
    sh("rm '%s/%s'", d, MAN);
    expect(d, VKRR_ERR_MISSING, MAN, -1, -1);
    d = fresh("kernel_mismatch");
    snprintf(p, sizeof p, "%s/%s", d, MAN);
    set_line(p, 1, "kernel other_kernel");
    expect(d, VKRR_ERR_INCONSISTENT, MAN, 1, -1);

    /* args.bin */
    bad_size("args_short", RDIR "/args.bin", 40, VKRR_ERR_SIZE);
    bad_size("args_long", RDIR "/args.bin", 4100, VKRR_ERR_SIZE);
    d = fresh("args_nbytes"); /* args.bin is the file that disagrees */
    snprintf(p, sizeof p, "%s/%s", d, MAN);
    set_line(p, 3, "args 48");
    expect(d, VKRR_ERR_SIZE, RDIR "/args.bin", -1, -1);
    d = fresh("args_word");
    sh("printf '\\001' | dd of='%s/" RDIR "/args.bin' bs=1 seek=9 conv=notrunc status=none", d);
    expect(d, VKRR_ERR_INCONSISTENT, RDIR "/args.bin", -1, 8);

    /* alloc files */
    bad_size("alloc_short", RDIR "/alloc-0.bin", 36, VKRR_ERR_SIZE);
    d = fresh("alloc_missing");
    sh("rm '%s/" RDIR "/alloc-1.bin'", d);
    expect(d, VKRR_ERR_MISSING, RDIR "/alloc-1.bin", -1, -1);

    /* dump/ */
    bad_size("tex_dump_short", TEXDUMP, 59, VKRR_ERR_SIZE);
    bad_dump_name("tex_dump_fmt", "*texture*", "launch-998-" KA "-arg016-texture-5x3x4-fmt7.bin",
                  VKRR_ERR_FORMAT, NULL, -1, -1);
    bad_dump_name("tex_dump_3ch", "*texture*", "launch-998-" KA "-arg016-texture-5x4x3-fmt1.bin",
                  VKRR_ERR_FORMAT, NULL, -1, -1);
    bad_dump_name("tex_dump_wh", "*texture*", "launch-998-" KA "-arg016-texture-3x5x4-fmt1.bin",
                  VKRR_ERR_INCONSISTENT, "run/run.log", 5, -1); /* cuArrayCreate says 5x3 */
    bad_dump_name("dump_overflow", "*texture*",
                  "launch-998-" KA "-arg016-texture-4294967295x4294967295x4-fmt32.bin",
                  VKRR_ERR_RANGE, NULL, -1, -1);
    bad_dump_name("dump_name", "*texture*", "launch-998-" KA "-argXYZ-texture-5x3x4-fmt1.bin",
                  VKRR_ERR_PARSE, NULL, -1, -1);
    bad_dump_name("dump_seq_overflow", "*texture*",
                  "launch-99999999999999999999999-" KA "-arg016-texture-5x3x4-fmt1.bin",
                  VKRR_ERR_RANGE, NULL, -1, -1);
    bad_size("buf_dump_short", BUFDUMP, 38, VKRR_ERR_SIZE);
    bad_dump_name("buf_dump_base", "*base0x7f0000000000*",
                  "launch-998-" KA "-arg000-buffer-base0x7f0000000008+0x0-fmt-1.bin",
                  VKRR_ERR_INCONSISTENT, NULL, -1, -1);
    d = fresh("tex_dump_missing");
    sh("rm '%s/" TEXDUMP "'", d);
    expect(d, VKRR_ERR_MISSING, MAN, -1, 16);
    bad_dump_name("dump_kind", "*surface*", "launch-998-" KA "-arg032-texture-7x2x1-fmt32.bin",
                  VKRR_ERR_INCONSISTENT, NULL, -1, 32);

    /* missing directories */
    d = fresh("no_dump_dir");
    sh("rm -r '%s/dump'", d);
    expect(d, VKRR_ERR_MISSING, "/dump", -1, -1);
    d = fresh("no_replay_dir");
    sh("rm -r '%s/replay'", d);
    expect(d, VKRR_ERR_MISSING, "/replay", -1, -1);
    d = fresh("no_launches");
    sh("rm -r '%s/replay/'*", d);
    expect(d, VKRR_ERR_MISSING, "/replay", -1, -1);
    d = fresh("replay_name");
    sh("mv '%s/" RDIR "' '%s/replay/replay-00x998-" KA "'", d, d);
    expect(d, VKRR_ERR_PARSE, "replay/replay-00x998-" KA, -1, -1);
    d = fresh("replay_seq_overflow");
    sh("mv '%s/" RDIR "' '%s/replay/replay-99999999999999999999-" KA "'", d, d);
    expect(d, VKRR_ERR_RANGE, "replay/replay-99999999999999999999-" KA, -1, -1);
    snprintf(p, sizeof p, "%s/no_such_capture", root);
    expect(p, VKRR_ERR_MISSING, "no_such_capture", -1, -1);

    /* run/run.log */
    bad_log_line("log_filter",
                 "[d4r nvcuda] cuTexObjectCreate resource=0x1 type=0 array=0x2 "
                 "addr=1,1 filter=x flags=0x0 result=0 object=0x5",
                 VKRR_ERR_PARSE);
    bad_log_line("log_filter_range",
                 "cuTexObjectCreate array=0x2 addr=1,1 filter=2 flags=0x0 "
                 "result=0 object=0x5",
                 VKRR_ERR_RANGE);
    bad_log_line("log_addr",
                 "cuTexObjectCreate array=0x2 addr=1 filter=0 flags=0x0 result=0 "
                 "object=0x5",
                 VKRR_ERR_PARSE);
    bad_log_line("log_object", "cuTexObjectCreate array=0x2 addr=1,1 filter=0 flags=0x0 result=0 "
                               "object=0x1ffffffffffffffffff",
                 VKRR_ERR_RANGE);
    bad_log_line("log_no_object", "cuSurfObjectCreate descriptor=0x1 result=0", VKRR_ERR_PARSE);
    bad_log_line("log_array", "cuArrayCreate width=5 height=three format=1 channels=4 result=0 "
                              "array=0x9",
                 VKRR_ERR_PARSE);
    bad_log_line("log_addr4", "cuTexObjectCreate array=0x2 addr=1,1,1,1 filter=0 flags=0x0 result=0 "
                              "object=0x5",
                 VKRR_ERR_PARSE);
    /* CUDA_ARRAY3D_DESCRIPTOR's rules: a cubemap is square, six faces a cube */
    bad_log_line("log_cube_shape", "cuArray3DCreate width=5 height=4 depth=6 format=1 channels=4 "
                                   "flags=0x4 result=0 array=0x9",
                 VKRR_ERR_PARSE);
    bad_log_line("log_cube_faces", "cuArray3DCreate width=4 height=4 depth=7 format=1 channels=4 "
                                   "flags=0x5 result=0 array=0x9",
                 VKRR_ERR_PARSE);
    bad_log_line("log_layers", "cuArray3DCreate width=4 height=4 depth=0 format=1 channels=4 "
                               "flags=0x1 result=0 array=0x9",
                 VKRR_ERR_PARSE);
    bad_log_line("log_3d_no_height", "cuArray3DCreate width=4 height=0 depth=3 format=1 channels=4 "
                                     "flags=0x0 result=0 array=0x9",
                 VKRR_ERR_PARSE);
    bad_log_line("log_3d_rows", "cuArray3DCreate width=4 height=65536 depth=65536 format=1 channels=4 "
                                "flags=0x0 result=0 array=0x9",
                 VKRR_ERR_RANGE);
    bad_log_line("log_launch", "[d4r nvcuda] launch[12a] " KA " grid=(1,1,1)", VKRR_ERR_PARSE);
    bad_log_line("log_launch_overflow", "launch[99999999999999999999] " KA, VKRR_ERR_RANGE);
    bad_log_line("log_module", "cuModuleLoadData image=x result=0 module=zz", VKRR_ERR_PARSE);

    if (!test_failed)
        test_rmtree(root);
    free(root);
    return test_finish("capture_bad");
}
