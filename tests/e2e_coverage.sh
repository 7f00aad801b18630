#!/usr/bin/env bash
# e2e_coverage: `vkrr rerun --coverage` says which ways the original's
# conditional branches went over a capture's launches, and names each way
# none went at its PTX line.  The tutorial's kernel (examples/first-port)
# guards `i < n`: recorded with as many threads as elements, the guard's
# branch (to the early exit) is never taken; with 6 threads too many it is.
# With .file/.loc in the PTX (nvcc -lineinfo) the source line is named, and
# its text shown when the file is at hand.  --coverage is the PTX
# interpreter's alone.
# Usage: e2e_coverage.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
SRC=$(cd "$(dirname "$0")/.." && pwd)

rec() { # OUTDIR N
    vkrr record "$1" --ptx "$SRC/examples/first-port/scale.ptx" --kernel scale --grid 4 --block 64 \
        --arg in:f32:256 --arg out:f32:256 --arg f32:2.5 --arg f32:-1 --arg u32:"$2" >/dev/null 2>&1 ||
        fail "record n=$2"
}
rec "$WORK/exact" 256
# the line in the capture's module file (the bridge's name; its PTX from .version on)
mod=$WORK/exact/modules/dlss-module-4242-0001.ptx
line=$(grep -n "bra" "$mod" | head -1 | cut -d: -f1)
[ -n "$line" ] || fail "no module file $mod"
vkrr rerun "$WORK/exact" --coverage --heatmaps none >"$WORK/exact.out" 2>&1 || fail "rerun --coverage: $(cat "$WORK/exact.out")"
grep -q "^coverage: scale: branches: 1 of 2 directions taken; instructions: \([0-9]*\) of \1 ran$" "$WORK/exact.out" ||
    fail "n = 256: $(grep coverage "$WORK/exact.out")"
grep -q "^coverage:   $mod:$line: never taken$" "$WORK/exact.out" ||
    fail "the untaken branch at $mod:$line is not named: $(grep coverage "$WORK/exact.out")"

rec "$WORK/over" 250
vkrr rerun "$WORK/over" --coverage --heatmaps none >"$WORK/over.out" 2>&1 || fail "rerun --coverage: $(cat "$WORK/over.out")"
grep -q "^coverage: scale: branches: 2 of 2 directions taken; instructions: \([0-9]*\) of \1 ran$" "$WORK/over.out" ||
    fail "n = 250: $(grep coverage "$WORK/over.out")"
grep -q "never" "$WORK/over.out" && fail "n = 250 names an untaken way: $(grep never "$WORK/over.out")"

# the same in --json
vkrr rerun "$WORK/exact" --coverage --heatmaps none --json "$WORK/exact.json" >/dev/null 2>&1 || fail "rerun --coverage --json"
python3 - "$WORK/exact.json" "$line" <<'PY' || fail "--json has no coverage: $(cat "$WORK/exact.json")"
import json, sys
c = json.load(open(sys.argv[1]))["coverage"]
assert len(c) == 1 and c[0]["kernel"] == "scale", c
assert c[0]["branch_directions"] == {"taken": 1, "total": 2}, c
assert c[0]["instructions"]["ran"] == c[0]["instructions"]["total"] > 0, c
m = c[0]["missed"]
assert len(m) == 1 and m[0]["kind"] == "branch" and m[0]["line"] == int(sys.argv[2]) and m[0]["what"] == "never taken", m
PY

# with nvcc -lineinfo's .file and .loc (added here by hand to the same PTX):
# the branch's source line, and its text, the source being at hand
mkdir -p "$WORK/src"
cp "$SRC/examples/first-port/scale.cu" "$WORK/src/"
src_line=$(grep -n "if (i < n)" "$WORK/src/scale.cu" | cut -d: -f1)
awk -v f="$WORK/src/scale.cu" -v l="$src_line" '
    /^\.address_size/ { print; print ".file\t1 \"" f "\""; next }
    /setp\.ge\.u32/ { print "\t.loc\t1 " l " 5"; print; next }
    { print }' "$SRC/examples/first-port/scale.ptx" >"$WORK/src/scale.ptx"
vkrr record "$WORK/loc" --ptx "$WORK/src/scale.ptx" --kernel scale --grid 4 --block 64 \
    --arg in:f32:256 --arg out:f32:256 --arg f32:2.5 --arg f32:-1 --arg u32:256 >/dev/null 2>&1 ||
    fail "record of the PTX with .loc"
vkrr rerun "$WORK/loc" --coverage --heatmaps none >"$WORK/loc.out" 2>&1 || fail "rerun --coverage (.loc): $(cat "$WORK/loc.out")"
grep -q "^coverage:   .*dlss-module-4242-0001.ptx:[0-9]* ($WORK/src/scale.cu:$src_line): never taken$" "$WORK/loc.out" ||
    fail "the source line is not named: $(grep coverage "$WORK/loc.out")"
grep -q "^coverage:     | if (i < n)$" "$WORK/loc.out" ||
    fail "the source text is not shown: $(grep coverage "$WORK/loc.out")"

vkrr rerun "$WORK/exact" --coverage --backend cpu >"$WORK/cpu.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "needs --backend ptx" "$WORK/cpu.out" || fail "--coverage --backend cpu: exit $rc"

e2e_end
