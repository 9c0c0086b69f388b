# SPDX-License-Identifier: GPL-2.0
"""hardprobe vs LKDTM on the same kernel.

usage: hptool lkdtm [TARGET]       (make lkdtm) the whole comparison: the kernel's own LKDTM
                                   (drivers/misc/lkdtm) built as a module against the
                                   target's kernel, one guest running the tests
                                   scripts/lkdtm/map names, each in a child shell, then the
                                   comparison below into results/<target>/lkdtm-compare.txt
                                   (make run first when the target has no results)
       hptool lkdtm-compare RESULTS_DIR MAP TESTS_TXT [UNLISTED]
       hptool lkdtm-guest-list MAP TESTS_TXT [UNLISTED]
                                   (the tests the guest runs: "TEST REPEAT")
MAP is hardprobe's side only: which LKDTM test exercises which hardprobe feature,
or which probe of it ("feature.probe": that probe's outcome is compared; rows
whose feature starts with "?" are shown but not counted) (scripts/lkdtm/map).
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

from . import TOP, Error, say, tool, tool_env
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


MAP_LINE = "<feature>[.<probe>] <LKDTM test> [<first kernel version with the test>]"


def _map_lines(text):
    for line in text.splitlines():
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) not in (2, 3) or (len(line) == 3 and not re.match(r"^\d+\.\d+$", line[2])):
            raise ValueError(f"map line {' '.join(line)!r}: want {MAP_LINE}")
        yield line


def hardprobe_map(text):
    """[(feature or feature.probe, LKDTM test, informational)] from scripts/lkdtm/map."""
    return [(line[0].lstrip("?"), line[1], line[0].startswith("?")) for line in _map_lines(text)]


def since(text):
    """{LKDTM test: (major, minor)} of the map lines that name the first kernel version whose
    LKDTM has the test (an older kernel's tests.txt lacks it, rightly)."""
    return {line[1]: tuple(int(x) for x in line[2].split(".")) for line in _map_lines(text)
            if len(line) == 3}


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


def main(rdir, map_path, tests_path, unlisted_path=None):
    console = os.path.join(rdir, "console-lkdtm.log")
    if not os.path.exists(console):
        print(f"lkdtm_compare: no {console}: run make lkdtm TARGET=... first", file=sys.stderr)
        return 2
    tests = all_tests(read(tests_path), read(unlisted_path) if unlisted_path else None)
    dmesg = frames(read(console)).get("lkdtm-dmesg.txt", "")
    runs = slices(dmesg)
    try:
        with open(os.path.join(rdir, "report.json")) as f:
            report = {x["feature"]: x for x in json.load(f)["features"]}
    except (OSError, ValueError, KeyError):
        report = {}
    rows = []
    map_text = read(map_path)
    first = since(map_text)
    for feat, test, inform in hardprobe_map(map_text):
        t = tests.get(test)
        if not t:
            v, why = "missing", f"not in {tests_path}: this kernel's LKDTM has no such test"
            if test in first:
                why += f" (LKDTM has it from {'.'.join(map(str, first[test]))})"
        elif t["skip"]:
            v, why = "skipped", f"not run: tests.txt marks it: {t['skip']}"
        else:
            v, why = verdict(runs.get(test, []), t["expect"])
            if t.get("unlisted"):
                why = "(not in tests.txt: expected text from LKDTM's code) " + why
        rows.append((feat, test, v, why, inform))
    target = os.path.basename(rdir.rstrip("/"))
    print(f"hardprobe vs LKDTM on {target} (the same kernel, one LKDTM guest)")
    print(f"{'hardprobe':<30} {'LKDTM test':<31} {'LKDTM':<11} {'hardprobe':<12} agree  "
          "LKDTM evidence")
    checked = bad = 0
    for feat, test, v, why, inform in rows:
        hp = hardprobe_outcome(report, feat)
        # each row on its own: LKDTM's verdict on its test against hardprobe's
        # outcome of the feature or probe the map pairs it with
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
    print(f"{len(rows)} LKDTM tests, {checked} cross-checked: {checked - bad} agree, "
          f"{bad} disagreement(s)")
    return 1 if bad else 0


def cli(args):
    ap = argparse.ArgumentParser(prog="hptool lkdtm-compare", description=__doc__.splitlines()[0])
    ap.add_argument("results_dir")
    ap.add_argument("map")
    ap.add_argument("tests_txt")
    ap.add_argument("unlisted", nargs="?")
    a = ap.parse_args(args)
    return main(a.results_dir, a.map, a.tests_txt, a.unlisted)


def cli_guest_list(args):
    """the tests the LKDTM guest runs: "TEST REPEAT" lines"""
    ap = argparse.ArgumentParser(prog="hptool lkdtm-guest-list", description=cli_guest_list.__doc__)
    ap.add_argument("map")
    ap.add_argument("tests_txt")
    ap.add_argument("unlisted", nargs="?")
    a = ap.parse_args(args)
    print("\n".join(guest_list(hardprobe_map(read(a.map)),
                               all_tests(read(a.tests_txt), read(a.unlisted) if a.unlisted else None))))
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
    lmap, unlisted = (os.path.join(TOP, "scripts", "lkdtm", f) for f in ("map", "unlisted"))
    results = os.path.abspath(env.get("RESULTS") or os.path.join(TOP, "results"))
    rdir, mdir = os.path.join(results, a.target), os.path.join(results, ".build", a.target)
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
    with open(os.path.join(guest, "lkdtm-tests"), "w") as f:
        f.write("\n".join(guest_list(hardprobe_map(read(lmap)), all_tests(read(tests_txt), read(unlisted)))) + "\n")
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
        rc = main(rdir, lmap, tests_txt, unlisted)
    with open(os.path.join(rdir, "lkdtm-compare.txt"), "w") as f:
        f.write(out.getvalue())
    sys.stdout.write(out.getvalue())
    return rc
