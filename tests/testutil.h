/* testutil.h - the few checks vkrr's tests need.
 *
 *     int main(void) {
 *         CHECK(x == 3);
 *         CHECK_EQ_U64(a, b);
 *         return test_finish("capture");   // prints "capture: N passed, M failed"
 *     }
 *
 * A failed check prints file:line and the expression and is counted; the test
 * goes on, and test_finish() returns 1 if anything failed.  Helpers make
 * scratch directories under the build tree (removed by the caller or left for
 * inspection on failure) and run the vkrr binary; a sanitizer report in a
 * run of vkrr fails the test as such (test_run_vkrr).
 *
 * A check that needs what the machine may lack (a tool, a GPU) runs as a
 * ctest test of its own that returns test_skip(): TEST_SKIP, which
 * tests/CMakeLists.txt registers as SKIP_RETURN_CODE, so ctest shows it
 * "Skipped" with the reason, never "Passed".
 */
#ifndef VKRR_TESTUTIL_H
#define VKRR_TESTUTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

extern unsigned test_passed, test_failed;

bool test_check(bool ok, const char *file, int line, const char *expr);
#define CHECK(e) test_check((e) ? true : false, __FILE__, __LINE__, #e)
#define CHECK_EQ_U64(a, b)                                                                    \
    do {                                                                                      \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);        \
        if (!test_check(a_ == b_, __FILE__, __LINE__, #a " == " #b))                          \
            fprintf(stderr, "    %llu != %llu\n", a_, b_);                                    \
    } while (0)
#define CHECK_STR(a, b)                                                                       \
    do {                                                                                      \
        const char *a_ = (a), *b_ = (b);                                                      \
        bool ok_ = a_ && b_ && !strcmp(a_, b_);                                               \
        if (!test_check(ok_, __FILE__, __LINE__, #a " == " #b))                               \
            fprintf(stderr, "    \"%s\" != \"%s\"\n", a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
    } while (0)

int test_finish(const char *name);

/* The exit code of a test that could not run (SKIP_RETURN_CODE in tests/CMakeLists.txt). */
#define TEST_SKIP 77
/* True when TOOL is a command on PATH. */
bool test_have_tool(const char *tool);
/* What main returns when NEED (a tool, "gpu", ...) is missing: prints
 * "SKIPPED: WHY" and returns TEST_SKIP; but where the space-separated list in
 * $VKRR_TEST_REQUIRE names NEED (scripts/test.sh: what scripts/deps.sh
 * installs), prints "FAIL: WHY (required: VKRR_TEST_REQUIRE)" and returns 1. */
int test_skip(const char *need, const char *why);

/* A fresh empty directory under the build tree: NAME.XXXXXX; caller frees. */
char *test_tmpdir(const char *name);
/* rm -rf path (tests only). */
void test_rmtree(const char *path);
/* Runs PROG with the given arguments (a shell-quoted string), stdin from
 * /dev/null, capturing stdout and stderr into malloc'd strings (NULL to
 * discard).  Returns the exit code, -1 when it did not exit (a signal). */
int test_run(const char *prog, const char *args, char **out, char **err);
/* A shell command (printf-formatted, up to 16 KiB): its exit status, -1 when
 * it did not exit. */
int test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The exit code every sanitizer runtime is told to use in the test
 * environment (tests/CMakeLists.txt, VKRR_SANITIZER_EXIT), so that a report
 * is never read as one of vkrr's own codes 0-3. */
#ifndef VKRR_SANITIZER_EXIT
#error "VKRR_SANITIZER_EXIT comes from tests/CMakeLists.txt"
#endif
/* True when a run ended in a sanitizer report: exit VKRR_SANITIZER_EXIT, or
 * a report on stderr (ASan, LSan, UBSan; also when the test runs outside
 * ctest, without the exit code option). */
bool test_sanitizer_report(int rc, const char *err);
/* True in a build with AddressSanitizer (and so LeakSanitizer). */
bool test_sanitized(void);

/* test_run(VKRR_BIN, ...), and a sanitizer report in that run is a failed
 * check of its own: "FILE:LINE: sanitizer report in `vkrr ARGS` (exit N)"
 * and the report, whatever exit code the caller expected.  The caller's own
 * exit-code check then fails too (VKRR_SANITIZER_EXIT is no vkrr code).  The
 * stderr is captured even when err is NULL, to look for a report. */
int test_run_vkrr_at(const char *file, int line, const char *args, char **out, char **err);
#define test_run_vkrr(args, out, err) test_run_vkrr_at(__FILE__, __LINE__, args, out, err)
/* `vkrr ARGS` exits want and its stdout or stderr holds each of has
 * (NULL-terminated): one failed check per miss, at FILE:LINE, and then all
 * it printed.  *out (when out is not NULL) gets its stdout; caller frees. */
bool test_vkrr_says_at(const char *file, int line, const char *args, int want,
                       const char *const *has, char **out);
/* The same for `vkrr validate CAP --ports DIR --heatmaps none --json
 * DIR/out.json`: the port tests' run. */
bool test_validate_ports_at(const char *file, int line, const char *cap, const char *dir, int want,
                            const char *const *has);
#define TEST_VKRR_SAYS(args, want, ...) \
    test_vkrr_says_at(__FILE__, __LINE__, args, want, (const char *const[]){__VA_ARGS__, NULL}, NULL)
/* Reads a whole file; NULL when missing. Caller frees. */
/* A compute shader through a 16x16 cooperative matrix of f16 (NV): Src at
 * 0.0, Dst at 0.1, a push block {uint n; float scale}, local size 64; no
 * device here runs it (test_port_features, test_spirv_strip). */
extern const char test_glsl_coopmat_nv[];
/* Opens the hardware model `name` names and makes it current (hw_model.h):
 * "rounded", vkrr's rounded model, else a capture's architecture ("sm_89":
 * sm_90's measured tables, that architecture's tensor cores).  The model, to
 * close after vkrr_hw_use(NULL); NULL, a failed check, when it does not open. */
typedef struct vkrr_hw_model vkrr_hw_model;
vkrr_hw_model *test_use_hw_model(const char *name);
char *test_read_file(const char *path, size_t *len);
bool test_write_file(const char *path, const void *data, size_t len);

/* Little-endian stores, as captures hold their elements. */
#include <string.h>
static inline void test_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void test_putf32(uint8_t *p, float f) { memcpy(p, &f, 4); } /* little-endian host */

#endif
