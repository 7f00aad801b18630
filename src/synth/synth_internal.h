/* synth_internal.h - what the recorders of this stage share: synth (rrref
 * frames) and record (one launch of any PTX kernel).  Both write into
 * DIR.tmp-PID and put it in place only when complete. */
#ifndef VKRR_SYNTH_INTERNAL_H
#define VKRR_SYNTH_INTERNAL_H

#include "capture_write.h"
#include "replay.h"
#include "status.h"

typedef enum { DIR_MISSING, DIR_EMPTY, DIR_FULL, DIR_NOT_DIR } vkrr_synth_dir_state;

vkrr_synth_dir_state vkrr_synth_probe_dir(const char *path);
void vkrr_synth_rmtree(const char *path);
/* Puts tmp where dir is: a missing or empty dir is replaced by rename; a full
 * one (force) is moved aside first and removed once tmp is in place. */
vkrr_status vkrr_synth_install(const char *tmp, const char *dir, vkrr_error *err);
/* run.log's device line for the backend that ran the launches. */
void vkrr_synth_log_device(vkrr_writer *w, const vkrr_backend *be);

#endif
