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
# tar keeps each file's time, so an unchanged file is not rebuilt on the next run.
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$work/src"
# configured each time: new test files join the ctest list the script reads
cmake -S "$work/src" -B "$work/obj" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
exec python3 "$root/scripts/mutate.py" --source "$work/src" --build "$work/obj" \
     --triage "$root/scripts/mutate-triage.md" "$@"
