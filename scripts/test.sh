#!/usr/bin/env bash
# The test command: install what is missing, build, run every test; then the
# whole suite again under ASan+UBSan, a subset in a Release build, and a short
# libFuzzer run of every fuzz target.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"

# What deps.sh installed must be used: a test that would skip for want of
# one of these (tests/testutil.h test_skip, tests/e2e-lib.sh e2e_skip) fails
# instead.  A GPU and libcuda stay optional (test_cuda_backend_gpu skips).
export VKRR_TEST_REQUIRE="xmllint chromium llvm lintian man zsh jsonschema"

echo "== build and test (RelWithDebInfo)"
"$root/scripts/build.sh" "$root/build"
(cd "$root/build" && ctest --output-on-failure -j2)

echo "== build and test (ASan + UBSan)"
"$root/scripts/build.sh" "$root/build-asan" -DVKRR_SANITIZE=ON -DVKRR_CUDA=OFF
# The sanitizer options (leak checking, exit code, tests/lsan.supp) come from
# tests/CMakeLists.txt, so a ctest run by hand in build-asan/ gets the same.
(cd "$root/build-asan" && ctest --output-on-failure -j2)

echo "== build and test a subset (Release)"
# What a user or a packager builds (-O3, no debug information, NDEBUG): the
# whole tree, warnings as errors, and the tests where -O3 is most likely to
# change a result: synth and validate end to end, the PTX interpreter and
# JIT (with their oracle check; test_ptx_robust, the slowest, runs in the
# other builds), the comparisons and --version.
"$root/scripts/build.sh" "$root/build-release" -DCMAKE_BUILD_TYPE=Release
(cd "$root/build-release" && ctest --output-on-failure -j2 -E robust \
  -R '^(e2e_(synth|version|rerun_compare|ptx_jit)|test_ptx_.*|test_(compare|fpformat|texfilter|rrref|synth|cpu_cuda))$')

echo "== fuzz (a short run of every target)"
# Every fuzz target under ASan+UBSan from its seed corpus (the whole tree is
# built with clang for them); a crash fails the run and is minimised into
# tests/fuzz/crashes/.  Long campaigns: scripts/fuzz.sh --execs N.
# The whole tree first, so a change that only clang rejects fails here.
CC=clang CXX=clang++ "$root/scripts/build.sh" "$root/build-fuzz" -DVKRR_FUZZ=ON -DVKRR_CUDA=OFF
"$root/scripts/fuzz.sh" --seconds "${VKRR_FUZZ_SECONDS:-5}" --build "$root/build-fuzz" \
  --corpus "$root/build-fuzz/corpus"
echo "== all tests passed"
