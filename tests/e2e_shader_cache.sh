#!/usr/bin/env bash
# e2e_shader_cache: a second `vkrr validate` of the same capture, in a new
# process, compiles no pipeline the first did not: the driver's shader cache
# finds every one.  A pipeline's shader must be the same in every process
# for that, so nothing that changes from run to run (a device address, as
# the approximate-instruction tables' once was, in specialisation constants
# 3 and 4) may be baked into it; the tables' address is a push constant
# (vkbridge/vkrecord.c push_words).  With it baked in, every validate
# compiled the table-reading layers again through LLVM on lavapipe: 3.5 s
# a small capture where 0.7 s does.
# Checked where it can be seen: lavapipe, whose disk cache lives under
# $MESA_SHADER_CACHE_DIR; elsewhere SKIPPED.
# Usage: e2e_shader_cache.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
export MESA_SHADER_CACHE_DIR=$WORK/mesa
unset MESA_SHADER_CACHE_DISABLE MESA_SHADER_CACHE_MAX_SIZE

vkrr synth "$WORK/cap" --size 16x16 --frames 1 >/dev/null 2>&1 || fail "synth"
vkrr validate "$WORK/cap" --heatmaps none >"$WORK/first.out" 2>&1 || fail "validate (first): exit $?: $(cat "$WORK/first.out")"
grep -q "port on llvmpipe" "$WORK/first.out" ||
    e2e_skip mesa-cache "the port ran on $(sed -n 's/.*port on \([^,]*\),.*/\1/p' "$WORK/first.out"), not lavapipe"
entries() { (cd "$WORK/mesa" 2>/dev/null && find . -type f ! -name index | LC_ALL=C sort); }
entries >"$WORK/first.list"
[ -s "$WORK/first.list" ] || e2e_skip mesa-cache "lavapipe wrote no shader cache (a Mesa built without it?)"

vkrr validate "$WORK/cap" --heatmaps none >"$WORK/second.out" 2>&1 || fail "validate (second): exit $?: $(cat "$WORK/second.out")"
entries >"$WORK/second.list"
new=$(comm -13 "$WORK/first.list" "$WORK/second.list")
[ -z "$new" ] || fail "the second validate compiled $(echo "$new" | wc -l) shader(s) the first had cached: a pipeline differs from one process to the next: $new"
# the same verdicts, the same table, both times (what the cache gave is what was compiled)
diff <(grep -v "^progress:" "$WORK/first.out") <(grep -v "^progress:" "$WORK/second.out") >"$WORK/diff" ||
    fail "the second validate printed something else: $(cat "$WORK/diff")"
e2e_end
