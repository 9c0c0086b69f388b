# SPDX-License-Identifier: GPL-2.0
"""hardprobe vs LKDTM on the same kernel.

usage: hptool lkdtm [TARGET]       (make lkdtm) the whole comparison: the kernel's own LKDTM
                                   (drivers/misc/lkdtm) built as a module against the
                                   target's kernel, one guest running the tests the
                                   module's records name, each in a child shell, then the
                                   comparison below into results/<target>/lkdtm-compare.txt
                                   (make run first when the target has no results)
       hptool lkdtm-compare RESULTS_DIR TESTS_TXT [UNLISTED]
       hptool lkdtm-guest-list REPORT_JSON TESTS_TXT [UNLISTED]
                                   (the tests the guest runs: "TEST REPEAT")
The pairing is hardprobe's side only, and the module holds it: each feature's and
probe's "lkdtm" list in report.json (HP_LIST() in its HP_FEATURE() or HP_PROBE()
record) names the LKDTM tests that provoke the same bug against the same protection;
a probe's is compared with that probe's outcome, a feature's with the feature's;
"?TEST" is shown but not counted; "TEST@7.0": LKDTM has it from 7.0 on. A record
naming a test this kernel's LKDTM lacks (and no later first version) fails the run.
What LKDTM expects comes from LKDTM itself: TESTS_TXT is the kernel's
tools/testing/selftests/lkdtm/tests.txt, read as its run.sh reads it (a test
marked "#" is not run: it crashes or hangs the machine; "repeat:N"; the expected
log text, a call trace when none is given). UNLISTED (scripts/lkdtm/unlisted), in
the same grammar, adds LKDTM tests that the kernel's LKDTM has but its tests.txt
does not list, each with the text LKDTM's own code prints on a catch; a test
tests.txt lists is always read from tests.txt.
Reads the LKDTM guest's console (RESULTS_DIR/console-lkdtm.log: the framed
lkdtm-dmesg.txt, each test between "hardprobe-lkdtm: begin/end <TEST>"
markers), judges each LKDTM test the way LKDTM's own selftest does (its
expected text; "XFAIL"/"FAIL" lines mean the kernel did not catch it), and
compares the verdict per feature with hardprobe's outcome in
RESULTS_DIR/report.json. Prints a table; exits 1 if they disagree anywhere.
"""
import argparse
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys

from . import TOP, Error, results_root, say, tool, tool_env
from .collect import frames, read

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


def all_tests(tests_txt, unlisted_txt=None):
    """tests.txt, and the unlisted tests (marked "unlisted") that it has no line for."""
    tests = lkdtm_tests(tests_txt)
    for name, t in lkdtm_tests(unlisted_txt or "").items():
        if name not in tests:
            tests[name] = dict(t, unlisted=True)
    return tests


RECORD = re.compile(r"^(\?)?([A-Z0-9_]+)(?:@(\d+)\.(\d+))?$")
# LKDTM tests that corrupt memory where nothing catches them (SLAB_LINEAR_OVERFLOW's write
# lands in the next 1 KiB slab object): the guest runs them after every other test
LAST = ("SLAB_LINEAR_OVERFLOW",)


def records(report):
    """[(feature or feature.probe, LKDTM test, informational, first version or None)]: the
    "lkdtm" records of the module's report.json (HP_LIST() in its HP_FEATURE() and
    HP_PROBE() records), features in registry order, each one's own before its probes'.
    "?TEST" is shown but not compared; "TEST@7.0": LKDTM has it from that kernel on.
    ValueError on a report without the records, or a record of another shape."""
    rows = []
    feats = report.get("features") if isinstance(report, dict) else None
    if not isinstance(feats, list):
        raise ValueError("report.json has no \"features\"")
    for f in feats:
        for name, rec in [(f.get("feature"), f.get("lkdtm"))] + [
                (p.get("probe"), p.get("lkdtm")) for p in f.get("probes", [])]:
            if not isinstance(rec, list):
                raise ValueError(f"report.json: {name} has no \"lkdtm\" list (a module older than "
                                 "the LKDTM records: make run again)")
            for test in rec:
                m = RECORD.match(test) if isinstance(test, str) else None
                if not m:
                    raise ValueError(f"{name}: LKDTM record {test!r}: want [?]TEST[@MAJOR.MINOR]")
                rows.append((name, m.group(2), m.group(1) == "?",
                             (int(m.group(3)), int(m.group(4))) if m.group(3) else None))
    return rows


def read_report(path):
    """(report.json loaded, its LKDTM records()); OSError or ValueError when it cannot be had"""
    with open(path) as f:
        report = json.load(f)
    return report, records(report)


def kernel_version(report):
    """(major, minor) of the kernel that wrote report.json, or None"""
    from . import renames
    try:
        return renames.version(str((report.get("kernel") or {}).get("release", "")))
    except Error:
        return None


def hardprobe_outcome(report, name):
    """The outcome of a feature, or of one probe ("feature.probe"), in report.json."""
    feat = report.get(name.split(".", 1)[0], {})
    if "." not in name:
        return feat.get("outcome", "missing")
    for p in feat.get("probes", []):
        if p.get("probe") == name:
            return p.get("outcome", "missing")
    return "missing"


def guest_list(rows, tests):
    """The guest's "TEST REPEAT" lines: the recorded tests tests.txt runs, once each, in the
    records' order (LAST at the end)."""
    out = []
    for _, test, _, _ in sorted(rows, key=lambda r: r[1] in LAST):
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


def main(rdir, tests_path, unlisted_path=None):
    console = os.path.join(rdir, "console-lkdtm.log")
    if not os.path.exists(console):
        print(f"lkdtm_compare: no {console}: run make lkdtm TARGET=... first", file=sys.stderr)
        return 2
    try:
        whole, rows = read_report(os.path.join(rdir, "report.json"))
    except (OSError, ValueError) as e:
        print(f"lkdtm_compare: {rdir}/report.json: {e}", file=sys.stderr)
        return 2
    report = {x["feature"]: x for x in whole["features"]}
    kver = kernel_version(whole)
    tests = all_tests(read(tests_path), read(unlisted_path) if unlisted_path else None)
    dmesg = frames(read(console)).get("lkdtm-dmesg.txt", "")
    runs = slices(dmesg)
    out, unknown = [], []
    for feat, test, inform, first in rows:
        t = tests.get(test)
        if not t:
            v, why = "missing", f"not in {tests_path}: this kernel's LKDTM has no such test"
            if first:
                why += f" (LKDTM has it from {'.'.join(map(str, first))})"
            # a record names a test this kernel's LKDTM should have: a misspelling, or a
            # test LKDTM renamed
            if not (first and kver and first > kver):
                unknown.append(f"{feat}: {test}")
        elif t["skip"]:
            v, why = "skipped", f"not run: tests.txt marks it: {t['skip']}"
        else:
            v, why = verdict(runs.get(test, []), t["expect"])
            if t.get("unlisted"):
                why = "(not in tests.txt: expected text from LKDTM's code) " + why
        out.append((feat, test, v, why, inform))
    target = os.path.basename(rdir.rstrip("/"))
    print(f"hardprobe vs LKDTM on {target} (the same kernel, one LKDTM guest)")
    print(f"{'hardprobe':<30} {'LKDTM test':<31} {'LKDTM':<11} {'hardprobe':<12} agree  "
          "LKDTM evidence")
    checked = bad = 0
    for feat, test, v, why, inform in out:
        hp = hardprobe_outcome(report, feat)
        # each row on its own: LKDTM's verdict on its test against hardprobe's
        # outcome of the feature or probe the record pairs it with
        if inform:
            agree = "info"
        elif (v in ("missing", "skipped", "inconclusive") or
              hp in ("missing", "not_run", "unsupported", "inconclusive", "error")):
            agree = "n/a"
        else:
            agree = "yes" if (v == "caught") == (hp == "protected") else "NO"
            checked += 1
            bad += agree == "NO"
        print(f"{feat:<30} {test:<31} {v:<11} {hp:<12} {agree:<6} {why[:110]}")
    for u in unknown:
        print(f"unknown LKDTM test in the module's records: {u} (neither tests.txt nor scripts/lkdtm/unlisted "
              "has it, and no later first version is recorded)")
    print(f"{len(out)} LKDTM tests, {checked} cross-checked: {checked - bad} agree, "
          f"{bad} disagreement(s)" + (f", {len(unknown)} unknown test(s)" if unknown else ""))
    return 1 if bad or unknown else 0


def cli(args):
    ap = argparse.ArgumentParser(prog="hptool lkdtm-compare", description=__doc__.splitlines()[0])
    ap.add_argument("results_dir")
    ap.add_argument("tests_txt")
    ap.add_argument("unlisted", nargs="?")
    a = ap.parse_args(args)
    return main(a.results_dir, a.tests_txt, a.unlisted)


def cli_guest_list(args):
    """the tests the LKDTM guest runs: "TEST REPEAT" lines"""
    ap = argparse.ArgumentParser(prog="hptool lkdtm-guest-list", description=cli_guest_list.__doc__)
    ap.add_argument("report_json")
    ap.add_argument("tests_txt")
    ap.add_argument("unlisted", nargs="?")
    a = ap.parse_args(args)
    rows = read_report(a.report_json)[1]
    print("\n".join(guest_list(rows, all_tests(read(a.tests_txt), read(a.unlisted) if a.unlisted else None))))
    return 0


def cli_run(args):
    """hptool lkdtm [TARGET]: LKDTM's tests and hardprobe's outcomes on one kernel (env:
    RESULTS, BOOT_TIMEOUT, HP_MTE, SMP, KSRC)"""
    from . import initramfs, kbuild, kconfig, qemu, targets
    ap = argparse.ArgumentParser(prog="hptool lkdtm", description=cli_run.__doc__)
    ap.add_argument("target", nargs="?", default="x86_64-gcc")
    a = ap.parse_args(args)
    env = os.environ
    t = targets.resolve(a.target)
    ksrc = kconfig.ksrc(say=say)[0]
    tests_txt = os.path.join(ksrc, "tools", "testing", "selftests", "lkdtm", "tests.txt")
    if not os.path.isfile(tests_txt):
        raise Error(f"no {tests_txt}: LKDTM's expectations come from the kernel source")
    unlisted = os.path.join(TOP, "scripts", "lkdtm", "unlisted")
    results = results_root(env)
    rdir, mdir = os.path.join(results, a.target), kbuild.module_dir(a.target, env={})
    if not (os.path.isfile(os.path.join(rdir, "report.json")) and os.path.isfile(os.path.join(mdir, "hardprobe.ko"))):
        say("lkdtm", a.target, "no hardprobe results yet: make run first")
        if subprocess.run(tool("run", a.target), stdout=subprocess.DEVNULL, env=tool_env()).returncode:
            raise Error(f"make run TARGET={a.target} failed")
    kdir = kbuild.Build(a.target).build(False)
    ldir = os.path.join(mdir, "lkdtm")
    say("lkdtm", a.target, f"building lkdtm.ko from {ksrc}/drivers/misc/lkdtm")
    shutil.rmtree(ldir, ignore_errors=True)
    src, guest = os.path.join(ldir, "src"), os.path.join(ldir, "guest")
    shutil.copytree(os.path.join(ksrc, "drivers", "misc", "lkdtm"), src)
    os.makedirs(guest)
    # x86 exports native_write_cr4 only to an in-tree LKDTM (UNSET_SMEP, not run here): out
    # of tree that one call becomes a no-op
    bugs = os.path.join(src, "bugs.c")
    with open(bugs) as f:
        text = f.read()
    with open(bugs, "w") as f:
        f.write(text.replace("native_write_cr4", "hp_lkdtm_no_write_cr4"))
    compat = os.path.join(src, "hp_compat.h")
    with open(compat, "w") as f:
        f.write("static void __attribute__((unused)) hp_lkdtm_no_write_cr4(unsigned long v) { }\n")
    log = os.path.join(ldir, "build.log")
    with open(log, "wb") as f:
        rc = subprocess.run(["make", "-C", kdir, *t.make_args(), f"M={src}", "CONFIG_LKDTM=m",
                             f"KCFLAGS=-include {compat}", "modules"], stdout=f, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=kbuild.make_env(kdir)).returncode
    if rc:
        print("\n".join(open(log, errors="replace").read().splitlines()[-20:]), file=sys.stderr)
        raise Error(f"{a.target}: lkdtm.ko build failed (log: {log})")
    shutil.copy(os.path.join(src, "lkdtm.ko"), guest)
    # the tests the module's records name (make run's report.json of this kernel)
    try:
        rows = read_report(os.path.join(rdir, "report.json"))[1]
    except (OSError, ValueError) as e:
        raise Error(f"{rdir}/report.json: {e}") from None
    with open(os.path.join(guest, "lkdtm-tests"), "w") as f:
        f.write("\n".join(guest_list(rows, all_tests(read(tests_txt), read(unlisted)))) + "\n")
    initrd = os.path.join(ldir, "initramfs.cpio.gz")
    initramfs.build(t.arch, mdir, os.path.join(mdir, "hardprobe_test"), initrd, guest)
    timeout = int(env.get("BOOT_TIMEOUT") or 600)
    say("boot", a.target, f"LKDTM tests in one guest (TCG), timeout {timeout} s")
    qemu.boot(qemu.command(t.arch, os.path.join(kdir, qemu.image(t.arch)), initrd,
                           f"panic=-1 log_buf_len=4M tsc=unstable hardprobe.target={a.target} hardprobe.mode=lkdtm",
                           mte=env.get("HP_MTE") == "yes", smp=env.get("SMP") or qemu.SMP_DEFAULT),
              os.path.join(rdir, "console-lkdtm.log"), timeout)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(rdir, tests_txt, unlisted)
    with open(os.path.join(rdir, "lkdtm-compare.txt"), "w") as f:
        f.write(out.getvalue())
    sys.stdout.write(out.getvalue())
    return rc
