# SPDX-License-Identifier: GPL-2.0
"""The join with kernel-hardening-checker (k-h-c): which of k-h-c's checks each feature
verifies at runtime. The module says it: each feature's HP_FEATURE(.khc = "...") record,
published in report.json as the feature's "khc" string, options one space apart (an
option may carry "@x86_64" or "@arm64" when the feature verifies it on that architecture
only: k-h-c reports "arm64.nopauth" on x86_64 too, where pac_ret is unsupported by
construction). hptool collect writes each feature's list for the report's architecture
into report.json as "verifies"; hptool khc-join reads it back.

Besides the registry's features, the kselftest runner's user-space checks (proc_mem_force,
umip, null_page, bpf_jit_harden, policy.<knob>: selftests/hardprobe/hp_user.c) verify k-h-c
checks: the third column of their HP_USER_CHECK entries in the runner's table of checks,
selftests/hardprobe/hp_checks.def (kselftest_checks), their outcomes from selftest.ktap's
"# <name>: <outcome>: ..." lines (kselftest_outcomes)."""
import os
import re

from . import TOP, Error, renames

HP_CHECKS = os.path.join(TOP, "selftests", "hardprobe", "hp_checks.def")
ARCHES = ("x86_64", "arm64")
UNAME = {"aarch64": "arm64"}  # report.json's kernel.arch is uname -m


def read_text(path):
    """The text of a data file; one that cannot be read is an Error naming it."""
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        raise Error(f"{path}: {e.strerror}")


def parse_options(fid, text, where):
    """[(option, arch or None), ...] of one "khc" string: options one space apart, each
    "name" or "name@x86_64|arm64", none twice; anything else is an Error naming @where."""
    if not isinstance(text, str):
        raise Error(f"{where}: {fid}: \"khc\" is not a string: {text!r}")
    opts = []
    for w in text.split():
        name, _, arch = w.partition("@")
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or (arch and arch not in ARCHES):
            raise Error(f"{where}: {fid}: {w!r}: an option, or option@{'|'.join(ARCHES)}")
        if any(o == name for o, _ in opts):
            raise Error(f"{where}: {fid}: {name} listed twice")
        opts.append((name, arch or None))
    return opts


def report_options(report, where="report.json"):
    """{feature: [(option, arch or None), ...]} of a report.json dict, in its order: each
    feature's "khc" (the module's HP_FEATURE record). A report without it (a module
    before the records) is an Error: run the target again."""
    out = {}
    for f in (report or {}).get("features") or []:
        fid = f.get("feature")
        if "khc" not in f:
            raise Error(f"{where}: {fid}: no \"khc\": written by an older hardprobe module "
                        "(before the features listed their k-h-c checks); run the target again")
        out[fid] = parse_options(fid, f["khc"], where)
    return out


def kselftest_options(path=None):
    """{name: [(option, arch or None), ...]} of the kselftest runner's user-space checks:
    the third column of hp_checks.def's HP_USER_CHECK entries, in its order."""
    where = path or HP_CHECKS
    return {n: parse_options(n, k, where) for n, user, k in kselftest_checks(where) if user}


def options(report, where="report.json", path=None):
    """the features' lists (report_options) and the kselftest lines' (kselftest_options)
    in one {id: [(option, arch or None), ...]}"""
    out = report_options(report, where)
    for n, opts in kselftest_options(path).items():
        out.setdefault(n, opts)
    return out


def verifies(options, feature, arch):
    """The option names @feature verifies on @arch (every arch-bound one when arch is
    unknown)."""
    arch = UNAME.get(arch, arch)
    return [o for o, a in options.get(feature, []) if a is None or not arch or a == arch]


def rename_groups(table=None):
    """[[name, ...]] of the Kconfig symbols scripts/kconfig-renames lists, each group every
    name one option has had (a chain of renames is one group): k-h-c reports a check
    under one of them (v0.6.17.1: CONFIG_KSTACK_ERASE, an older one
    CONFIG_GCC_PLUGIN_STACKLEAK), khc-options and a report's "verifies" may say another."""
    groups = []
    for old, new, _, _ in renames.parse() if table is None else table:
        hit = [g for g in groups if old in g or new in g]
        merged = [n for g in hit for n in g]
        merged += [n for n in (old, new) if n not in merged]
        groups = [g for g in groups if g not in hit] + [merged]
    return groups


def under_every_name(by_opt, table=None):
    """{option: [...]} with each renamed option's entries under its every name (the
    entries of all its names, in the table's order of names, each once), so that a check
    joins whichever name k-h-c reports it under."""
    out = dict(by_opt)
    for group in rename_groups(table):
        merged = []
        for n in group:
            merged += [e for e in by_opt.get(n, []) if e not in merged]
        if merged:
            for n in group:
                out[n] = list(merged)
    return out


def annotate(report):
    """Give each feature of a report.json dict its "verifies" list, for the report's
    own architecture (kernel.arch), from its own "khc"; a report of an older module,
    without "khc", is left without "verifies" (hptool khc-join then says why)."""
    if any("khc" not in f for f in report.get("features", [])):
        return report
    opts = report_options(report)
    arch = (report.get("kernel") or {}).get("arch")
    for feat in report.get("features", []):
        feat["verifies"] = verifies(opts, feat.get("feature"), arch)
    return report


# The table of hardprobe_test's checks, selftests/hardprobe/hp_checks.def, is an X-macro
# list that the C program includes and the host reads: a declaration list of one fixed
# shape, HP_TEST_CHECK("name", function) or HP_USER_CHECK("name", function, "khc") (an
# entry may wrap after a comma), never C code. The host reads what the program
# registers, not what its code happens to print; text of any other shape is an Error
# rather than a guess.
_CHECK = re.compile(r'HP_TEST_CHECK\("([A-Za-z0-9_.-]+)",\s*[A-Za-z_]\w*\)'
                    r'|HP_USER_CHECK\("([A-Za-z0-9_.-]+)",\s*[A-Za-z_]\w*,\s*"([^"\\]*)"\)')


def kselftest_checks(path=HP_CHECKS):
    """[(name, user, khc)] of every check hp_checks.def registers, in its order: @user for
    the user-space checks of hp_user.c (HP_USER_CHECK), @khc their k-h-c checks (None for
    HP_TEST_CHECK). Comments and white space aside, the file must be entries only, and a
    name registered twice is an Error."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                  read_text(path), flags=re.S)
    out, pos = [], 0
    for m in list(_CHECK.finditer(text)) + [None]:
        gap = text[pos:m.start() if m else len(text)]
        if gap.strip():
            n = text.count("\n", 0, pos + len(gap) - len(gap.lstrip())) + 1
            raise Error(f"{path}:{n}: not HP_TEST_CHECK(\"name\", function) or "
                        f"HP_USER_CHECK(\"name\", function, \"khc\"): {gap.strip()[:80]!r}")
        if m is None:
            break
        name = m.group(1) or m.group(2)
        if any(name == o for o, _, _ in out):
            raise Error(f"{path}:{text.count(chr(10), 0, m.start()) + 1}: {name} registered twice")
        out.append((name, m.group(2) is not None, m.group(3)))
        pos = m.end()
    if not out:
        raise Error(f"{path}: no check registered")
    return out


def kselftest_names(path=HP_CHECKS):
    """The names of the kselftest runner's user-space lines (the HP_USER_CHECK entries of
    hp_checks.def), in its order."""
    return [name for name, user, _ in kselftest_checks(path) if user]


def kselftest_outcomes(text, names):
    """{name: outcome} of the kselftest user-space lines in a selftest.ktap's text: the
    comment "# <name>: <outcome>: <evidence>; configured: <layer>" (the first one of a
    name counts); a name without its line is absent from the result."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^# (\S+): (not_run|unsupported|protected|inconclusive|vulnerable|error)"
                     r"(?: known_gap)?: ", line)
        if m and m.group(1) in names:
            out.setdefault(m.group(1), m.group(2))
    return out
