# SPDX-License-Identifier: GPL-2.0
"""hardprobe check: judge one target's results directory.

usage: hptool judge RESULTS_DIR EXPECT_TABLE [TARGET]   (TARGET: the table's column;
                                                       default: the name of RESULTS_DIR)
       hptool judge --lockdown RESULTS_DIR   (a guest booted lockdown=integrity, mode lockdown)
       hptool judge --refusals SETTING all|any RESULTS_DIR   (a guest of the refusal matrix)
Prints one "check <target> <what>: ok|FAIL ..." line per check; exit 1 on any FAIL.
KTAP is read with the kernel's own kunit_parser; the outcome rules are the module's own,
from report.json ("rules"), through scripts/hptool/outcome.py.
"""
import argparse
import json
import os
import re
import sys
import traceback

from . import collect
from . import Error, expect, khc, ktap, outcome


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def ktap_counts(text):
    """(ok, not_ok) result lines of a KTAP document, nested ones included (kunit_parser)."""
    ok, bad, _ = ktap.counts(text)
    return ok, bad


# a Kconfig value as the module's configured layer states it: CONFIG_X=y, =n, =4096, ="..."
STATED = re.compile(r'\b(CONFIG_[A-Z0-9_]+)=("[^"]*"|[A-Za-z0-9_-]+)')


def kconfig_values(path):
    """{CONFIG_X: value} of a .config ("is not set" and absent alike: not in it)"""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$", line.rstrip("\n"))
            if m:
                out[m.group(1)] = m.group(2)
    return out


def config_agrees(rdir, features, check):
    """check that each CONFIG_X=v the report's configured layers state is the kernel's
    .config value (n: unset); the outcome a feature's configuration predicts
    (hptool/expect.py) rests on that layer. No build-info.txt (a recorded log): skipped."""
    info = read(os.path.join(rdir, "build-info.txt"))
    target = os.path.basename(rdir.rstrip("/"))
    if info is None:
        print(f"check {target} config-agrees: SKIP no build-info.txt (not a make run results dir)")
        return
    m = re.search(r"^build_dir: (.+)$", info, re.M)
    path = os.path.join(m.group(1).strip(), ".config") if m else None
    try:
        cfg = kconfig_values(path) if path else None
    except OSError as e:
        cfg, path = None, f"{path} ({e.strerror})"
    if cfg is None:
        return check("config-agrees", False, f"no kernel .config to check the configured layers against: "
                     f"{path or 'build-info.txt names no build_dir'}")
    n, off = 0, []
    for f in features:
        for sym, val in STATED.findall(f.get("configured") or ""):
            n += 1
            have = cfg.get(sym, "n")
            if val != have:
                off.append(f"{f.get('feature')}: {sym}={val}, .config {sym}={have}")
    check("config-agrees", n > 0 and not off,
          f"{n} Kconfig values stated, {len(off)} not the kernel's" + (": " + "; ".join(off[:3]) if off else ""))


def khc_records(data, check):
    """every kernel-hardening-checker check a feature's record names (report.json "khc",
    its HP_FEATURE(.khc = ...)) is one of k-h-c's runtime-observable checks
    (scripts/tests/khc/checks.txt), under either name of a Kconfig rename; and some are
    named: one "khc-records" check."""
    from . import khc_coverage
    try:
        opts = khc.report_options(data)
        checks = khc_coverage.read_checks()
    except Error as e:
        check("khc-records", False, str(e))
        return
    observable = {}
    for c in checks:
        observable[c["name"]] = observable.get(c["name"], False) or c["observable"] == "yes"
    groups = khc.rename_groups()
    bad, n = [], 0
    for fid, v in opts.items():
        for o, _ in v:
            n += 1
            names = next((g for g in groups if o in g), [o])
            if not any(x in observable for x in names):
                bad.append(f"{fid}: {o} is no k-h-c check")
            elif not any(observable.get(x) for x in names):
                bad.append(f"{fid}: {o} is not runtime-observable (checks.txt)")
    feats = sum(1 for v in opts.values() if v)
    check("khc-records", n > 0 and not bad,
          f"{n} k-h-c checks named by {feats} of {len(opts)} features" + (
              ", each a runtime-observable check of k-h-c's list" if not bad else
              ": " + "; ".join(bad[:4])))


def main(rdir, table_path, column=None):
    target = os.path.basename(rdir.rstrip("/"))
    results = []
    try:
        table = expect.parse(table_path)
        column = column or target
        table.check_target(column)
        directives = table.directives(column)
    except (OSError, expect.TableError) as e:
        print(f"check {target} expect-table: FAIL ({e})")
        return 1

    def check(what, ok, detail=""):
        results.append(ok)
        print(f"check {target} {what}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")

    # "@kunit skip": this kernel has no KUnit; the KUnit part must say so in one skip line
    kunit_skip = directives.get("@kunit") == "skip"
    console = read(os.path.join(rdir, "console.log")) or ""
    # the guest printed its end marker, and every file it framed arrived whole
    ended, cut = "===== hardprobe:end" in console, collect.cut_frames(console)
    stop = collect.panic_line(console) or ("TIMEOUT" if "TIMEOUT after" in console else "crash or TIMEOUT")
    check("guest-finished", ended and not cut,
          ("" if ended else f"no end marker ({stop})") +
          (f"{'; ' if not ended else ''}the console log cuts {cut[0]}" if cut else ""))

    # a configured feature the table expects vulnerable (a kernel that does not stop the bug
    # although the feature is on: 7.x's slab sheaves pass a double free): its own KTAP lines
    # and those of its vulnerable probes say "not ok", as they must
    # (report.json read once: its own checks follow the KTAP's)
    try:
        data, json_err = json.loads(read(os.path.join(rdir, "report.json")) or ""), None
    except ValueError as e:
        data, json_err = None, str(e)
    cells = dict(table.expectations(column))
    xfail = set()
    for f in (data or {}).get("features", []) if isinstance(data, dict) else []:
        if cells.get(f.get("feature")) == "vulnerable" and f.get("configured_bool"):
            xfail.add(f["feature"])
            xfail |= {p.get("probe") for p in f.get("probes", []) if p.get("outcome") == "vulnerable"}
    expected_fail, ktap_good = {}, {}

    for name, what in (("selftest.ktap", "kselftest"), ("fuzz.ktap", "fuzz"), ("kunit.ktap", "kunit"),
                       ("trust.ktap", "trust"), ("ktap.txt", "report-ktap")):
        text = read(os.path.join(rdir, name)) or ""
        # safe mode (the debug target) fires no fatal probe: no trust run
        if name == "trust.ktap" and re.search(r"===== hardprobe:begin \S+ safe =====", console):
            continue
        if name == "kunit.ktap" and kunit_skip:
            check(what + "-skipped", text.startswith("1..0 # SKIP "), text.strip()[:80])
            continue
        try:
            ok, bad = ktap_counts(text) if text else (0, 0)
            failed = ktap.failed_names(text) if bad else []
        except ktap.ParseError as e:
            check(what, False, str(e)[:120])
            continue
        expected_fail[name] = sorted(n for n in failed if n in xfail)
        good = "KTAP version 1" in text and ok > 0 and len(failed) == len(expected_fail[name])
        ktap_good[name] = good
        check(what, good, f"{ok} ok, {bad} not ok" +
              (f" ({len(expected_fail[name])} as expected: {' '.join(expected_fail[name])})"
               if expected_fail[name] else ""))
    # the kselftest-only checks of user space (selftests/hardprobe/hp_user.c): each prints
    # "# <name>: <outcome>: <evidence>; configured: <layer>" before its KTAP line (judged
    # above); listed here by outcome
    user = {}
    for line in (read(os.path.join(rdir, "selftest.ktap")) or "").splitlines():
        m = re.match(r"^# ([A-Za-z0-9_.-]+): ([a-z_]+): .*; configured: ", line)
        if m:
            user.setdefault(m.group(2), []).append(m.group(1))
    check("kselftest-user", bool(user), f"{sum(map(len, user.values()))} lines: " + "; ".join(
        f"{o} {len(n)} ({' '.join(n)})" for o, n in sorted(user.items())) if user else "none")
    rc = (read(os.path.join(rdir, "selftest.rc")) or "").strip()
    # exit 1 with every failure an expected one (its KTAP judged above)
    xrc = rc == "exit=1" and bool(expected_fail.get("selftest.ktap")) and ktap_good.get("selftest.ktap")
    check("kselftest-exit", rc == "exit=0" or xrc,
          (rc or "no exit code") + (": the expected failures only" if xrc else ""))

    if json_err is None:
        check("json", data.get("schema") == 1 and len(data.get("features", [])) > 0)
    else:
        check("json", False, json_err)
    outcomes = {f["feature"]: f for f in (data or {}).get("features", [])}
    rules = None
    if data is not None:
        khc_records(data, check)
        try:
            rules = outcome.rules_of(data, os.path.join(rdir, "report.json"))
        except outcome.RulesError as e:
            check("json-rules", False, str(e))
    if rules is not None:
        # the module's outcome and KTAP verdict per feature follow its own exported rules
        # (the host's one copy of their reading, hptool/outcome.py: the copies agree)
        off = []
        for f in outcomes.values():
            want = outcome.feature_outcome(rules, f.get("probes", []))
            k = outcome.ktap_of(rules, f.get("outcome"), False, f.get("configured_bool"))
            if want != f.get("outcome") or k != f.get("ktap"):
                off.append(f"{f['feature']}: {f.get('outcome')}/{f.get('ktap')}, rules say {want}/{k}")
        check("json-rules", not off, f"{len(outcomes)} features" + (": " + "; ".join(off[:3]) if off else ""))

    # the kselftest runner and the module's report must agree probe by probe (the
    # runner ran each probe itself, before the report ran them again)
    sel = {}
    for line in (read(os.path.join(rdir, "selftest.ktap")) or "").splitlines():
        m = re.match(r"^# ([A-Za-z0-9_.-]+): ([a-z_]+)[ :]", line)
        # (a skip's reason has a line of its own, "# <probe>: skip: ...": not an outcome)
        if m and "." in m.group(1) and m.group(2) != "skip":
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
    # a panicking probe is judged from its own guest's log (hptool collect), never left at the
    # module's not_run: one the run gave no guest fails (PANIC_GUESTS=no skips them all)
    if data is not None:
        own = {p.get("probe"): p for p in data.get("panic_probes") or []}
        bad, skipped, n = [], [], 0
        for f in outcomes.values():
            for pr in f.get("probes", []):
                if pr.get("kind") != "panic":
                    continue
                n += 1
                res = own.get(pr.get("probe"))
                if res is None:
                    bad.append(f"{pr.get('probe')}: no verdict of its own guest")
                elif res.get("guest") == "skipped":
                    skipped.append(pr.get("probe"))
                elif res.get("guest", "own") != "own":
                    bad.append(f"{pr.get('probe')}: {res.get('evidence')}")
        if skipped and not bad:
            print(f"check {target} panic-guests: SKIP {len(skipped)} of {n} skipped on purpose "
                  "(PANIC_GUESTS=no)")
        else:
            check("panic-guests", not bad, f"{n - len(bad)} of {n} judged in a guest of their own" +
                  (": " + "; ".join(bad[:3]) if bad else ""))
    # the prediction's input: every Kconfig value the module's configured layer states is the
    # kernel's own (its .config, from the build dir build-info.txt names)
    if data is not None:
        config_agrees(rdir, outcomes.values(), check)
    for feat, want, _ in table.expected(column, list(outcomes.values())):
        got = outcomes.get(feat, {}).get("outcome", "missing")
        probes = outcomes.get(feat, {}).get("probes", [])
        # the evidence of the probe that gave the feature its outcome
        ev = next((p.get("evidence") for p in probes if p.get("outcome") == got),
                  probes[0].get("evidence") if probes else "")
        if got != want and outcome.by_chance(got, probes):
            # a random draw of this boot hid the protection: this boot cannot judge it
            print(f"check {target} outcome-{feat}: SKIP (want {want}, got {got} by chance, "
                  f"which another boot decides: {ev})")
        else:
            check(f"outcome-{feat}", got == want, f"want {want}, got {got}: {ev}")
        # a verdict must come with evidence from a probe, never from the config alone
        check(f"evidence-{feat}", bool(probes) and all(p.get("evidence") for p in probes))
    return 0 if all(results) else 1


def lockdown(rdir):
    """The module under lockdown=integrity: refused in its own words, nothing ran."""
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
    # hardprobe of kunit.py's lockdown boot, hptool intree-check) meets hardprobe's
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


def refusals(rdir, setting, want):
    """A guest booted with a setting under which a catch panics (make check's refusal
    matrix): it read the report and wrote every fatal probe with allow_fatal=1, and did
    not panic; each refused write has its reason in the report read after; want "all": every fatal
    probe was refused; "any": some may run (their catch does not panic here)."""
    console = read(os.path.join(rdir, "console.log")) or ""
    files = collect.frames(console)
    dmesg, rows = files.get("dmesg.txt", ""), files.get("refusals.txt", "")
    results = []

    def check(what, ok, detail=""):
        results.append(ok)
        print(f"check refusals-{setting} {what}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")

    panic = re.search(r"Kernel panic - not syncing:.*", console)
    check("no-panic", "===== hardprobe:end" in console and not panic and bool(dmesg),
          panic.group(0)[:160] if panic else "" if dmesg else "no end marker (crash or TIMEOUT)")
    fatal = [ln.split()[0] for ln in files.get("probes.txt", "").splitlines()
             if len(ln.split()) > 2 and ln.split()[2] == "fatal"]
    got = dict(ln.split()[:2] for ln in rows.splitlines() if len(ln.split()) >= 2)
    # the reason of each refused write, as the report read after them gives it
    after = files.get("report-after.txt", "")
    refused = [p for p in fatal if got.get(p) == "1"]
    unexplained = [p for p in refused if not re.search(
        r"^\s+" + re.escape(p) + r"\s+fatal\s+not_run\s.*not run: refused: \S", after, re.M)]
    reasons = sorted({m.group(1)[:60] for m in re.finditer(r"not run: refused: (.*)", after)})
    check("every-fatal-probe-written", bool(fatal) and all(p in got for p in fatal),
          f"{len(got)} of {len(fatal)} fatal probes")
    check("every-refusal-has-its-reason", not unexplained,
          f"{len(refused)} refused; " + ("; ".join(reasons[:3]) if not unexplained else
                                         "no reason for " + ", ".join(unexplained[:5])))
    if want == "all":
        ran = [f"{p} ({got.get(p, 'not written')})" for p in fatal if got.get(p) != "1"]
        check("every-fatal-probe-refused", bool(fatal) and not ran,
              f"{len(refused)} of {len(fatal)}" + (": not refused " + ", ".join(ran[:5]) if ran else ""))
    return 0 if all(results) else 1


def cli(args):
    ap = argparse.ArgumentParser(prog="hptool judge", description=__doc__.splitlines()[0])
    ap.add_argument("--lockdown", action="store_true", help="a guest booted lockdown=integrity")
    ap.add_argument("--refusals", nargs=2, metavar=("SETTING", "WANT"),
                    help="a guest of the refusal matrix; WANT: all or any")
    ap.add_argument("results_dir")
    ap.add_argument("table", nargs="?", help="the expectation table (not with --lockdown or --refusals)")
    ap.add_argument("target", nargs="?", help="the table's column (default: the name of RESULTS_DIR)")
    a = ap.parse_args(args)
    if (a.lockdown or a.refusals) and a.table or not (a.lockdown or a.refusals or a.table) or \
            (a.refusals and a.refusals[1] not in ("all", "any")) or (a.lockdown and a.refusals):
        ap.error("RESULTS_DIR TABLE [TARGET], --lockdown RESULTS_DIR or --refusals SETTING all|any RESULTS_DIR")
    if a.refusals:
        name, run, argv = "refusals-" + a.refusals[0], refusals, (a.results_dir, *a.refusals)
    elif a.lockdown:
        name, run, argv = "lockdown-" + os.path.basename(a.results_dir.rstrip("/")), lockdown, (a.results_dir,)
    else:
        name, run = os.path.basename(a.results_dir.rstrip("/")), main
        argv = (a.results_dir, a.table) + ((a.target,) if a.target else ())
    # a judge that stops half way fails in a check line of its own: its checks so far may
    # all be ok, and the checks it never reached print nothing
    try:
        return run(*argv)
    except Error as e:
        print(f"hardprobe: error: {e}", file=sys.stderr)
        print(f"check {name} judge: FAIL ({e})")
    except Exception as e:  # noqa: BLE001 (any exception: the judge did not finish)
        traceback.print_exc()
        print(f"check {name} judge: FAIL (stopped by {type(e).__name__}: {e})")
    return 1
