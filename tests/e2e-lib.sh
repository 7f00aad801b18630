# e2e-lib.sh - sourced by tests/e2e_*.sh.  Sourced with the script's arguments,
#     . "$(dirname "$0")/e2e-lib.sh" "$@"     (VKRR_BIN WORKDIR)
# it is the usual start: VKRR and WORK set, WORK emptied, fails=0 and
# fail MESSAGE (prints "FAIL: MESSAGE", counts it); the script then ends with
#     e2e_end                                 "NAME: ok" or "NAME: N failures",
#                                             exit status 0 only when none
# Sourced without arguments, VKRR and WORK must be set and WORK exist.
#
#     e2e_json_valid SCHEMA FILE...  each FILE is valid docs/json/SCHEMA.schema.json JSON
#                                    (python3-jsonschema; see below); calls fail() if not
#     e2e_clampk_capture CAP PORTS   a capture of tests/stress/clampk (lim 8, inputs in
#                                    [-4, 4), n 250 of 256) and `port new`'s skeleton in
#                                    PORTS; calls the script's fail() on trouble
#
#     vkrr synth "$cap" --size 8x8 >"$WORK/o" 2>"$WORK/e" || fail "..."
#     e2e_scan_logs "bench/run.sh" "$WORK/run.out" "$WORK"/run/*.out
#
# vkrr ARGS... runs "$VKRR" ARGS with the caller's redirections and returns
# its exit code; its stderr reaches wherever the caller sends it once vkrr has
# exited.  A sanitizer report in that run (exit $VKRR_SANITIZER_EXIT, set by
# tests/CMakeLists.txt, or a report on stderr) is printed on the script's own
# stderr as "FAIL: sanitizer report in `vkrr ARGS` (exit N):" with the report,
# even from inside $(...) or a pipeline, and the script then exits 1 however
# its own checks went.  e2e_scan_logs does the same for logs of programs that
# ran vkrr themselves.  The markers are testutil.c's sanitizer_marks.
#
# e2e_skip NEED WHY ends a test that cannot run here (NEED: a tool, "jit"):
# "SKIPPED: WHY" and exit 77, ctest's SKIP_RETURN_CODE (tests/CMakeLists.txt);
# where the list $VKRR_TEST_REQUIRE names NEED (scripts/test.sh), a failure
# instead, as testutil.h's test_skip.
if [ $# -ge 2 ]; then
    VKRR=$1
    WORK=$2
    fails=0
    fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
    rm -rf "$WORK"
    mkdir -p "$WORK"
fi

e2e_end() {
    local name
    name=$(basename "$0" .sh)
    [ "$fails" = 0 ] && echo "$name: ok" || echo "$name: $fails failures"
    [ "$fails" = 0 ]
}

exec 3>&2 # the script's stderr, whatever a caller redirects
E2E_SANITIZER_LOG=$(mktemp /tmp/vkrr-e2e-sanitizer.XXXXXX)
E2E_SANITIZER_MARKS=(-e "ERROR: AddressSanitizer" -e "ERROR: LeakSanitizer" -e ": runtime error: "
                     -e "SUMMARY: UndefinedBehaviorSanitizer")

e2e_sanitizer_note() { # WHAT RC FILE
    { echo "FAIL: sanitizer report in $1 (exit $2):"; cat "$3"; } | tee -a "$E2E_SANITIZER_LOG" >&3
}

vkrr() {
    local errf rc
    errf=$(mktemp /tmp/vkrr-e2e-stderr.XXXXXX)
    "$VKRR" "$@" 2>"$errf"
    rc=$?
    cat "$errf" >&2
    if [ "$rc" = "${VKRR_SANITIZER_EXIT:-none}" ] || grep -qF "${E2E_SANITIZER_MARKS[@]}" "$errf"; then
        e2e_sanitizer_note "\`vkrr $*\`" "$rc" "$errf"
    fi
    rm -f "$errf"
    return $rc
}

e2e_scan_logs() { # WHAT FILE...
    local what=$1 f
    shift
    for f in "$@"; do
        [ -f "$f" ] && grep -qF "${E2E_SANITIZER_MARKS[@]}" "$f" && e2e_sanitizer_note "$what ($f)" "?" "$f"
    done
    return 0
}

e2e_sanitizer_verdict() {
    local rc=$?
    if [ -s "$E2E_SANITIZER_LOG" ]; then
        echo "$(basename "$0"): $(grep -c '^FAIL: sanitizer report' "$E2E_SANITIZER_LOG") sanitizer report(s), shown above" >&3
        rc=1
    fi
    rm -f "$E2E_SANITIZER_LOG"
    exit $rc
}
trap e2e_sanitizer_verdict EXIT

e2e_skip() { # NEED WHY
    case " ${VKRR_TEST_REQUIRE:-} " in
    *" $1 "*) echo "FAIL: $2 (required: VKRR_TEST_REQUIRE names $1)" >&3; exit 1 ;;
    esac
    echo "SKIPPED: $2"
    exit 77
}

# e2e_json_valid SCHEMA FILE...: each FILE validates against docs/json/SCHEMA.schema.json
# (python3-jsonschema); the caller's fail() with the first errors when one does not.
# Without python3-jsonschema: nothing (e2e_json_schema says SKIPPED), unless
# $VKRR_TEST_REQUIRE names jsonschema, then a failure.
e2e_json_valid() {
    local schema=$1 root out
    shift
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    if ! python3 -c "import jsonschema" 2>/dev/null; then
        case " ${VKRR_TEST_REQUIRE:-} " in
        *" jsonschema "*) fail "python3-jsonschema is missing (VKRR_TEST_REQUIRE names it)" ;;
        esac
        return 0
    fi
    out=$(python3 - "$root/docs/json/$schema.schema.json" "$@" <<'PY' 2>&1
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(open(path))
    for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))[:5]:
        print(f"{path}: at /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
        bad += 1
sys.exit(1 if bad else 0)
PY
    ) || fail "not valid $schema JSON: $out"
}

e2e_clampk_capture() { # CAP PORTS
    local root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    vkrr record "$1" --ptx "$root/tests/stress/clampk.ptx" --kernel clampk --grid 4 --block 64 \
        --arg in:f32:256 --arg out:f32:256 --arg f32:8 --arg u32:250 >/dev/null 2>&1 || fail "record"
    vkrr port new clampk "$1" --out "$2" >/dev/null 2>&1 || fail "port new"
}

# The clampk capture and two ports of it: BAD forgets the kernel's clamp
# (what stress must find), GOOD has it (as the PTX rounds: no fma).
e2e_clampk_ports() { # CAP BAD GOOD
    e2e_clampk_capture "$1" "$2"
    cp -r "$2" "$3"
    python3 - "$2/clampk.comp" "$3/clampk.comp" <<'PY' || fail "the skeleton has no body line"
import sys
old = "// The kernel's body goes here.  Nothing is written yet."
head = "uint i = gid.x;\n    if (i < vkrr_p.arg20) {\n        precise float v = vkrr_ld_f(in0, i);\n"
clamp = ("        float lim = uintBitsToFloat(vkrr_p.arg16);\n"
         "        if (v > lim) {\n            precise float t = lim;\n"
         "            for (int k = 0; k < 4; k++)\n                t = t * 0.75 + lim * 0.25;\n"
         "            v = t;\n        }\n")
tail = "        vkrr_st_f(out8, i, v * 0.5);\n    }"
for path, body in ((sys.argv[1], head + tail), (sys.argv[2], head + clamp + tail)):
    s = open(path).read()
    assert old in s
    open(path, "w").write(s.replace(old, body))
PY
}
