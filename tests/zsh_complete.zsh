# zsh -f zsh_complete.zsh FPATHDIR PATHDIR LINE WORD...: types LINE and a Tab
# into an interactive zsh (a pseudo-terminal, compinit over FPATHDIR, vkrr
# found in PATHDIR) and waits up to 20 s for every WORD to be offered; exit 1,
# printing what zsh showed, when one is not.  tests/e2e_cli_docs.sh uses it.
setopt extendedglob
zmodload zsh/zpty || exit 2
local fdir=$1 pdir=$2 line=$3
shift 3
zpty z zsh -f -i
zpty -w z "PS1='>> '; fpath=(${(q)fdir} \$fpath); path=(${(q)pdir} \$path); autoload -U compinit; compinit -u -D; setopt nobeep; echo READY''READY"
local out="" chunk
zpty -r z chunk '*READYREADY*' || exit 2
zpty -w -n z "$line"$'\t'
local w missing
for i in {1..200}; do
  while zpty -r -t z chunk; do out+=$chunk; done
  missing=()
  for w in "$@"; do
    [[ ${out//$'\e'\[[0-9;?]#[a-zA-Z]/ } == *[[:space:]]$w([[:space:]]*|) ]] || missing+=($w)
  done
  (( ${#missing} )) || break
  sleep 0.1
done
zpty -d z
if (( ${#missing} )); then
  print -r -- "zsh: '$line' + Tab does not offer: $missing; zsh showed:"
  print -r -- "${${out//$'\e'\[[0-9;?]#[a-zA-Z]/ }//$'\r'/}"
  exit 1
fi
exit 0
