#!/usr/bin/env bash
# The newcomer's first command: install what is missing, build, and run the
# main job on a bundled default.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
out=${VKRR_DEMO_DIR:-$root/out/demo}
rm -rf "$out"
mkdir -p "$(dirname "$out")"
echo "demo: writing a small capture to $out"
"$root/build/tests/test_capture" --write-demo "$out" >/dev/null
"$root/build/vkrr" info "$out"
