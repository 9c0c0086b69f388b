#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hardprobe vs LKDTM on the same kernel.

usage: lkdtm_compare.py RESULTS_DIR MAP TESTS_TXT
       lkdtm_compare.py --guest-list MAP TESTS_TXT   (the tests the guest runs: "TEST REPEAT")
MAP is hardprobe's side only: which LKDTM test exercises which hardprobe feature
(scripts/lkdtm/map; rows whose feature starts with "?" are shown but not counted).
What LKDTM expects comes from LKDTM itself: TESTS_TXT is the kernel's
tools/testing/selftests/lkdtm/tests.txt, read as its run.sh reads it (a test
marked "#" is not run: it crashes or hangs the machine; "repeat:N"; the expected
log text, a call trace when none is given).
Reads the LKDTM guest's console (RESULTS_DIR/console-lkdtm.log: the framed
lkdtm-dmesg.txt, each test between "hardprobe-lkdtm: begin/end <TEST>"
markers), judges each LKDTM test the way LKDTM's own selftest does (its
expected text; "XFAIL"/"FAIL" lines mean the kernel did not catch it), and
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


def lkdtm_tests(text):
    """{test: {"skip": reason or None, "repeat": N, "expect": ERE}} from tests.txt.

    As tools/testing/selftests/lkdtm/run.sh reads a line: "TEST", "TEST expected text",
    "TEST repeat:N expected text" or "#TEST why it is not run"; no expected text means
    an oops with a call trace ("call trace:").
    """
    tests = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        if name.startswith("#"):
            if name[1:]:
                tests[name[1:]] = {"skip": rest or "crashes entire system", "repeat": 0,
                                   "expect": None}
            continue
        repeat = 1
        m = re.match(r"repeat:(\d+)\s*(.*)$", rest)
        if m:
            repeat, rest = int(m.group(1)), m.group(2)
        tests[name] = {"skip": None, "repeat": repeat, "expect": rest or "call trace:"}
    return tests


def hardprobe_map(text):
    """[(feature, LKDTM test, informational)] from scripts/lkdtm/map."""
    rows = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) != 2:
            raise ValueError(f"map line {' '.join(line)!r}: want <feature> <LKDTM test>")
        feat, test = line
        rows.append((feat.lstrip("?"), test, feat.startswith("?")))
    return rows


def guest_list(rows, tests):
    """The guest's "TEST REPEAT" lines: the mapped tests tests.txt runs, once each."""
    out = []
    for _, test, _ in rows:
        t = tests.get(test)
        if t and not t["skip"] and f"{test} {t['repeat']}" not in out:
            out.append(f"{test} {t['repeat']}")
    return out


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


def expected(expect, line):
    """run.sh's grep -E -i of the expected text (an ERE; a plain substring if it is not one)."""
    try:
        return re.search(expect, line, re.I) is not None
    except re.error:
        return expect.lower() in line.lower()


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
    for line in text.splitlines():
        if expected(expect, line):
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


def main(rdir, map_path, tests_path):
    console = os.path.join(rdir, "console-lkdtm.log")
    if not os.path.exists(console):
        print(f"lkdtm_compare: no {console}: run make lkdtm TARGET=... first", file=sys.stderr)
        return 2
    tests = lkdtm_tests(read(tests_path))
    dmesg = frames(read(console)).get("lkdtm-dmesg.txt", "")
    runs = slices(dmesg)
    try:
        with open(os.path.join(rdir, "report.json")) as f:
            report = {x["feature"]: x for x in json.load(f)["features"]}
    except (OSError, ValueError, KeyError):
        report = {}
    rows, per_feature = [], {}
    for feat, test, inform in hardprobe_map(read(map_path)):
        t = tests.get(test)
        if not t:
            v, why = "missing", f"not in {tests_path}: this kernel's LKDTM has no such test"
        elif t["skip"]:
            v, why = "skipped", f"not run: tests.txt marks it: {t['skip']}"
        else:
            v, why = verdict(runs.get(test, []), t["expect"])
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
        elif ({"missing", "skipped", "inconclusive"} & set(lk) or
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
    if len(sys.argv) == 4 and sys.argv[1] == "--guest-list":
        print("\n".join(guest_list(hardprobe_map(read(sys.argv[2])),
                                   lkdtm_tests(read(sys.argv[3])))))
        sys.exit(0)
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
