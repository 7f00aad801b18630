/* test_lsan: in the sanitizer build, a leak in vkrr's own code is reported
 * while the Vulkan driver is loaded, and the driver's own memory is not;
 * every runtime's report ends in VKRR_SANITIZER_EXIT, and testutil tells it
 * from a vkrr exit code.
 *
 * The test runs itself as a child, in the environment ctest gives every test
 * (tests/CMakeLists.txt: exit code, leak checking, tests/lsan.supp), so it
 * fails when that environment hides vkrr's leaks (detect_leaks=0, a
 * suppression that names vkrr's frames or realloc) and when the driver's
 * blocks are reported (vkload.c no longer keeping the driver loaded):
 *   --child clean   Vulkan up and down as `vkrr validate` does: no report, exit 0
 *   --child leak    the same, then one block of LEAK_BYTES leaked from
 *                   leak_on_purpose(): exactly that block is reported
 *   --child ubsan   a signed overflow: UBSan's report, VKRR_SANITIZER_EXIT
 *   --child asan    a heap overflow: ASan's report, VKRR_SANITIZER_EXIT
 * In a build without the sanitizers it says it skipped (exit 77, ctest SKIP).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend_vk.h"
#include "testutil.h"

#define LEAK_BYTES 4099

/* The pointer is kept only masked, where LeakSanitizer cannot see it, so the
 * compiler keeps the allocation and the block is unreachable. */
static volatile uintptr_t leak_sink;

/* realloc, as the lavapipe block that LeakSanitizer used to report: a
 * suppression of realloc's frame would hide this one too. */
static __attribute__((noinline)) void leak_on_purpose(void)
{
    char *p = malloc(16);
    char *q = p ? realloc(p, LEAK_BYTES) : NULL;
    if (!q) {
        free(p);
        return;
    }
    memset(q, 0x5a, LEAK_BYTES);
    leak_sink = (uintptr_t)q ^ (uintptr_t)0xa5a5a5a5a5a5a5a5ull;
}

/* Overwrites the dead stack frames, so that no stale copy of the pointer
 * keeps the block reachable when the leak check scans the stack at exit. */
static __attribute__((noinline)) void clobber_stack(void)
{
    volatile char buf[64 * 1024];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

static __attribute__((noinline)) int add_one(int x)
{
    return x + 1;
}

static int child(const char *mode)
{
    if (!strcmp(mode, "ubsan")) {
        volatile int big = INT_MAX;
        return add_one(big) < 0 ? 0 : 1;
    }
    if (!strcmp(mode, "asan")) {
        volatile size_t eight = 8; /* a size the compiler cannot see: ASan's check, not UBSan's */
        volatile char *p = malloc(eight);
        int c = p ? p[eight] : 0;
        free((void *)p);
        return c == 0x7f ? 1 : 0;
    }
    vkrr_backend be;
    vkrr_error err = {0};
    if (vkrr_vk_backend_create(&be, &(vkrr_vk_desc){0}, &err) != VKRR_OK) {
        fprintf(stderr, "test_lsan child: no Vulkan device: %s\n", err.msg);
        return 3;
    }
    be.destroy(be.self);
    if (!strcmp(mode, "leak")) {
        leak_on_purpose();
        clobber_stack();
    }
    return 0;
}

static void run_child(const char *self, const char *mode, int *rc, char **err)
{
    char args[64];
    snprintf(args, sizeof args, "--child %s", mode);
    *rc = test_run(self, args, NULL, err);
    printf("child %s: exit %d\n", mode, *rc);
}

static void show(const char *mode, const char *err)
{
    fprintf(stderr, "    --- stderr of --child %s\n%s\n", mode, err ? err : "(none)");
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return child(argv[2]);
    if (!test_sanitized()) {
        printf("test_lsan: skipped: not a sanitizer build (LeakSanitizer runs with -DVKRR_SANITIZE=ON)\n");
        return 77;
    }
    if (!getenv("VKRR_SANITIZER_EXIT")) {
        fprintf(stderr, "test_lsan: run it through ctest: it checks the sanitizer environment "
                        "tests/CMakeLists.txt gives every test\n");
        return 1;
    }
    int rc;
    char *err = NULL, want[128];

    /* The driver's memory: nothing reported. */
    run_child(argv[0], "clean", &rc, &err);
    CHECK_EQ_U64(rc, 0);
    if (!CHECK(!test_sanitizer_report(rc, err)))
        show("clean", err);
    free(err);

    /* vkrr's memory: reported, from its allocation frame, and nothing else. */
    run_child(argv[0], "leak", &rc, &err);
    CHECK_EQ_U64(rc, VKRR_SANITIZER_EXIT);
    CHECK(test_sanitizer_report(rc, err));
    bool named = true;
    named &= CHECK(err && strstr(err, "ERROR: LeakSanitizer: detected memory leaks"));
    snprintf(want, sizeof want, "Direct leak of %d byte(s) in 1 object(s) allocated from:", LEAK_BYTES);
    named &= CHECK(err && strstr(err, want));
    named &= CHECK(err && strstr(err, " in leak_on_purpose ") && strstr(err, "test_lsan.c:"));
    snprintf(want, sizeof want, "SUMMARY: AddressSanitizer: %d byte(s) leaked in 1 allocation(s).",
             LEAK_BYTES);
    named &= CHECK(err && strstr(err, want));
    if (!named)
        show("leak", err);
    free(err);

    /* The other runtimes end in the same code. */
    run_child(argv[0], "ubsan", &rc, &err);
    CHECK_EQ_U64(rc, VKRR_SANITIZER_EXIT);
    CHECK(test_sanitizer_report(rc, err));
    if (!CHECK(err && strstr(err, "runtime error: signed integer overflow")))
        show("ubsan", err);
    free(err);
    run_child(argv[0], "asan", &rc, &err);
    CHECK_EQ_U64(rc, VKRR_SANITIZER_EXIT);
    if (!CHECK(err && strstr(err, "ERROR: AddressSanitizer: heap-buffer-overflow")))
        show("asan", err);
    free(err);

    /* testutil reads a report without the exit code too (a test run by hand). */
    CHECK(test_sanitizer_report(1, "==7==ERROR: LeakSanitizer: detected memory leaks\n"));
    CHECK(test_sanitizer_report(1, "x.c:3:5: runtime error: load of null pointer\n"));
    CHECK(!test_sanitizer_report(1, "vkrr: error: cap/manifest.tsv:3: bad field\n"));
    CHECK(!test_sanitizer_report(0, NULL));
    return test_finish("lsan");
}
