#!/usr/bin/env python3
"""bridge_form.py REF OUT VARIANT - a capture as d4r's CUDA bridge writes it.

Reads REF (a capture vkrr synth made, with --log-surface-arrays: every link
logged) and writes OUT, the same launches as the bridge (countervolts/d4r
tools/wine_nvcuda_bridge.c) would have recorded them under the settings the
variant names.  Every log line is written again here from the format the
bridge prints (docs/capture-format.md lists them), from values read off REF's
files; the statistics lines are computed here from the dumps (FNV-1a 64 from
the bridge's basis 1469598103934665603, nonzero bytes, the f16/f32 groups),
not copied, so nothing of vkrr's writer reaches OUT but the launches' data.

Variants:
  verbose   D4R_CUDA_VERBOSE=1 D4R_CUDA_LAUNCH_STATS=1, stderr into run/run.log:
            "[d4r nvcuda] " prefixes, Wine's own lines between them
  trace     the same lines as the D4R_CUDA_TRACE file: no prefix
  stats     LAUNCH_STATS only: no array, texture, surface or cuLaunchKernel lines
  failures  neither: the lines the bridge always writes
  nolog     no run/run.log at all
  limit1    verbose, the bridge's default D4R_CUDA_REPLAY_DUMP_LIMIT=1: one replay folder
  filter    verbose, D4R_CUDA_REPLAY_DUMP_FILTER=output with LIMIT=100
  fatbin    verbose, the modules only as fatbins, made here from REF's PTX modules
            (one zstd-compressed PTX entry each, flag 0x8000, by the zstd tool), in
            CAPDIR/cuda-modules/ (not modules/), the log naming them in
            /tmp/d4r-dlss-cuda-modules as on the capturing machine
  lz4       as fatbin, the PTX entries LZ4-compressed (flag 0x2000) by a block
            compressor of this file's own

Nothing of REF is written to.
"""
import glob
import os
import re
import shutil
import struct
import sys

PREFIX = "[d4r nvcuda] "
BASIS = 1469598103934665603
PRIME = 1099511628211
CAPDIR_MODULES = "/tmp/d4r-dlss-cuda-modules"
WINE = [
    "0024:fixme:ntdll:NtQuerySystemInformation info_class SYSTEM_PERFORMANCE_INFORMATION",
    "0024:err:d3d:wined3d_debug_callback 0x7f3a: \"GL_INVALID_OPERATION\".",
    "[vkd3d-proton] info: Created device",
    "wine: configuration in L\"/root/.wine\" has been updated.",
]


def fnv(data):
    h = BASIS
    for b in data:
        h = ((h ^ b) * PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def half(bits):
    sign = -1.0 if bits & 0x8000 else 1.0
    e = (bits >> 10) & 0x1F
    m = bits & 0x3FF
    if e == 0:
        return sign * m * 2.0 ** -24
    return sign * (1 + m / 1024.0) * 2.0 ** (e - 15)


def g(v):
    """C's %g."""
    return "%g" % v


def stats(data):
    """The bridge's summarize_resource: hash, nonzero bytes, f16 and f32 groups."""
    nonzero = sum(1 for b in data if b)
    f16 = dict(nonzero=0, nan_inf=0, mn=0.0, mx=0.0, abs=0.0)
    n16 = len(data) // 2
    for (bits,) in struct.iter_unpack("<H", data[: 2 * n16]):
        if bits & 0x7C00 == 0x7C00:
            f16["nan_inf"] += 1
            continue
        v = half(bits)
        f16["nonzero"] += v != 0.0
        f16["mn"] = min(f16["mn"], v)
        f16["mx"] = max(f16["mx"], v)
        f16["abs"] += abs(v)
    mean = f16["abs"] / n16 if n16 else 0.0
    f32 = dict(nan_inf=0, mn=0.0, mx=0.0)
    n32 = len(data) // 4
    for (bits,) in struct.iter_unpack("<I", data[: 4 * n32]):
        if bits & 0x7F800000 == 0x7F800000:
            f32["nan_inf"] += 1
            continue
        (v,) = struct.unpack("<f", struct.pack("<I", bits))
        f32["mn"] = min(f32["mn"], v)
        f32["mx"] = max(f32["mx"], v)
    return ("bytes=%d nonzero_bytes=%d hash=%016x f16{nonzero=%d nan_inf=%d min=%s max=%s mean_abs=%s} "
            "f32{nan_inf=%d min=%s max=%s}" % (len(data), nonzero, fnv(data), f16["nonzero"], f16["nan_inf"],
                                               g(f16["mn"]), g(f16["mx"]), g(mean), f32["nan_inf"],
                                               g(f32["mn"]), g(f32["mx"])))


def kv(line, key):
    m = re.search(r"(?:^|\s)" + re.escape(key) + r"=(\S+)", line)
    return m.group(1) if m else None


def lz4_block(src):
    """A raw LZ4 block (the format fatbins store with flag 0x2000): greedy
    matches of 4 bytes or more found through a hash of 4-byte keys."""
    out = bytearray()
    table = {}
    i = anchor = 0
    n = len(src)

    def put_len(x):
        while x >= 255:
            out.append(255)
            x -= 255
        out.append(x)

    def sequence(lit_end, match_len, offset):
        lit = lit_end - anchor
        token = (min(lit, 15) << 4) | (min(match_len - 4, 15) if match_len else 0)
        out.append(token)
        if lit >= 15:
            put_len(lit - 15)
        out.extend(src[anchor:lit_end])
        if match_len:
            out.extend(struct.pack("<H", offset))
            if match_len - 4 >= 15:
                put_len(match_len - 4 - 15)

    while i + 12 <= n:  # the last 12 bytes (5 of them literals, by LZ4's rules) stay literals
        key = src[i:i + 4]
        j = table.get(key)
        table[key] = i
        if j is None or i - j > 0xFFFF:
            i += 1
            continue
        m = 4
        while i + m < n - 5 and src[j + m] == src[i + m]:
            m += 1
        sequence(i, m, i - j)
        i += m
        anchor = i
    sequence(n, 0, 0)
    return bytes(out)


def fatbin(ptx_texts, compression):
    """A fatbin as nvcc lays it out (src/base/fatbin.h), one PTX entry a
    text: compression "zstd" (flag 0x8000, the zstd tool's frame) or "lz4"
    (flag 0x2000, lz4_block)."""
    import subprocess
    entries = bytearray()
    for text in ptx_texts:
        m = re.search(rb"\.target\s+sm_(\d+)", text)
        arch = int(m.group(1)) if m else 80
        v = re.search(rb"\.version\s+(\d+)\.(\d+)", text)
        major, minor = (int(v.group(1)), int(v.group(2))) if v else (8, 0)
        if compression == "zstd":
            packed = subprocess.run(["zstd", "-q", "-c", "-19"], input=text, capture_output=True,
                                    check=True).stdout
            flag = 0x8000
        else:
            packed = lz4_block(text)
            flag = 0x2000
        padded = packed + b"\0" * (-len(packed) % 8)
        head = struct.pack("<HHIQIIHHIIIQQQ", 1, 0x0101, 64, len(padded), len(packed), 0, minor, major, arch,
                           0, 0, 0x11 | flag, 0, len(text))
        entries += head + padded
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entries)) + bytes(entries)


def module_lines(mdir, logged_dir):
    """What the bridge logs as the application loads each module: the file
    it saved (PTX from .version on, or the whole fatbin), the load, and a
    cuModuleGetFunction for each kernel the module defines."""
    lines = []
    for k, path in enumerate(sorted(glob.glob(os.path.join(mdir, "*")))):
        name, data = os.path.basename(path), open(path, "rb").read()
        module, image = 0x5581c0a00000 + 0x1000 * k, 0x7f0020001000 + 0x1000 * k
        if name.endswith(".fatbin"):
            lines.append("cuModuleLoadData captured CUDA fatbin v1 size=%d (header=16 payload=%d) to %s/%s (complete)"
                         % (len(data), len(data) - 16, logged_dir, name))
            texts = ptx_of_fatbin(data)
        else:
            lines.append("cuModuleLoadData captured PTX size=%d image+0 to %s/%s (complete)" % (len(data), logged_dir, name))
            texts = [data]
        lines.append("cuModuleLoadData image=0x%x result=0 module=0x%x" % (image, module))
        names = sorted({m.decode() for t in texts for m in re.findall(rb"\.entry\s+([A-Za-z_$][\w$]*)", t)})
        for i, n in enumerate(names):
            lines.append("cuModuleGetFunction module=0x%x name=%s result=0 function=0x%x" % (module, n, module + 16 * (i + 1)))
    return lines


def lz4_unblock(src, size):
    """Decodes a raw LZ4 block (for reading kernels names out of an LZ4 entry)."""
    out = bytearray()
    i = 0
    while i < len(src):
        token = src[i]
        i += 1
        lit = token >> 4
        if lit == 15:
            while True:
                b = src[i]
                i += 1
                lit += b
                if b != 255:
                    break
        out += src[i:i + lit]
        i += lit
        if i >= len(src) or len(out) >= size:
            break
        off = src[i] | src[i + 1] << 8
        i += 2
        m = token & 15
        if m == 15:
            while True:
                b = src[i]
                i += 1
                m += b
                if b != 255:
                    break
        for _ in range(m + 4):
            out.append(out[-off])
    return bytes(out)


def ptx_of_fatbin(data):
    """The PTX texts of a fatbin's entries."""
    import subprocess
    magic, ver, hs, size = struct.unpack_from("<IHHQ", data, 0)
    texts = []
    off = hs
    while off + 64 <= hs + size:
        kind, v, eh, payload = struct.unpack_from("<HHIQ", data, off)
        compressed, = struct.unpack_from("<I", data, off + 16)
        flags, = struct.unpack_from("<Q", data, off + 40)
        full, = struct.unpack_from("<Q", data, off + 56)
        body = data[off + eh:off + eh + payload]
        if kind == 1:
            if flags & 0x8000:
                texts.append(subprocess.run(["zstd", "-dc"], input=body[:compressed], capture_output=True,
                                            check=True).stdout)
            elif flags & 0x2000:
                texts.append(lz4_unblock(body[:compressed], full))
            else:
                texts.append(body)
        off += eh + payload
    return texts


class Ref:
    """REF's launches, dumps and log events, in log order."""

    def __init__(self, ref):
        self.ref = ref
        self.replay = {}  # seq -> folder name
        for d in os.listdir(os.path.join(ref, "replay")):
            self.replay[int(d.split("-")[1])] = d
        self.dumps = {}  # seq -> [(arg offset, file name)]
        for f in os.listdir(os.path.join(ref, "dump")):
            m = re.match(r"launch-(\d+)-(.+)-arg(\d+)-(buffer|texture|surface)-(.+)-fmt(-?\d+)\.bin$", f)
            self.dumps.setdefault(int(m.group(1)), []).append((int(m.group(3)), f))
        for v in self.dumps.values():
            v.sort()
        self.events = []
        with open(os.path.join(ref, "run", "run.log")) as f:
            for raw in f:
                line = raw.rstrip("\n")
                if line.startswith(PREFIX):
                    line = line[len(PREFIX):]
                self.events.append(line)

    def manifest(self, seq):
        with open(os.path.join(self.ref, "replay", self.replay[seq], "manifest.txt")) as f:
            lines = f.read().split("\n")
        launch = lines[1].split()[1:]
        return lines[0].split()[1], [int(x) for x in launch]

    def args(self, seq):
        with open(os.path.join(self.ref, "replay", self.replay[seq], "args.bin"), "rb") as f:
            return f.read()


def write(ref, out, variant):
    r = Ref(ref)
    verbose = variant not in ("stats", "failures")
    with_stats = variant not in ("failures",)
    seqs = sorted(r.dumps)
    if variant == "limit1":
        keep = {seqs[0]}
    elif variant == "filter":
        keep = {s for s in r.replay if "output" in r.replay[s]}
    else:
        keep = set(r.replay)
    fatbin_only = variant in ("fatbin", "lz4")
    os.makedirs(os.path.join(out, "replay"))
    for s in keep:
        shutil.copytree(os.path.join(ref, "replay", r.replay[s]), os.path.join(out, "replay", r.replay[s]))
    shutil.copytree(os.path.join(ref, "dump"), os.path.join(out, "dump"))
    mdir = os.path.join(out, "cuda-modules" if fatbin_only else "modules")
    os.makedirs(mdir)
    as_fatbin = {}  # a PTX module's name -> the fatbin written in its place
    for f in sorted(glob.glob(os.path.join(ref, "modules", "*"))):
        name = os.path.basename(f)
        data = open(f, "rb").read()
        if fatbin_only and name.endswith(".fatbin"):
            continue  # nvcc's: only the PTX modules, made into fatbins here
        if fatbin_only:
            as_fatbin[name] = name[:-4] + ".fatbin"
            data = fatbin([data], "lz4" if variant == "lz4" else "zstd")
            name = as_fatbin[name]
        open(os.path.join(mdir, name), "wb").write(data)

    lines = []
    mod_dir = CAPDIR_MODULES if fatbin_only else os.path.abspath(os.path.join(out, "modules"))
    for e in r.events:
        m = re.match(r"launch\[(\d+)\] (\S+) synchronize", e)
        if m:  # after the launch: its statistics, written here from the dumps
            seq = int(m.group(1))
            if with_stats:
                lines.append("launch[%d] %s synchronize result=0" % (seq, m.group(2)))
                for off, f in r.dumps.get(seq, []):
                    mm = re.match(r"launch-\d+-(.+)-arg\d+-(buffer|texture|surface)-(.+)-fmt(-?\d+)\.bin$", f)
                    data = open(os.path.join(ref, "dump", f), "rb").read()
                    lines.append("launch[%d] %s arg[%d] %s %s fmt=%s %s" % (
                        seq, mm.group(1), off, mm.group(2), mm.group(3), mm.group(4), stats(data)))
            continue
        if e.startswith("launch[") or e.startswith("vkrr ") or e.startswith("device "):
            continue  # statistics lines (rewritten above), vkrr's extensions
        if e.startswith("cuInit") or e.startswith("cuDeviceGet") or e.startswith("cuCtxCreate"):
            lines.append({"cuInit": "cuInit flags=0 result=0",
                          "cuDeviceGetCount": "cuDeviceGetCount result=0 count=1",
                          "cuDeviceGet": "cuDeviceGet ordinal=0 result=0 device=0",
                          "cuCtxCreate_v2": "cuCtxCreate_v2 flags=0x0 device=0 result=0 context=0x7f0040000b70"}
                         [e.split()[0]])
            if e.startswith("cuCtxCreate"):
                lines += module_lines(mdir, mod_dir)
            continue
        if e.startswith("cuModuleLoadData") or e.startswith("cuModuleGetFunction"):
            continue  # written from the module files themselves, below
        m = re.match(r"replay capture launch\[(\d+)\] (\S+)", e)
        if m:
            seq = int(m.group(1))
            if seq in keep:
                lines.append("replay capture launch[%d] %s -> %s/replay/%s" % (
                    seq, m.group(2), os.path.abspath(out), r.replay[seq]))
            continue
        if not verbose:
            continue
        if e.startswith("cuArrayCreate(v2)"):
            lines.append("cuArrayCreate(v2) descriptor=0x7ffc10a2b5e0 width=%s height=%s format=%s channels=%s "
                         "result=0 array=%s" % tuple(kv(e, k) for k in ("width", "height", "format", "channels",
                                                                            "array")))
        elif e.startswith("cuTexObjectCreate"):
            lines.append("cuTexObjectCreate resource=0x7ffc10a2b600 type=%s array=%s texture=0x7ffc10a2b700 addr=%s "
                         "filter=%s flags=%s aniso=0 mipfilter=0 view=(nil) result=0 object=%s" % tuple(
                             kv(e, k) for k in ("type", "array", "addr", "filter", "flags", "object")))
        elif e.startswith("cuSurfObjectCreate"):
            lines.append("cuSurfObjectCreate descriptor=0x7ffc10a2b800 result=0 object=%s" % kv(e, "object"))
        elif re.match(r"cuLaunchKernel\[(\d+)\]", e):
            seq = int(re.match(r"cuLaunchKernel\[(\d+)\]", e).group(1))
            kernel, (gx, gy, gz, bx, by, bz, sh) = r.manifest(seq) if seq in r.replay else (None, [0] * 7)
            if kernel is None:
                continue
            args = r.args(seq)
            lines.append("cuLaunchKernel[%d] %s" % (seq, kernel))
            lines.append("cuLaunchKernel function=0x5581c0a04%03x grid=%d,%d,%d block=%d,%d,%d shared=%d stream=(nil) "
                         "kernel_params=(nil) extra=0x7ffc10a2b900 result=0" % (seq, gx, gy, gz, bx, by, bz, sh))
            for k, x in enumerate(("0x1", "0x7ffc10a2ba00", "0x2", "0x7ffc10a2b9f8", "0x0")):
                lines.append("cuLaunchKernel extra[%d]=%s" % (k, x))
            lines.append("cuLaunchKernel packed_args function=0x5581c0a04%03x buffer=0x7ffc10a2ba00 bytes=%d" % (
                seq, len(args)))
            for off in range(0, min(len(args), 128), 8):
                word = args[off:off + 8] + b"\0" * (8 - len(args[off:off + 8]))
                lines.append("cuLaunchKernel packed_arg[%d]=0x%016x" % (off, struct.unpack("<Q", word)[0]))

    if variant == "nolog":
        return
    os.makedirs(os.path.join(out, "run"))
    with open(os.path.join(out, "run", "run.log"), "w") as f:
        for k, line in enumerate(lines):
            if variant == "trace":
                f.write(line + "\n")
                continue
            if k % 7 == 3:  # Wine's own stderr between the bridge's lines
                f.write(WINE[k % len(WINE)] + "\n")
            f.write(PREFIX + line + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    write(sys.argv[1], sys.argv[2], sys.argv[3])
