#!/usr/bin/env bash
# e2e_version: `vkrr --version` says what this build is, checked against what
# CMake configured (tests/CMakeLists.txt passes it in the environment; none of
# it comes from the code under test):
#   VKRR_TEST_VERSION        the project version (CMakeLists.txt's project())
#   VKRR_TEST_PTX_JIT_LLVM   the LLVM version the PTX JIT was built with, read
#                            from its llvm-config.h (cuda_ref/CMakeLists.txt);
#                            "none" in a build without the JIT
#   VKRR_TEST_RRREF_MODULES  1 when nvcc compiled rrref's modules, else 0
# Usage: e2e_version.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

for v in VKRR_TEST_VERSION VKRR_TEST_PTX_JIT_LLVM VKRR_TEST_RRREF_MODULES; do
    [ -n "${!v:-}" ] || { echo "FAIL: $v is not set (run through ctest)" >&2; exit 1; }
done

out=$WORK/version.txt
vkrr --version >"$out" 2>&1 || fail "--version exits $?"
cat "$out"
has() { grep -qxF -- "$1" "$out"; }

has "vkrr $VKRR_TEST_VERSION" || fail "no line 'vkrr $VKRR_TEST_VERSION'"
if [ "$VKRR_TEST_PTX_JIT_LLVM" = none ]; then
    grep -q "^ptx jit: none (" "$out" || fail "a build without the JIT: no line 'ptx jit: none (...)'"
    grep -q "^  ptx: .*interpreted (no JIT in this build)$" "$out" ||
        fail "a build without the JIT: the ptx backend's line does not say so"
else
    has "ptx jit: LLVM $VKRR_TEST_PTX_JIT_LLVM" || fail "no line 'ptx jit: LLVM $VKRR_TEST_PTX_JIT_LLVM'"
    grep -q "^  ptx: .*compiled by the PTX JIT" "$out" || fail "the ptx backend's line does not name the JIT"
fi
[ "$VKRR_TEST_PTX_JIT_LLVM" != none ] && grep -q "no JIT" "$out" && fail "a build with the JIT says 'no JIT'"
if [ "$VKRR_TEST_RRREF_MODULES" = 1 ]; then
    grep -q "^rrref CUDA modules: compiled by nvcc in this build" "$out" || fail "modules: not 'compiled by nvcc'"
else
    grep -q "^rrref CUDA modules: not compiled (no nvcc)" "$out" || fail "modules: not 'not compiled'"
fi
[ $fails = 0 ] && echo "e2e_version: ok"
exit $((fails > 0))
