#!/usr/bin/env bash
# e2e_fastloop: the fast loop on one kernel.  --only runs just the launches
# named (by kernel, kernel#occurrence or sequence number; chained mode runs
# the ones before them too and says so).  `vkrr port new` writes a skeleton
# of cuda_dldn_rrref_expo1_kernel; `vkrr validate --ports DIR --only K
# --watch` runs it (FAIL), reruns when the shader changes: a broken shader
# prints glslang's message with file and line and the watch goes on; the real
# port then passes.  SIGINT ends a watch; --watch needs --ports.
# Usage: e2e_fastloop.sh VKRR_BIN WORKDIR
set -u
VKRR=$1
WORK=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
K=cuda_dldn_rrref_expo1_kernel
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

rm -rf "$WORK"
mkdir -p "$WORK"
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" # vkrr: "$VKRR" that reports a sanitizer report as such
cap=$WORK/cap ports=$WORK/ports
vkrr synth "$cap" --size 20x12 --frames 1 >/dev/null 2>&1 || fail "synth"
vkrr port new $K "$cap" --out "$ports" >"$WORK/new.out" 2>&1 || fail "port new: $(cat "$WORK/new.out")"

# --only: rows of the named launches only
rows() { grep -cE '^ +[0-9]+  cuda_dldn_rrref_' "$WORK/o.out"; }
vkrr validate "$cap" --only cuda_dldn_rrref_dec0_kernel --only 3 --heatmaps none >"$WORK/o.out" 2>&1 ||
    fail "--only dec0 --only 3: $(cat "$WORK/o.out")"
[ "$(rows)" = 2 ] || fail "--only dec0 --only 3 shows $(rows) rows, want 2"
grep -qE '^ +3  cuda_dldn_rrref_input_kernel' "$WORK/o.out" || fail "--only 3 is not launch #3"
grep -q '^summary: 2 launches: 2 PASS' "$WORK/o.out" || fail "--only summary: $(grep summary "$WORK/o.out")"
grep -q 'isolated$' "$WORK/o.out" || fail "--only is not isolated by default"
vkrr validate "$cap" --only cuda_dldn_rrref_dec0_kernel#0 --mode both --heatmaps none >"$WORK/o.out" 2>&1 ||
    fail "--only --mode both: $(cat "$WORK/o.out")"
[ "$(rows)" = 1 ] || fail "--only --mode both shows $(rows) rows, want 1"
grep -q 'chained mode also runs, unshown, every launch before' "$WORK/o.out" || fail "chained --only does not say it runs the launches before"
grep -qE '^ +7  cuda_dldn_rrref_dec0_kernel .*PASS .*PASS' "$WORK/o.out" || fail "dec0 not PASS isolated and chained"
vkrr validate "$cap" --only cuda_dldn_rrref_dec0_kernel#1 >/dev/null 2>"$WORK/err.txt"
[ $? -eq 2 ] && grep -q 'matches no launch' "$WORK/err.txt" || fail "--only of a missing occurrence is not exit 2"
vkrr validate "$cap" --only '#1' >/dev/null 2>&1
[ $? -eq 2 ] || fail "--only '#1' is not a usage error"

# Waits (60 s at most) until OUT has N "watching" lines, or the process ended.
wait_watching() {
    for _ in $(seq 600); do
        [ "$(grep -c '^watching' "$WORK/w.out")" -ge "$1" ] && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
# Waits (SECONDS at most) for the watch to end; false when it did not (then kills it).
wait_exit() {
    for _ in $(seq $(($1 * 10))); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill "$pid"
    return 1
}
# Replaces the port's shader in one step (a rename, as editors save).
put_shader() {
    cp "$1" "$WORK/next.comp" && mv "$WORK/next.comp" "$ports/$K.comp"
}

"$VKRR" validate "$cap" --ports "$ports" --only $K --watch --watch-max 3 --heatmaps none -q \
    >"$WORK/w.out" 2>"$WORK/w.err" &
pid=$!
wait_watching 1 || fail "no first run"
sed 's/^void main()/void main() oops/' "$ports/$K.comp" >"$WORK/broken.comp"
put_shader "$WORK/broken.comp"
wait_watching 2 || fail "no second run after the shader broke"
grep -Eq "$K\.comp:[0-9]+: .*syntax error" "$WORK/w.err" ||
    fail "the compile error does not name file and line: $(cat "$WORK/w.err")"
put_shader "$SRC/shaders/$K.comp"
wait_exit 60 || fail "--watch-max 3 did not stop after three runs"
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "the watch ended with $rc, want 0 (the last run passes)"
grep -c '^summary:' "$WORK/w.out" | grep -qx 2 || fail "want 2 summaries (run 2 did not compile): $(cat "$WORK/w.out")"
grep '^summary:' "$WORK/w.out" | head -1 | grep -q '0 PASS, 1 FAIL' || fail "the skeleton did not FAIL"
grep '^summary:' "$WORK/w.out" | tail -1 | grep -q '1 PASS, 0 FAIL' || fail "the real port did not PASS"
grep -q "$K.comp changed: running again" "$WORK/w.out" || fail "no change line"
e2e_scan_logs "the first watch" "$WORK/w.err"

# SIGINT ends a watch, with the last run's exit code
"$VKRR" validate "$cap" --ports "$ports" --only $K --watch --heatmaps none -q \
    >"$WORK/w.out" 2>"$WORK/w.err" &
pid=$!
wait_watching 1 || fail "no run before SIGINT"
kill -INT $pid
wait_exit 30 || fail "SIGINT did not end the watch"
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "after SIGINT the watch exited $rc, want 0"
e2e_scan_logs "the watch ended by SIGINT" "$WORK/w.err"

vkrr validate "$cap" --watch >/dev/null 2>"$WORK/err.txt"
[ $? -eq 2 ] || fail "--watch without --ports is not exit 2"
grep -q -- "--ports" "$WORK/err.txt" || fail "--watch without --ports: message does not say --ports"

if [ $fails -ne 0 ]; then
    echo "e2e_fastloop: $fails failed" >&2
    exit 1
fi
echo "e2e_fastloop: ok"
