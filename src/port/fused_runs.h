/* fused_runs.h - runs of consecutive launches that one fused port stands
 * for (`covers` lines, portpass.h), each seen as one launch.
 *
 * A production port often fuses several CUDA launches into one pass (an
 * attention block and its MLP).  Its descriptor is the run's first kernel's
 * (A.port, with A.comp) and names the run:
 *
 *     interface own
 *     covers A B                       # launches of A then B, consecutive, one frame
 *     binding 0.0 storage-buffer arg0  # A's argument at byte 0
 *     binding 0.1 storage-buffer 1:arg8   # B's argument at byte 8
 *     output 1:arg8 f32 width=1:u32@16 # B's output, B's word at byte 16
 *
 * vkrr_fused_derive() makes a capture in which each run the capture holds
 * (the launches right after an A launch are B ..., in the same frame, each
 * with its replay folder) is ONE launch: A's sequence, frame and occurrence;
 * the run's parameter blocks at a 4096-byte stride (K:argOFF and
 * K:TYPE@BYTE name launch K's: portexpr.h); the union of the run's allocations (by
 * base address), each with its pre-launch bytes at the first launch of the
 * run that has it, and a post-launch dump only where an `output` line names
 * it, the dump after the launch the line names (none: every dump of the
 * run's last launch), so intermediate buffers the fused shader never writes
 * are not compared.  Isolated mode thus feeds the run the captured inputs
 * of its first launch (and of later launches for what the first did not
 * have), chained mode and bisect take the run as one step, and the table
 * shows it as one row ("A+B (#s..#e)", launch.label; JSON lists the
 * sequences, launch.fused_seq).  An A launch that the run does not follow
 * (another kernel next, the next frame, the capture's end, a launch with no
 * replay folder between, a damaged launch, or textures and surfaces, not yet
 * supported in a fused run) stays as it is, marked launch.no_port with why:
 * validate reports it NO PORT, not an error of the run.
 *
 * Refused (VKRR_ERR_PARSE, exit 2, naming the descriptor and its line): a
 * `covers` whose first kernel is not the port's own.  A descriptor whose
 * outputs do not fit a run is refused as any descriptor is
 * (vkrr_portdesc_set_check on the derived capture).
 *
 * Does NOT: run anything; bench, stress, rerun and diff see the capture as
 * it is (a fused descriptor's K: arguments are past a single launch's
 * parameter block there, and said so).
 */
#ifndef VKRR_FUSED_RUNS_H
#define VKRR_FUSED_RUNS_H

#include "capture.h"
#include "portdesc.h"

/* *out: the derived capture, or NULL when no descriptor of s has `covers`
 * (use cap as it is).  cap must outlive *out. */
vkrr_status vkrr_fused_derive(const vkrr_capture *cap, vkrr_portdesc_set *s, vkrr_capture **out,
                              vkrr_error *err);
/* Frees what vkrr_fused_derive made (accepts NULL); never cap's own. */
void vkrr_fused_free(vkrr_capture *derived);

#endif
