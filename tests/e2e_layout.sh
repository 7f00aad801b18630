#!/usr/bin/env bash
# The tree reads as the data flow (README "Layout"), and stays so:
#   - src/ has no source file at its root (each stage is a folder);
#   - no source file in src/, vkbridge/, cuda_ref/ is over 800 lines;
#   - the folders' #include picture has no circle (a folder's files include
#     only headers of folders before it), and inside a folder no file calls
#     a file that calls it back;
#   - every document (*.md, by its path from the repository root) that a
#     source file, shader, script or CMake file names exists;
#   - no command (src/cli) includes a backend's own header: backends are
#     opened by name (src/backends) and driven through the interface.
# Usage: e2e_layout.sh [VKRR_BIN WORKDIR] (arguments ignored: it reads the tree).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$root" <<'EOF'
import os, re, sys
root = sys.argv[1]
fail = []
src_exts = ('.c', '.h', '.cpp', '.cu', '.cuh')

at_root = [f for f in os.listdir(os.path.join(root, 'src')) if f.endswith(src_exts)]
if at_root:
    fail.append('source files at the root of src/: ' + ', '.join(sorted(at_root)))

folders = {}  # folder (relative) -> files
for top in ('src', 'vkbridge', 'cuda_ref'):
    for d, _, files in os.walk(os.path.join(root, top)):
        rel = os.path.relpath(d, root)
        for f in files:
            if not f.endswith(src_exts):
                continue
            n = sum(1 for _ in open(os.path.join(d, f), errors='replace'))
            if n > 800:
                fail.append(f'{rel}/{f}: {n} lines (over 800)')
            folders.setdefault(rel, []).append(f)

home = {}  # header name -> folder
for folder, files in folders.items():
    for f in files:
        if f.endswith(('.h', '.cuh', '.cu')):
            home.setdefault(f, folder)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
edges = {f: set() for f in folders}
for folder, files in folders.items():
    for f in files:
        for line in open(os.path.join(root, folder, f), errors='replace'):
            m = inc.match(line)
            if m and m.group(1) in home and home[m.group(1)] != folder:
                edges[folder].add(home[m.group(1)])

# Depth-first search for a circle in a graph (node -> its successors);
# the first one found, as a path, or None.
def circle(edges):
    state, stack = {}, []
    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if not state.get(m):
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None
    for n in sorted(edges):
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None
c = circle(edges)
if c:
    fail.append('include circle between folders: ' + ' -> '.join(c))

# Inside a folder, files call down too: no .c file calls a function defined
# in another .c file of its folder that calls it back (through any chain).
# Read from the source: definitions with external linkage at column 0
# (a name, its parameters, then '{'), and the identifiers each file uses.
def strip_c(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', text)
head_re = re.compile(r'^([A-Za-z_][^;{}()=#\n]*?)\b([A-Za-z_]\w*)\s*\(', re.M)
ident_re = re.compile(r'[A-Za-z_]\w*')
def definitions(code):
    out = set()
    for m in head_re.finditer(code):
        if re.search(r'\b(static|typedef|return)\b', m.group(1)):
            continue
        depth, i = 0, m.end() - 1
        while i < len(code):  # past the balanced parameter list
            depth += {'(': 1, ')': -1}.get(code[i], 0)
            i += 1
            if depth == 0:
                break
        nxt = re.match(r'[^;{]*([;{])', code[i:], re.S)
        if nxt and nxt.group(1) == '{':
            out.add(m.group(2))
    return out
for folder, files in sorted(folders.items()):
    cfiles = sorted(f for f in files if f.endswith('.c'))
    code = {f: strip_c(open(os.path.join(root, folder, f), errors='replace').read()) for f in cfiles}
    owner = {}
    for f in cfiles:
        for name in definitions(code[f]):
            owner.setdefault(name, f)
    calls = {f: {} for f in cfiles}
    for f in cfiles:
        for name in set(ident_re.findall(code[f])):
            g = owner.get(name)
            if g and g != f:
                calls[f].setdefault(g, name)
    c2 = circle(calls)
    if c2:
        path = ' -> '.join(f'{a} ({calls[a][b]})' for a, b in zip(c2, c2[1:])) + f' -> {c2[-1]}'
        fail.append(f'{folder}: files call each other: {path}')

# Documents named in comments: paths with a folder, such as docs/architecture.md.
# A shell variable for the root before a path ($root/...) is not part of it.
doc = re.compile(r'(?<![%\w./-])(?:\$\{?\w+\}?/)?([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.md)')
named = 0
for top in ('src', 'vkbridge', 'cuda_ref', 'shaders', 'tests', 'scripts', 'bench', 'CMakeLists.txt'):
    p = os.path.join(root, top)
    walk = [(root, [], [top])] if os.path.isfile(p) else os.walk(p)
    for d, _, files in walk:
        for f in files:
            if not f.endswith(src_exts + ('.glsl', '.comp', '.sh', '.txt', '.port', '.py')):
                continue
            for line in open(os.path.join(d, f), errors='replace'):
                for m in doc.findall(line):
                    named += 1
                    if not os.path.exists(os.path.join(root, m)):
                        fail.append(f'{os.path.relpath(os.path.join(d, f), root)} names {m}, '
                                    'which is not in the tree')

backend_headers = {'backend_vk.h', 'cpu_backend.h', 'cuda_backend.h', 'ptx.h'}
for f in sorted(os.listdir(os.path.join(root, 'src', 'cli'))):
    for line in open(os.path.join(root, 'src', 'cli', f), errors='replace'):
        m = inc.match(line)
        if m and m.group(1) in backend_headers:
            fail.append(f'src/cli/{f} includes {m.group(1)}: open backends with src/backends')

print(f'layout: {named} document references checked')
print(f'layout: {sum(map(len, folders.values()))} source files in {len(folders)} folders, '
      f'{sum(map(len, edges.values()))} folder dependencies')
for f in fail:
    print('FAIL', f)
sys.exit(1 if fail else 0)
EOF
