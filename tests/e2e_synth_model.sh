#!/usr/bin/env bash
# e2e_synth_model: `vkrr synth --approx` makes the CPU backend stand for another
# GPU: run.log's device line records the model, `vkrr info` and validate read
# it back, and the tensor cores' sums follow it (rrref's attention block: an
# sm_89 capture's fp8 mma outputs differ from sm_90's, its other launches do not).
# Usage: e2e_synth_model.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

size="--size 64x48 --frames 1"
device_line() { grep -o 'device name="vkrr cpu backend" model="[^"]*"' "$1/run/run.log"; }

# shellcheck disable=SC2086
vkrr synth "$WORK/sm90" $size >/dev/null 2>"$WORK/err.txt" || fail "synth (default) exited $?"
[ "$(device_line "$WORK/sm90")" = 'device name="vkrr cpu backend" model="sm_90, measured"' ] ||
    fail "default device line: $(device_line "$WORK/sm90")"

# an architecture without measured tables: its tensor cores, sm_90's tables, a warning
# shellcheck disable=SC2086
vkrr synth "$WORK/sm89" $size --approx sm_89 >/dev/null 2>"$WORK/err.txt" ||
    fail "synth --approx sm_89 exited $?"
grep -q "no measured tables for sm_89" "$WORK/err.txt" || fail "no warning about sm_89's tables: $(cat "$WORK/err.txt")"
[ "$(device_line "$WORK/sm89")" = 'device name="vkrr cpu backend" model="sm_89, tables of sm_90"' ] ||
    fail "sm_89 device line: $(device_line "$WORK/sm89")"
vkrr info "$WORK/sm89" >"$WORK/info.txt" 2>&1 || fail "info sm_89 exited $?"
grep -q "hardware model sm_89" "$WORK/info.txt" || fail "info does not say sm_89: $(head -3 "$WORK/info.txt")"

# shellcheck disable=SC2086
vkrr synth "$WORK/rounded" $size --approx rounded >/dev/null 2>&1 || fail "synth --approx rounded exited $?"
[ "$(device_line "$WORK/rounded")" = 'device name="vkrr cpu backend" model="rounded"' ] ||
    fail "rounded device line: $(device_line "$WORK/rounded")"
# rounded ex2 differs from the measured one somewhere in the output stage's softmax
diff -rq "$WORK/sm90/dump" "$WORK/rounded/dump" >/dev/null && fail "a rounded capture equals the sm_90 one"

# each validates against a port that follows the capture's model
for m in sm90 sm89 rounded; do
    vkrr validate "$WORK/$m" --mode both --heatmaps none -q >"$WORK/val-$m.txt" 2>&1 ||
        fail "validate $m exited $?: $(tail -3 "$WORK/val-$m.txt")"
done

# refusals: exit 2, a message, no OUTDIR
for args in "--approx sm_9x" "--approx sm_89 --backend cuda" "--hw-tables $WORK/sm90 --backend cuda"; do
    # shellcheck disable=SC2086
    vkrr synth "$WORK/bad" $size $args >/dev/null 2>"$WORK/err.txt"
    rc=$?
    [ $rc -eq 2 ] || fail "synth $args exited $rc, want 2"
    grep -q -e "--approx" -e "--hw-tables" "$WORK/err.txt" || fail "synth $args: message names no option: $(cat "$WORK/err.txt")"
    [ -e "$WORK/bad" ] && { fail "synth $args created its OUTDIR"; rm -rf "$WORK/bad"; }
done
vkrr synth --help | grep -q -- "--approx WHICH" || fail "--help does not teach --approx"

e2e_end
