# SPDX-License-Identifier: GPL-2.0
"""The join with kernel-hardening-checker (k-h-c): which of k-h-c's checks each feature
verifies at runtime, from scripts/khc-options ("feature_id option option ..." lines, "#"
comments). An option may carry "@x86_64" or "@arm64" when the feature verifies it on
that architecture only (k-h-c reports "arm64.nopauth" on x86_64 too, where pac_ret is
unsupported by construction). hptool collect writes the result into each feature of
report.json as "verifies"; hptool khc-join reads it back, or this file when it is absent.

Besides the registry's features, khc-options lists the kselftest runner's user-space
checks (proc_mem_force, umip, null_page, bpf_jit_harden, policy.<knob>:
selftests/hardprobe/hp_user.c), which are no registry feature: their names are read from
the runner's table of checks, selftests/hardprobe/hp_checks.def, here (kselftest_names),
their outcomes from selftest.ktap's "# <name>: <outcome>: ..." lines (kselftest_outcomes)."""
import os
import re

from . import SCRIPTS, TOP, Error, renames

OPTIONS = os.path.join(SCRIPTS, "khc-options")
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


def read_options(path=OPTIONS):
    """{feature: [(option, arch or None), ...]} in file order."""
    lines = read_text(path).splitlines()
    out = {}
    for n, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        fid, opts = words[0], []
        if not re.fullmatch(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?", fid):
            raise Error(f"{path}:{n}: {fid!r} is not a feature id")
        if fid in out:
            raise Error(f"{path}:{n}: {fid} listed twice")
        for w in words[1:]:
            name, _, arch = w.partition("@")
            if not name or (arch and arch not in ARCHES):
                raise Error(f"{path}:{n}: {w!r}: an option, or option@{'|'.join(ARCHES)}")
            if any(o == name for o, _ in opts):
                raise Error(f"{path}:{n}: {fid}: {name} listed twice")
            opts.append((name, arch or None))
        out[fid] = opts
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


def annotate(report, options=None):
    """Give each feature of a report.json dict its "verifies" list, for the report's
    own architecture (kernel.arch)."""
    options = read_options() if options is None else options
    arch = (report.get("kernel") or {}).get("arch")
    for feat in report.get("features", []):
        feat["verifies"] = verifies(options, feat.get("feature"), arch)
    return report


# The table of hardprobe_test's checks, selftests/hardprobe/hp_checks.def, is an X-macro
# list that the C program includes and the host reads: a declaration list of one fixed
# shape, HP_USER_CHECK("name", function) or HP_TEST_CHECK("name", function) a line, never
# C code. The host reads the names the program registers, not what its code happens to
# print; a line of any other shape is an Error rather than a guess.
_CHECK_LINE = re.compile(r'HP_(USER|TEST)_CHECK\("([A-Za-z0-9_.-]+)", [A-Za-z_][A-Za-z0-9_]*\)')


def kselftest_checks(path=HP_CHECKS):
    """[(name, user)] of every check hp_checks.def registers, in its order: @user for the
    user-space checks of hp_user.c (HP_USER_CHECK). Comments and blank lines aside, each
    line must be exactly one entry, and a name registered twice is an Error."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  read_text(path), flags=re.S)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _CHECK_LINE.fullmatch(line)
        if not m:
            raise Error(f"{path}:{n}: not HP_USER_CHECK(\"name\", function) or "
                        f"HP_TEST_CHECK(\"name\", function): {line.strip()[:80]!r}")
        if any(m.group(2) == o for o, _ in out):
            raise Error(f"{path}:{n}: {m.group(2)} registered twice")
        out.append((m.group(2), m.group(1) == "USER"))
    if not out:
        raise Error(f"{path}: no check registered")
    return out


def kselftest_names(path=HP_CHECKS):
    """The names of the kselftest runner's user-space lines (the HP_USER_CHECK entries of
    hp_checks.def), in its order."""
    return [name for name, user in kselftest_checks(path) if user]


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
