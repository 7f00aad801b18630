#!/usr/bin/env bash
# e2e_ptx_jit: the PTX JIT through `vkrr rerun` on an rrref capture.  The
# first run compiles every kernel and caches it under
# $XDG_CACHE_HOME/vkrr/ptx-jit, the second loads every one and compiles
# nothing; a damaged entry (truncated, a flipped byte) is compiled again and
# rewritten, never loaded; --no-cache writes nothing; the JIT and the
# interpreter agree (--ptx-engine both); a kernel the JIT leaves to the
# interpreter still passes and its row says so; code for another CPU
# (VKRR_PTX_JIT_CPU) is its own entry; a bad engine is a usage error
# (exit 2, no crash).  In a build without the JIT, `--ptx-engine jit` is a
# usage error naming the fix and the rest is skipped: exit 77, ctest's
# Skipped (a failure where CMake configured the JIT, VKRR_TEST_PTX_JIT_LLVM,
# or where VKRR_TEST_REQUIRE names llvm, as scripts/test.sh does).
# Usage: e2e_ptx_jit.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

cap=$WORK/cap
vkrr synth "$cap" --size 24x16 --frames 1 >/dev/null 2>&1 || fail "synth"
# without nvcc the capture has no modules: the checked-in PTX of rrref
mods=()
[ -d "$cap/modules" ] || mods=(--modules "$(cd "$(dirname "$0")" && pwd)/ptx/checked_in/rrref")

VKRR_PTX_ENGINE=bogus vkrr rerun "$cap" "${mods[@]}" >"$WORK/bogus.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "VKRR_PTX_ENGINE: 'bogus' is not an engine" "$WORK/bogus.out" ||
    fail "VKRR_PTX_ENGINE=bogus: exit $rc: $(cat "$WORK/bogus.out")"
vkrr rerun "$cap" "${mods[@]}" --ptx-engine fast >"$WORK/fast.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "takes jit, interp or both" "$WORK/fast.out" || fail "--ptx-engine fast: exit $rc"

# (compiling rrref's kernels takes LLVM about 45 s here: only the first and
# the cache-damage runs compile, and they compile the fewest they can.
# Shard 5/8 is one launch of a small kernel.)
small=(--shard 5/8)
vkrr rerun "$cap" "${mods[@]}" "${small[@]}" --ptx-engine jit --heatmaps none >"$WORK/jit0.out" 2>&1
rc=$?
if grep -q "this build has no PTX JIT" "$WORK/jit0.out"; then
    [ $rc = 2 ] || fail "--ptx-engine jit without the JIT: exit $rc"
    # tests/CMakeLists.txt: what CMake configured
    [ "${VKRR_TEST_PTX_JIT_LLVM:-none}" = none ] ||
        fail "configured with the JIT (LLVM $VKRR_TEST_PTX_JIT_LLVM), the binary has none"
    [ $fails = 0 ] || exit 1
    e2e_skip llvm "e2e_ptx_jit: no PTX JIT in this build (CMake found no llvm-15-dev); the JIT's checks did not run"
fi

export XDG_CACHE_HOME=$WORK/cache
export VKRR_PTX_JIT_LOG=1
# 1: every kernel compiled and cached
vkrr rerun "$cap" "${mods[@]}" --heatmaps none >"$WORK/first.out" 2>"$WORK/first.err" || fail "first run: $(cat "$WORK/first.out")"
grep -q "12 PASS" "$WORK/first.out" || fail "first run: $(tail -1 "$WORK/first.out")"
n=$(grep -c "compiled (cached)" "$WORK/first.err")
[ "$n" = 11 ] || fail "first run compiled $n kernels, not 11: $(cat "$WORK/first.err")"
entries=$(ls "$XDG_CACHE_HOME/vkrr/ptx-jit"/*.o 2>/dev/null | wc -l)
[ "$entries" = 11 ] || fail "$entries cache entries, not 11"
ls "$XDG_CACHE_HOME/vkrr/ptx-jit" | grep -q tmp && fail "a temporary file is left in the cache"

# 2: nothing compiled
vkrr rerun "$cap" "${mods[@]}" --heatmaps none >"$WORK/second.out" 2>"$WORK/second.err" || fail "second run"
grep -q "12 PASS" "$WORK/second.out" || fail "second run: $(tail -1 "$WORK/second.out")"
n=$(grep -c "loaded from the cache" "$WORK/second.err")
[ "$n" = 11 ] || fail "second run loaded $n kernels from the cache, not 11: $(cat "$WORK/second.err")"
grep -q "compiled" "$WORK/second.err" && fail "second run compiled: $(cat "$WORK/second.err")"

# 3: two damaged entries (the smallest objects: the quickest to compile) are
# compiled again, rewritten, and the run still passes
mapfile -t smallest < <(ls -S "$XDG_CACHE_HOME"/vkrr/ptx-jit/*.o | tail -2)
set -- "${smallest[@]}"
truncate -s 100 "$1"
python3 - "$2" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x40
open(p, "wb").write(bytes(b))
EOF
vkrr rerun "$cap" "${mods[@]}" --heatmaps none >"$WORK/third.out" 2>"$WORK/third.err" || fail "run over a damaged cache"
grep -q "12 PASS" "$WORK/third.out" || fail "damaged cache: $(tail -1 "$WORK/third.out")"
n=$(grep -c "compiled (cached)" "$WORK/third.err")
[ "$n" = 2 ] || fail "damaged cache: $n kernels compiled again, not 2: $(cat "$WORK/third.err")"
vkrr rerun "$cap" "${mods[@]}" --heatmaps none >/dev/null 2>"$WORK/fourth.err"
n=$(grep -c "loaded from the cache" "$WORK/fourth.err")
[ "$n" = 11 ] || fail "the damaged entries were not rewritten: $n loaded"

# 4: --no-cache keeps nothing
XDG_CACHE_HOME=$WORK/nocache vkrr rerun "$cap" "${mods[@]}" "${small[@]}" --no-cache --heatmaps none >"$WORK/nocache.out" 2>"$WORK/nocache.err" ||
    fail "--no-cache run"
[ -e "$WORK/nocache/vkrr/ptx-jit" ] && fail "--no-cache made $WORK/nocache/vkrr/ptx-jit"
grep -q "compiled (no cache)" "$WORK/nocache.err" || fail "--no-cache: $(cat "$WORK/nocache.err")"

# 5: the interpreter alone compiles nothing; both engines agree
vkrr rerun "$cap" "${mods[@]}" --ptx-engine interp --heatmaps none >"$WORK/interp.out" 2>"$WORK/interp.err" || fail "interp run"
grep -q "ptx-jit" "$WORK/interp.err" && fail "--ptx-engine interp used the JIT"
vkrr rerun "$cap" "${mods[@]}" --ptx-engine both --heatmaps none >"$WORK/both.out" 2>&1 || fail "both: $(cat "$WORK/both.out")"
grep -q "12 PASS" "$WORK/both.out" || fail "both: $(tail -1 "$WORK/both.out")"

# 6: a kernel the JIT leaves to the interpreter passes and says so
VKRR_PTX_JIT_MAX=200 vkrr rerun "$cap" "${mods[@]}" --heatmaps none >"$WORK/max.out" 2>&1 || fail "VKRR_PTX_JIT_MAX run"
grep -q "12 PASS" "$WORK/max.out" || fail "VKRR_PTX_JIT_MAX: $(tail -1 "$WORK/max.out")"
grep -q "note: the original ran in the PTX interpreter: the JIT did not compile it: its [0-9]* instructions are more than the JIT compiles (200, VKRR_PTX_JIT_MAX)" "$WORK/max.out" ||
    fail "no row says the interpreter ran it: $(cat "$WORK/max.out")"
grep -q "cuda_dldn_rrref_expo1_kernel" "$WORK/max.out" || fail "rows missing"

# 7: code for another CPU (VKRR_PTX_JIT_CPU; x86-64, which every x86-64 host
# runs): another cache key, so compiled, not the host's code loaded; the
# JIT and the interpreter still agree byte for byte
if [ "$(uname -m)" = x86_64 ]; then
    VKRR_PTX_JIT_CPU=x86-64 vkrr rerun "$cap" "${mods[@]}" "${small[@]}" --ptx-engine both \
        --heatmaps none >"$WORK/cpu.out" 2>"$WORK/cpu.err" || fail "VKRR_PTX_JIT_CPU=x86-64: $(cat "$WORK/cpu.out")"
    grep -q "1 PASS" "$WORK/cpu.out" || fail "VKRR_PTX_JIT_CPU=x86-64: $(tail -1 "$WORK/cpu.out")"
    grep -q "compiled (cached)" "$WORK/cpu.err" && ! grep -q "loaded from the cache" "$WORK/cpu.err" ||
        fail "VKRR_PTX_JIT_CPU=x86-64 did not compile its own code: $(cat "$WORK/cpu.err")"
else
    echo "e2e_ptx_jit: VKRR_PTX_JIT_CPU check SKIPPED (not an x86-64 host)"
fi

[ $fails = 0 ] && echo "e2e_ptx_jit: all checks passed"
exit $((fails > 0))
