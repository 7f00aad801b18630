#!/usr/bin/env bash
# The newcomer's first command: install what is missing, build, then the main
# job on the bundled default: synthesise a small rrref capture (3 frames of a
# procedural scene denoised by the rrref CUDA kernels, run on the CPU) and
# validate the Vulkan port against it, launch by launch.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
out=${VKRR_DEMO_DIR:-$root/out}
cap=$out/rrref-64x48
rm -rf "$cap" "$out/validate"
mkdir -p "$out"
echo "== vkrr synth $cap"
"$root/build/vkrr" synth "$cap" --size 64x48 --frames 3
echo "== vkrr validate $cap"
"$root/build/vkrr" validate "$cap" --out "$out/validate" --json "$out/validate/report.json"
echo "previews (noisy, clean, denoised): $cap/preview/"
