#!/usr/bin/env bash
# e2e_options: every command reads its options one way (src/cli/cli_opts.h):
# `--opt=value` as `--opt value`, `--` ending the options, a mistyped option
# answered with the nearest ones, and colour on PASS/FAIL only where asked or
# on a terminal: never in a pipe, with NO_COLOR, with --color=never, nor in
# a JSON, JUnit or HTML file even with --color=always.
# Usage: e2e_options.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

ESC=$'\033'
SGR="$ESC\\[[0-9;]*m" # a colour escape (the progress line's ESC[K is not one)
cap=$WORK/cap
vkrr synth "$cap" --size=8x8 --frames=1 >"$WORK/synth.out" 2>&1 || fail "synth --size=8x8 --frames=1 exited $?"

# the issue's command: --json=F --heatmaps=none, options after the capture
vkrr validate "$cap" --json="$WORK/eq.json" --heatmaps=none >"$WORK/eq.out" 2>"$WORK/eq.err"
rc=$?
[ "$rc" = 0 ] || { fail "validate CAP --json=F --heatmaps=none exited $rc"; cat "$WORK/eq.err" >&2; }
grep -q -- '-> PASS$' "$WORK/eq.out" || fail "validate --json=F: no '-> PASS' summary"
grep -q "^json: $WORK/eq.json$" "$WORK/eq.out" || fail "validate --json=F: no 'json: F' line"
grep -q heatmaps: "$WORK/eq.out" && fail "--heatmaps=none still wrote heatmaps"
# the old spelling, options before the capture, gives the same launches
vkrr validate --json "$WORK/sp.json" --heatmaps none -q "$cap" >"$WORK/sp.out" 2>&1 ||
    fail "validate --json F --heatmaps none -q CAP exited $?"
python3 - "$WORK/eq.json" "$WORK/sp.json" <<'PY' || fail "the two spellings' JSON differ or do not parse"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
def seqs(d): return [l["sequence"] for l in d["launches"]]
assert len(seqs(a)) == 12 and seqs(a) == seqs(b), (seqs(a), seqs(b))
PY
# "--" ends the options: a capture named like an option
cp -r "$cap" "$WORK/--odd"
(cd "$WORK" && vkrr info -- --odd >"$WORK/dd.out" 2>&1) || fail "info -- --odd exited $?"
grep -q rrref "$WORK/dd.out" || fail "info -- --odd did not list the capture"

# usage errors: exit 2, naming the option and what was meant; nothing runs
expect_usage() { # WHAT WANT ARGS...
    local what=$1 want=$2
    shift 2
    vkrr "$@" >"$WORK/u.out" 2>"$WORK/u.err"
    local rc=$?
    [ "$rc" = 2 ] || fail "$what: exit $rc, not 2"
    grep -qF -- "$want" "$WORK/u.err" || fail "$what: stderr lacks \"$want\": $(cat "$WORK/u.err")"
    [ -s "$WORK/u.out" ] && fail "$what: wrote to stdout: $(head -3 "$WORK/u.out")"
}
expect_usage "--mod both" "unknown option '--mod'; did you mean --mode" validate "$cap" --mod both
expect_usage "--jsno" "did you mean --json?" validate "$cap" --jsno=x.json
expect_usage "--quiet=yes" "--quiet takes no value (given 'yes')" validate "$cap" --quiet=yes
expect_usage "--json at the end" "--json needs a value" validate "$cap" --json
expect_usage "--mode=x" "--mode takes isolated, chained or both, not 'x'" validate "$cap" --mode=x
expect_usage "--color=x" "--color takes always, never or auto, not 'x'" validate "$cap" --color=x
expect_usage "bisect --report" "unknown option '--report'" bisect "$cap" --report=x
expect_usage "vaildate" "unknown command 'vaildate'; did you mean validate?" vaildate "$cap"
expect_usage "hw mesure" "did you mean measure?" hw mesure
expect_usage "synth --frame" "did you mean --frames?" synth "$WORK/x" --frame=2

# colour: --color=always colours stdout even in a pipe; never the files
vkrr validate "$cap" --heatmaps=none --color=always --json="$WORK/c.json" --junit="$WORK/c.xml" \
    --report="$WORK/rep" >"$WORK/c.out" 2>/dev/null || fail "validate --color=always exited $?"
grep -q "${ESC}\\[32mPASS${ESC}\\[0m" "$WORK/c.out" || fail "--color=always: no green PASS"
for f in "$WORK/c.json" "$WORK/c.xml" "$WORK/rep/index.html"; do
    grep -q "$ESC" "$f" && fail "--color=always: an escape in $f"
done
vkrr --color=always validate "$cap" --heatmaps=none >"$WORK/g.out" 2>/dev/null || fail "vkrr --color=always validate exited $?"
grep -q "$SGR" "$WORK/g.out" || fail "vkrr --color=always validate: no colour"
vkrr validate "$cap" --heatmaps=none 2>/dev/null | cat >"$WORK/p.out"
grep -q -- '-> PASS$' "$WORK/p.out" || fail "validate | cat: no summary"
grep -q "$ESC" "$WORK/p.out" && fail "validate | cat: an escape in a pipe"

# the verdicts: bisect's CULPRIT (a launch moved 1000 ULP on purpose) and diff's SAME
k=cuda_dldn_rrref_expo1_kernel
vkrr bisect "$cap" --perturb="$k=1000" --heatmaps=none --color=always >"$WORK/b.out" 2>/dev/null
rc=$?
[ "$rc" = 1 ] || fail "bisect --perturb: exit $rc, not 1"
grep -q "#2 $k (frame 0, occurrence 0) is the ${ESC}\\[1;31mCULPRIT${ESC}\\[0m: " "$WORK/b.out" ||
    fail "bisect --color=always: no red CULPRIT: $(grep first "$WORK/b.out")"
vkrr bisect "$cap" --perturb "$k=1000" --heatmaps none >"$WORK/b2.out" 2>/dev/null
grep -q "#2 $k (frame 0, occurrence 0) is the CULPRIT: " "$WORK/b2.out" ||
    fail "bisect in a pipe: no plain CULPRIT: $(grep first "$WORK/b2.out")"
vkrr diff "$cap" "$cap" --heatmaps=none -q --color=always >"$WORK/d.out" 2>/dev/null || fail "diff exited $?"
grep -q -- "-> ${ESC}\\[32mSAME${ESC}\\[0m$" "$WORK/d.out" || fail "diff --color=always: no green SAME"

# on a terminal (script(1) gives one): colour unless NO_COLOR or --color=never
command -v script >/dev/null 2>&1 || {
    [ "$fails" = 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
    e2e_skip script "the terminal checks need script(1) (bsdutils)"
}
q() { printf '%q ' "$@"; }
tty_run() { # OUT ENV... -- ARGS...
    local out=$1
    shift
    script -qec "$(q env "$@")" /dev/null >"$out" 2>&1
}
tty_run "$WORK/t1.out" "$VKRR" validate "$cap" --heatmaps=none || fail "validate on a terminal exited $?"
grep -q "${ESC}\\[32mPASS${ESC}\\[0m" "$WORK/t1.out" || fail "validate on a terminal: no green PASS"
tty_run "$WORK/t2.out" NO_COLOR=1 "$VKRR" validate "$cap" --heatmaps=none || fail "NO_COLOR=1 validate exited $?"
grep -q -- '-> PASS' "$WORK/t2.out" || fail "NO_COLOR=1 validate: no summary"
grep -q "$SGR" "$WORK/t2.out" && fail "NO_COLOR=1 on a terminal: colour"
tty_run "$WORK/t3.out" "$VKRR" validate "$cap" --heatmaps=none --color never || fail "--color never exited $?"
grep -q -- '-> PASS' "$WORK/t3.out" || fail "--color never: no summary"
grep -q "$SGR" "$WORK/t3.out" && fail "--color never on a terminal: colour"

[ "$fails" = 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "e2e_options: ok"
