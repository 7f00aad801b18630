#!/usr/bin/env bash
# vkrr installs and runs like a tool (README "Install"):
#   - `cmake --install BUILD --prefix P`, then P copied somewhere else (the
#     build tree's data is not where the copy looks): from an empty folder,
#     `vkrr synth`, `validate` and `rerun --backend ptx` (cpu without nvcc)
#     pass, every one of the capture's 12 launches PASS in their summaries
#     (not only the exit code), a perturbed launch is the one FAIL row, the
#     capture has rrref's modules when the build made them, and `--version`
#     names the copy's data folder;
#   - no command leaves anything in the current folder: heatmaps go to
#     --out or to the documented default under the user's cache;
#   - the binary holds no path of the build or source tree outside its debug
#     information;
#   - `cpack -G DEB` makes a package whose Depends name the Vulkan loader, a
#     driver and liblzma, which holds bin/vkrr and share/vkrr, and whose
#     unpacked vkrr runs.
# Usage: e2e_install.sh VKRR_BIN WORKDIR
set -euo pipefail
bin=$(readlink -f "$1")
work=$2
build=$(dirname "$bin")
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work"
mkdir -p "$work/cwd" "$work/home"
fail() { echo "e2e_install: FAIL: $*" >&2; exit 1; }
# FILE holds LINE (a whole line, fixed string), else fail naming WHAT
has_line() { # FILE LINE WHAT
  grep -qxF "$2" "$1" || fail "$3: no line '$2' in: $(cat "$1")"
}
pass12="12 launches: 12 PASS, 0 FAIL, 0 NO PORT, 0 TIMEOUT, 0 ERROR, 0 SKIPPED -> PASS"
export HOME="$work/home" XDG_CACHE_HOME="$work/home/.cache"
unset VKRR_DATA_DIR

cmake --install "$build" --prefix "$work/prefix" >/dev/null
cp -a "$work/prefix" "$work/moved"
rm -rf "$work/prefix"
vkrr=$work/moved/bin/vkrr
cd "$work/cwd"

"$vkrr" --version >"$work/version.txt"
cat "$work/version.txt"
grep -q "^data: $work/moved/share/vkrr (installed)" "$work/version.txt" || fail "--version does not name the moved data folder"
grep -q "^commit: " "$work/version.txt" || fail "--version has no commit"
grep -q "^hardware tables: sm_90, built in, set [0-9a-f]\{16\}" "$work/version.txt" || fail "--version has no table identity"
backend=cpu
if grep -q "^rrref CUDA modules: compiled" "$work/version.txt"; then
  grep -q "found in $work/moved/share/vkrr/modules" "$work/version.txt" || fail "the modules are not found in the copy"
  backend=ptx
fi

"$vkrr" synth "$work/cap" --size 24x16 --frames 1 >/dev/null
if [ $backend = ptx ]; then
  ls "$work/cap/modules/"*.ptx >/dev/null 2>&1 || fail "the capture has no modules"
fi
"$vkrr" validate "$work/cap" -q >"$work/validate.txt" || fail "validate exit $?"
has_line "$work/validate.txt" "summary: $pass12" validate
has_line "$work/validate.txt" "summary (chained): 12 PASS, 0 FAIL, 0 NO PORT, 0 TIMEOUT, 0 ERROR, 0 SKIPPED" validate
head -1 "$work/validate.txt" | grep -q ": 12 launches in 1 frames, .*, isolated and chained$" ||
  fail "validate's first line: $(head -1 "$work/validate.txt")"
# (the interpreter: the JIT would spend 45 s compiling into this fresh cache,
# and e2e_ptx_jit tests it)
engine=()
[ $backend = ptx ] && engine=(--ptx-engine interp)
"$vkrr" rerun "$work/cap" --backend $backend "${engine[@]}" -q >"$work/rerun.txt" || fail "rerun --backend $backend exit $?"
has_line "$work/rerun.txt" "summary: 12 launches: 12 PASS, 0 FAIL, 0 NO KERNEL, 0 TIMEOUT, 0 ERROR -> PASS" "rerun --backend $backend"
# a failing run: heatmaps in the default folder, named on the last lines
rc=0
"$vkrr" validate "$work/cap" -q --mode isolated --perturb cuda_dldn_rrref_enc1_kernel=64 \
  >"$work/failing.txt" || rc=$?
[ $rc -eq 1 ] || fail "a perturbed run exited $rc, not 1"
has_line "$work/failing.txt" "summary: 12 launches: 11 PASS, 1 FAIL, 0 NO PORT, 0 TIMEOUT, 0 ERROR, 0 SKIPPED -> FAIL" "a perturbed run"
# the table's one row (-q prints only what did not pass): launch 6, FAIL
rows=$(grep -cE '^ +[0-9]+  cuda_' "$work/failing.txt")
[ "$rows" = 1 ] && grep -qE '^ +6  cuda_dldn_rrref_enc1_kernel .* FAIL ' "$work/failing.txt" ||
  fail "a perturbed run's table ($rows rows): $(cat "$work/failing.txt")"
dir=$(sed -n 's/^heatmaps: [0-9]* in //p' "$work/failing.txt")
case $dir in "$XDG_CACHE_HOME"/vkrr/out/cap-*/heatmaps) ;; *) fail "heatmaps went to '$dir'" ;; esac
ls "$dir"/*.png >/dev/null || fail "no heatmap in $dir"
[ -z "$(ls -A "$work/cwd")" ] || fail "a command wrote into the current folder: $(ls -A "$work/cwd")"
# a passing run makes no folder at all
rm -rf "$XDG_CACHE_HOME/vkrr/out"
"$vkrr" validate "$work/cap" -q --mode isolated >/dev/null
[ ! -e "$XDG_CACHE_HOME/vkrr/out" ] || fail "a passing run made $XDG_CACHE_HOME/vkrr/out"
"$vkrr" validate "$work/cap" -q --mode isolated --out "$work/given" --json "$work/given/j/r.json" >/dev/null
[ ! -e "$work/given/heatmaps" ] || fail "a passing run made its heatmaps folder"
[ -s "$work/given/j/r.json" ] || fail "--json into a folder not made yet was not written"
touch "$work/afile"
rc=0
"$vkrr" validate "$work/cap" -q --mode isolated --out "$work/afile/o" >/dev/null 2>"$work/o.err" || rc=$?
[ $rc -eq 2 ] && grep -q "heatmaps cannot be written under $work/afile (not a folder)" "$work/o.err" ||
    fail "an --out under a file is not refused before the run: $(cat "$work/o.err")"

# no build or source path outside the debug information
objcopy --strip-debug "$vkrr" "$work/vkrr.nodebug"
for p in "$build" "$root"; do
  if strings "$work/vkrr.nodebug" | grep -qF "$p/"; then
    fail "the binary holds the path $p: $(strings "$work/vkrr.nodebug" | grep -F "$p/" | head -3)"
  fi
done

# the Debian package
(cd "$work" && cpack -G DEB -B "$work/pkg" --config "$build/CPackConfig.cmake" >/dev/null 2>&1) ||
  fail "cpack -G DEB failed"
deb=$(ls "$work/pkg/"*.deb)
deps=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $deps"
for d in libvulkan1 mesa-vulkan-drivers liblzma5 libc6; do
  grep -q "$d" <<<"$deps" || fail "Depends lacks $d"
done
dpkg-deb -c "$deb" >"$work/contents.txt"
grep -q "\./usr/bin/vkrr$" "$work/contents.txt" || fail "no usr/bin/vkrr in the package"
grep -q "\./usr/share/vkrr/glsl/" "$work/contents.txt" || fail "no GLSL includes in the package"
dpkg-deb -x "$deb" "$work/root"
"$work/root/usr/bin/vkrr" synth "$work/cap2" --size 16x16 --frames 1 >/dev/null
"$work/root/usr/bin/vkrr" validate "$work/cap2" -q >"$work/validate2.txt" || fail "the packaged vkrr: validate exit $?"
has_line "$work/validate2.txt" "summary: $pass12" "the packaged vkrr's validate"
[ -z "$(ls -A "$work/cwd")" ] || fail "a command wrote into the current folder"
echo "e2e_install: PASS"
