/* vkrr - prove a Vulkan compute port of a CUDA network correct, launch by
 * launch, against captures of the CUDA original.  This file is the one table
 * of commands and the one place a status becomes an exit code. */
#include <stdio.h>
#include <string.h>

#include "bulk.h"
#include "cli.h"

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
            "usage: vkrr COMMAND [ARGS]\n"
            "\n"
            "vkrr replays the kernel launches of a CUDA capture through a Vulkan compute\n"
            "port, compares every output with what CUDA wrote, and shows where they differ.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "Run 'vkrr COMMAND --help' for a command's options.\n"
            "Exit codes: 0 all pass, 1 a mismatch was found, 2 bad input or usage (or a\n"
            "capture validated only in part), 3 no usable device or library, 130 interrupted.\n"
            "\n"
            "Memory: a launch's data lives in memory up to VKRR_MEM_LIMIT (512M, 8G; default\n"
            "half of what the system or the process's cgroup has free) and beyond it in\n"
            "unlinked scratch files in VKRR_SCRATCH_DIR (else TMPDIR, else /var/tmp); a\n"
            "launch larger than the limit is streamed, never refused.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return vkrr_status_exit_code(VKRR_ERR_USAGE);
    }
    if (vkrr_cli_is_help(argv[1]) || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        vkrr_cli_version(stdout);
        return 0;
    }
    vkrr_error err = {0};
    if (vkrr_mem_limit_check(&err) != VKRR_OK) { /* before a command reads a byte */
        vkrr_error_print(&err, stderr);
        return vkrr_status_exit_code(err.status);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "vkrr: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
