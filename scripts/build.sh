#!/usr/bin/env bash
# Configures and builds vkrr into build/ (or $1 with extra cmake args after it).
# The project's own builds (scripts/test.sh, so CI; gpu-check.sh) treat warnings as
# errors (VKRR_WERROR); a plain `cmake` build only warns.  The build type is
# RelWithDebInfo unless the extra args name another (-DCMAKE_BUILD_TYPE=Release).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVKRR_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)"
