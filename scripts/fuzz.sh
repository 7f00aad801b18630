#!/usr/bin/env bash
# scripts/fuzz.sh [TARGET...] [--execs N | --seconds S] [--build DIR] [--corpus DIR]
#
# Fuzzes vkrr's parsers of user input with libFuzzer under ASan and UBSan
# (tests/fuzz/README.md lists the targets; none named: all of them).  Each
# target runs for N executions or S seconds (default: 60 seconds each), one
# after the other, from the seed corpus (tests/fuzz/corpus/TARGET) and a
# persistent corpus kept outside the source tree (--corpus, default
# ${XDG_CACHE_HOME:-~/.cache}/vkrr/fuzz-corpus/TARGET), which grows from run to
# run.  A crash (or a leak, a hang past the target's timeout, an abort of the
# target's own checks) is minimised into tests/fuzz/crashes/TARGET/, where it
# becomes a regression input that `ctest` replays in every build.  Prints, per
# target: executions, coverage (edges and features), corpus, crashes.
# Exit 0 when no target crashed, 1 when one did, 2 on bad usage.
#
# Builds what it needs with clang into --build DIR (default build-fuzz/).
#   scripts/fuzz.sh --seconds 5                      # the short run CI does
#   scripts/fuzz.sh port tolerance --execs 10000000  # a campaign
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
all="manifest log dumpname ptx port tolerance spec hwtables capture results fatbin"
targets=() execs="" secs="" build="$root/build-fuzz"
corpus_root="${XDG_CACHE_HOME:-$HOME/.cache}/vkrr/fuzz-corpus"
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --execs) [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]] || usage; execs=$2; shift 2 ;;
    --seconds) [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]] || usage; secs=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    --corpus) [ $# -ge 2 ] || usage; corpus_root=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; usage ;;
    *) [[ " $all " == *" $1 "* ]] || { echo "fuzz.sh: no target '$1' (targets: $all)" >&2; exit 2; }
       targets+=("$1"); shift ;;
  esac
done
[ -n "$execs" ] && [ -n "$secs" ] && { echo "fuzz.sh: --execs or --seconds, not both" >&2; exit 2; }
[ -n "$execs" ] || [ -n "$secs" ] || secs=60
[ ${#targets[@]} -gt 0 ] || read -r -a targets <<<"$all"

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DVKRR_FUZZ=ON -DVKRR_CUDA=OFF -DVKRR_TESTS=ON -DVKRR_WERROR=ON >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/vkrr-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Leaks are checked, with the suppressions the sanitizer test run uses.
export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
status=0
printf '%-10s %12s %9s %7s %9s %12s  %s\n' target executions exec/s edges features corpus crashes
for t in "${targets[@]}"; do
  maxlen=8192 timeout=10
  case $t in
    ptx) maxlen=16384 ;;
    capture) maxlen=2048 timeout=120 ;; # whole commands on a capture: about a run a second
  esac
  corpus="$corpus_root/$t"
  mkdir -p "$corpus" "$work/$t"
  limit=(-max_total_time="$secs")
  [ -n "$execs" ] && limit=(-runs="$execs")
  rc=0
  # the regression inputs too: a crash found once fails here again under clang's sanitizers
  seeds=("$root/tests/fuzz/corpus/$t")
  [ -d "$root/tests/fuzz/crashes/$t" ] && [ -n "$(ls -A "$root/tests/fuzz/crashes/$t")" ] &&
    seeds+=("$root/tests/fuzz/crashes/$t")
  "$build/tests/fuzz/fuzz_$t" "${limit[@]}" -timeout=$timeout -rss_limit_mb=4096 -max_len=$maxlen \
    -print_final_stats=1 -artifact_prefix="$work/$t/" "$corpus" "${seeds[@]}" \
    >"$work/$t.log" 2>&1 || rc=$?
  done_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$work/$t.log" | tail -1 || true)
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$work/$t.log" | grep -oE '[0-9]+$' || true)
  [ -n "$runs" ] || runs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$done_line")
  speed=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$work/$t.log" | grep -oE '[0-9]+$' || true)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$done_line" | grep -oE '[0-9]+' || true)
  ft=$(grep -oE 'ft: [0-9]+' <<<"$done_line" | grep -oE '[0-9]+' || true)
  corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' <<<"$done_line" | cut -d' ' -f2 || true)
  # crash-, leak-, timeout-, oom- artifacts; a slow-unit- one is only slow, not a finding
  crashes=$(find "$work/$t" -type f ! -name 'slow-unit-*' | wc -l)
  if [ $rc -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi # died without an artifact
  printf '%-10s %12s %9s %7s %9s %12s  %s\n' "$t" "${runs:--}" "${speed:--}" "${cov:--}" "${ft:--}" \
    "${corp:--}" "$crashes"
  if [ "$crashes" -ne 0 ]; then
    status=1
    echo "fuzz: $t crashed; the end of its log:" >&2
    grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$work/$t.log" | tail -40 >&2
    mkdir -p "$root/tests/fuzz/crashes/$t"
    for a in "$work/$t"/*; do
      [ -f "$a" ] || continue
      case $(basename "$a") in slow-unit-*) continue ;; esac
      name=$(basename "$a")
      out="$root/tests/fuzz/crashes/$t/$name"
      "$build/tests/fuzz/fuzz_$t" -minimize_crash=1 -runs=20000 -timeout=$timeout \
        -exact_artifact_path="$out" "$a" >"$work/$t.min.log" 2>&1 || true
      [ -f "$out" ] || cp "$a" "$out"
      echo "fuzz: $t: regression input $out ($(stat -c %s "$out") bytes); replay: $build/tests/fuzz/fuzz_$t $out" >&2
    done
  fi
done
exit $status
