#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (and nvcc): under 5 minutes.
#   1. build with nvcc (the rrref modules and the test kernels)
#   2. test_cuda_backend: the libcuda backend runs its test kernels for real
#   3. vkrr synth --backend cuda: an rrref capture made on the GPU
#   4. vkrr validate: the Vulkan port against it (NVIDIA's Vulkan driver when
#      present, else lavapipe)
#   5. vkrr synth --backend cpu --approx sm_NN (this GPU's architecture) with the
#      same arguments, compared with the GPU capture: vkrr diff per launch, then
#      every dump byte for byte; the attention block's (fp8 mma) dumps on their
#      own line: the test of the tensor-core model on this GPU
#   6. the hardware model (README "The hardware model") against the GPU capture:
#      vkrr rerun --backend ptx and --backend cpu compare exactly; vkrr validate
#      --mode both --ref ptx passes every launch isolated and chained with every
#      resource 100 % exact
#   7. vkrr hw measure: the approximate instructions measured on this GPU, every
#      law checked over every f32 input, the tables compared with the built-in
#      set of the same architecture (VKRR_GPU_MEASURE=0 skips it: minutes)
#   8. vkrr bench --ref cuda on the GPU capture (which must carry KERNEL_PROFILE
#      lines), twice, VKRR_GPU_BENCH_GAP seconds apart (default 60): every frame's
#      Vulkan and CUDA medians agree within 10 % between the two runs
# A step whose command does not exist yet is reported as SKIPPED, not failed.
# Environment: VKRR_GPU_BUILD (build dir, default build-gpu), VKRR_GPU_OUT
# (work dir, default out/gpu-check), VKRR_SYNTH_ARGS (default "--size 64x48 --frames 2").
# Exit: 0 all run steps passed, 1 a step failed, 3 no GPU/driver.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${VKRR_GPU_BUILD:-$root/build-gpu}
out=${VKRR_GPU_OUT:-$root/out/gpu-check}
synth_args=${VKRR_SYNTH_ARGS:---size 64x48 --frames 2}
vkrr=$build/vkrr
declare -a summary
failed=0
note() { summary+=("$(printf '%-34s %s' "$1" "$2")"); echo "== $1: $2"; }
fail() { note "$1" "FAILED ($2)"; failed=1; }
# True when `vkrr --help` lists the command.
has_cmd() { [ -x "$vkrr" ] && "$vkrr" --help 2>&1 | grep -qE "^  $1( |$)"; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU or driver here (nvidia-smi -L fails); nothing to check" >&2
  exit 3
fi
nvidia-smi -L | head -1
# The CPU capture stands for this GPU (synth --approx): its tensor cores' fp8
# sums (rrref's attention block) and, where measured, its tables.
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=${cc:+sm_$cc}

mkdir -p "$(dirname "$out")"
shopt -s nullglob
echo "== build ($build)"
if ! timeout 240 "$root/scripts/build.sh" "$build" -DVKRR_CUDA=ON >"$out.build.log" 2>&1; then
  tail -30 "$out.build.log"
  # The tool may not link while modules are missing; the backend test may still build.
  timeout 120 cmake --build "$build" -j"$(nproc)" --target test_cuda_backend >/dev/null 2>&1 \
    && note build "PARTIAL (vkrr did not build; see $out.build.log)" \
    || { fail build "see $out.build.log"; }
else
  note build ok
fi

if [ -x "$build/tests/test_cuda_backend" ]; then
  # (without an argument: the checks that need no GPU; `gpu`: the kernels on
  # the GPU, exit 77 and "SKIPPED: ..." when they cannot run)
  log=$(timeout 60 "$build/tests/test_cuda_backend" 2>&1 && timeout 60 "$build/tests/test_cuda_backend" gpu 2>&1); rc=$?
  echo "$log" | grep -v "truncated"
  if [ $rc -ne 0 ]; then fail "libcuda backend test" "exit $rc"
  elif echo "$log" | grep -q "GPU run done"; then note "libcuda backend test" "ok (kernels ran on the GPU)"
  else fail "libcuda backend test" "passed but did not run on the GPU: $(echo "$log" | grep 'no GPU run')"; fi
else
  fail "libcuda backend test" "test_cuda_backend not built"
fi

# Vulkan driver: NVIDIA's ICD when installed, else lavapipe.
icd=$(ls /usr/share/vulkan/icd.d/nvidia_icd*.json /etc/vulkan/icd.d/nvidia_icd*.json 2>/dev/null | head -1)
[ -z "$icd" ] && icd=$(ls /usr/share/vulkan/icd.d/lvp_icd*.json 2>/dev/null | head -1)
[ -n "$icd" ] && export VK_ICD_FILENAMES=$icd VK_DRIVER_FILES=$icd
echo "== Vulkan driver: ${icd:-loader default}"

rm -rf "$out"; mkdir -p "$out"
gpu_cap=$out/rrref-cuda cpu_cap=$out/rrref-cpu
if has_cmd synth; then
  # shellcheck disable=SC2086
  if timeout 120 "$vkrr" synth "$gpu_cap" --backend cuda $synth_args; then note "synth --backend cuda" ok
  else fail "synth --backend cuda" "exit $?"; fi
  # shellcheck disable=SC2086
  if timeout 120 "$vkrr" synth "$cpu_cap" --backend cpu ${arch:+--approx $arch} $synth_args; then
    note "synth --backend cpu ${arch:+--approx $arch}" ok
  else fail "synth --backend cpu" "exit $?"; fi
else
  note "synth" "SKIPPED (vkrr synth does not exist yet)"
fi

if [ -d "$gpu_cap" ] && has_cmd validate; then
  timeout 120 "$vkrr" validate "$gpu_cap" --ref cuda --out "$out/validate" --json "$out/validate.json"; rc=$?
  case $rc in
    0) note "validate vulkan vs GPU capture" ok ;;
    1) fail "validate vulkan vs GPU capture" "mismatches, see $out/validate.json" ;;
    *) fail "validate vulkan vs GPU capture" "exit $rc" ;;
  esac
elif [ -d "$gpu_cap" ]; then
  note "validate" "SKIPPED (vkrr validate does not exist yet)"
fi

if [ -d "$gpu_cap/dump" ] && [ -d "$cpu_cap/dump" ]; then
  # vkrr diff: per launch, what differs and by how much (the report); then
  # every dump byte for byte (the verdict: the CPU's model is this GPU's)
  if has_cmd diff; then
    timeout 120 "$vkrr" diff "$gpu_cap" "$cpu_cap" --heatmaps none; rc=$?
    [ $rc -eq 0 ] && note "GPU vs CPU capture (vkrr diff)" ok || fail "GPU vs CPU capture (vkrr diff)" "exit $rc"
  fi
  {
    same=0 differ=0 missing=0
    for f in "$gpu_cap"/dump/*; do
      b=$(basename "$f")
      if [ ! -f "$cpu_cap/dump/$b" ]; then echo "  only on GPU: $b"; missing=$((missing + 1))
      elif cmp -s "$f" "$cpu_cap/dump/$b"; then same=$((same + 1))
      else
        echo "  differ: $b ($(cmp "$f" "$cpu_cap/dump/$b" | head -1 | sed 's/.*differ: //'); $(cmp -l "$f" "$cpu_cap/dump/$b" | wc -l) bytes)"
        differ=$((differ + 1))
      fi
    done
    for f in "$cpu_cap"/dump/*; do
      [ -f "$gpu_cap/dump/$(basename "$f")" ] || { echo "  only on CPU: $(basename "$f")"; missing=$((missing + 1)); }
    done
    msg="$same identical, $differ differ, $missing unmatched dump files"
    [ $differ -eq 0 ] && [ $missing -eq 0 ] && note "GPU vs CPU capture, bytes" "ok: $msg" || fail "GPU vs CPU capture, bytes" "$msg"
    # the tensor-core model's own test: the attention block's launches (fp8 mma)
    n=0 d=0
    for f in "$gpu_cap"/dump/*_attn0_kernel-*; do
      n=$((n + 1)); cmp -s "$f" "$cpu_cap/dump/$(basename "$f")" || d=$((d + 1))
    done
    if [ $n -eq 0 ]; then note "tensor-core model (attn0 dumps)" "SKIPPED (no attn0 launch in the capture)"
    elif [ $d -eq 0 ]; then note "tensor-core model (attn0 dumps)" "ok: $n identical (${arch:-sm_90} model)"
    else fail "tensor-core model (attn0 dumps)" "$d of $n differ under the ${arch:-sm_90} model"; fi
  }
fi

# 6. the hardware model against the GPU capture
if [ -d "$gpu_cap" ] && has_cmd rerun; then
  for be in ptx cpu; do
    timeout 300 "$vkrr" rerun "$gpu_cap" --backend "$be" --exact --heatmaps none -q --json "$out/rerun-$be.json"; rc=$?
    [ $rc -eq 0 ] && note "rerun --backend $be (exact)" ok || fail "rerun --backend $be (exact)" "exit $rc, see $out/rerun-$be.json"
  done
  timeout 300 "$vkrr" validate "$gpu_cap" --mode both --ref ptx --heatmaps none -q --json "$out/validate-both.json"; rc=$?
  inexact=$(grep -o '"exact_pct": [0-9.e+-]*' "$out/validate-both.json" 2>/dev/null | grep -vc ': 100$')
  if [ $rc -eq 0 ] && [ "$inexact" = 0 ]; then note "validate --mode both --ref ptx" "ok, every resource 100 % exact"
  else fail "validate --mode both --ref ptx" "exit $rc, $inexact resources not 100 % exact (see $out/validate-both.json)"; fi
fi

# 7. the approximate instructions of this GPU, measured
if [ "${VKRR_GPU_MEASURE:-1}" != 0 ] && has_cmd hw; then
  timeout 900 "$vkrr" hw measure "$out/hw" -q | tee "$out/hw-measure.txt"; rc=${PIPESTATUS[0]}
  case $rc in
    0) note "hw measure (every law holds)" ok ;;
    *) fail "hw measure" "exit $rc, see $out/hw-measure.txt" ;;
  esac
  grep -q "equal the built-in" "$out/hw-measure.txt" && note "measured tables = built-in set" ok
fi

# 8. the port timed beside the original on this GPU
if [ -d "$gpu_cap" ] && has_cmd bench; then
  n=$(grep -c "KERNEL_PROFILE" "$gpu_cap/run/run.log" 2>/dev/null)
  [ "${n:-0}" -gt 0 ] && note "synth --backend cuda profiler lines" "ok ($n)" ||
    fail "synth --backend cuda profiler lines" "none in run/run.log"
  ok=1
  for k in 1 2; do
    [ $k = 2 ] && sleep "${VKRR_GPU_BENCH_GAP:-60}"
    timeout 300 "$vkrr" bench "$gpu_cap" --ref cuda --json "$out/bench-$k.json" | tee "$out/bench-$k.txt"
    rc=${PIPESTATUS[0]}; [ $rc -eq 0 ] || { fail "bench --ref cuda (run $k)" "exit $rc"; ok=0; }
  done
  if [ $ok = 1 ]; then
    if python3 - "$out/bench-1.json" "$out/bench-2.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["frames"] for p in sys.argv[1:3])
bad = []
for x, y in zip(a, b):
    for side in ("vulkan", "cuda"):
        m1, m2 = x[side]["median_ms"], y[side]["median_ms"]
        if abs(m1 - m2) > 0.10 * max(m1, m2):
            bad.append("frame %d %s: %.4f vs %.4f ms" % (x["frame"], side, m1, m2))
print("\n".join(bad) or "every frame within 10 %")
sys.exit(1 if bad else 0)
PY
    then note "bench --ref cuda, two runs agree" ok; else fail "bench --ref cuda, two runs agree" "see above"; fi
  fi
fi

echo; echo "gpu-check summary:"
printf '  %s\n' "${summary[@]}"
exit $failed
