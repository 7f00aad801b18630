#!/usr/bin/env bash
# e2e_shard: a run split into shards (--shard K/N, as a CI matrix runs it) and
# merged (vkrr merge) is the run itself: the same rows in the JSON (every
# field of every launch but its wall time, heatmaps by file name), the same
# table, summary and bisect verdict, the same exit code; isolated (launches
# balanced by cost), chained and both (whole frames), a failing port
# (--perturb), `vkrr rerun` too.  Each launch is in exactly one shard.  A
# shard with nothing to do says so and exits 0.  Files of different
# captures, overlapping shards and a missing shard are exit 2 naming them.
# Usage: e2e_shard.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

cap=$WORK/cap
vkrr synth "$cap" --size 24x16 --frames 3 >/dev/null 2>&1 || fail "synth"

# Same rows (JSON), ignoring what says how rather than what: wall times,
# the folder a heatmap was written to, the shard, dispatch counts (a shard
# also runs, unshown, the frames before its own), the capture's path.
same_json() { # WHOLE MERGED WHAT
    python3 - "$1" "$2" "$3" <<'EOF' || fail "$3: the merged JSON is not the run's"
import json, os, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
what = sys.argv[3]
def norm(x, key=None):
    if isinstance(x, dict):
        return {k: norm(v, k) for k, v in x.items() if k not in ("seconds",)}
    if isinstance(x, list):
        return [norm(v) for v in x]
    if key == "heatmap" and isinstance(x, str):
        return os.path.basename(x)
    return x
bad = 0
for k in a:
    if k in ("shard", "launches", "capture"):
        continue
    va, vb = norm(a[k]), norm(b.get(k))
    if k == "summary":
        va = dict(va); vb = dict(vb)
        va.pop("dispatches"); vb.pop("dispatches")
    if va != vb:
        print(f"{what}: top-level {k}: {va} != {vb}"); bad += 1
if len(a["launches"]) != len(b["launches"]):
    print(f"{what}: {len(a['launches'])} launches, merged {len(b['launches'])}"); bad += 1
for la, lb in zip(a["launches"], b["launches"]):
    if norm(la) != norm(lb):
        diff = [k for k in la if norm(la[k], k) != norm(lb.get(k), k)]
        print(f"{what}: launch {la['sequence']} differs in {diff}"); bad += 1
print(f"{what}: {len(a['launches'])} launches compared, {bad} differences")
sys.exit(1 if bad else 0)
EOF
}

# The table and the lines after it, as a person reads them (not the lines
# that name files or say how the run went).
text() { grep -v -e '^json:' -e '^report:' -e '^junit:' -e '^validate ' -e '^rerun ' -e '^merge:' \
    -e '^shard ' -e '^port:' -e '^chain:' -e '^heatmaps' -e 'heatmap: ' -e '^wrote ' "$1"; }

# CMD NAME MODE-ARGS...: the whole run, 3 shards, the merge; all compared
check() {
    local cmd=$1 name=$2
    shift 2
    local d=$WORK/$name
    mkdir -p "$d"
    vkrr $cmd "$cap" "$@" --out "$d/whole" --json "$d/whole.json" --junit "$d/whole.xml" \
        >"$d/whole.out" 2>"$d/whole.err"
    local rc_whole=$?
    local seen=""
    for k in 1 2 3; do
        vkrr $cmd "$cap" "$@" --shard $k/3 --out "$d/s$k" --json "$d/s$k/result.json" \
            >"$d/s$k.out" 2>"$d/s$k.err"
        local rc=$?
        [ $rc -le 1 ] || fail "$name: shard $k/3 exit $rc: $(cat "$d/s$k.err")"
        seen="$seen $(python3 -c "import json; print(' '.join(str(l['sequence']) for l in json.load(open('$d/s$k/result.json'))['launches']))")"
    done
    # every launch in exactly one shard
    local all dup
    all=$(echo $seen | tr ' ' '\n' | sort -n | tr '\n' ' ')
    dup=$(echo $seen | tr ' ' '\n' | sort -n | uniq -d | tr '\n' ' ')
    [ -z "$dup" ] || fail "$name: launches in two shards: $dup"
    want=$(python3 -c "import json; print(' '.join(str(l['sequence']) for l in json.load(open('$d/whole.json'))['launches']))" | tr ' ' '\n' | sort -n | tr '\n' ' ')
    [ "$all" = "$want" ] || fail "$name: the shards hold [$all], the run [$want]"
    vkrr merge "$d/s1/result.json" "$d/s2/result.json" "$d/s3/result.json" --json "$d/merged.json" \
        --junit "$d/merged.xml" --report "$d/report" >"$d/merged.out" 2>"$d/merged.err"
    local rc_merged=$?
    [ $rc_merged = $rc_whole ] || fail "$name: merge exit $rc_merged, the run's $rc_whole: $(cat "$d/merged.err")"
    same_json "$d/whole.json" "$d/merged.json" "$name"
    e2e_json_valid vkrr-results "$d/whole.json" "$d"/s[123]/result.json "$d/merged.json"
    diff <(text "$d/whole.out") <(text "$d/merged.out") >"$d/text.diff" ||
        fail "$name: the merged table and summary differ from the run's: $(head -20 "$d/text.diff")"
    diff <(sed 's/time="[^"]*"//' "$d/whole.xml") <(sed 's/time="[^"]*"//' "$d/merged.xml") >/dev/null ||
        fail "$name: the merged JUnit differs from the run's"
    [ -f "$d/report/index.html" ] || fail "$name: no merged report"
    for h in $(grep -o "heatmaps/[^']*\.png" "$d/report/index.html" | sort -u); do
        [ -f "$d/report/$h" ] || fail "$name: the report links $h, which was not copied in"
    done
    echo "$name: run exit $rc_whole, merged exit $rc_merged"
}

check validate isolated --mode isolated
check validate both-failing --perturb "cuda_dldn_rrref_enc1_kernel#1=3"
check validate chained --mode chained --heatmaps all
check rerun rerun --backend cpu

# one summary line a mode: isolated or chained alone one, both modes a
# second line for the chained counts
for want in isolated:1 chained:1 both-failing:2 rerun:1; do
    got=$(grep -c '^summary' "$WORK/${want%:*}/whole.out")
    [ "$got" = "${want#*:}" ] || fail "${want%:*}: $got summary lines, not ${want#*:}"
done
grep -q '^summary (chained): ' "$WORK/both-failing/whole.out" ||
    fail "both modes: no 'summary (chained):' line"

# rerun shards with launches changed (as a GPU backend can leave them; ptx and
# cpu never time out): merged, the summary counts each and names the first
# launch (by sequence) that did not pass; exit 1 for a FAIL or TIMEOUT (as
# rerun --help says), else 2 (INCOMPLETE) for an ERROR or NO KERNEL
rerun_merge() { # WHAT STATUS0 STATUS1 WANT_RC WANT_COUNTS WANT_WORD
    python3 - "$WORK/rerun/s2/result.json" "$WORK/changed.json" "$2" "$3" >"$WORK/first" <<'EOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["launches"]) >= 2 and all(l["status"] == "PASS" for l in d["launches"])
for k in (0, 1):
    d["launches"][k]["status"] = sys.argv[3 + k]
json.dump(d, open(sys.argv[2], "w"))
first = min(d["launches"][:2], key=lambda l: l["sequence"])
print("#%d %s" % (first["sequence"], "differs" if first["status"] == "FAIL" else "did not run"))
EOF
        fail "$1: make the shard"
    vkrr merge "$WORK/rerun/s1/result.json" "$WORK/changed.json" "$WORK/rerun/s3/result.json" \
        >"$WORK/m.out" 2>"$WORK/m.err"
    local rc=$? seq how
    read -r seq how <"$WORK/first"
    [ $rc = "$4" ] && grep -Eq "^summary: [0-9]+ launches: [0-9]+ PASS, $5 -> $6\$" "$WORK/m.out" &&
        grep -q "^first launch that $how: $seq " "$WORK/m.out" &&
        [ "$(grep -c '^first launch that' "$WORK/m.out")" = 1 ] ||
        fail "$1: exit $rc (want $4), want '$5 -> $6' and first $seq $how: $(cat "$WORK/m.out" "$WORK/m.err")"
}
rerun_merge "a TIMEOUT and a FAIL" TIMEOUT FAIL 1 "1 FAIL, 0 NO KERNEL, 1 TIMEOUT, 0 ERROR" FAIL
rerun_merge "an ERROR and a NO KERNEL" ERROR "NO PORT" 2 "0 FAIL, 1 NO KERNEL, 0 TIMEOUT, 1 ERROR" INCOMPLETE

# shards fetched elsewhere (CI artifacts): the heatmap paths their files hold are
# stale, and merge finds each picture beside its file instead
m=$WORK/moved
mkdir -p "$m"
for k in 1 2 3; do mv "$WORK/both-failing/s$k" "$m/s$k"; done
vkrr merge "$m/s1/result.json" "$m/s2/result.json" "$m/s3/result.json" --report "$m/report" \
    >"$m/merged.out" 2>"$m/merged.err"
want=$(find "$WORK/both-failing/report" -name '*.png' | wc -l)
got=$(find "$m/report" -name '*.png' | wc -l)
[ "$want" -gt 0 ] && [ "$got" = "$want" ] ||
    fail "moved shards: the merged report holds $got pictures, the run's $want: $(cat "$m/merged.err")"
for k in 1 2 3; do mv "$m/s$k" "$WORK/both-failing/s$k"; done

# more shards than frames: the empty ones say so, exit 0, and merge
d=$WORK/five
mkdir -p "$d"
files=""
for k in 1 2 3 4 5; do
    vkrr validate "$cap" --shard $k/5 --heatmaps none --json "$d/s$k.json" >"$d/s$k.out" 2>&1
    rc=$?
    if grep -q "no launch falls to this shard" "$d/s$k.out"; then
        [ $rc = 0 ] || fail "an empty shard exits $rc"
        empty=1
    fi
    files="$files $d/s$k.json"
done
[ "${empty:-0}" = 1 ] || fail "5 shards of 3 frames: no shard said it had nothing to do"
vkrr validate "$cap" --heatmaps none --json "$d/whole.json" >/dev/null 2>&1
vkrr merge $files --json "$d/merged.json" >"$d/merged.out" 2>&1 || fail "merge of 5: $(cat "$d/merged.out")"
same_json "$d/whole.json" "$d/merged.json" "five shards"

# what is not one run's shards
s=$WORK/isolated
vkrr merge "$s/s1/result.json" "$s/s3/result.json" >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -q "shard 2/3 missing" "$WORK/m.err" ||
    fail "a missing shard: exit $rc, $(cat "$WORK/m.err")"
vkrr merge "$s/s1/result.json" "$s/s1/result.json" "$s/s2/result.json" >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -q "both shard 1/3: overlapping" "$WORK/m.err" ||
    fail "overlapping shards: exit $rc, $(cat "$WORK/m.err")"
# shard 1's file relabelled as shard 2 (as a CI matrix that ran index 1
# twice would leave it): every shard is there once by its label, so only the
# launches themselves show the overlap; merged, it would count them twice.
python3 - "$s/s1/result.json" "$WORK/relabelled.json" <<'EOF' || fail "relabel shard 1 as 2"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["shard"] == {"index": 1, "count": 3} and d["launches"], d["shard"]
d["shard"]["index"] = 2
json.dump(d, open(sys.argv[2], "w"))
EOF
first=$(python3 -c "import json; print(min(l['sequence'] for l in json.load(open('$s/s1/result.json'))['launches']))")
vkrr merge "$s/s1/result.json" "$WORK/relabelled.json" "$s/s3/result.json" \
    --json "$WORK/relabelled-merged.json" >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
# the two files in either order (merge sorts the launches with qsort)
[ $rc = 2 ] && grep -Eq "(s1/result.json and .*relabelled|relabelled.json and .*s1/result).json both hold launch #$first: overlapping shards" "$WORK/m.err" ||
    fail "shard 1 relabelled as shard 2: exit $rc, $(cat "$WORK/m.out" "$WORK/m.err")"
[ ! -e "$WORK/relabelled-merged.json" ] || fail "shard 1 relabelled as shard 2: a merged JSON was written"
vkrr synth "$WORK/other" --size 24x16 --frames 2 >/dev/null 2>&1
vkrr validate "$WORK/other" --mode isolated --shard 2/3 --heatmaps none --json "$WORK/other.json" >/dev/null 2>&1
vkrr merge "$s/s1/result.json" "$WORK/other.json" "$s/s3/result.json" >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -q "other.json are results of different captures" "$WORK/m.err" ||
    fail "different captures: exit $rc, $(cat "$WORK/m.err")"
vkrr merge "$s/s1/result.json" "$WORK/both-failing/s2/result.json" "$s/s3/result.json" >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -q "results of different modes" "$WORK/m.err" ||
    fail "different modes: exit $rc, $(cat "$WORK/m.err")"
echo '{"capture": "x"' >"$WORK/cut.json"
vkrr merge "$WORK/cut.json" >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -q "cut.json:[0-9]*: not valid JSON: the text ends inside a value" "$WORK/m.err" ||
    fail "a cut file: exit $rc, $(cat "$WORK/m.err")"
# a file of another major schema_version, and one whose launch lost a field (a moved
# field reads as a missing one): refused, naming the version, the member and the launch
sed 's/"schema_version": "1\.[0-9]*"/"schema_version": "2.0"/' "$s/s1/result.json" >"$WORK/v2.json"
vkrr merge "$WORK/v2.json" >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -q "v2.json: written at vkrr-results version 2.0; this vkrr reads version 1.x" "$WORK/m.err" ||
    fail "schema_version 2.0: exit $rc, $(cat "$WORK/m.err")"
sed '0,/"frame": /s//"frame_moved": /' "$s/s1/result.json" >"$WORK/moved.json"
vkrr merge "$WORK/moved.json" >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -q 'moved.json: not a vkrr result file: no member "frame" in launch 1 of "launches"' "$WORK/m.err" ||
    fail "a moved field: exit $rc, $(cat "$WORK/m.err")"
: >"$WORK/empty.json" # an empty file (read as no text at all): refused, no sanitizer report
vkrr merge "$WORK/empty.json" >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -q "empty.json:1: not valid JSON: the text ends inside a value" "$WORK/m.err" ||
    fail "an empty file: exit $rc, $(cat "$WORK/m.err")"
vkrr merge >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -qx "vkrr merge: needs the result files (RESULT.json ...)" "$WORK/m.err" ||
    fail "merge without files: exit $rc, $(cat "$WORK/m.err")"
vkrr validate "$cap" --shard 4/3 >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 2 ] && grep -q "\-\-shard takes K/N" "$WORK/m.err" || fail "--shard 4/3: exit $rc, $(cat "$WORK/m.err")"
# one shard of one is the whole run (the least K and N accepted)
n=$(ls "$cap/replay" | wc -l)
vkrr validate "$cap" --mode isolated --shard 1/1 --heatmaps none >"$WORK/m.out" 2>"$WORK/m.err"
rc=$?
[ $rc = 0 ] && grep -q "^summary: $n launches: $n PASS," "$WORK/m.out" ||
    fail "--shard 1/1: exit $rc, $(grep summary "$WORK/m.out") $(cat "$WORK/m.err")"

e2e_end
