/* vkrr info CAPDIR [--json]: what a capture holds, for people and scripts. */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "cli.h"

static const char info_help[] =
    "usage: vkrr info CAPDIR [--json]\n"
    "\n"
    "Reads a capture (replay/, dump/, run/run.log, modules/) and lists its launches:\n"
    "sequence number, kernel, frame and occurrence (the identity of a launch across\n"
    "captures), grid and block, shared bytes, allocations, pointer arguments and the\n"
    "textures and surfaces with their formats and sampler state.  Everything is\n"
    "checked on the way; a malformed capture is reported with the file and line at\n"
    "fault (exit 2).  Nothing in CAPDIR is written.\n"
    "\n"
    "  --json   one JSON object with a \"launches\" array instead of the table\n";

int vkrr_cmd_info(int argc, char **argv)
{
    const char *dir = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (vkrr_cli_is_help(argv[i])) {
            fputs(info_help, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (argv[i][0] == '-') {
            return vkrr_cli_usage_error("info", "unknown option '%s'", argv[i]);
        } else if (!dir) {
            dir = argv[i];
        } else {
            return vkrr_cli_usage_error("info", "unexpected argument '%s'", argv[i]);
        }
    }
    if (!dir)
        return vkrr_cli_usage_error("info", "missing CAPDIR");

    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    if (vkrr_capture_open(&cap, dir, &err) != VKRR_OK)
        return vkrr_cli_fail(&err);
    if (json)
        vkrr_capture_print_json(cap, stdout);
    else
        vkrr_capture_print_table(cap, stdout);
    vkrr_capture_close(cap);
    return 0;
}
