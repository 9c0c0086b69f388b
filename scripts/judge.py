#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hardprobe check: judge one target's results directory.

usage: judge.py RESULTS_DIR EXPECT_FILE
       judge.py --lockdown RESULTS_DIR   (a guest booted lockdown=integrity, mode lockdown)
Prints one "check <target> <what>: ok|FAIL ..." line per check; exit 1 on any FAIL.
"""
import json
import os
import re
import sys

KTAP_RESULT = re.compile(r"^\s*(ok|not ok) \d+ ")


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def ktap_counts(text):
    """(ok, not_ok) result lines of a KTAP document, nested ones included."""
    ok = bad = 0
    for line in text.splitlines():
        m = KTAP_RESULT.match(line)
        if m:
            ok += m.group(1) == "ok"
            bad += m.group(1) == "not ok"
    return ok, bad


def main(rdir, expect_path):
    target = os.path.basename(rdir.rstrip("/"))
    results = []

    def check(what, ok, detail=""):
        results.append(ok)
        print(f"check {target} {what}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")

    expect = read(expect_path) or ""
    # "@kunit skip": this kernel has no KUnit; the KUnit part must say so in one skip line
    kunit_skip = any(line.split() == ["@kunit", "skip"] for line in expect.splitlines())
    console = read(os.path.join(rdir, "console.log")) or ""
    check("guest-finished", "===== hardprobe:end" in console,
          "" if "===== hardprobe:end" in console else "no end marker (crash or TIMEOUT)")

    for name, what in (("selftest.ktap", "kselftest"), ("fuzz.ktap", "fuzz"), ("kunit.ktap", "kunit"),
                       ("trust.ktap", "trust"), ("ktap.txt", "report-ktap")):
        text = read(os.path.join(rdir, name)) or ""
        # safe mode (the debug target) fires no fatal probe: no trust run
        if name == "trust.ktap" and re.search(r"===== hardprobe:begin \S+ safe =====", console):
            continue
        if name == "kunit.ktap" and kunit_skip:
            check(what + "-skipped", text.startswith("1..0 # SKIP "), text.strip()[:80])
            continue
        ok, bad = ktap_counts(text)
        good = "KTAP version 1" in text and ok > 0 and bad == 0
        check(what, good, f"{ok} ok, {bad} not ok")
    rc = (read(os.path.join(rdir, "selftest.rc")) or "").strip()
    check("kselftest-exit", rc == "exit=0", rc or "no exit code")

    data = None
    try:
        data = json.loads(read(os.path.join(rdir, "report.json")) or "")
        check("json", data.get("schema") == 1 and len(data.get("features", [])) > 0)
    except ValueError as e:
        check("json", False, str(e))
    outcomes = {f["feature"]: f for f in (data or {}).get("features", [])}

    # the kselftest runner and the module's report must agree probe by probe (the
    # runner ran each probe itself, before the report ran them again)
    sel = {}
    for line in (read(os.path.join(rdir, "selftest.ktap")) or "").splitlines():
        m = re.match(r"^# ([A-Za-z0-9_.-]+): ([a-z_]+)[ :]", line)
        if m and "." in m.group(1):
            sel[m.group(1)] = m.group(2)
    differ, compared = [], 0
    for f in outcomes.values():
        for pr in f.get("probes", []):
            if pr.get("kind") == "panic" or pr["probe"] not in sel:
                continue
            if "not_run" in (pr["outcome"], sel[pr["probe"]]):
                continue
            compared += 1
            if pr["outcome"] != sel[pr["probe"]]:
                differ.append(f"{pr['probe']}: selftest {sel[pr['probe']]}, report {pr['outcome']}")
    if data is not None:
        check("selftest-agrees-with-report", compared > 0 and not differ,
              f"{compared} probes compared" + (": " + "; ".join(differ[:3]) if differ else ""))
    for line in expect.splitlines():
        line = line.split("#", 1)[0].split()
        if len(line) != 2 or line[0].startswith("@"):
            continue
        feat, want = line
        got = outcomes.get(feat, {}).get("outcome", "missing")
        ev = "; ".join(p["evidence"] for p in outcomes.get(feat, {}).get("probes", [])[:1])
        check(f"outcome-{feat}", got == want, f"want {want}, got {got}: {ev}")
        # a verdict must come with evidence from a probe, never from the config alone
        probes = outcomes.get(feat, {}).get("probes", [])
        check(f"evidence-{feat}", bool(probes) and all(p["evidence"] for p in probes))
    return 0 if all(results) else 1


def lockdown(rdir):
    """The module under lockdown=integrity: refused in its own words, nothing ran."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import collect  # noqa: E402
    target = os.path.basename(rdir.rstrip("/"))
    console = read(os.path.join(rdir, "console.log")) or ""
    dmesg = collect.frames(console).get("dmesg.txt", "")
    results = []

    def check(what, ok, detail=""):
        results.append(ok)
        print(f"check lockdown-{target} {what}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")

    check("guest-finished", "===== hardprobe:end" in console and bool(dmesg),
          "" if dmesg else "no dmesg frame (crash or TIMEOUT)")
    check("kernel-locked-down", "Kernel is locked down from command line" in dmesg)
    # an unsigned module meets the kernel's refusal first; a signed one (or the built-in
    # hardprobe of kunit.py's lockdown boot, scripts/intree-check.sh) meets hardprobe's
    refusal = (re.search(r"hardprobe: the kernel is locked down.*", dmesg) or
               re.search(r"Lockdown: insmod: unsigned module loading is restricted.*", dmesg))
    rc = re.search(r"hardprobe: lockdown insmod rc=(\d+)", console)
    check("module-not-loaded",
          bool(refusal) and bool(rc) and rc.group(1) != "0" and
          "hardprobe: lockdown: module loaded" not in console and
          "hardprobe: lockdown: debugfs hardprobe/ exists" not in console,
          (refusal.group(0)[:120] if refusal else "no refusal message") +
          f"; insmod rc={rc.group(1) if rc else '?'}")
    # autorun=1 was asked for: a refused module prints no KTAP and runs no probe
    check("no-probe-ran", "hardprobe: KTAP version 1" not in dmesg and "hardprobe: result " not in dmesg)
    return 0 if all(results) else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--lockdown":
        sys.exit(lockdown(sys.argv[2]))
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
