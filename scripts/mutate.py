#!/usr/bin/env python3
"""Mutation testing of vkrr's verdict and model code (scripts/mutate.sh runs it).

A mutant is one small, plausible bug inside a function body:
  operator    a comparison, arithmetic, logical, bitwise or shift operator
              swapped for its neighbour (< for <=, + for -, && for ||, ...)
  constant    an integer constant n made n+1 or n-1 (not the sentinel -1)
  call        a rounding or min/max call swapped (floor/ceil/trunc, fmin/fmax),
              true for false
  negate      an if or while condition negated
  delete      a break or continue deleted
Comments, strings and preprocessor lines are never touched.  For each mutant the file is changed in place in a build
tree's source checkout, the targets its tests need are rebuilt, and the tests
named for that file (TESTS below) run, cheapest first, until one fails.

Outcomes:
  killed      a test failed (or timed out) with the mutant
  survived    every test passed: a bug the suite does not see
  equivalent  the compiler made the same object code as from the original
              (so no test could tell them apart: "trivial compiler
              equivalence"), or scripts/mutate-triage.md explains why the
              program cannot behave differently (equivalent) or differs only
              where nothing is specified, such as the last bits of a mean
              (benign)
  stillborn   the mutant does not compile (not counted)

score = killed / (killed + survived).  The source file is put back after each
mutant, also on Ctrl-C.
"""
import argparse
import hashlib
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time

# The code that decides verdicts and models hardware, and the tests named for
# each file: every test that reads or exercises it.  The campaign runs these,
# cheapest first.
TESTS = {
    "src/validate/validate_chain.c": "test_chain_frames|test_chain_state|test_chain_ref|test_validate|e2e_left|test_damage$|test_bisect$",
    "src/validate/validate.c": "test_validate|test_chain_frames|test_damage$|e2e_left|e2e_synth",
    "src/validate/validate_run.c": "test_validate|test_chain_frames|test_damage$|test_bisect$",
    "src/validate/validate_left.c": "e2e_left|test_validate",
    "src/validate/validate_hwnote.c": "test_validate|test_ptx_validate$",
    "src/validate/validate_inputs.c": "test_validate|test_chain_frames",
    "src/capture/capture_links.c": "test_capture_links|test_chain_frames|test_chain_state|test_capture$|test_validate|test_damage$|e2e_bridge",
    "src/validate/bisect.c": "test_bisect_rule|test_bisect$|test_chain_ref",
    "src/validate/chain_ref.c": "test_chain_ref|test_bisect$",
    "src/validate/launch_result.c": "test_validate|test_chain_frames|test_damage$",
    "src/validate/sampler_fit.c": "test_validate|test_chain_state|test_ptx_texgeo$|test_texfilter",
    "src/validate/shard.c": "e2e_shard",
    "src/validate/stress.c": "e2e_stress",
    "src/validate/stress_values.c": "e2e_stress",
    "src/compare/compare.c": "test_compare|test_validate",
    "src/compare/compare_f16.c": "test_compare|test_validate",
    "src/compare/compare_scan.c": "test_compare|test_validate",
    "src/compare/compare_tol.c": "test_compare|test_hw_cli|test_validate",
    "src/base/textlist.c": "test_textlist|test_hw_cli",
    "src/cli/cmd_merge.c": "e2e_shard",
    "src/cli/cli_summary.c": "e2e_shard|e2e_synth|e2e_left|test_chain_state",
    "src/hw/approx.c": "test_hw_model|test_ptx_float$|test_ports_common|test_hw_cli",
    "src/hw/hw_model.c": "test_hw_model|test_hw_cli|test_ptx_float$",
    "src/hw/hw_tables.c": "test_hw_model|test_hw_cli|fuzz_regress_hwtables",
    "src/hw/measure.c": "test_hw_cli|test_hw_model|test_hw_sim",
    "src/hw/texfilter.c": "test_texfilter|test_ptx_tex$|test_ptx_texgeo$",
    "src/base/fpformat.c": "test_fpformat|test_compare|test_ptx_cvt$",
    "cuda_ref/ptx/isa/ptx_mma_sum.c": "test_mma_sum$|test_mma_sum_simd$|test_mma_sum_portable$|test_ptx_mma$|test_ptx_mma_sp8$|test_ptx_wmma$",
}
# The bugs a mutation audit found the suite blind to (issue "The tests catch
# what they claim"), written out: each must be killed by its file's tests.
# `--held-out` runs exactly these.
HELD_OUT = [
    ("src/capture/capture_links.c", "for (uint32_t j = li; j-- > from && pl == NONE;)",
     "for (uint32_t j = li; j-- > from;)",
     "a texture reads the EARLIEST earlier surface of its array, not the latest"),
    ("src/validate/bisect.c",
     "return e == VKRR_EVIDENCE_ORIGINAL ? !r->chained_original_pass : isolated_bad(r);",
     "return isolated_bad(r) || (e == VKRR_EVIDENCE_ORIGINAL && !r->chained_original_pass);",
     "culprit when the isolated error is bad although the original on the chained inputs agrees"),
    ("src/cli/cmd_merge.c", "if (e[i].r->launch->sequence == e[i - 1].r->launch->sequence) {",
     "if (0 && e[i].r->launch->sequence == e[i - 1].r->launch->sequence) {",
     "two shards holding the same launch are merged"),
    ("src/compare/compare_scan.c", "__int128 u = (x >> 63 ? -ix : ix) - (y >> 63 ? -iy : iy);",
     "__int128 u = (x >> 63 ? -ix - 1 : ix) - (y >> 63 ? -iy : iy);",
     "f64 ULP distance off by one for negative values"),
    ("src/hw/approx.c", "(rsq ? 4096.0f : 0x1p-12f)", "(rsq ? 2048.0f : 0x1p-12f)",
     "an f32 subnormal's rsqrt rescaled by 2048 instead of 4096"),
    ("src/base/fpformat.c", "if (satfinite || dir < 0)", "if (satfinite)",
     "toward zero (RZ, RM of +, RP of -) past the largest finite value not clamped"),
    ("src/hw/texfilter.c", "s += w[k] * (trunc(t[k] / g) * g);", "s += w[k] * (floor(t[k] / g) * g);",
     "texels rounded down to the grid instead of toward zero"),
]

VERDICT = ("src/validate/", "src/compare/", "src/cli/cmd_merge.c", "src/cli/cli_summary.c",
           "src/base/textlist.c",
           "src/capture/capture_links.c")

# ---- a small C tokenizer: enough to never touch comments, strings, # lines ----
TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<number>(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uUlLfF]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<punct><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>=!&|^~?:;,.(){}\[\]])
  | (?P<other>.)
""", re.S | re.X)


def tokens(text):
    """(kind, value, start, end, line) for each token; preprocessor lines
    (with their continuations) come out as kind 'pp'."""
    out, pos, line = [], 0, 1
    at_line_start = True
    while pos < len(text):
        if at_line_start:
            m = re.match(r"[ \t]*#(?:[^\n\\]|\\.)*", text[pos:], re.S)
            if m:
                end = pos + m.end()
                out.append(("pp", text[pos:end], pos, end, line))
                line += text.count("\n", pos, end)
                pos = end
                continue
        m = TOKEN.match(text, pos)
        kind = m.lastgroup
        val = m.group(kind)
        out.append((kind, val, pos, m.end(), line))
        nl = val.count("\n")
        # a "#" starts a directive only as the first thing on its line
        at_line_start = (kind == "ws" and nl > 0) or (at_line_start and kind in ("ws", "comment") and nl == 0)
        line += nl
        pos = m.end()
    return out


SWAPS = {  # operator token -> replacements (relational, arithmetic, logical, bitwise, shift)
    "<": ["<="], "<=": ["<"], ">": [">="], ">=": [">"], "==": ["!="], "!=": ["=="],
    "&&": ["||"], "||": ["&&"], "<<": [">>"], ">>": ["<<"],
    "+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "%": ["*"],
    "&": ["|"], "|": ["&"], "^": ["|"],
    "+=": ["-="], "-=": ["+="], "++": ["--"], "--": ["++"],
}
FUNCS = {"floor": "ceil", "ceil": "floor", "trunc": "floor", "floorf": "ceilf", "ceilf": "floorf",
         "truncf": "floorf", "fmin": "fmax", "fmax": "fmin", "fminf": "fmaxf", "fmaxf": "fminf",
         "true": "false", "false": "true", "nearbyint": "trunc", "rint": "trunc", "lrint": "lround"}
SKIP_IDENT_BEFORE = {"sizeof", "return", "case"}


def mutants(text):
    """Every mutant of text: dicts with line, col, op, orig, new, start, end."""
    toks = [t for t in tokens(text) if t[0] not in ("ws", "comment")]
    found = []
    depth_brace = 0
    for i, (kind, val, s, e, line) in enumerate(toks):
        prev = toks[i - 1] if i else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if kind == "punct" and val == "{":
            depth_brace += 1
        if kind == "punct" and val == "}":
            depth_brace -= 1
        if depth_brace == 0:
            continue  # declarations and initialisers outside functions: tables, not logic
        if kind == "punct" and val in SWAPS:
            binary = prev is not None and (prev[0] in ("ident", "number") or prev[1] in (")", "]"))
            if prev is not None and prev[0] == "ident" and prev[1] in SKIP_IDENT_BEFORE:
                binary = False
            if val in ("+", "-", "*", "&") and not binary:
                continue  # unary: sign, dereference, address
            if val == "*" and prev is not None and prev[0] == "ident" and nxt is not None and \
                    nxt[0] == "ident" and toks[i - 2][1] in (";", "{", "}", "(", ",", "const"):
                continue  # a declaration "type *name"
            for new in SWAPS[val]:
                found.append(dict(line=line, start=s, end=e, op="operator", orig=val, new=new))
        elif kind == "number" and not re.search(r"[.eE]", val.rstrip("fFlLuU")) or \
                kind == "number" and val.lower().startswith("0x"):
            digits = val.rstrip("uUlL")
            suffix = val[len(digits):]
            try:
                n = int(digits, 0)
            except ValueError:
                continue
            if val == "1" and prev is not None and prev[1] == "-" and \
                    not (toks[i - 2][0] in ("ident", "number") or toks[i - 2][1] in (")", "]")):
                continue  # the sentinel -1 ("none", "not known"): -2 means the same
            if prev is not None and prev[1] == "[" and nxt is not None and nxt[1] == "]" and \
                    toks[i - 2][0] == "ident" and toks[i - 3][0] == "ident":
                continue  # an array's declared size
            reps = [n + 1] if n != 0 else [1]
            if n > 1:
                reps.append(n - 1)
            for r in reps:
                new = (hex(r) if digits.lower().startswith("0x") else str(r)) + suffix
                found.append(dict(line=line, start=s, end=e, op="constant", orig=val, new=new))
        elif kind == "ident" and val in FUNCS and (val in ("true", "false") or
                                                  (nxt is not None and nxt[1] == "(")):
            found.append(dict(line=line, start=s, end=e, op="call", orig=val, new=FUNCS[val]))
        elif kind == "ident" and val in ("if", "while") and nxt is not None and nxt[1] == "(":
            # negate the condition: find its closing parenthesis
            d, j = 0, i + 1
            while j < len(toks):
                d += toks[j][1] == "("
                d -= toks[j][1] == ")"
                if d == 0:
                    break
                j += 1
            if j < len(toks):
                found.append(dict(line=line, start=nxt[2], end=toks[j][3], op="negate",
                                  orig=text[nxt[2]:toks[j][3]],
                                  new="(!" + text[nxt[2]:toks[j][3]] + ")"))
        elif kind == "ident" and val in ("break", "continue") and nxt is not None and nxt[1] == ";":
            found.append(dict(line=line, start=s, end=nxt[3], op="delete", orig=val + ";", new=";"))
    return found


def held_mutants(rel, text):
    """HELD_OUT's mutants of file rel, as mutants() gives them."""
    out = []
    for f, old, new, why in HELD_OUT:
        if f != rel:
            continue
        at = text.find(old)
        if at < 0 or text.find(old, at + 1) >= 0:
            sys.exit("mutate: %s: the held-out mutant's line is not there once: %s" % (f, old))
        out.append(dict(line=text.count("\n", 0, at) + 1, start=at, end=at + len(old), op="held-out",
                        orig=old, new=new))
    return out


SEP = " @@ "  # never in C code, unlike "|"


FUNC_DEF = re.compile(r"^[A-Za-z_][^;{}()\n]*?\b(\w+)\s*\([^;{}]*\)\s*\n\{", re.M)


def enclosing_function(text, pos):
    """The function whose body holds pos (definitions start at column 0 and
    open their body on the next line, as STYLE.md writes them); "" outside."""
    name = ""
    for m in FUNC_DEF.finditer(text, 0, pos):
        name = m.group(1)
    return name


def mutant_key(path, text, m):
    """A name for a mutant that survives edits elsewhere in the file: the
    line's text, which occurrence of orig on it, and the change.  A line
    whose text is not unique in the file is named with its function too
    ("in FUNC: TEXT"), so that two identical lines are never triaged as one."""
    ls = text.rfind("\n", 0, m["start"]) + 1
    le = text.find("\n", m["start"])
    line_text = text[ls:le if le >= 0 else len(text)]
    occ = line_text[:m["start"] - ls].count(m["orig"]) + 1
    shown = line_text.strip()
    if sum(1 for ln in text.split("\n") if ln.strip() == shown) > 1:
        shown = "in %s: %s" % (enclosing_function(text, m["start"]) or "(file scope)", shown)
    return SEP.join((path, shown, str(occ), m["orig"], m["new"]))


def read_triage(path):
    """scripts/mutate-triage.md's equivalent mutants: lines
    `- equivalent: `FILE @@ LINE TEXT @@ OCCURRENCE @@ ORIG @@ NEW` -- why`
    (the key the campaign prints for a survivor)."""
    known = {}
    if not os.path.exists(path):
        return known
    for ln in open(path, encoding="utf-8"):
        m = re.match(r"- (equivalent|benign|tested): `(.+?)` -- (.*)$", ln.rstrip("\n"))
        if m:
            parts = [p.strip() for p in m.group(2).split(SEP.strip())]
            if len(parts) == 5:
                known[SEP.join(parts)] = (m.group(1), m.group(3))
    return known


class Campaign:
    def __init__(self, args):
        self.a = args
        self.src = args.source
        self.build = args.build
        self.cc = self.load_compile_commands()
        self.timing = {}

    def load_compile_commands(self):
        p = os.path.join(self.build, "compile_commands.json")
        if not os.path.exists(p):
            sys.exit("mutate: %s is missing (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)" % p)
        cc = {}
        for e in json.load(open(p)):
            f = os.path.realpath(os.path.join(e["directory"], e["file"]))
            if f.startswith(os.path.realpath(self.src) + os.sep) and f not in cc:
                cc[f] = e
        return cc

    def object_code(self, path):
        """The file compiled without debug information: equal bytes mean the
        compiler could not tell the mutant from the original."""
        e = self.cc.get(os.path.realpath(path))
        if e is None:
            return None
        argv = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
        out, keep, skip = [], [], False
        for k, x in enumerate(argv):
            if skip:
                skip = False
                continue
            if x == "-o":
                skip = True
                continue
            if x in ("-g", "-MD", "-MMD") or x.startswith("-g") and x[2:3].isdigit() or x in ("-MF", "-MT", "-MQ"):
                if x in ("-MF", "-MT", "-MQ"):
                    skip = True
                continue
            out.append(x)
        if out and out[0].endswith("ccache"):
            out = out[1:]
        obj = os.path.join(self.build, "mutate.tmp.o")
        r = subprocess.run(out + ["-g0", "-o", obj], cwd=e["directory"], capture_output=True)
        if r.returncode != 0:
            return None
        subprocess.run(["objcopy", "--strip-debug", "--remove-section=.comment", obj], check=False)
        data = open(obj, "rb").read()
        os.unlink(obj)
        return hashlib.sha256(data).hexdigest()

    def tests_for(self, regex):
        """The ctest tests matching regex, and the build targets they run:
        vkrr, and each test's executable (a test named after its target, or
        TARGET_MODE / TARGET_oracle for the same binary run another way)."""
        r = subprocess.run(["ctest", "-N", "-R", regex], cwd=self.build, capture_output=True, text=True)
        names = re.findall(r"^\s*Test\s+#\d+: (\S+)", r.stdout, re.M)
        r = subprocess.run(["ninja", "-C", self.build, "-t", "targets", "all"], capture_output=True, text=True)
        known = set(os.path.basename(ln.split(":")[0]) for ln in r.stdout.splitlines())
        targets = set(["vkrr"])
        for n in names:
            for t in (n, n.rsplit("_", 1)[0]):
                if t in known:
                    targets.add(t)
                    break
        return names, sorted(targets)

    def run_tests(self, names, timeout):
        """None when every test passes; else the first that failed."""
        order = sorted(names, key=lambda n: self.timing.get(n, 1e9))
        for n in order:
            try:
                r = subprocess.run(["ctest", "-R", "^%s$" % re.escape(n), "--timeout", str(int(timeout(n)))],
                                   cwd=self.build, capture_output=True, text=True, timeout=timeout(n) + 60)
            except subprocess.TimeoutExpired:
                return n + " (timeout)"
            if r.returncode != 0:
                return n + (" (timeout)" if "Timeout" in r.stdout else "")
        return None

    def baseline(self, names, targets):
        self.ninja(targets, check=True)
        for n in names:
            if n in self.timing:
                continue
            t = time.time()
            r = subprocess.run(["ctest", "-R", "^%s$" % re.escape(n)], cwd=self.build, capture_output=True, text=True)
            self.timing[n] = time.time() - t
            if r.returncode != 0:
                sys.exit("mutate: %s fails without any mutant; fix it first:\n%s" % (n, r.stdout[-2000:]))

    def ninja(self, targets, check=False):
        r = subprocess.run(["cmake", "--build", self.build, "--target"] + targets, capture_output=True, text=True)
        if check and r.returncode != 0:
            sys.exit("mutate: the build fails without any mutant:\n" + r.stdout[-3000:])
        return r.returncode == 0

    def run_file(self, rel, triage, results, held=None):
        path = os.path.join(self.src, rel)
        text = open(path, encoding="utf-8").read()
        regex = self.a.tests or TESTS.get(rel)
        if not regex:
            print("mutate: %s has no tests named in scripts/mutate.py TESTS; give --tests REGEX" % rel)
            return
        names, targets = self.tests_for(regex)
        if not names:
            print("mutate: no ctest test matches '%s' (for %s)" % (regex, rel))
            return
        every = mutants(text) if held is None else held_mutants(rel, text)
        if self.a.lines:
            lo, hi = self.a.lines
            every = [m for m in every if lo <= m["line"] <= hi]
        chosen = list(every)
        random.Random("%s:%d" % (rel, self.a.seed)).shuffle(chosen)
        if held is not None:
            pass  # every held-out mutant of the file
        elif self.a.survivors is not None:  # exactly those, whatever --max says
            chosen = [m for m in chosen if mutant_key(rel, text, m) in self.a.survivors]
        elif self.a.max:
            chosen = chosen[:self.a.max]
        chosen.sort(key=lambda m: (m["start"], m["new"]))
        if self.a.list:
            for m in chosen:
                print("%s:%d: %s %s -> %s" % (rel, m["line"], m["op"], m["orig"], m["new"]))
            return
        self.baseline(names, targets)
        orig_code = self.object_code(path)
        pending = os.path.join(self.build, "mutate.pending")
        print("== %s: %d of %d mutants; tests: %s" % (rel, len(chosen), len(every), " ".join(names)), flush=True)
        timeout = lambda n: max(30.0, 4 * self.timing.get(n, 30.0))
        for m in chosen:
            key = mutant_key(rel, text, m)
            mutated = text[:m["start"]] + m["new"] + text[m["end"]:]
            where = "%s:%d: %s %s -> %s" % (rel, m["line"], m["op"], m["orig"], m["new"])
            try:
                # named until the original is rebuilt: a run killed before that
                # leaves a mutant's objects, which the next run rebuilds
                open(pending, "w").write(path)
                open(path, "w", encoding="utf-8").write(mutated)
                code = self.object_code(path)
                if code is None:
                    outcome, why = "stillborn", "does not compile"
                elif code == orig_code:
                    outcome, why = "equivalent", "same object code"
                elif key in triage and triage[key][0] in ("equivalent", "benign"):
                    outcome, why = "equivalent", triage[key][0] + ": " + triage[key][1]
                elif not self.ninja(targets):
                    outcome, why = "stillborn", "does not build"
                else:
                    failed = self.run_tests(names, timeout)
                    outcome, why = ("killed", failed) if failed else ("survived", "")
            finally:
                open(path, "w", encoding="utf-8").write(text)
            results.append(dict(file=rel, line=m["line"], op=m["op"], orig=m["orig"], new=m["new"],
                                outcome=outcome, by=why, key=key))
            print("%-10s %s%s" % (outcome, where, "  [" + why + "]" if why else ""), flush=True)
            if outcome == "survived":
                print("           triage key: `%s`" % key, flush=True)
        self.ninja(targets)
        if os.path.exists(pending):
            os.unlink(pending)


def summary(results, out):
    files = []
    for r in results:
        if r["file"] not in files:
            files.append(r["file"])
    out.write("%-34s %6s %6s %6s %6s %6s\n" % ("file", "killed", "surviv", "equiv", "stillb", "score"))
    tot = {"verdict": [0, 0], "model": [0, 0]}
    for f in files:
        c = {k: sum(1 for r in results if r["file"] == f and r["outcome"] == k)
             for k in ("killed", "survived", "equivalent", "stillborn")}
        n = c["killed"] + c["survived"]
        out.write("%-34s %6d %6d %6d %6d %5.0f%%\n" % (f, c["killed"], c["survived"], c["equivalent"],
                                                     c["stillborn"], 100.0 * c["killed"] / n if n else 100))
        side = "verdict" if f.startswith(VERDICT) else "model"
        tot[side][0] += c["killed"]
        tot[side][1] += n
    for side, (k, n) in tot.items():
        if n:
            out.write("%s code: %d of %d killed (%.0f%%)\n" % (side, k, n, 100.0 * k / n))


def main():
    root = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
    p = argparse.ArgumentParser(prog="scripts/mutate.sh", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", help="files to mutate, relative to the repository "
                   "(default: every file in TESTS)")
    p.add_argument("--source", default=root, help="the checkout whose files are mutated "
                   "(scripts/mutate.sh: a copy in build-mutate/src)")
    p.add_argument("--build", default=os.path.join(root, "build-mutate", "obj"),
                   help="its build folder, configured with CMAKE_EXPORT_COMPILE_COMMANDS=ON")
    p.add_argument("--triage", default=os.path.join(root, "scripts", "mutate-triage.md"),
                   help="the triage of survivors (default scripts/mutate-triage.md)")
    p.add_argument("--max", type=int, default=40, help="mutants per file, a seeded sample (0: all; default 40)")
    p.add_argument("--seed", type=int, default=1, help="which sample (default 1)")
    p.add_argument("--lines", help="only mutants on lines A-B")
    p.add_argument("--tests", help="ctest regex to run instead of the file's own")
    p.add_argument("--survivors", metavar="RESULTS", help="rerun only the mutants that survived "
                   "in RESULTS (a --results file), after tests were added")
    p.add_argument("--held-out", action="store_true", help="run the audit's named mutants "
                   "(HELD_OUT) instead: each must be killed")
    p.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    p.add_argument("--results", help="also write every outcome here (JSON lines)")
    a = p.parse_args()
    a.source = os.path.realpath(a.source)
    if a.lines:
        m = re.fullmatch(r"(\d+)-(\d+)", a.lines)
        if not m:
            p.error("--lines takes A-B, not '%s'" % a.lines)
        a.lines = (int(m.group(1)), int(m.group(2)))
    if a.survivors:
        keys = set()
        for ln in open(a.survivors, encoding="utf-8"):
            r = json.loads(ln)
            if r["outcome"] == "survived":
                keys.add(r["key"])
        a.survivors = keys
    files = a.files or ([f for f, *_ in HELD_OUT if f] if a.held_out else list(TESTS))
    files = list(dict.fromkeys(files))
    for f in files:
        if not os.path.isfile(os.path.join(a.source, f)):
            p.error("no such file: %s" % f)
    c = Campaign(a)
    pending = os.path.join(a.build, "mutate.pending")
    if os.path.exists(pending):  # an earlier run stopped with a mutant's objects built
        stale = open(pending).read().strip()
        if os.path.exists(stale):
            os.utime(stale)
        os.unlink(pending)
    results = []
    triage = read_triage(a.triage)

    def stop(sig, frame):
        raise KeyboardInterrupt  # the mutant's finally puts the file back
    signal.signal(signal.SIGTERM, stop)
    try:
        for f in files:
            c.run_file(f, triage, results, held=True if a.held_out else None)
    except KeyboardInterrupt:
        print("mutate: interrupted; the file is put back", flush=True)
    if a.list:
        return 0
    print()
    summary(results, sys.stdout)
    if a.results:
        with open(a.results, "a", encoding="utf-8") as out:
            for r in results:
                out.write(json.dumps(r) + "\n")
    return 1 if any(r["outcome"] == "survived" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
