/* shard.h - which launches shard K of N validates (`--shard K/N`).
 *
 * CI systems already spread work over machines (a matrix of jobs); vkrr
 * needs only to split a capture deterministically and to merge the results
 * (`vkrr merge`).  Every launch belongs to exactly one shard, the same one on
 * every machine, decided from the capture's index alone:
 *   - isolated runs split launch by launch, balanced by cost (bytes read and
 *     written, threads launched): the costliest launch first, each to the
 *     shard with the least so far (ties to the lower shard, then to the
 *     lower sequence);
 *   - chained runs (and "both") split whole frames, in order, into runs of
 *     frames of about equal cost, so a frame is never cut.  The chain of a
 *     shard still begins where the capture's does: the launches before its
 *     frames run first, unshown (as with --only), because the port's history
 *     carries from frame to frame; so its rows are those one run would give.
 * Launches the run does not select (--only) take no part in the split.
 * A shard can be empty (more shards than frames or launches).
 */
#ifndef VKRR_SHARD_H
#define VKRR_SHARD_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"

/* The largest N of --shard K/N. */
#define VKRR_SHARD_MAX 1000u

/* What a launch costs to validate: 2 x its allocations (read and written),
 * its images' bytes, and its threads. */
uint64_t vkrr_shard_cost(const vkrr_launch *l);

/* mine[i] for every launch i of cap: in shard k (1-based) of n.
 * selected[i]: the run selects launch i (NULL: all).  whole_frames: the
 * chained split.  Returns how many launches shard k has. */
uint32_t vkrr_shard_plan(const vkrr_capture *cap, const bool *selected, uint32_t k, uint32_t n,
                         bool whole_frames, bool *mine);

#endif
