/* vkrr - prove a Vulkan compute port of a CUDA network correct, launch by
 * launch, against captures of the CUDA original.  This file is the one table
 * of commands and the one place a status becomes an exit code. */
#include <stdio.h>
#include <string.h>

#include "bulk.h"
#include "cli.h"
#include "cli_opts.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"info", vkrr_cmd_info, "list a capture's launches, frames, resources and sampler state"},
    {"synth", vkrr_cmd_synth, "make a capture: a procedural scene denoised by rrref on the CPU"},
    {"record", vkrr_cmd_record, "make a capture of one launch of any kernel, run from its PTX"},
    {"validate", vkrr_cmd_validate, "replay every launch through the Vulkan port and compare"},
    {"bisect", vkrr_cmd_bisect, "find the first launch where the chained port diverges, and why"},
    {"diff", vkrr_cmd_diff, "compare two captures of the same frames, launch by launch"},
    {"merge", vkrr_cmd_merge, "the result files of a run's shards (--shard K/N) made into that run"},
    {"rerun", vkrr_cmd_rerun, "run the original kernels again (from their PTX, on the CPU) and compare"},
    {"stress", vkrr_cmd_stress, "new inputs through the original and the port until they disagree"},
    {"port", vkrr_cmd_port, "port new: a kernel's starting port (.comp + .port) from a capture"},
    {"modules", vkrr_cmd_modules, "modules list|extract: the PTX and cubins in module files, fatbins, DLLs"},
    {"hw", vkrr_cmd_hw, "hw measure: the approximate instructions' tables of this GPU; hw list"},
    {"bench", vkrr_cmd_bench, "time every launch on the Vulkan port beside CUDA's profiler times"},
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vkrr [--color WHEN] COMMAND [ARGS]\n"
            "       vkrr --version | --help\n"
            "\n"
            "vkrr replays the kernel launches of a CUDA capture through a Vulkan compute\n"
            "port, compares every output with what CUDA wrote, and shows where they differ.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "Run 'vkrr COMMAND --help' for a command's options.  Options take a value as\n"
            "--opt VALUE or --opt=VALUE, -- ends them, and --color WHEN (always, never, or\n"
            "auto: on a terminal unless NO_COLOR is set) colours PASS/FAIL and verdicts, here\n"
            "before COMMAND or after it.\n"
            "Exit codes: 0 all pass, 1 a mismatch was found, 2 bad input or usage (or a\n"
            "capture validated only in part), 3 no usable device or library, 130 interrupted.\n"
            "\n"
            "Memory: a launch's data lives in memory up to VKRR_MEM_LIMIT (512M, 8G; default\n"
            "half of what the system or the process's cgroup has free) and beyond it in\n"
            "unlinked scratch files in VKRR_SCRATCH_DIR (else TMPDIR, else /var/tmp); a\n"
            "launch larger than the limit is streamed, never refused.\n");
}

/* What comes before the command: --help, --version, --color WHEN (for
 * every command after it).  Returns the index of the command, or -1 with
 * *rc set when main is done. */
static int global_options(int argc, char **argv, int *rc)
{
    enum { O_VERSION };
    static const vkrr_cli_opt opts[] = {{"version", 0, false, O_VERSION, false}, {0}};
    vkrr_cli_opts p = vkrr_cli_opts_begin("", argc, argv, 1, opts, NULL);
    const char *v;
    int id;
    *rc = 0;
    while ((id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_ARG) {
        if (id == VKRR_OPT_HELP) {
            usage(stdout);
        } else if (id == O_VERSION) {
            vkrr_cli_version(stdout);
        } else if (id == VKRR_OPT_END) { /* no command (--color alone, or nothing) */
            usage(stderr);
            *rc = vkrr_status_exit_code(VKRR_ERR_USAGE);
        } else {
            *rc = p.rc;
        }
        return -1;
    }
    return p.i - 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    int rc, first = global_options(argc, argv, &rc);
    if (first < 0)
        return rc;
    vkrr_error err = {0};
    if (vkrr_mem_limit_check(&err) != VKRR_OK) { /* before a command reads a byte */
        vkrr_error_print(&err, stderr);
        return vkrr_status_exit_code(err.status);
    }
    const char *names[sizeof commands / sizeof commands[0] + 1];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!strcmp(argv[first], commands[i].name))
            return commands[i].run(argc - first, argv + first);
        names[i] = commands[i].name;
    }
    names[sizeof commands / sizeof commands[0]] = NULL;
    char near[200];
    vkrr_cli_suggest_word(argv[first], names, false, near, sizeof near);
    fprintf(stderr, "vkrr: unknown command '%s'%s%s%s\n\n", argv[first],
            near[0] ? "; did you mean " : "", near, near[0] ? "?" : "");
    usage(stderr);
    return 2;
}
