/* vkrr info CAPDIR [--json]: what a capture holds, for people and scripts. */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "cli.h"
#include "version.h"
#include "hw_model.h"

static const char info_help[] =
    "usage: vkrr info CAPDIR [--json]\n"
    "\n"
    "Reads a capture (replay/, dump/, run/run.log, modules/) and lists its launches:\n"
    "sequence number, kernel, frame and occurrence (the identity of a launch across\n"
    "captures), grid and block, shared bytes, allocations, pointer arguments and the\n"
    "textures and surfaces with their formats and sampler state, the array behind\n"
    "each and how that is known (logged, inferred from shape, from creation order),\n"
    "and the earlier surface each texture reads in chained validation (logged,\n"
    "inferred from shape, inferred from equal bytes; unknown).  Launches the capture\n"
    "shows without a replay folder (dumps or log lines only) are listed after, with\n"
    "what they mean for chained mode.  Everything is\n"
    "checked on the way: a launch whose files are missing, short or malformed is\n"
    "listed as DAMAGED with the file and line at fault, the rest as usual, and the\n"
    "exit is 2 (also when nothing can be read).  Nothing in CAPDIR is written.\n"
    "\n"
    "The GPU that made the capture (run.log's device line) is shown first, with the\n"
    "hardware model validate and rerun will use for it by default.\n"
    "\n"
    "  --json   one JSON object (\"device\", a \"launches\" array, ...) instead of the table\n";

int vkrr_cmd_info(int argc, char **argv)
{
    const char *dir = NULL;
    bool json = false;
    static const vkrr_cli_opt opts[] = {{"json", 0, false, 0, false}, {0}};
    vkrr_cli_opts p = vkrr_cli_opts_begin("info", argc, argv, 1, opts, NULL);
    const char *v;
    for (int id; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        if (id == VKRR_OPT_ERROR)
            return p.rc;
        if (id == VKRR_OPT_HELP) {
            fputs(info_help, stdout);
            return 0;
        }
        if (id == VKRR_OPT_ARG && dir)
            return vkrr_cli_usage_error("info", "unexpected argument '%s'", v);
        if (id == VKRR_OPT_ARG)
            dir = v;
        else
            json = true;
    }
    if (!dir)
        return vkrr_cli_usage_error("info", "missing CAPDIR");

    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    if (vkrr_capture_open_ex(&cap, dir, VKRR_CAPTURE_KEEP_DAMAGED, &err) != VKRR_OK)
        return vkrr_cli_fail(&err);
    vkrr_texture_link **links = NULL;
    vkrr_error lerr = {0};
    if (vkrr_capture_texture_links(cap, &links, &lerr) != VKRR_OK)
        vkrr_error_print(&lerr, stderr); /* a dump that cannot be read: listed without links */
    if (json) {
        vkrr_capture_print_json(cap, links, VKRR_VERSION, stdout);
    } else {
        vkrr_capture_print_table(cap, links, stdout);
        /* what validate would use (model choice needs no device) */
        vkrr_hw_model *hw = NULL;
        vkrr_error herr = {0};
        if (vkrr_cli_hw_use(&(vkrr_cli_compare){0}, cap, &hw, &herr) == VKRR_OK)
            printf("hardware model (validate, rerun): %s%s%s%s\n", vkrr_hw_model_name(hw),
                   vkrr_hw_model_note(hw)[0] ? " (" : "", vkrr_hw_model_note(hw),
                   vkrr_hw_model_note(hw)[0] ? ")" : "");
        vkrr_hw_tables *ht = hw ? vkrr_hw_model_tables(hw) : NULL;
        if (ht)
            vkrr_hw_tables_print_cuts(ht, stdout, "  ");
        if (ht && strcmp(vkrr_hw_model_arch(hw), vkrr_hw_tables_arch(ht)))
            printf("  to model the capture's %s GPU itself: on it run `vkrr hw measure hw-tables`, "
                   "then `cp -r hw-tables/%s ~/.local/share/vkrr/hw/` (or validate with --hw-tables "
                   "hw-tables); `vkrr hw list` shows the sets vkrr finds\n",
                   vkrr_hw_model_arch(hw), vkrr_hw_model_arch(hw));
        vkrr_cli_hw_done(hw);
    }
    /* each problem also as an error line, for people reading stderr */
    for (uint32_t i = 0; i < cap->ndamage; i++)
        vkrr_error_print(&cap->damage[i], stderr);
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (cap->launches[i].damage_error)
            vkrr_error_print(cap->launches[i].damage_error, stderr);
    int rc = cap->first_damage.status != VKRR_OK ? vkrr_status_exit_code(cap->first_damage.status) : 0;
    vkrr_capture_links_free(cap, links);
    vkrr_capture_close(cap);
    return rc;
}
