#!/usr/bin/env bash
# Mutation testing of the code that decides verdicts and models hardware:
#   scripts/mutate.sh [--max N] [--seed S] [--lines A-B] [--list] [FILE...]
# (scripts/mutate.py --help says it all; scripts/mutate-triage.md holds the
# survivors' triage).  Each mutant is applied to a copy of this checkout's
# tracked files in build-mutate/src (the working tree is never touched), built
# in build-mutate/obj, and the tests named for its file run there.  Slow (a
# rebuild and tests per mutant): not part of CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${VKRR_MUTATE_DIR:-$root/build-mutate}
for a in "$@"; do
  case $a in -h|--help) exec python3 "$root/scripts/mutate.py" --help ;; esac
done
mkdir -p "$work/src"
# Only files whose bytes differ are written (a new time): an unchanged file is
# not rebuilt, and a changed one always is, whatever its time; untracked ones
# are removed.
(cd "$root" && git ls-files -z) | python3 -c '
import os, shutil, sys
root, dst = sys.argv[1], sys.argv[2]
tracked = set(r for r in sys.stdin.buffer.read().decode().split("\0") if r)
for rel in tracked:
    if not rel or not os.path.isfile(os.path.join(root, rel)):
        continue
    a, b = os.path.join(root, rel), os.path.join(dst, rel)
    data = open(a, "rb").read()
    if os.path.exists(b) and open(b, "rb").read() == data:
        continue
    os.makedirs(os.path.dirname(b), exist_ok=True)
    open(b, "wb").write(data)
    shutil.copymode(a, b)
# a file no longer tracked (moved or deleted since the last run) goes too: a
# source folder globbed by CMake must not build a stale copy beside the new
for d, _, files in os.walk(dst):
    for f in files:
        rel = os.path.relpath(os.path.join(d, f), dst)
        if rel not in tracked:
            os.remove(os.path.join(d, f))
' "$root" "$work/src"
# configured each time: new test files join the ctest list the script reads
cmake -S "$work/src" -B "$work/obj" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
exec python3 "$root/scripts/mutate.py" --source "$work/src" --build "$work/obj" \
     --triage "$root/scripts/mutate-triage.md" "$@"
