# bench-lib.sh - sourced by bench/run.sh and bench/big.sh: timing helpers.
#
#     now                          seconds since the epoch, as a decimal
#     calc EXPR                    a Python expression's value
#     wall LOG CMD...              wall seconds of CMD (its output to LOG)
#     time_wall FILE, time_rss FILE    from a `/usr/bin/time -v` report: wall
#                                  seconds, peak RSS in kB
#     largest_launch INFO_JSON     "BYTES SEQ KERNEL" of the launch moving the
#                                  most bytes: 2 x its allocations (pre and post)
#                                  plus its images (`vkrr info --json`)
now() { date +%s.%N; }
calc() { python3 -c "import sys; print($1)"; }
wall() { local log=$1 t0 t1; shift; t0=$(now); "$@" >"$log" 2>&1; t1=$(now); calc "$t1 - $t0"; }
time_rss() { sed -n 's/.*Maximum resident set size (kbytes): *//p' "$1"; }
time_wall() {
    python3 - "$1" <<'PY'
import sys
for line in open(sys.argv[1]):
    if "Elapsed (wall clock) time" in line:
        s = 0.0
        for part in line.rsplit(": ", 1)[1].strip().split(":"):
            s = s * 60 + float(part)
        print(s)
PY
}
largest_launch() {
    python3 - "$1" <<'PY'
import json, sys
def bpc(f):
    if f in (1, 8, 192, 193, 194, 198, 199, 200): return 1
    if f in (2, 9, 16, 195, 196, 197, 201, 202, 203): return 2
    if f in (3, 10, 32): return 4
    return 0
best = (0, 0, "-")
for l in json.load(open(sys.argv[1]))["launches"]:
    b = 2 * sum(a["size"] for a in l["allocs"])
    for im in l["images"]:
        tb = 16 if im["format"] == 80 else bpc(im["format"]) * im["channels"]
        b += im["width"] * im["height"] * tb
    if b > best[0]:
        best = (b, l["sequence"], l["kernel"])
print(*best)
PY
}
