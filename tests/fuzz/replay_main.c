/* replay_main - the driver a fuzz target gets in a build without libFuzzer
 * (gcc, the plain and ASan builds): runs LLVMFuzzerTestOneInput once on each
 * file named, or on each file of each folder named (the seed corpus and the
 * crash regressions, tests/fuzz/crashes/TARGET), so every crash a campaign
 * found stays a test that runs under the sanitizers on every CI run.  A
 * target's own checks abort(); this driver adds none.  Exit 0 when every
 * input ran, 2 on a file it cannot read. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(n > 0 ? (size_t)n : 1); /* exactly the file: an over-read is caught */
    size_t got = d && n >= 0 ? fread(d, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!d || got != (size_t)n) {
        free(d);
        fprintf(stderr, "replay: %s: cannot read\n", path);
        return 2;
    }
    LLVMFuzzerTestOneInput(d, got);
    free(d);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    unsigned ran = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
            return 2;
        }
        if (!S_ISDIR(sb.st_mode)) {
            if (run_file(argv[i]))
                return 2;
            ran++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        char **names = NULL;
        size_t n = 0;
        for (struct dirent *e; d && (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            names = realloc(names, (n + 1) * sizeof *names);
            names[n++] = strdup(e->d_name);
        }
        if (d)
            closedir(d);
        qsort(names, n, sizeof *names, by_name);
        for (size_t k = 0; k < n; k++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], names[k]);
            if (run_file(p))
                return 2;
            ran++;
            free(names[k]);
        }
        free(names);
    }
    printf("replay: %u inputs, no failure\n", ran);
    return 0;
}
