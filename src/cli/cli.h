/* cli.h - the vkrr commands and the small helpers they share.
 *
 * Each command is `int vkrr_cmd_NAME(int argc, char **argv)` with argv[0] the
 * command name; it returns the process exit code (0 pass, 1 mismatch, 2 bad
 * input or usage or a capture validated only in part, 3 no usable device or
 * library, 130 interrupted; from status.h's table) and prints its own errors.
 * main.c holds the one table of commands.
 */
#ifndef VKRR_CLI_H
#define VKRR_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "backends.h"
#include "capture.h"
#include "compare.h"
#include "status.h"

int vkrr_cmd_bench(int argc, char **argv);
int vkrr_cmd_info(int argc, char **argv);
int vkrr_cmd_synth(int argc, char **argv);
int vkrr_cmd_record(int argc, char **argv);
int vkrr_cmd_validate(int argc, char **argv);
int vkrr_cmd_bisect(int argc, char **argv);
int vkrr_cmd_diff(int argc, char **argv);
int vkrr_cmd_port(int argc, char **argv);
int vkrr_cmd_rerun(int argc, char **argv);
int vkrr_cmd_stress(int argc, char **argv);
int vkrr_cmd_merge(int argc, char **argv);
int vkrr_cmd_hw(int argc, char **argv);
int vkrr_cmd_modules(int argc, char **argv);

/* Ctrl-C (and SIGTERM), one flag for every command: vkrr_cli_interrupts
 * catches them into vkrr_cli_interrupted (which it clears) until
 * vkrr_cli_interrupts_done puts back what was there.  restart: system calls
 * go on (a run checks the flag between launches); without it a wait (poll)
 * returns at once.  once: a second Ctrl-C kills at once. */
#include <signal.h>
extern volatile sig_atomic_t vkrr_cli_interrupted;
typedef struct vkrr_cli_signals {
    struct sigaction old_int, old_term;
} vkrr_cli_signals;
void vkrr_cli_interrupts(vkrr_cli_signals *saved, bool restart, bool once);
void vkrr_cli_interrupts_done(const vkrr_cli_signals *saved);

/* `vkrr --version`: version, commit, backends, data folder, rrref's modules,
 * the hardware tables this binary carries (version.c). */
#include <stdio.h>
void vkrr_cli_version(FILE *f);

/* Prints err as "vkrr: error: ..." and returns its exit code. */
int vkrr_cli_fail(const vkrr_error *err);
/* Prints "vkrr CMD: MESSAGE" and a hint to run `vkrr CMD --help`; returns 2. */
int vkrr_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Strict number parsing for flags: the whole string must be a number in range. */
bool vkrr_cli_parse_u64(const char *s, uint64_t max, uint64_t *out);
bool vkrr_cli_parse_double(const char *s, double *out);
/* "WxH" with both in 1..max. */
bool vkrr_cli_parse_size(const char *s, uint32_t max, uint32_t *w, uint32_t *h);
/* True when arg is "--help" or "-h" (before a subcommand; cli_opts.h parses
 * the rest). */
bool vkrr_cli_is_help(const char *arg);

/* The options of the commands that compare outputs with a capture (validate,
 * bisect, rerun): what is compared how, and where the results go.  Zero
 * fields are "not given"; defaults are the command's own. */
typedef struct vkrr_cli_compare {
    const char *out, *json, *heatmaps, *tolerance, *buffer_type, *ports, *report, *junit;
    const char *approx, *hw_tables; /* --approx, --hw-tables (hw_model.h) */
    vkrr_tol_override flags;  /* --atol, --rtol, --max-ulp */
    bool tol_given;           /* any of --tolerance, --atol, --rtol, --max-ulp */
    bool no_hash_check, quiet;
    const char *ptx_engine;   /* --ptx-engine (ptx.h's engines) */
    bool no_cache;            /* --no-cache: the PTX JIT compiles without its cache */
    bool dump_values;         /* --dump-values: a heatmap's table holds every value */
} vkrr_cli_compare;
/* Those options, for cli_opts.h's parser: vkrr_cli_compare_opts (every
 * field but report and junit) and vkrr_cli_report_opts (--report, --junit:
 * not every command's).  Their ids are VKRR_CLI_COMPARE_FIRST and up, so a
 * command's own ids stay below (diff makes its table of some of them).
 * vkrr_cli_compare_take takes option id with
 * its value v into c: 0, or the exit code after printing a usage error that
 * names what the option takes. */
#include "cli_opts.h"
#define VKRR_CLI_COMPARE_FIRST 1000
enum {
    VKRR_CLI_CMP_OUT = VKRR_CLI_COMPARE_FIRST, VKRR_CLI_CMP_JSON, VKRR_CLI_CMP_HEATMAPS,
    VKRR_CLI_CMP_TOLERANCE, VKRR_CLI_CMP_ATOL, VKRR_CLI_CMP_RTOL, VKRR_CLI_CMP_MAX_ULP,
    VKRR_CLI_CMP_BUFFER_TYPE, VKRR_CLI_CMP_PORTS, VKRR_CLI_CMP_REPORT, VKRR_CLI_CMP_JUNIT,
    VKRR_CLI_CMP_APPROX, VKRR_CLI_CMP_HW_TABLES, VKRR_CLI_CMP_PTX_ENGINE,
    VKRR_CLI_CMP_NO_HASH_CHECK, VKRR_CLI_CMP_QUIET, VKRR_CLI_CMP_NO_CACHE,
    VKRR_CLI_CMP_DUMP_VALUES,
};
extern const vkrr_cli_opt vkrr_cli_compare_opts[];
extern const vkrr_cli_opt vkrr_cli_report_opts[];
int vkrr_cli_compare_take(const char *cmd, int id, const char *v, vkrr_cli_compare *c);

/* Where heatmaps go: DIR/heatmaps for --out DIR (out non-NULL; a place where
 * it cannot be made is an error before anything runs), else the default,
 * VKRR_OUT_DEFAULT/NAME-HASH/heatmaps (NAME the capture folder's name, HASH
 * of its absolute path).  Either is made only when the first heatmap is
 * written, so a run with nothing to show makes no folder, and no run leaves
 * one in the current directory.  dir gets the path. */
#define VKRR_OUT_DEFAULT "${XDG_CACHE_HOME:-~/.cache}/vkrr/out"
vkrr_status vkrr_cli_heatmap_dir(const char *out, const char *capdir, char *dir, size_t cap,
                                 vkrr_error *err);
/* "heatmaps: DIR" when this run wrote a heatmap (or a table of values) of
 * one of the n results: never a folder of an earlier run's. */
struct vkrr_launch_result;
void vkrr_cli_print_heatmap_dir(const char *dir, const struct vkrr_launch_result *res, uint32_t n);
/* "wrote N files, SIZE": what this run wrote (its heatmaps and their tables,
 * --json, --junit, --report's folder), once they are written. */
void vkrr_cli_print_written(const vkrr_cli_compare *c, const struct vkrr_launch_result *res,
                            uint32_t n);

/* The help text of --approx and --hw-tables, for the commands that take them. */
extern const char vkrr_cli_hw_help[];
/* The words for the engine the ptx backend runs kernels with, for a run's
 * header: from --ptx-engine (NULL: not given), else VKRR_PTX_ENGINE, else
 * the JIT where this build has it; coverage makes it the interpreter.  A
 * kernel the JIT cannot compile is interpreted anyway, and its row says so. */
const char *vkrr_cli_ptx_engine_words(const char *ptx_engine, bool coverage, char *buf, size_t cap);
/* The help text of --ptx-engine and --no-cache. */
extern const char vkrr_cli_ptx_help[];

/* --modules FILE|DIR, repeatable (cli_modules.c). */
#define VKRR_CLI_MODULES_MAX 16
typedef struct vkrr_cli_modules {
    const char *v[VKRR_CLI_MODULES_MAX];
    uint32_t n;
} vkrr_cli_modules;
/* --modules V (repeatable): 0, or the usage error's exit code when given
 * more than VKRR_CLI_MODULES_MAX times. */
int vkrr_cli_modules_take(const char *cmd, const char *v, vkrr_cli_modules *m);
/* Opens the backend that runs the original kernels (d.name is set to name):
 * ptx from the PTX found (modules.h: m's files and folders, else where the
 * capture's modules are; a "modules:" line on `say` says where, and which
 * target a kernel several PTX define runs from), its set kept in *set until
 * the backend is gone; cpu and cuda as before (cuda: m's first folder, else
 * CAPDIR/modules). */
vkrr_status vkrr_cli_open_reference(const char *name, const vkrr_capture *cap,
                                    const vkrr_cli_modules *m, vkrr_backend_desc d,
                                    vkrr_backend *out, vkrr_module_set *set, FILE *say,
                                    vkrr_error *err);
/* The texture arguments the capture's kernels read only unfiltered
 * (tex_unfiltered.h), from the PTX in set, or when set holds none from
 * where m and the capture say the modules are (found into *set, which the
 * caller frees); NULL when no launch has a texture it is worth asking
 * about, or nothing is proven. */
struct vkrr_tex_unfiltered;
struct vkrr_tex_unfiltered *vkrr_cli_tex_unfiltered(const vkrr_capture *cap, const vkrr_cli_modules *m,
                                                    vkrr_module_set *set);
/* Opens the hardware model for cap as --approx/--hw-tables say
 * (hw_model.h) and makes it the process's current one; the caller calls
 * vkrr_cli_hw_done() when done with it. */
struct vkrr_hw_model;
vkrr_status vkrr_cli_hw_use(const vkrr_cli_compare *c, const vkrr_capture *cap,
                            struct vkrr_hw_model **out, vkrr_error *err);
void vkrr_cli_hw_done(struct vkrr_hw_model *m); /* accepts NULL */

/* Whether validate/rerun should check dumps against the log's hash=: not
 * when asked not to, nor when the hashes are not FNV-1a 64 (then it warns,
 * once, that they are not checked). */
/* How dumps are checked against the log (vkrr_capture_check_integrity),
 * warning once where the capture's evidence is not ours to check; zero when
 * asked off (--no-hash-check). */
vkrr_capture_integrity vkrr_cli_integrity(const vkrr_capture *cap, bool asked_off);

/* Runs run(ctx), then again each time a .comp, .spv, .port or .glsl file in
 * dir is written, moved in or out, or deleted (inotify; a burst of events is
 * one change), until SIGINT or max_runs runs (0: no limit).  Prints
 * "watching DIR ..." before each wait.  Returns the last run's result (2 when
 * dir cannot be watched). */
int vkrr_cli_watch(const char *dir, unsigned max_runs, int (*run)(void *ctx), void *ctx);

/* Launches named on the command line: "KERNEL" (every launch of it),
 * "KERNEL#OCC" (its 0-based occurrence) or a sequence number "SEQ". */
typedef struct vkrr_cli_select {
    char kernel[256];     /* "" for a sequence number */
    int64_t occurrence;   /* -1: every occurrence */
    uint64_t sequence;
} vkrr_cli_select;
bool vkrr_cli_select_parse(const char *s, vkrr_cli_select *out);
bool vkrr_cli_select_matches(const vkrr_cli_select *sel, const vkrr_launch *l);

#endif
