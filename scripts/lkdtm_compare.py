#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hardprobe vs LKDTM on the same kernel.

usage: lkdtm_compare.py RESULTS_DIR MAP
Rows whose feature starts with "?" in MAP are shown but not counted.
Reads the LKDTM guest's console (RESULTS_DIR/console-lkdtm.log: the framed
lkdtm-dmesg.txt, each test between "hardprobe-lkdtm: begin/end <TEST>"
markers), judges each LKDTM test the way LKDTM's own selftest does (the
expected text of tools/testing/selftests/lkdtm/tests.txt, or a call trace when
none is given; "XFAIL"/"FAIL" lines mean the kernel did not catch it), and
compares the verdict per feature with hardprobe's outcome in
RESULTS_DIR/report.json. Prints a table; exits 1 if they disagree anywhere.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from collect import frames, read  # noqa: E402

TS = re.compile(r"^\[\s*[0-9.]+\]\s?")


def slices(dmesg):
    """{test: [messages of each run]} between the begin/end markers."""
    out, cur, name = {}, None, None
    for line in dmesg.splitlines():
        msg = TS.sub("", line)
        m = re.match(r"hardprobe-lkdtm: begin (\S+)", msg)
        if m:
            name, cur = m.group(1), []
            continue
        if re.match(r"hardprobe-lkdtm: end ", msg) and name:
            out.setdefault(name, []).append(cur)
            name, cur = None, None
            continue
        if cur is not None:
            cur.append(msg)
    if name and cur is not None:    # the guest died inside a test
        out.setdefault(name, []).append(cur + ["(guest stopped here)"])
    return out


def verdict(runs, expect):
    """caught / not caught / xfail / inconclusive / missing, and the line that decided it.

    The last run decides. A run in which LKDTM reports an "ERROR:" of its own (its
    experiment did not happen, e.g. REPORT_STACK_CANARY's "canary offset changed")
    and nothing else is inconclusive: LKDTM gave no verdict to compare with.
    """
    if not runs:
        return "missing", "the test did not run (guest stopped earlier?)"
    tries = f" (after {len(runs)} runs)" if len(runs) > 2 else ""
    text = "\n".join(runs[-1])
    for alt in (expect if expect != "-" else "call trace:").split("|"):
        for line in text.splitlines():
            if alt.lower() in line.lower():
                return "caught", line.strip()
    for line in text.splitlines():
        if "XFAIL" in line:
            return "xfail", line.strip()
    for line in text.splitlines():
        if "FAIL" in line:
            return "not caught", line.strip()
    for line in text.splitlines():
        if "ERROR:" in line:
            return "inconclusive", line.strip() + tries
    last = runs[-1][-1].strip() if runs[-1] else "no message"
    return "not caught", f"no catch in the log (last: {last[:80]})"


def main(rdir, map_path):
    console = os.path.join(rdir, "console-lkdtm.log")
    if not os.path.exists(console):
        print(f"lkdtm_compare: no {console}: run make lkdtm TARGET=... first", file=sys.stderr)
        return 2
    dmesg = frames(read(console)).get("lkdtm-dmesg.txt", "")
    runs = slices(dmesg)
    try:
        with open(os.path.join(rdir, "report.json")) as f:
            report = {x["feature"]: x for x in json.load(f)["features"]}
    except (OSError, ValueError, KeyError):
        report = {}
    rows, per_feature = [], {}
    with open(map_path) as f:
        for line in f:
            if line.startswith("#") or not line.split():
                continue
            feat, test, expect = line.split(None, 2)
            inform = feat.startswith("?")     # shown, not counted (see the map)
            feat = feat.lstrip("?")
            v, why = verdict(runs.get(test, []), expect.strip())
            rows.append((feat, test, v, why, inform))
            if not inform:
                per_feature.setdefault(feat, []).append(v)
    target = os.path.basename(rdir.rstrip("/"))
    print(f"hardprobe vs LKDTM on {target} (the same kernel, one LKDTM guest)")
    print(f"{'feature':<18} {'LKDTM test':<26} {'LKDTM':<11} {'hardprobe':<12} agree  LKDTM evidence")
    bad = 0
    for feat, test, v, why, inform in rows:
        hp = report.get(feat, {}).get("outcome", "missing")
        lk = per_feature.get(feat, [])
        if inform:
            agree = "info"
        elif ({"missing", "inconclusive"} & set(lk) or
              hp in ("missing", "not_run", "unsupported", "inconclusive", "error")):
            agree = "n/a"
        else:
            lk_caught = all(x == "caught" for x in lk)
            agree = "yes" if lk_caught == (hp == "protected") else "NO"
            bad += agree == "NO"
        print(f"{feat:<18} {test:<26} {v:<11} {hp:<12} {agree:<6} {why[:110]}")
    print(f"{len(rows)} LKDTM tests, {bad} feature disagreement(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
