#!/usr/bin/env bash
# e2e_texnote: validate's "not measured" note on a linear-filtered texture
# is made only where the kernel can filter it (issue 45).  rrref's attention
# block reads a LINEAR, normalized HALF x4 texture with
# tex.base.2d.v4.f32.s32 only: integer coordinates read one texel,
# unfiltered (PTX ISA), so its rows (validate's, and rerun's) say nothing
# of filtering while its PTX is at hand (the capture's modules, or
# --modules).  Without PTX nothing proves it: the note stays.  The same PTX
# with one tex at f32 coordinates can filter: the note comes back, word for
# word as before.
# Usage: e2e_texnote.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
SRC=$(cd "$(dirname "$0")/.." && pwd)
K=cuda_dldn_rrref_attn0_kernel
NOTE="          model: arg0: linear filtering of HALF x4 (clamp/clamp, normalized) is not measured on a GPU: vkrr's f32 filter"
ATTN=$SRC/tests/ptx/checked_in/rrref/rrref_attn.ptx

vkrr synth "$WORK/cap" --size 16x16 --frames 1 >/dev/null 2>&1 || fail "synth"
vkrr info "$WORK/cap" >"$WORK/info.txt" 2>&1 || fail "info"
[ "$(grep -c "arg 0    texture 64x8x4 HALF linear clamp/clamp normalized" "$WORK/info.txt")" = 2 ] ||
    fail "the attention block's launches no longer read a linear, normalized HALF x4 texture: $(grep -A3 attn0 "$WORK/info.txt")"

# VALIDATE NAME ARGS...: the attention block's rows, isolated, into $WORK/NAME.out
validate() {
    local name=$1
    shift
    vkrr validate "$WORK/cap" --only $K --mode isolated --heatmaps none "$@" >"$WORK/$name.out" 2>&1 ||
        fail "validate ($name): exit $?: $(cat "$WORK/$name.out")"
    [ "$(grep -c "^ *[0-9]*  $K .*PASS" "$WORK/$name.out")" = 2 ] || fail "$name: not two PASS rows of $K: $(cat "$WORK/$name.out")"
}
notes() { grep -cxF "$NOTE" "$WORK/$1.out"; }

if [ -d "$WORK/cap/modules" ]; then # a build with nvcc records rrref's PTX in the capture
    validate modules # the capture's own PTX (CAPDIR/modules)
    grep -q "not measured" "$WORK/modules.out" && fail "a note on a texture read only at integer coordinates: $(cat "$WORK/modules.out")"
else
    echo "SKIPPED: the capture's own PTX (this build made no rrref modules: no nvcc); --modules below"
fi

rm -rf "$WORK/cap/modules" # no PTX: nothing proves it
validate none
[ "$(notes none)" = 2 ] || fail "without PTX each row keeps its note: $(cat "$WORK/none.out")"

validate given --modules "$ATTN"
grep -q "not measured" "$WORK/given.out" && fail "--modules: a note on an unfiltered texture: $(cat "$WORK/given.out")"

# rerun's rows are validate's: the same PTX, no note
vkrr rerun "$WORK/cap" --modules "$SRC/tests/ptx/checked_in/rrref" --heatmaps none >"$WORK/rerun.out" 2>&1 ||
    fail "rerun: exit $?: $(cat "$WORK/rerun.out")"
[ "$(grep -c "^ *[0-9]*  $K .*PASS" "$WORK/rerun.out")" = 2 ] || fail "rerun: not two PASS rows of $K: $(cat "$WORK/rerun.out")"
grep -q "linear filtering" "$WORK/rerun.out" && fail "rerun: a note on an unfiltered texture: $(cat "$WORK/rerun.out")"

# one tex at f32 coordinates: the kernel can filter the texture
line=$(grep -n -m1 'tex.base.2d.v4.f32.s32' "$ATTN" | cut -d: -f1)
[ -n "$line" ] || fail "no tex.base.2d.v4.f32.s32 in $ATTN"
sed "${line}s/tex.base.2d.v4.f32.s32 \(.*\), \[\(%rd[0-9]*\), {[^}]*}\]/tex.2d.v4.f32.f32 \1, [\2, {%f2, %f3}]/" \
    "$ATTN" >"$WORK/f32.ptx"
sed -n "${line}p" "$WORK/f32.ptx" | grep -q 'tex.2d.v4.f32.f32 .*{%f2, %f3}\]' ||
    fail "the f32 copy: $(sed -n "${line}p" "$WORK/f32.ptx")"
validate f32 --modules "$WORK/f32.ptx"
[ "$(notes f32)" = 2 ] || fail "a tex at f32 coordinates: each row keeps its note: $(cat "$WORK/f32.out")"

e2e_end
