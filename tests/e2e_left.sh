#!/usr/bin/env bash
# e2e_left: validate says a port left an element at its pre-launch bytes
# only when it did.  A buffer starts from its pre-launch contents (here
# zeros), so a port that writes 0.0 where CUDA wrote something else looks,
# in one run, exactly like one that wrote nothing; validate runs the port
# again from inverted starting bytes to tell them apart.  The port below
# writes 0.0 to the even elements (a wrong value) and nothing to the odd
# ones: only the odd ones (where CUDA's value is not all zero bits) may be
# counted as left.
# Usage: e2e_left.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

cap=$WORK/cap
e2e_clampk_capture "$cap" "$WORK/ports"
python3 - "$WORK/ports/clampk.comp" <<'PY' || fail "the skeleton has no body line"
import sys
p = sys.argv[1]
s = open(p).read()
old = "// The kernel's body goes here.  Nothing is written yet."
assert old in s
open(p, "w").write(s.replace(old, "uint i = gid.x;\n    if (i < vkrr_p.arg20 && (i & 1u) == 0u)\n"
                                   "        vkrr_st_f(out8, i, 0.0);"))
PY
want=$(python3 - "$cap" <<'PY'
import glob, struct, sys
post = glob.glob(sys.argv[1] + "/dump/*-arg008-*")[0]
y = struct.unpack("<256I", open(post, "rb").read())
print(sum(1 for i in range(1, 250, 2) if y[i] != 0))
PY
)
vkrr validate "$cap" --ports "$WORK/ports" --heatmaps none >"$WORK/v.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "validate: exit $rc, not 1: $(cat "$WORK/v.out")"
grep -q ", $want the port left at their pre-launch bytes where CUDA wrote" "$WORK/v.out" ||
    fail "want $want left at the pre-launch bytes (the odd elements): $(grep arg8 "$WORK/v.out")"

e2e_end
