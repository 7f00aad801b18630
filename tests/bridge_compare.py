#!/usr/bin/env python3
"""bridge_compare.py KIND REF.json VAR.json VARIANT - a bridge-form capture's
results against the same capture in vkrr's own form (tests/e2e_bridge.sh).

KIND: validate or rerun.  Launches are matched by (kernel, occurrence).  The
rows and metrics must be the same wherever the variant's capture holds the
information; where it does not, the stated status:
  - sampler state not in the log (stats, failures, nolog): a row may note
    "sampler state ..." and turn a FAIL into ERROR, never into PASS;
  - chained links not logged: a chained row may be ERROR for that reason,
    never PASS where the own form FAILs (no link dropped);
  - a replay folder missing (limit1, filter): the launch has no row; after a
    gap the chain restarts (chain_restart > 0), and its chained status is
    its isolated one.
Prints what differs and exits 1 on any difference."""
import json
import sys

NO_STATE = ("stats", "failures", "nolog")


def rows(path):
    d = json.load(open(path))
    return {(l["kernel"], l["occurrence"]): l for l in d["launches"]}, d


def metrics(res, key):
    out = []
    for r in res:
        c = r.get(key) if key != "metrics" else r
        m = c.get("metrics") if c else None
        out.append(None if not m else (m.get("exact_pct"), m.get("max_ulp"), m.get("max_abs")))
    return out


def main():
    kind, ref_path, var_path, variant = sys.argv[1:5]
    ref, _ = rows(ref_path)
    var, vd = rows(var_path)
    bad = []

    def fail(key, msg):
        bad.append("%s#%d: %s" % (key[0], key[1], msg))

    replayed_only = variant in ("limit1", "filter")
    if not replayed_only and set(ref) != set(var):
        bad.append("launches differ: %s" % sorted(set(ref) ^ set(var)))
    if replayed_only and (not var or not set(var) <= set(ref)):
        bad.append("the replayed launches are not a subset of the own form's: %s" % sorted(var))
    for key, v in var.items():
        r = ref.get(key)
        if r is None:
            continue
        no_state = variant in NO_STATE and "sampler state" in v.get("note", "")
        # isolated
        if v["status"] != r["status"]:
            if not (no_state and r["status"] == "FAIL" and v["status"] == "ERROR"):
                fail(key, "status %s, own form %s (note: %s)" % (v["status"], r["status"], v.get("note")))
        elif metrics(v["resources"], "metrics") != metrics(r["resources"], "metrics"):
            fail(key, "metrics differ: %s vs %s" % (metrics(v["resources"], "metrics"),
                                                      metrics(r["resources"], "metrics")))
        if kind != "validate" or "chained_status" not in r:
            continue
        vs, rs = v["chained_status"], r["chained_status"]
        if v.get("chain_restart", 0) > 0:  # after a gap: the captured state, as isolated
            if vs != v["status"]:
                fail(key, "restarted after a gap, but chained %s and isolated %s" % (vs, v["status"]))
            if "restarted from the capture" not in v.get("note", ""):
                fail(key, "restarted after a gap, and the row does not say so")
            continue
        if vs == rs:
            if vs == "FAIL" and metrics(v["resources"], "chained") != metrics(r["resources"], "chained"):
                fail(key, "chained metrics differ")
            continue
        if rs == "FAIL" and vs == "ERROR" and variant in NO_STATE and "sampler state" in v.get("note", ""):
            continue  # stated: the state is not known for sure
        fail(key, "chained %s, own form %s (note: %s)" % (vs, rs, v.get("note")))
        # the links the chain follows: each the own form's, or stated
    if kind == "validate" and not replayed_only:
        for key, v in var.items():
            r = ref.get(key)
            if not r or "links" not in r:
                continue
            rl = {x["arg"]: x for x in r["links"]}
            for x in v.get("links", []):
                y = rl.get(x["arg"])
                if x["from"] == "capture":
                    if y and y["from"] != "capture":
                        fail(key, "arg %d reads the capture, the own form reads %s" % (x["arg"], y["from"]))
                elif not y or y["from"] == "capture" or y["from"]["launch"] != x["from"]["launch"] or \
                        y["from"]["arg"] not in [x["from"]["arg"]] + x.get("alike_args", []):
                    fail(key, "arg %d reads %s (alike: %s), the own form %s" % (
                        x["arg"], x["from"], x.get("alike_args"), y and y["from"]))
                elif x["how"] not in ("logged", "inferred from shape", "inferred from equal bytes"):
                    fail(key, "arg %d: link '%s'" % (x["arg"], x["how"]))
            for arg, y in rl.items():
                if y["from"] != "capture" and not any(x["arg"] == arg for x in v.get("links", [])):
                    fail(key, "arg %d: the own form's link to %s is dropped" % (arg, y["from"]))
    for b in bad:
        print("  " + b)
    print("%s %s: %d launches compared, %d differences" % (variant, kind, len(var), len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
