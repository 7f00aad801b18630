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

# a descriptor output that rests on a GUESS is named under the table
if grep -q "^ *# GUESS" "$ports/$K.port"; then
    vkrr validate "$cap" --ports "$ports" --only $K --heatmaps none >"$WORK/g.out" 2>&1
    grep -q "^guess: $ports/$K.port:[0-9]*: output arg[0-9]* is compared as a GUESS says" "$WORK/g.out" ||
        fail "the GUESS in use is not named: $(cat "$WORK/g.out")"
else
    fail "port new wrote no GUESS for $K (its shape at least comes from the bytes)"
fi

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
grep -qE '^ +11  cuda_dldn_rrref_dec0_kernel .*PASS .*PASS' "$WORK/o.out" || fail "dec0 not PASS isolated and chained"
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

# Provenance: which port ran is never in doubt
# an empty ports folder, or one whose only file is misnamed: exit 2, nothing runs
mkdir -p "$WORK/empty" "$WORK/misnamed"
vkrr validate "$cap" --ports "$WORK/empty" --heatmaps none >"$WORK/p.out" 2>"$WORK/p.err"
[ $? -eq 2 ] || fail "an empty --ports folder is not exit 2"
grep -q "no .comp, .spv or .port file here is named after a kernel" "$WORK/p.err" &&
    grep -q "$K" "$WORK/p.err" || fail "the empty-folder error does not list the kernels: $(cat "$WORK/p.err")"
grep -q PASS "$WORK/p.out" && fail "an empty --ports folder reported a PASS"
cp "$SRC/shaders/$K.comp" "$WORK/misnamed/${K}x.comp"
vkrr validate "$cap" --ports "$WORK/misnamed" --heatmaps none >"$WORK/p.out" 2>"$WORK/p.err"
[ $? -eq 2 ] || fail "a --ports folder with only a misnamed file is not exit 2"
grep -q "${K}x.comp: no captured kernel is called ${K}x.*nearest: $K)" "$WORK/p.err" ||
    fail "the misnamed file is not named with the nearest kernel: $(cat "$WORK/p.err")"
# a run-time port: its file in the row and in the JSON; the others built-in
vkrr validate "$cap" --ports "$ports" --mode isolated --heatmaps none --json "$WORK/p.json" \
    >"$WORK/p.out" 2>&1 || fail "validate with the real port: $(cat "$WORK/p.out")"
grep -qE "^ +2  $K .*PASS +$ports/$K.comp, $ports/$K.port$" "$WORK/p.out" ||
    fail "the row does not name the run-time port and its descriptor: $(grep $K "$WORK/p.out")"
grep -qE "^ +3  cuda_dldn_rrref_input_kernel .*PASS +built-in$" "$WORK/p.out" || fail "a built-in port is not named built-in"
python3 - "$WORK/p.json" "$ports/$K.comp, $ports/$K.port" <<'PY' || fail "JSON port fields"
import json, sys
j = json.load(open(sys.argv[1]))
ports = {l["kernel"]: l["port"] for l in j["launches"]}
assert ports["cuda_dldn_rrref_expo1_kernel"] == sys.argv[2], ports
assert all(v == "built-in" for k, v in ports.items() if k != "cuda_dldn_rrref_expo1_kernel"), ports
assert j["port_backend"] == "vulkan"
PY
# --no-builtin: only run-time ports run; a launch without one is NO PORT, never PASS
vkrr validate "$cap" --ports "$ports" --no-builtin --mode isolated --heatmaps none >"$WORK/p.out" 2>&1 ||
    fail "--no-builtin with one port: exit $?"
[ "$(grep -cE '^ +[0-9]+  .* PASS +[^ ]' "$WORK/p.out")" = 1 ] || fail "--no-builtin: not exactly one PASS row: $(cat "$WORK/p.out")"
grep -q "11 NO PORT" "$WORK/p.out" || fail "--no-builtin: the other launches are not NO PORT"
vkrr validate "$cap" --no-builtin --mode isolated --heatmaps none >"$WORK/p.out" 2>&1
[ $? -eq 2 ] || fail "--no-builtin without any port is not exit 2"
grep -q "NOTHING VALIDATED" "$WORK/p.out" || fail "--no-builtin without any port: no 'NOTHING VALIDATED'"
grep -qE '^ +[0-9]+  .* PASS +[^ ]' "$WORK/p.out" && fail "--no-builtin without any port reported a PASS row"

# a port that does not compile: glslang's message with file and line, no table begun
mkdir -p "$WORK/broken"
sed 's/^void main()/void main() oops/' "$SRC/shaders/$K.comp" >"$WORK/broken/$K.comp"
vkrr validate "$cap" --ports "$WORK/broken" --heatmaps none >"$WORK/b.out" 2>"$WORK/b.err"
[ $? -eq 2 ] || fail "a port that does not compile is not exit 2"
grep -Eq "$K\.comp:[0-9]+: .*syntax error" "$WORK/b.err" || fail "no file:line for the broken port: $(cat "$WORK/b.err")"
grep -q "^ *seq  kernel" "$WORK/b.out" && fail "a table was begun before the compile error: $(cat "$WORK/b.out")"

# the worst column names an output, not an input that passed whole
vkrr validate "$cap" --mode isolated --heatmaps none >"$WORK/w2.out" 2>&1 || fail "validate for the worst column"
grep -qE '^ +3  cuda_dldn_rrref_input_kernel .* buffer arg64 ' "$WORK/w2.out" ||
    fail "input's worst is not its output arg64: $(grep input_kernel "$WORK/w2.out")"
grep -qE '^ +12  cuda_dldn_rrref_output_kernel .* surface arg' "$WORK/w2.out" ||
    fail "output's worst is not a surface: $(grep output_kernel "$WORK/w2.out")"
# "left at the pre-launch bytes" says which side: here CUDA (its dump made the pre-launch bytes)
cp -r "$cap" "$WORK/cap-left"
cp "$WORK"/cap-left/replay/replay-000002-*/alloc-0.bin "$WORK"/cap-left/dump/launch-002-*-arg000-buffer-*.bin
vkrr validate "$WORK/cap-left" --only 2 --no-hash-check --heatmaps none >"$WORK/l.out" 2>&1
grep -qE "buffer arg8: .*[1-9][0-9]* CUDA left at their pre-launch bytes where the port wrote" "$WORK/l.out" ||
    fail "CUDA's side of 'left at pre-launch bytes' is not said: $(cat "$WORK/l.out")"
grep -q "the port left at their pre-launch" "$WORK/l.out" && fail "the port is said to have left bytes it wrote"
# a chained launch that cannot be judged (its dump changed since capture) is never "every launch within tolerance"
vkrr validate "$WORK/cap-left" --only 2 --mode both --heatmaps none >"$WORK/l2.out" 2>&1
grep -q "bisect: no divergence among the chained launches judged (1 not judged" "$WORK/l2.out" ||
    fail "the bisect line claims every chained launch: $(grep bisect "$WORK/l2.out")"

# progress: a non-terminal stderr gets one line at the end, per-launch lines only with --progress
vkrr validate "$cap" --mode isolated --heatmaps none >/dev/null 2>"$WORK/prog.err" || fail "validate for progress"
grep -q "^progress: launch" "$WORK/prog.err" && fail "per-launch progress lines on a non-terminal stderr"
grep -qx "progress: 12 launches in [0-9.]*s" "$WORK/prog.err" || fail "no final progress line: $(cat "$WORK/prog.err")"
vkrr validate "$cap" --mode isolated --heatmaps none --progress >/dev/null 2>"$WORK/prog.err" || fail "validate --progress"
[ "$(grep -c "^progress: launch" "$WORK/prog.err")" = 12 ] || fail "--progress: not one line per launch"

if [ $fails -ne 0 ]; then
    echo "e2e_fastloop: $fails failed" >&2
    exit 1
fi
echo "e2e_fastloop: ok"
