#include "testutil.h"
#include "hw_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

unsigned test_passed, test_failed;

bool test_check(bool ok, const char *file, int line, const char *expr)
{
    if (ok) {
        test_passed++;
        return true;
    }
    test_failed++;
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
    return false;
}

int test_finish(const char *name)
{
    printf("%s: %u passed, %u failed\n", name, test_passed, test_failed);
    if (test_passed == 0 && test_failed == 0) {
        printf("%s: no checks ran\n", name);
        return 1;
    }
    return test_failed ? 1 : 0;
}

bool test_have_tool(const char *tool)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

static bool test_required(const char *need)
{
    const char *req = getenv("VKRR_TEST_REQUIRE");
    size_t n = strlen(need);
    for (const char *p = req; p && *p;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " ");
        if (len == n && !strncmp(p, need, n))
            return true;
        p += len;
    }
    return false;
}

int test_skip(const char *need, const char *why)
{
    if (test_required(need)) {
        printf("FAIL: %s (required: VKRR_TEST_REQUIRE names %s)\n", why, need);
        return 1;
    }
    printf("SKIPPED: %s\n", why);
    return TEST_SKIP;
}

char *test_tmpdir(const char *name)
{
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/%s.XXXXXX", getcwd((char[4096]){0}, 4096), name);
    if (!mkdtemp(p)) {
        perror("mkdtemp");
        exit(1);
    }
    return p;
}

void test_rmtree(const char *path)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", path);
}

char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
    }
    fclose(f);
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

bool test_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

int test_run(const char *prog, const char *args, char **out, char **err)
{
    char tmpl_out[] = "/tmp/vkrr-test-out.XXXXXX", tmpl_err[] = "/tmp/vkrr-test-err.XXXXXX";
    int fo = mkstemp(tmpl_out), fe = mkstemp(tmpl_err);
    if (fo < 0 || fe < 0) {
        perror("mkstemp");
        exit(1);
    }
    close(fo);
    close(fe);
    size_t n = strlen(args) + 2 * sizeof tmpl_out + 64 + strlen(prog);
    char *cmd = malloc(n);
    snprintf(cmd, n, "'%s' %s >%s 2>%s </dev/null", prog, args, tmpl_out, tmpl_err);
    int st = system(cmd);
    free(cmd);
    if (out)
        *out = test_read_file(tmpl_out, NULL);
    if (err)
        *err = test_read_file(tmpl_err, NULL);
    unlink(tmpl_out);
    unlink(tmpl_err);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* What each runtime prints: ASan and LSan an ERROR line, UBSan (which has no
 * ERROR line) "file:line:col: runtime error: ..." and a SUMMARY. */
static const char *const sanitizer_marks[] = {
    "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", ": runtime error: ",
    "SUMMARY: UndefinedBehaviorSanitizer",
};

bool test_sanitizer_report(int rc, const char *err)
{
    if (rc == VKRR_SANITIZER_EXIT)
        return true;
    for (size_t i = 0; err && i < sizeof sanitizer_marks / sizeof *sanitizer_marks; i++)
        if (strstr(err, sanitizer_marks[i]))
            return true;
    return false;
}

bool test_sanitized(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

int test_run_vkrr_at(const char *file, int line, const char *args, char **out, char **err)
{
    char *e = NULL;
    int rc = test_run(VKRR_BIN, args, out, &e);
    if (test_sanitizer_report(rc, e)) {
        test_failed++;
        fprintf(stderr, "%s:%d: sanitizer report in `vkrr %s` (exit %d):\n%s\n", file, line, args,
                rc, e ? e : "(no stderr)");
    }
    if (err)
        *err = e;
    else
        free(e);
    return rc;
}

bool test_vkrr_says_at(const char *file, int line, const char *args, int want,
                       const char *const *has, char **keep)
{
    char *out = NULL, *err = NULL;
    int rc = test_run_vkrr_at(file, line, args, &out, &err);
    bool ok = test_check(rc == want, file, line, "exit code");
    for (; has && *has; has++) {
        bool found = (out && strstr(out, *has)) || (err && strstr(err, *has));
        ok = test_check(found, file, line, *has) && ok;
    }
    if (!ok)
        fprintf(stderr, "--- vkrr %s: exit %d, want %d\n%s%s", args, rc, want, out ? out : "",
                err ? err : "");
    if (keep)
        *keep = out;
    else
        free(out);
    free(err);
    return ok;
}

bool test_validate_ports_at(const char *file, int line, const char *cap, const char *dir, int want,
                            const char *const *has)
{
    char args[9000];
    snprintf(args, sizeof args, "validate '%s' --ports '%s' --heatmaps none --json '%s/out.json'", cap,
             dir, dir);
    return test_vkrr_says_at(file, line, args, want, has, NULL);
}

int test_sh(const char *fmt, ...)
{
    char cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

vkrr_hw_model *test_use_hw_model(const char *name)
{
    vkrr_hw_model *m = NULL;
    vkrr_error err = {0};
    vkrr_hw_choice c = {0};
    if (!strcmp(name, "rounded"))
        c.approx = "rounded";
    else
        c.capture_arch = name;
    if (!CHECK(vkrr_hw_model_open(&c, &m, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return NULL;
    }
    vkrr_hw_use(m);
    return m;
}

const char test_glsl_coopmat_nv[] =
    "#version 460\n"
    "#extension GL_NV_cooperative_matrix : require\n"
    "#extension GL_KHR_memory_scope_semantics : require\n"
    "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };\n"
    "layout(set = 0, binding = 1, std430) buffer Dst { float dst[]; };\n"
    "layout(push_constant, std430) uniform Push { uint n; float scale; } pc;\n"
    "void main()\n{\n"
    "    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> m;\n"
    "    coopMatLoadNV(m, src, 0, 16, false);\n"
    "    m = m * pc.scale;\n"
    "    coopMatStoreNV(m, dst, 0, 16, false);\n"
    "}\n";
