#!/usr/bin/env python3
"""The manual pages and the shell completion of vkrr, made from its --help.

    cli_docs.py VKRR OUTDIR --version V --date D --summary TEXT

runs `VKRR --help` and `VKRR CMD --help` for every command the first lists,
and writes, in the layout they are installed in (OUTDIR is PREFIX/share):

    OUTDIR/man/man1/vkrr.1.gz, vkrr-CMD.1.gz     one page per command
    OUTDIR/bash-completion/completions/vkrr      bash
    OUTDIR/zsh/vendor-completions/_vkrr          zsh

Nothing here restates what the help says: a page is the help text set in
roff, and the completion's commands, subcommands, options, option arguments
and literal option values are read off the usage lines and the option lines
(an indented line that starts with '-'; "--mode isolated|chained|both" gives
values, as do several lines "--ref cpu", "--ref ptx" ...).  Where the help
names an option's values in prose only, PROSE_VALUES lists them, and each
must still appear in that option's text or this script fails, so the build
fails rather than complete a value the help no longer documents.  The
hardware models (--approx sm_NN) are asked of `vkrr hw list` when completing.
"""
import argparse
import gzip
import os
import re
import subprocess
import sys

PROSE_VALUES = {
    "--heatmaps": ["failing", "all", "none"],
    "--approx": ["auto", "rounded"],
    "--ptx-engine": ["jit", "interp", "both"],
    "--scene": ["default", "stripes"],
}
HW_MODEL_OPTIONS = {"--approx"}  # also completes the sm_NN sets `vkrr hw list` names

OPT_RE = re.compile(r"^(--?[A-Za-z][A-Za-z0-9-]*)(?:[ =](\S+))?")
LITERALS_RE = re.compile(r"^[a-z0-9_]+(\|[a-z0-9_]+)*$")


def fail(msg):
    sys.exit("cli_docs.py: " + msg)


def help_text(vkrr, args):
    r = subprocess.run([vkrr] + args + ["--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        fail("`vkrr %s --help` exited %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout.expandtabs().rstrip("\n").split("\n")


def split_usage(lines):
    """The usage lines (each usage with its continuation lines) and the rest."""
    m = re.match(r"^usage:\s*", lines[0], re.I) if lines else None
    if not m:
        fail("the help does not start with 'usage: ': %r" % (lines[:1],))
    usages, i = [lines[0][m.end():].strip()], 1
    while i < len(lines) and lines[i].strip():
        s = lines[i].strip()
        if s.startswith("vkrr "):
            usages.append(s)
        else:
            usages[-1] += " " + s
        i += 1
    return usages, lines[i:]


def indent(line):
    return len(line) - len(line.lstrip(" "))


def is_item(line):
    """An option line: indented, starting with '-'."""
    return indent(line) > 0 and line.lstrip().startswith("-")


def item_term(line):
    """An option line's term (up to two spaces) and its description."""
    s = line.strip()
    m = re.search(r"\s{2,}", s)
    return (s[:m.start()], s[m.end():]) if m else (s, "")


def parse_blocks(lines):
    """The help body as ('heading', text), ('para', text), ('item', term, text),
    ('verbatim', [lines]) and ('blank',)."""
    blocks, i = [], 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            blocks.append(("blank",))
            i += 1
        elif indent(line) == 0 and line.endswith(":") and len(line) < 60:
            blocks.append(("heading", line[:-1]))
            i += 1
        elif is_item(line):
            term, desc = item_term(line)
            col, i = indent(line), i + 1
            words = [desc] if desc else []
            while i < len(lines) and lines[i].strip() and indent(lines[i]) > col \
                    and not (is_item(lines[i]) and indent(lines[i]) <= col + 2):
                words.append(lines[i].strip())
                i += 1
            blocks.append(("item", term, " ".join(words)))
        elif indent(line) > 0:
            verb = []
            while i < len(lines) and lines[i].strip() and indent(lines[i]) > 0 \
                    and not is_item(lines[i]):
                verb.append(lines[i])
                i += 1
            blocks.append(("verbatim", verb))
        else:
            para = []
            while i < len(lines) and lines[i].strip() and indent(lines[i]) == 0 \
                    and not (lines[i].endswith(":") and len(lines[i]) < 60 and not para):
                para.append(lines[i].strip())
                i += 1
                if para[-1].endswith(":") and i < len(lines) and indent(lines[i]) > 0:
                    break  # "exit:"-like lead-ins of an indented block stay text
            blocks.append(("para", " ".join(para)))
    return blocks


# ---- roff ---------------------------------------------------------------------

def roff_escape(s):
    s = s.replace("\\", "\\e").replace("-", "\\-").replace("'", "\\(aq").replace("`", "\\(ga")
    return s


def roff_line(s):
    s = roff_escape(s)
    return "\\&" + s if s[:1] in (".", "'") or s.startswith("\\(aq") else s


def roff_term(term):
    """An option's term: the options bold, the rest roman."""
    if re.match(r"^[a-z]+$", term):
        return "\\fB%s\\fR" % term
    out = []
    for tok in term.split(" "):
        if tok.startswith("-"):
            head, sep, rest = tok.partition(",")
            out.append("\\fB%s\\fR%s" % (roff_escape(head), roff_escape(sep + rest)))
        else:
            out.append(roff_escape(tok))
    return " ".join(out)


def roff_body(blocks):
    out, prev = [], None
    for b in blocks:
        kind = b[0]
        if kind == "blank":
            prev = kind
            continue
        if kind == "heading":
            out.append(".SS " + roff_line(b[1]))
        elif kind == "para":
            out += [".PP", roff_line(b[1])]
        elif kind == "item":
            out += [".TP", roff_term(b[1])]
            if b[2]:
                out.append(roff_line(b[2]))
        else:
            base = min(indent(x) for x in b[1])
            if prev not in ("item", "verbatim") or prev == "blank":
                out.append(".PP")
            out += [".RS 4", ".nf"] + [roff_line(x[base:]) for x in b[1]] + [".fi", ".RE"]
        prev = kind
    return out


def man_page(name, whatis, usages, body, version, date, see_also):
    out = ['.TH %s 1 "%s" "vkrr %s" "vkrr manual"' % (name.upper().replace("-", "\\-"), date,
                                                    version),
           ".nh", ".ad l", ".SH NAME", "%s \\- %s" % (roff_escape(name), roff_escape(whatis)),
           ".SH SYNOPSIS"]
    for k, u in enumerate(usages):
        if k:
            out.append(".br")
        words = u.split(" ")
        ncmd = 2 if len(words) > 1 and re.match(r"^[a-z]+$", words[1]) else 1
        if len(words) > 2 and ncmd == 2 and re.match(r"^[a-z]+$", words[2]):
            ncmd = 3
        out.append("\\fB%s\\fR %s" % (roff_escape(" ".join(words[:ncmd])),
                                      roff_escape(" ".join(words[ncmd:]))))
    out.append(".SH DESCRIPTION")
    out += roff_body(body)
    out += [".SH SEE ALSO", ",\n".join(".BR %s (1)" % s for s in see_also)]
    return "\n".join(out) + "\n"


def write_gz(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as raw:  # gzip -9n: no name, no time (reproducible)
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as f:
            f.write(text.encode())


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


# ---- what the completion knows --------------------------------------------------

class Opt:
    def __init__(self, name):
        self.name, self.arg, self.values, self.desc = name, None, [], ""


def command_options(usages, body_lines):
    """{option: Opt} from the usage lines and the option lines of one help."""
    opts = {}

    def note(name, arg, desc):
        o = opts.setdefault(name, Opt(name))
        if arg and not arg.startswith("-"):
            arg = arg.strip("[]").rstrip(",")
            if LITERALS_RE.match(arg):
                o.values += [v for v in arg.split("|") if v not in o.values]
            elif o.arg is None and re.search(r"[A-Z]", arg):
                o.arg = arg
        if desc and not o.desc:
            o.desc = desc

    for u in usages:
        for m in re.finditer(r"\[(--?[A-Za-z][\w-]*)(?: ([^\]\[ ]+))?", u):
            note(m.group(1), m.group(2), "")
        for m in re.finditer(r"(?<![\[\w-])(--?[A-Za-z][\w-]*) ([A-Z][^\s\]]*)", u):
            note(m.group(1), m.group(2), "")
    for b in parse_blocks(body_lines):
        if b[0] == "item":
            term, desc = b[1], b[2]
        elif b[0] == "para" and re.match(r"^(options: )?--?[A-Za-z]", b[1]):
            # "options: --ref, --modules, ... -q as for 'vkrr validate'": names only
            for part in b[1].replace("options: ", "", 1).split(", "):
                m = OPT_RE.match(part.strip())
                if m:
                    note(m.group(1), None, "")
            continue
        else:
            continue
        for part in term.split(", "):
            m = OPT_RE.match(part.strip())
            if m:
                note(m.group(1), m.group(2), desc)
    for name, values in PROSE_VALUES.items():
        o = opts.get(name)
        if o is not None and o.desc:  # described here (not "as for 'vkrr validate'")
            text = o.desc + " " + " ".join(usages)
            for v in values:
                if not re.search(r"\b%s\b" % re.escape(v), text):
                    fail("PROSE_VALUES: the help no longer names %s's value '%s'" % (name, v))
            o.values += [v for v in values if v not in o.values]
    opts.setdefault("--help", Opt("--help")).desc = "this help"
    return opts


def subcommands(cmd, usages):
    subs = []
    for u in usages:
        w = u.split(" ")
        if len(w) > 2 and w[1] == cmd and re.match(r"^[a-z]+$", w[2]) and w[2] not in subs:
            subs.append(w[2])
    return subs


def arg_kind(arg):
    if arg is None:
        return None
    if "FILE" in arg or arg.endswith(".json") or arg.endswith(".ptx"):
        return "file"
    if "DIR" in arg:
        return "dir"
    return "word"


def inherit(cmds):
    """An option a help names without its argument (bisect's "as for 'vkrr
    validate'") takes it as the commands that describe it do."""
    for c in cmds.values():
        for o in c["opts"].values():
            if o.desc or o.arg or o.values:
                continue  # described here
            others = [oc["opts"][o.name] for oc in cmds.values()
                      if oc is not c and o.name in oc["opts"] and oc["opts"][o.name].desc]
            o.values = sorted({v for d in others for v in d.values})
            o.arg = next((d.arg for d in others if d.arg), None)
            o.desc = next((d.desc for d in others), "")


def short(desc):
    d = re.split(r"; |: |\. ", desc.replace("[", "(").replace("]", ")"))[0]
    if len(d) > 60:
        d = d[:60].rsplit(" ", 1)[0]
    while d.count("(") > d.count(")"):
        d = d[:d.rindex("(")]
    return d.rstrip(" ,;(")


BASH_HEAD = r'''# bash completion for vkrr                                  -*- shell-script -*-
# Generated from `vkrr --help` and `vkrr COMMAND --help` by scripts/cli_docs.py.

_vkrr_hw_models() {
    "${COMP_WORDS[0]}" hw list 2>/dev/null | awk '$1 ~ /^sm_[0-9]+$/ { print $1 }'
}

_vkrr() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmd=${COMP_WORDS[1]} opts="" subs="" kind="" values=""
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "%(commands)s --help --version" -- "$cur"))
        return
    fi
    case $cmd in
'''

BASH_TAIL = r'''    esac
    if [ -n "$subs" ] && [ "$COMP_CWORD" -eq 2 ] && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
        return
    fi
    case $kind in
    file) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
    dir) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
    word) compopt +o default 2>/dev/null; return ;;
    values) COMPREPLY=($(compgen -W "$values" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    fi
}
complete -o default -F _vkrr vkrr
'''


def bash_completion(cmds):
    out = [BASH_HEAD % {"commands": " ".join(cmds)}]
    for name, c in cmds.items():
        opts = c["opts"]
        out.append("    %s)\n" % name)
        out.append('        opts="%s"\n' % " ".join(sorted(opts)))
        if c["subs"]:
            out.append('        subs="%s"\n' % " ".join(c["subs"]))
        cases = []
        for o in sorted(opts.values(), key=lambda o: o.name):
            if o.values:
                extra = " $(_vkrr_hw_models)" if o.name in HW_MODEL_OPTIONS else ""
                cases.append('        %s) kind=values; values="%s%s" ;;\n'
                             % (o.name, " ".join(o.values), extra))
            elif arg_kind(o.arg):
                cases.append("        %s) kind=%s ;;\n" % (o.name, arg_kind(o.arg)))
        if cases:
            out.append('        case $prev in\n' + "".join(cases) + "        esac\n")
        out.append("        ;;\n")
    out.append(BASH_TAIL)
    return "".join(out)


def zsh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def zsh_completion(cmds, summaries):
    out = ["#compdef vkrr",
           "# zsh completion for vkrr, generated from `vkrr --help` and `vkrr COMMAND --help`",
           "# by scripts/cli_docs.py.", "",
           "_vkrr_approx() {",
           "  local -a models",
           "  models=(${(f)\"$(${words[1]} hw list 2>/dev/null | awk '$1 ~ /^sm_[0-9]+$/ { print $1 }')\"})",
           "  compadd -- \"$@\" $models",
           "}", "",
           "_vkrr() {",
           "  local -a commands",
           "  commands=("]
    for name in cmds:
        out.append("    %s" % zsh_quote("%s:%s" % (name, summaries[name].replace(":", "\\:"))))
    out += ["  )",
            "  if (( CURRENT == 2 )); then",
            "    _describe -t commands 'vkrr command' commands",
            "    compadd -- --help --version",
            "    return",
            "  fi",
            "  case $words[2] in"]
    for name, c in cmds.items():
        out.append("  %s)" % name)
        if c["subs"]:
            out.append("    if (( CURRENT == 3 )); then compadd -- %s; return; fi"
                       % " ".join(c["subs"]))
        specs = []
        for o in sorted(c["opts"].values(), key=lambda o: o.name):
            desc = short(o.desc) or o.name
            spec = "*%s[%s]" % (o.name, desc.replace("[", "(").replace("]", ")"))
            if o.values:
                vals = " ".join(o.values)
                if o.name in HW_MODEL_OPTIONS:
                    spec += ":value:{_vkrr_approx %s}" % vals
                else:
                    spec += ":value:(%s)" % vals
            elif arg_kind(o.arg) == "file":
                spec += ":%s:_files" % o.arg.lower()
            elif arg_kind(o.arg) == "dir":
                spec += ":%s:_files -/" % o.arg.lower()
            elif arg_kind(o.arg) == "word":
                spec += ":%s: " % o.arg.lower().replace(":", "")
            specs.append(zsh_quote(spec))
        specs.append(zsh_quote("*:file:_files"))
        out.append("    _arguments -s -S \\\n      " + " \\\n      ".join(specs))
        out.append("    ;;")
    out += ["  esac", "}", "", '_vkrr "$@"', ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vkrr")
    ap.add_argument("outdir")
    ap.add_argument("--version", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--summary", required=True, help="vkrr(1)'s NAME line")
    a = ap.parse_args()

    top = help_text(a.vkrr, [])
    usages, body = split_usage(top)
    summaries, in_cmds = {}, False
    for line in body:
        if line.strip().lower() == "commands:":
            in_cmds = True
        elif in_cmds and re.match(r"^  [a-z]+ +\S", line):
            name, text = line.split(None, 1)
            summaries[name] = text.strip()
        elif in_cmds and not line.strip():
            in_cmds = False
    if not summaries:
        fail("`vkrr --help` lists no commands (a 'commands:' block)")

    cmds, pages = {}, {}
    for name in summaries:
        u, b = split_usage(help_text(a.vkrr, [name]))
        cmds[name] = {"opts": command_options(u, b), "subs": subcommands(name, u)}
        pages[name] = (u, b)
    inherit(cmds)

    man1 = os.path.join(a.outdir, "man", "man1")
    allpages = ["vkrr"] + ["vkrr-" + n for n in summaries]
    blocks = parse_blocks(body)
    # the commands block of vkrr(1): each command a tagged paragraph naming its page
    top_blocks, skip = [], False
    for b in blocks:
        if b[0] == "heading" and b[1].lower() == "commands":
            top_blocks.append(b)
            for n, s in summaries.items():
                top_blocks.append(("item", n, "%s (vkrr-%s(1))" % (s, n)))
            skip = True
        elif skip and b[0] == "verbatim":
            skip = False
        else:
            top_blocks.append(b)
    write_gz(os.path.join(man1, "vkrr.1.gz"),
             man_page("vkrr", a.summary, usages, top_blocks, a.version, a.date, allpages[1:]))
    for name, (u, b) in pages.items():
        write_gz(os.path.join(man1, "vkrr-%s.1.gz" % name),
                 man_page("vkrr-" + name, summaries[name], u, parse_blocks(b), a.version,
                          a.date, ["vkrr"]))
    write_text(os.path.join(a.outdir, "bash-completion", "completions", "vkrr"),
               bash_completion(cmds))
    write_text(os.path.join(a.outdir, "zsh", "vendor-completions", "_vkrr"),
               zsh_completion(cmds, summaries))


if __name__ == "__main__":
    main()
