# SPDX-License-Identifier: GPL-2.0
"""hardprobe: how many of kernel-hardening-checker's checks hardprobe verifies at runtime.

usage: hptool khc-coverage REPORT_JSON [--list] [--checks FILE]

Reads k-h-c's check list (scripts/tests/khc/checks.txt: one line per check as its JSON
names it, for X86_64 and ARM64, each marked runtime-observable or not and classed
self-protection, policy knob or build), the features' k-h-c checks from a report.json of
this module (each feature's "khc", on both architectures: the record is the same on
every target) and the kselftest lines' from selftests/hardprobe/hp_checks.def. A check
counts once per line of checks.txt; it is covered when its option_name is one that a
feature or a kselftest user-space line verifies (on either architecture), under either
name of a Kconfig rename that scripts/kconfig-renames lists. Prints, for the
runtime-observable checks, covered / total, split self-protection and policy knobs;
--list names the covered and the uncovered ones.
Exit 2 when a file cannot be read or parsed.
"""
import argparse
import json
import os
import sys

from . import SCRIPTS, Error, khc

CHECKS = os.path.join(SCRIPTS, "tests", "khc", "checks.txt")
CLASSES = {"self": "self-protection", "policy": "policy knobs", "build": "build"}


def read_checks(path=CHECKS):
    """[{type, name, reason, arches, observable, cls, desired}] of checks.txt."""
    lines = khc.read_text(path).splitlines()
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        w = line.split(None, 6)
        if len(w) != 7 or w[0] not in ("kconfig", "cmdline", "sysctl") \
                or w[3] not in ("x86_64", "arm64", "both") or w[4] not in ("yes", "no", "-") \
                or w[5] not in CLASSES:
            raise Error(f"{path}:{n}: not 'type name reason arches observable class desired'")
        out.append(dict(type=w[0], name=w[1], reason=w[2], arches=w[3], observable=w[4],
                        cls=w[5], desired=w[6]))
    return out


def coverage(checks, options):
    """{cls: (covered checks, observable checks)} over the runtime-observable checks."""
    names = {o for opts in options.values() for o, _ in opts}
    # a renamed Kconfig option is covered under either name (scripts/kconfig-renames)
    names |= {n for g in khc.rename_groups() if names & set(g) for n in g}
    out = {}
    for c in checks:
        if c["observable"] != "yes":
            continue
        cov, tot = out.setdefault(c["cls"], ([], []))
        tot.append(c)
        if c["name"] in names:
            cov.append(c)
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog="hptool khc-coverage", description=__doc__.split("\n")[0])
    ap.add_argument("report", metavar="REPORT_JSON")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--checks", default=CHECKS)
    a = ap.parse_args(argv)
    try:
        try:
            with open(a.report) as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            raise Error(f"{a.report}: {getattr(e, 'strerror', None) or e}")
        checks, options = read_checks(a.checks), khc.options(report, a.report)
    except Error as e:
        print(f"khc_coverage: error: {e}", file=sys.stderr)
        return 2
    cov = coverage(checks, options)
    by = {k: len([c for c in checks if c["cls"] == k]) for k in CLASSES}
    print(f"k-h-c checks (X86_64 and ARM64): {len(checks)}: {by['self']} self-protection, "
          f"{by['policy']} policy knobs, {by['build']} build (attack surface, LSM choice; "
          "not counted below)")
    s_c, s_t = (len(x) for x in cov.get("self", ([], [])))
    p_c, p_t = (len(x) for x in cov.get("policy", ([], [])))
    print(f"covered by the module's records: {s_c + p_c} of {s_t + p_t} runtime-observable "
          f"({s_c} of {s_t} self-protection, {p_c} of {p_t} policy knobs)")
    if a.list:
        for k in ("self", "policy"):
            c, t = cov.get(k, ([], []))
            print(f"{CLASSES[k]}, covered: " + " ".join(x["name"] for x in c))
            print(f"{CLASSES[k]}, not covered: " + " ".join(x["name"] for x in t if x not in c))
    return 0
