#!/usr/bin/env bash
# e2e_json_schema: every kind of JSON vkrr writes validates against the schema
# docs/json/ ships for it, with a real validator (python3-jsonschema, Debian),
# and the schemas catch a moved field.  Made on synthesised captures:
#   vkrr-results  validate (isolated; --mode both with a perturbed launch, so
#                 failing rows, chained fields and bisect), rerun --coverage,
#                 merge of shards, diff
#   vkrr-info     info --json (a clean capture and one with a damaged launch)
#   vkrr-bench    bench --json
#   vkrr-stress   stress --json (a port with a bug stress finds, and a good one)
# Also: a failing 1-D buffer (the output kernel's arena, perturbed) writes no
# file over 1 MB, and its table holds the worst values and the counts.
# Skipped (77) without python3-jsonschema.
#
# Usage: e2e_json_schema.sh VKRR_BIN WORKDIR
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
SRC=$(cd "$(dirname "$0")/.." && pwd)


python3 -c "import jsonschema" 2>/dev/null ||
    e2e_skip jsonschema "python3-jsonschema is not installed (apt-get install python3-jsonschema)"

check() { e2e_json_valid "$@"; }

cap=$WORK/cap
vkrr synth "$cap" --size 64x48 >"$WORK/o" 2>"$WORK/e" || fail "synth: $(cat "$WORK/e")"
r=$WORK/r
mkdir -p "$r"

vkrr validate "$cap" --json "$r/iso.json" --heatmaps none -q >"$WORK/o" 2>&1 ||
    fail "validate (isolated): $(cat "$WORK/o")"
vkrr validate "$cap" --mode both --perturb cuda_dldn_rrref_output_kernel=4 --out "$WORK/out" \
    --json "$r/both.json" --report "$WORK/report" -q >"$WORK/both.out" 2>&1
[ $? = 1 ] || fail "validate --mode both --perturb should fail: $(cat "$WORK/both.out")"
vkrr validate "$cap" --mode chained --json "$r/chained.json" --heatmaps none -q >"$WORK/o" 2>&1 ||
    fail "validate --mode chained: $(cat "$WORK/o")"
# the checked-in PTX of the rrref kernels: a build without nvcc synthesises no modules
vkrr rerun "$cap" --coverage --modules "$SRC/tests/ptx/checked_in/rrref" --json "$r/rerun.json" \
    --heatmaps none -q >"$WORK/o" 2>&1 ||
    fail "rerun --coverage: $(cat "$WORK/o")"
for k in 1 2; do
    vkrr validate "$cap" --shard "$k/2" --json "$r/shard$k.json" --heatmaps none -q >"$WORK/o" 2>&1 ||
        fail "validate --shard $k/2: $(cat "$WORK/o")"
done
vkrr merge "$r/shard1.json" "$r/shard2.json" --json "$r/merged.json" >"$WORK/o" 2>&1 ||
    fail "merge: $(cat "$WORK/o")"
vkrr synth "$WORK/cap2" --size 64x48 --seed 2 >"$WORK/o" 2>&1 || fail "synth --seed 2: $(cat "$WORK/o")"
vkrr diff "$cap" "$WORK/cap2" --heatmaps none --json "$r/diff.json" >"$WORK/o" 2>&1
[ -s "$r/diff.json" ] || fail "diff wrote no JSON: $(cat "$WORK/o")"
check vkrr-results "$r"/*.json
for f in "$r"/*.json; do
    grep -q '"schema": "vkrr-results", "schema_version": "1\.[0-9]*"' "$f" || fail "$f: no schema line"
done

# info: a clean capture, and one with a damaged launch (its dump cut short)
vkrr info "$cap" --json >"$WORK/info.json" 2>"$WORK/e" || fail "info --json: $(cat "$WORK/e")"
cp -r "$cap" "$WORK/damaged"
victim=$(find "$WORK/damaged/dump" -type f -name '*.bin' | sort | head -1)
[ -n "$victim" ] && truncate -s 3 "$victim"
vkrr info "$WORK/damaged" --json >"$WORK/info-damaged.json" 2>/dev/null
check vkrr-info "$WORK/info.json" "$WORK/info-damaged.json"

vkrr synth "$WORK/small" --size 16x8 >"$WORK/o" 2>&1 || fail "synth small"
vkrr bench "$WORK/small" --runs 2 --warmup-max 0.5 --json "$WORK/bench.json" >"$WORK/o" 2>&1 ||
    fail "bench: $(cat "$WORK/o")"
check vkrr-bench "$WORK/bench.json"

# stress: a port that forgets a clamp (found), and one that has it
e2e_clampk_ports "$WORK/ck" "$WORK/bad" "$WORK/good"
vkrr stress "$WORK/ck" --ports "$WORK/bad" --runs 400 --seed 7 --out "$WORK/sout" \
    --json "$WORK/stress-bad.json" >"$WORK/o" 2>&1
[ $? = 1 ] || fail "stress of the bad port should find it: $(cat "$WORK/o")"
vkrr stress "$WORK/ck" --ports "$WORK/good" --runs 50 --out "$WORK/sout-good" \
    --json "$WORK/stress-good.json" >"$WORK/o" 2>&1 || fail "stress of the good port: $(cat "$WORK/o")"
check vkrr-stress "$WORK/stress-bad.json" "$WORK/stress-good.json"
grep -q '"status": "disagree"' "$WORK/stress-bad.json" || fail "stress-bad.json has no disagreement"

# a moved field (bench's vulkan.min_ms one level up; a launch's status renamed)
# fails validation: the schemas are strict enough to notice
python3 - "$WORK/bench.json" "$r/both.json" "$WORK/moved-bench.json" "$WORK/moved-results.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
l = b["launches"][0]
l["min_ms"] = l["vulkan"].pop("min_ms")
json.dump(b, open(sys.argv[3], "w"))
r = json.load(open(sys.argv[2]))
r["launches"][0]["state"] = r["launches"][0].pop("status")
json.dump(r, open(sys.argv[4], "w"))
PY
for kind in bench results; do
    out=$(python3 - "$SRC/docs/json/vkrr-$kind.schema.json" "$WORK/moved-$kind.json" <<'PY' 2>&1
import json, sys
import jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])),
                    cls=jsonschema.Draft202012Validator)
PY
    ) && fail "a moved field in vkrr-$kind validates"
done

# bounded output: the perturbed output kernel's arena buffer (one long row)
big=$(find "$WORK/out" "$WORK/report" -type f -size +1M 2>/dev/null)
[ -z "$big" ] || fail "files over 1 MB: $(ls -l $big)"
tsv=$(find "$WORK/out" "$WORK/report" -name 'heat-*-cuda_dldn_rrref_output_kernel-arg000*.tsv' 2>/dev/null | head -1)
if [ -z "$tsv" ]; then
    fail "no table beside the output kernel's arena picture: $(find "$WORK/out" "$WORK/report" -name 'heat-*')"
else
    [ -f "${tsv%.tsv}.png" ] || fail "no wrapped picture beside $tsv"
    grep -q "^# [0-9]*x1, 1 planes, 1 channels: [0-9]* elements, [0-9]* differ" "$tsv" &&
        grep -q "^# the worst 256 of the [0-9]* that differ, worst first" "$tsv" ||
        fail "$tsv: no counts: $(head -3 "$tsv")"
    rows=$(grep -vc '^#\|^index' "$tsv")
    [ "$rows" = 256 ] || fail "$tsv: $rows rows, want the worst 256"
    # worst first: the error column never rises
    awk -F'\t' '!/^#|^index/ { if (NR > 5 && $8 + 0 > last + 0) bad = 1; last = $8 } END { exit bad }' "$tsv" ||
        fail "$tsv: not worst first"
fi
grep -q "^wrote [0-9]* files, [0-9.]* [KM]iB$" "$WORK/both.out" || fail "validate does not say what it wrote: $(tail -3 "$WORK/both.out")"

if [ $fails -ne 0 ]; then
    echo "e2e_json_schema: $fails failed" >&2
    exit 1
fi
echo "e2e_json_schema: ok (every JSON kind validates against docs/json; bounded heatmap output)"
