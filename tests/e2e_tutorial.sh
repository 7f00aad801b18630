#!/usr/bin/env bash
# The README's "Port your first kernel", run as written: its ```sh blocks are
# the commands (in order), its ```glsl block the edit (applied to the .comp
# the section names, in place of the backticked line it names), all taken
# from README.md itself, so the tutorial cannot drift from what passes.
# /tmp/ in the commands becomes this test's folder.  What must hold: every
# command before the edit exits 0 except the validate of the unwritten
# skeleton, which exits 1 (FAIL); after the edit the last validate exits 0
# with a PASS row naming the edited file.
# Usage: e2e_tutorial.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
ROOT=$(cd "$(dirname "$0")/.." && pwd)

python3 - "$ROOT"/README.md "$WORK" <<'PY' || { echo "FAIL: the README section cannot be read" >&2; exit 1; }
import re, sys
text = open(sys.argv[1]).read()
work = sys.argv[2]
m = re.search(r'^## Port your first kernel\n(.*?)^## ', text, re.S | re.M)
assert m, 'no "## Port your first kernel" section'
sec = m.group(1)
steps = []
for b in re.finditer(r'```(sh|glsl)\n(.*?)```', sec, re.S):
    before = sec[:b.start()]
    if b.group(1) == 'sh':
        for line in b.group(2).splitlines():
            if line.strip():
                steps.append(('run', line.replace('/tmp/', work + '/')))
    else:
        comp = re.findall(r'(/tmp/\S+\.comp)', before)[-1].replace('/tmp/', work + '/')
        old = re.findall(r'`(//[^`]*)`', before)[-1]
        steps.append(('edit', comp + '\t' + old + '\t' + b.group(2).replace('\n', '\\n')))
with open(work + '/steps.tsv', 'w') as f:
    for kind, s in steps:
        f.write(kind + '\t' + s + '\n')
PY

cd "$ROOT" || exit 1
edited=0
runs=0
last_rc=0
while IFS=$'\t' read -r kind a b c; do
    if [ "$kind" = edit ]; then
        python3 - "$a" "$b" "$c" <<'PY' || fail "the edit: '$b' is not in $a"
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3].replace('\\n', '\n').rstrip('\n')
s = open(path).read()
line = next(l for l in s.splitlines() if l.strip() == old.strip())
open(path, 'w').write(s.replace(line, new, 1))
PY
        edited=1
        continue
    fi
    runs=$((runs + 1))
    eval "$a" >"$WORK/out-$runs.txt" 2>"$WORK/err-$runs.txt"
    last_rc=$?
    e2e_scan_logs "step $runs" "$WORK/err-$runs.txt"
    case "$a" in
    *" validate "*)
        if [ $edited = 0 ]; then
            [ $last_rc -eq 1 ] || fail "before the edit, '$a' exited $last_rc, want 1 (FAIL): $(cat "$WORK/out-$runs.txt")"
            grep -q "the port left at their pre-launch bytes where CUDA wrote" "$WORK/out-$runs.txt" ||
                fail "the skeleton's row does not say what was left"
        fi ;;
    *)
        [ $last_rc -eq 0 ] || fail "'$a' exited $last_rc: $(cat "$WORK/err-$runs.txt")" ;;
    esac
done <"$WORK/steps.tsv"
[ $edited = 1 ] || fail "the section has no edit"
[ $runs -ge 4 ] || fail "only $runs commands in the section"
[ $last_rc -eq 0 ] || fail "after the edit the last command exited $last_rc: $(cat "$WORK/out-$runs.txt")"
grep -qE "^ +1  scale .* PASS +$WORK/first-ports/scale.comp, $WORK/first-ports/scale.port$" "$WORK/out-$runs.txt" ||
    fail "no PASS row naming the edited port: $(cat "$WORK/out-$runs.txt")"

# vkrr record refuses what does not fit the kernel, naming the argument, and leaves nothing
rec() { vkrr record "$WORK/bad" --ptx examples/first-port/scale.ptx --grid 4 --block 64 "$@"; }
rec --kernel scale --arg in:f32:256 >/dev/null 2>"$WORK/r.err"
[ $? -eq 2 ] && grep -q "scale takes 5 parameters; 1 --arg given" "$WORK/r.err" || fail "too few --arg: $(cat "$WORK/r.err")"
rec --kernel scale --arg in:f32:256 --arg out:f32:256 --arg f32:x --arg f32:1 --arg u32:1 >/dev/null 2>"$WORK/r.err"
[ $? -eq 2 ] && grep -q "argument 3 'f32:x': not a number" "$WORK/r.err" || fail "a bad scalar: $(cat "$WORK/r.err")"
rec --kernel scale --arg u32:1 --arg out:f32:256 --arg f32:1 --arg f32:1 --arg u32:1 >/dev/null 2>"$WORK/r.err"
[ $? -eq 2 ] && grep -q "argument 1 'u32:1': its size is not the .param's" "$WORK/r.err" || fail "a scalar for a pointer: $(cat "$WORK/r.err")"
rec --kernel nope >/dev/null 2>"$WORK/r.err"
[ $? -eq 2 ] && grep -q "no .entry nope" "$WORK/r.err" || fail "a missing kernel: $(cat "$WORK/r.err")"
ls -d "$WORK"/bad* >/dev/null 2>&1 && fail "a refused record left $(ls -d "$WORK"/bad*)"

# record names the engine that ran the kernel: the interpreter when told so, the JIT
# (which compiles the kernel) in a build that has one
rec_ok() { vkrr record "$WORK/rec-$1" --ptx examples/first-port/scale.ptx --kernel scale --grid 4 \
               --block 64 --arg in:f32:256 --arg out:f32:256 --arg f32:2 --arg f32:0 --arg u32:256; }
VKRR_PTX_ENGINE=interp rec_ok interp >"$WORK/r.out" 2>&1 || fail "record (interp): $(cat "$WORK/r.out")"
grep -q "run on the PTX interpreter$" "$WORK/r.out" || fail "record (interp) names another engine: $(cat "$WORK/r.out")"
if vkrr --version 2>/dev/null | grep -q "^ptx jit: LLVM"; then
    VKRR_PTX_ENGINE=jit rec_ok jit >"$WORK/r.out" 2>&1 || fail "record (jit): $(cat "$WORK/r.out")"
    grep -q "run on the PTX JIT (compiled through LLVM)$" "$WORK/r.out" ||
        fail "record (jit) names another engine: $(cat "$WORK/r.out")"
    vkrr rerun "$WORK/rec-jit" -q >"$WORK/r.out" 2>&1
    grep -q "original kernels on ptx (the PTX JIT, LLVM [0-9.]*)," "$WORK/r.out" ||
        fail "rerun's header does not name the JIT: $(head -3 "$WORK/r.out")"
fi
# rerun's header names the engine its launches run in
vkrr rerun "$WORK/rec-interp" -q --ptx-engine interp >"$WORK/r.out" 2>&1
grep -q "original kernels on ptx (the PTX interpreter)," "$WORK/r.out" ||
    fail "rerun --ptx-engine interp's header: $(head -3 "$WORK/r.out")"
vkrr rerun "$WORK/rec-interp" -q --coverage >"$WORK/r.out" 2>&1
grep -q "original kernels on ptx (the PTX interpreter: coverage counts its steps)," "$WORK/r.out" ||
    fail "rerun --coverage's header: $(head -3 "$WORK/r.out")"

if [ $fails -ne 0 ]; then
    echo "e2e_tutorial: $fails failed" >&2
    exit 1
fi
echo "e2e_tutorial: ok ($runs commands and the edit, from README.md)"
