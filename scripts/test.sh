#!/usr/bin/env bash
# The test command: install what is missing, build, run every test; then the
# whole suite again under ASan+UBSan, and a short libFuzzer run per parser.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"

echo "== build and test (RelWithDebInfo)"
"$root/scripts/build.sh" "$root/build"
(cd "$root/build" && ctest --output-on-failure -j2)

echo "== build and test (ASan + UBSan)"
"$root/scripts/build.sh" "$root/build-asan" -DVKRR_SANITIZE=ON -DVKRR_CUDA=OFF
# The sanitizer options (leak checking, exit code, tests/lsan.supp) come from
# tests/CMakeLists.txt, so a ctest run by hand in build-asan/ gets the same.
(cd "$root/build-asan" && ctest --output-on-failure -j2)

if [ -f "$root/tests/fuzz/CMakeLists.txt" ]; then
  echo "== fuzz (short runs)"
  # Only the fuzz targets: the rest of the tree is built with gcc above.
  CC=clang CXX=clang++ cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DVKRR_FUZZ=ON -DVKRR_CUDA=OFF -DVKRR_TESTS=ON >/dev/null
  cmake --build "$root/build-fuzz" -j"$(nproc)" --target fuzz_manifest fuzz_log fuzz_dumpname fuzz_ptx
  "$root/tests/fuzz/run.sh" "$root/build-fuzz" "${VKRR_FUZZ_SECONDS:-20}"
fi
echo "== all tests passed"
