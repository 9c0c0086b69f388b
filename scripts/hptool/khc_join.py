# SPDX-License-Identifier: GPL-2.0
"""hardprobe: kernel-hardening-checker's verdicts beside hardprobe's runtime outcomes.

usage: hptool khc-join KHC_JSON REPORT_JSON [--all]

KHC_JSON is the output of kernel-hardening-checker -m json with results (-c CONFIG,
optionally -l CMDLINE and -s SYSCTL; or -a): one JSON array, one object per check,

  [{"option_name": "CONFIG_STACKPROTECTOR_STRONG", "type": "kconfig",
    "desired_val": "y", "decision": "defconfig", "reason": "self_protection",
    "check_result": "OK", "check_result_bool": true}, ...]

type is kconfig, cmdline or sysctl; check_result is "OK", "OK: <why>" or
"FAIL: <why>"; an OR/AND check is reported under its first sub-check's name. (Without
a file to check, -p prints the same objects without the two check_result keys: that
is no verdict, and is refused.)

REPORT_JSON is hardprobe's results/<target>/report.json. The checks each feature
verifies are its "verifies" list (written by hptool collect), or, in a report without it,
its "khc" (the module's record) for the report's architecture. The kselftest runner's
user-space lines (proc_mem_force, umip, null_page, bpf_jit_harden, policy.<knob>: no
registry features) verify the checks their HP_USER_CHECK entries of
selftests/hardprobe/hp_checks.def list; their outcomes are read from the selftest.ktap
beside REPORT_JSON (its "# <name>: <outcome>: ..." lines). Without that file, or
without a name's line in it, the line is not_run.

A Kconfig option that scripts/kconfig-renames lists joins under either of its names: k-h-c
v0.6.17.1 reports the stack-erase check as CONFIG_KSTACK_ERASE, an older k-h-c and an older
report's "verifies" say CONFIG_GCC_PLUGIN_STACKLEAK; both join stack_erase.

Prints one row per k-h-c check that a hardprobe feature or kselftest line verifies: the
option, k-h-c's type and decision, its verdict, the features and lines with their
runtime outcome, and a flag: MISMATCH where k-h-c says OK and any of them is anything
but protected (the configuration promises what the running kernel does not do),
config-off-but-protected where k-h-c says FAIL and every one was observed protected
(informational: another option, a boot parameter or the CPU provides it, or, where
k-h-c asks for a stricter value than the line needs, the weaker level holds).
Two outcomes are no evidence either way and never make a MISMATCH: not_run (a feature
or line that did not run: nothing was observed), and unsupported on a policy.<knob>
line or on bpf_jit_harden (the kernel lacks what the knob restricts: no bpf(), no BPF
JIT, no /dev/mem, no Yama, ..., so there is nothing to let through; k-h-c passes such a
kernel too, e.g. "OK: CONFIG_BPF_SYSCALL is not found", "OK: CONFIG_BPF_JIT is not
found"). A feature's unsupported still counts (ibt on a CPU
without IBT: the configuration promises what the kernel does not do), and so does
umip's (a CPU without UMIP). --all adds k-h-c's other checks, marked "not covered".
Ends with "N checks joined, N mismatches, N not covered".
Exit 1 if there is a mismatch, 0 if not, 2 on unreadable or malformed input.
"""
import argparse
import json
import os
import sys

from . import Error, khc

TYPES = ("kconfig", "cmdline", "sysctl")


class BadInput(Exception):
    pass


def load(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: cannot read the {what}: {e.strerror}")
    except ValueError as e:
        raise BadInput(f"{path}: the {what} is not JSON: {e}")


def khc_checks(path):
    """k-h-c's checks: [{option_name, type, decision, check_result, ok}]."""
    data = load(path, "kernel-hardening-checker JSON")
    if not isinstance(data, list):
        raise BadInput(f"{path}: not kernel-hardening-checker -m json output "
                       f"(a JSON array of checks), but a JSON {type(data).__name__}")
    out = []
    for i, c in enumerate(data):
        if not isinstance(c, dict) or not isinstance(c.get("option_name"), str) \
                or c.get("type") not in TYPES:
            raise BadInput(f"{path}: check #{i + 1} has no option_name or no type "
                           f"({'|'.join(TYPES)}): {json.dumps(c)[:120]}")
        res = c.get("check_result")
        if not isinstance(res, str) or not res.startswith(("OK", "FAIL")):
            raise BadInput(f"{path}: check #{i + 1} ({c['option_name']}) has no check_result "
                           "OK/FAIL: run kernel-hardening-checker on a config (-c/-a), not -p")
        ok = c.get("check_result_bool")
        out.append({"option_name": c["option_name"], "type": c["type"],
                    "decision": str(c.get("decision", "-")), "check_result": res,
                    "ok": ok if isinstance(ok, bool) else res.startswith("OK")})
    return out


def hardprobe_map(path):
    """({option: [(feature or line, outcome)]}, report, selftest.ktap's path or None):
    the features, then the kselftest lines, verifying each option."""
    rep = load(path, "hardprobe report")
    feats = rep.get("features") if isinstance(rep, dict) else None
    if not isinstance(feats, list) or not all(
            isinstance(f, dict) and isinstance(f.get("feature"), str)
            and isinstance(f.get("outcome"), str) for f in feats):
        raise BadInput(f"{path}: not a hardprobe report.json (features[] with feature "
                       "and outcome)")
    arch = (rep.get("kernel") or {}).get("arch") if isinstance(rep.get("kernel"), dict) else None
    by_opt = {}
    for f in feats:
        ver = f.get("verifies")
        if ver is None and "khc" not in f:
            raise BadInput(f"{path}: {f['feature']}: neither \"verifies\" nor \"khc\": written by "
                           "an older hardprobe module; run the target again")
        if ver is None:
            ver = khc.verifies({f["feature"]: khc.parse_options(f["feature"], f.get("khc"), path)},
                               f["feature"], arch)
        if not isinstance(ver, list) or not all(isinstance(o, str) for o in ver):
            raise BadInput(f"{path}: {f['feature']}: \"verifies\" is not a list of names")
        for o in ver:
            by_opt.setdefault(o, []).append((f["feature"], f["outcome"]))
    ktap = os.path.join(os.path.dirname(os.path.abspath(path)), "selftest.ktap")
    options = khc.kselftest_options()
    names = list(options)
    try:
        with open(ktap, errors="replace") as fh:
            seen = khc.kselftest_outcomes(fh.read(), names)
    except FileNotFoundError:
        ktap, seen = None, {}
    except OSError as e:
        raise BadInput(f"{ktap}: cannot read the kselftest output: {e.strerror}")
    done = {f["feature"] for f in feats}
    for n in names:
        if n in done:
            continue
        for o in khc.verifies(options, n, arch):
            by_opt.setdefault(o, []).append((n, seen.get(n, "not_run")))
    # a renamed Kconfig option joins under either name (scripts/kconfig-renames)
    return khc.under_every_name(by_opt), rep, ktap


# kselftest lines outside policy.* whose unsupported means the same: nothing to restrict
NO_SURFACE = ("bpf_jit_harden",)


def no_evidence(name, outcome):
    """an outcome that shows nothing either way: not run, or a policy.<knob> line (or a
    NO_SURFACE one) on a kernel without the mechanism the knob restricts."""
    return outcome == "not_run" or (outcome == "unsupported" and (
        name.startswith("policy.") or name in NO_SURFACE))


def join(checks, by_opt):
    """[(check, [(feature, outcome)], flag)]; flag "MISMATCH", "config-off-but-protected",
    "" or "not covered"."""
    rows = []
    for c in checks:
        fo = by_opt.get(c["option_name"], [])
        if not fo:
            flag = "not covered"
        elif c["ok"] and any(o != "protected" and not no_evidence(f, o) for f, o in fo):
            flag = "MISMATCH"
        elif not c["ok"] and all(o == "protected" for _, o in fo):
            flag = "config-off-but-protected"
        else:
            flag = ""
        rows.append((c, fo, flag))
    return rows


def main(argv):
    ap = argparse.ArgumentParser(prog="hptool khc-join", description=__doc__.split("\n")[0])
    ap.add_argument("khc_json")
    ap.add_argument("report_json")
    ap.add_argument("--all", action="store_true", help="also the checks hardprobe does not cover")
    a = ap.parse_args(argv)
    try:
        checks = khc_checks(a.khc_json)
        by_opt, rep, ktap = hardprobe_map(a.report_json)
    except (BadInput, Error) as e:
        print(f"khc_join: error: {e}", file=sys.stderr)
        return 2
    rows = join(checks, by_opt)
    k = rep.get("kernel") if isinstance(rep.get("kernel"), dict) else {}
    print(f"k-h-c: {a.khc_json} ({len(checks)} checks)")
    print(f"hardprobe: {a.report_json} ({rep.get('target', '?')}, "
          f"{k.get('release', '?')} {k.get('arch', '?')})")
    print(f"kselftest: {ktap}" if ktap else
          "kselftest: no selftest.ktap beside the report: its user-space lines are not_run")
    fmt = "{:<38} {:<8} {:<10} {:<36} {:<40} {}"
    print(fmt.format("OPTION", "TYPE", "DECISION", "K-H-C", "HARDPROBE", "FLAG"))
    for c, fo, flag in rows:
        if flag == "not covered" and not a.all:
            continue
        hp = ", ".join(f"{f}={o}" for f, o in fo) or "-"
        print(fmt.format(c["option_name"], c["type"], c["decision"], c["check_result"],
                         hp, flag).rstrip())
    joined = sum(1 for r in rows if r[2] != "not covered")
    mism = sum(1 for r in rows if r[2] == "MISMATCH")
    print(f"{joined} checks joined, {mism} mismatches, {len(rows) - joined} not covered")
    return 1 if mism else 0
