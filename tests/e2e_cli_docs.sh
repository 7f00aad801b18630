#!/usr/bin/env bash
# The manual pages and the shell completion (scripts/cli_docs.py makes them
# from --help at build time) as `cmake --install` installs them:
#   - PREFIX/share/man/man1 holds vkrr.1.gz and vkrr-CMD.1.gz for every
#     command `vkrr --help` lists; `man -l` renders each without a warning,
#     and every word of `vkrr [CMD] --help` is in the page, in order (the
#     page says what the help says, all of it);
#   - PREFIX/share/bash-completion/completions/vkrr completes, in bash, every
#     command, every option each command's --help lists (usage lines and
#     option lines), the subcommands, and the values of --mode, --ref,
#     --backend, --heatmaps, --ptx-engine, --scene and --approx (the
#     hardware models `vkrr hw list` names), as README "Commands" gives them;
#   - PREFIX/share/zsh/vendor-completions/_vkrr parses (zsh -n), and an
#     interactive zsh offers the commands, options and values with it.
# Usage: e2e_cli_docs.sh VKRR_BIN WORKDIR
set -euo pipefail
bin=$(readlink -f "$1")
WORK=$2
VKRR=$bin
build=$(dirname "$bin")
rm -rf "$WORK"
mkdir -p "$WORK"
source "$(dirname "$0")/e2e-lib.sh"
fail() { echo "e2e_cli_docs: FAIL: $*" >&2; exit 1; }
command -v man >/dev/null || e2e_skip man "no man (man-db) to render the pages with"

cmake --install "$build" --prefix "$WORK/prefix" >/dev/null
man1=$WORK/prefix/share/man/man1
bashc=$WORK/prefix/share/bash-completion/completions/vkrr
zshc=$WORK/prefix/share/zsh/vendor-completions/_vkrr

vkrr --help >"$WORK/help.txt"
cmds=$(awk 'tolower($0) == "commands:" { on = 1; next } on && /^$/ { on = 0 } on { print $1 }' "$WORK/help.txt")
[ "$(wc -w <<<"$cmds")" -ge 10 ] || fail "vkrr --help lists only: $cmds"

# words of FILE, one a line, as a reader sees them (trailing ':' and '.' off:
# a heading "modes:" is set as "modes")
words() { tr -s ' \t\n' '\n\n\n' <"$1" | sed -e 's/[:.,;]*$//' -e '/^$/d'; }
# every line of A is a line of B, in order
in_order() { # A B
  awk 'BEGIN { n = 0; i = 0 } NR == FNR { want[n++] = $0; next } i < n && $0 == want[i] { i++ }
       END { if (i < n) { print "missing from the page: \"" want[i] "\" (word " i + 1 " of " n ")"; exit 1 } }' "$1" "$2"
}
for page in vkrr $(sed 's/^/vkrr-/' <<<"$cmds"); do
  f=$man1/$page.1.gz
  [ -f "$f" ] || fail "no $f"
  # lintian's check: man --warnings prints nothing
  LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$f" >/dev/null 2>"$WORK/warn.txt"
  [ ! -s "$WORK/warn.txt" ] || fail "$page: man --warnings: $(cat "$WORK/warn.txt")"
  LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$f" 2>&1 | sed 's/[‐−]/-/g; s/[’‘]/'"'"'/g' >"$WORK/$page.txt"
  grep -q "^ *$page - [a-z]" "$WORK/$page.txt" || fail "$page: no NAME line '$page - ...': $(head -5 "$WORK/$page.txt")"
  if [ "$page" = vkrr ]; then vkrr --help; else vkrr "${page#vkrr-}" --help; fi |
    sed -E '1s/^[Uu]sage: *//' >"$WORK/$page.help"
  words "$WORK/$page.help" >"$WORK/$page.help.words"
  words "$WORK/$page.txt" >"$WORK/$page.page.words"
  in_order "$WORK/$page.help.words" "$WORK/$page.page.words" >"$WORK/order.txt" ||
    fail "$page.1 does not say what --help says: $(cat "$WORK/order.txt")"
done
echo "man pages: vkrr $(wc -w <<<"$cmds") commands, each rendered and holding its --help"

# ---- bash ----
[ -f "$bashc" ] || fail "no $bashc"
[ -f "$zshc" ] || fail "no $zshc"
# complete WORD... : what bash offers for the last word (one a line)
complete_bash() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"
           _vkrr; printf "%s\n" "${COMPREPLY[@]}"' complete_bash "$bashc" "$@"
}
offers() { # WHAT WANT... -- WORD...: every WANT is among what bash offers for WORD...
  local what=$1 want=() got
  shift
  while [ "$1" != -- ]; do want+=("$1"); shift; done
  shift
  got=$(complete_bash "$@")
  for w in "${want[@]}"; do
    grep -qxF -- "$w" <<<"$got" || fail "bash: '$*' does not offer $w ($what); it offers: $(tr '\n' ' ' <<<"$got")"
  done
}
offers commands $cmds --help --version -- "$bin" ""
for c in $cmds; do
  # the options the help names: in the usage lines, at the start of an option
  # line ("  --json FILE  ...", "  -q, --quiet  ...", "  --atol X, --rtol X")
  # and in a list "options: --ref, --modules, ... as for 'vkrr validate'"
  vkrr "$c" --help >"$WORK/c.help"
  opts=$( { sed -n '1,/^$/p' "$WORK/c.help" | grep -oE -- '\[--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d '['
            grep -E '^ +-' "$WORK/c.help" | sed -E 's/^ +//; s/ {2,}.*//' | tr ',' '\n' |
              grep -oE -- '^ *--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' '
            awk '/^options: -/ { on = 1 } on && /^$/ { on = 0 } on' "$WORK/c.help" | tr '\n' ' ' |
              sed 's/ as for .*//' | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ,'
            true; } | sort -u)
  offers "vkrr $c --help" $opts --help -- "$bin" "$c" -
done
offers subcommands new -- "$bin" port ""
offers subcommands list extract -- "$bin" modules ""
offers subcommands measure list -- "$bin" hw ""
offers modes isolated chained both -- "$bin" validate cap --mode ""
offers references capture cpu cuda ptx -- "$bin" validate cap --ref ""
offers references cpu cuda ptx -- "$bin" bisect cap --ref ""
offers backends ptx cpu cuda -- "$bin" rerun cap --backend ""
offers backends cpu cuda -- "$bin" synth out --backend ""
offers heatmaps failing all none -- "$bin" validate cap --heatmaps ""
offers engines jit interp both -- "$bin" rerun cap --ptx-engine ""
offers scenes default stripes -- "$bin" synth out --scene ""
models=$(vkrr hw list | awk '$1 ~ /^sm_[0-9]+$/ { print $1 }')
[ -n "$models" ] || fail "vkrr hw list names no hardware model"
offers "hardware models" auto rounded $models -- "$bin" validate cap --approx ""
offers "hardware models" auto rounded $models -- "$bin" rerun cap --approx ""
# a prefix narrows, and a FILE argument completes files
[ "$(complete_bash "$bin" validate cap --mode ch)" = chained ] || fail "bash: --mode ch does not complete to chained"
touch "$WORK/afile.json"
complete_bash "$bin" validate cap --json "$WORK/afile" | grep -qxF "$WORK/afile.json" ||
  fail "bash: --json FILE does not complete a file"
echo "bash completion: commands, subcommands, every option of every --help, option values"

# ---- zsh ----
for c in $cmds; do
  grep -q "^    '$c:" "$zshc" || fail "zsh: no command $c"
done
grep -q "^      '\*--mode\[.*:value:(isolated chained both)'" "$zshc" || fail "zsh: --mode's values"
command -v zsh >/dev/null || e2e_skip zsh "no zsh to parse and run $zshc with (everything else passed)"
zsh -n "$zshc" || fail "zsh -n $zshc"
# what an interactive zsh offers on Tab (tests/zsh_complete.zsh drives one in
# a pseudo-terminal); vkrr from the build folder, as bash's checks above
zoffers() { # LINE WORD...
  zsh -f "$(dirname "$0")/zsh_complete.zsh" "$(dirname "$zshc")" "$build" "$@" >"$WORK/zsh.txt" 2>&1 ||
    fail "$(cat "$WORK/zsh.txt")"
}
zoffers "vkrr " $cmds
zoffers "vkrr validate cap --no-" --no-builtin --no-cache --no-hash-check
zoffers "vkrr validate cap --mode " isolated chained both
zoffers "vkrr rerun cap --backend " ptx cpu cuda
zoffers "vkrr validate cap --approx " auto rounded $models
zoffers "vkrr hw " measure list
echo "zsh completion: parses; commands, options, option values"
echo "e2e_cli_docs: PASS"
