#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD_DIR SECONDS: runs each fuzz target (the capture
# parsers and the PTX interpreter) for SECONDS/4 from the seed corpus; builds
# nothing; fails on any crash.  New
# corpus entries go to a scratch directory, never into the source tree.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
build=$1
secs=$(( $2 / 4 ))
[ "$secs" -ge 1 ] || secs=1
work=$(mktemp -d "${TMPDIR:-/tmp}/vkrr-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
for t in manifest log dumpname ptx; do
  maxlen=8192
  [ "$t" = ptx ] && maxlen=16384
  bin=$build/tests/fuzz/fuzz_$t
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin is missing (configure with CC=clang -DVKRR_FUZZ=ON and build)" >&2
    exit 2
  fi
  mkdir -p "$work/$t" "$work/$t-artifacts"
  echo "fuzz: $t for ${secs}s"
  if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=$maxlen \
        -artifact_prefix="$work/$t-artifacts/" -print_final_stats=0 \
        "$work/$t" "$here/corpus/$t" >"$work/$t.log" 2>&1; then
    echo "fuzz: $t FAILED; last lines of its log:" >&2
    tail -40 "$work/$t.log" >&2
    mkdir -p "$build/fuzz-crashes"
    cp -r "$work/$t-artifacts/." "$build/fuzz-crashes/" 2>/dev/null || true
    echo "fuzz: crash inputs copied to $build/fuzz-crashes/" >&2
    status=1
  else
    grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$work/$t.log" | tail -1 || true
  fi
done
exit $status
