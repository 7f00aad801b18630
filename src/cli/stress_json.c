/* stress_json.c - `vkrr stress --json` (stress_json.h). */
#include "stress_json.h"

#include <stdlib.h>

#include "json.h"
#include "mapfile.h"

bool vkrr_stress_json_open(vkrr_stress_json *j)
{
    *j = (vkrr_stress_json){0};
    j->f = open_memstream(&j->buf, &j->len);
    return j->f != NULL;
}

void vkrr_stress_json_launch(vkrr_stress_json *j, const vkrr_launch *l, const char *status,
                             const vkrr_stress_result *r, const char *note)
{
    FILE *f = j->f;
    fprintf(f, "%s\n    {\"sequence\": %llu, \"kernel\": ", j->n++ ? "," : "",
            (unsigned long long)l->sequence);
    vkrr_json_put_string(f, l->kernel ? l->kernel : "");
    fprintf(f, ", \"frame\": %u, \"occurrence\": %u, \"status\": ", l->frame, l->occurrence);
    vkrr_json_put_string(f, status);
    if (r && !r->nothing && (!r->note[0] || r->disagree))
        fprintf(f, ", \"inputs_tried\": %llu, \"inputs_kept\": %u, \"changed_allocations\": %u, "
                   "\"branch_directions\": {\"captured\": %u, \"taken\": %u, \"total\": %u}",
                (unsigned long long)r->runs, r->kept, r->mutable_inputs, r->dirs_captured,
                r->dirs_taken, r->dirs_total);
    else
        fputs(", \"inputs_tried\": null, \"inputs_kept\": null, \"changed_allocations\": null, "
              "\"branch_directions\": null", f);
    fputs(", \"disagreement\": ", f);
    if (r && r->disagree) {
        fputs("{\"detail\": ", f);
        vkrr_json_put_string(f, r->detail);
        fprintf(f, ", \"changed_elements\": %u, \"inputs\": ", r->changed);
        vkrr_json_put_string(f, r->inputs);
        fputs(", \"reproducer\": ", f);
        if (r->reproducer[0])
            vkrr_json_put_string(f, r->reproducer);
        else
            fputs("null", f);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fputs(", \"note\": ", f);
    vkrr_json_put_string(f, note ? note : r ? r->note : "");
    fputc('}', f);
}

vkrr_status vkrr_stress_json_write(vkrr_stress_json *j, const char *path,
                                   const vkrr_stress_json_run *run, vkrr_error *err)
{
    if (fflush(j->f) != 0)
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory for the JSON");
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    if (!f)
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory for the JSON");
    fputs("{\n  ", f);
    vkrr_json_put_header(f, VKRR_SCHEMA_STRESS, run->vkrr_version);
    fputs(",\n  \"capture\": ", f);
    vkrr_json_put_string(f, run->capture);
    fprintf(f, ",\n  \"original_backend\": \"ptx\", \"port_backend\": \"vulkan\", \"seed\": %llu, "
               "\"runs\": %llu, \"time_limit_s\": ",
            (unsigned long long)run->seed, (unsigned long long)run->runs);
    if (run->seconds > 0)
        fprintf(f, "%.3f", run->seconds);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"summary\": {\"stressed\": %u, \"disagreements\": %u, \"nothing_to_change\": %u, "
               "\"errors\": %u},\n  \"launches\": [",
            run->stressed, run->disagreements, run->nothing, run->errors);
    fwrite(j->buf, 1, j->len, f);
    fputs("\n  ]\n}\n", f);
    fclose(f);
    vkrr_status st = doc ? vkrr_write_file_atomic(path, doc, len, err)
                         : vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory for the JSON");
    free(doc);
    return st;
}

void vkrr_stress_json_close(vkrr_stress_json *j)
{
    if (j->f)
        fclose(j->f);
    free(j->buf);
    *j = (vkrr_stress_json){0};
}
