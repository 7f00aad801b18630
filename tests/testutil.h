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
 * inspection on failure) and run the vkrr binary.
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

/* A fresh empty directory under the build tree: NAME.XXXXXX; caller frees. */
char *test_tmpdir(const char *name);
/* rm -rf path (tests only). */
void test_rmtree(const char *path);
/* Runs VKRR_BIN with the given arguments (a shell-quoted string), capturing
 * stdout and stderr into malloc'd strings (NULL to discard).  Returns the exit code. */
int test_run_vkrr(const char *args, char **out, char **err);
/* Reads a whole file; NULL when missing. Caller frees. */
char *test_read_file(const char *path, size_t *len);
bool test_write_file(const char *path, const void *data, size_t len);

#endif
