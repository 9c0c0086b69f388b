# SPDX-License-Identifier: GPL-2.0
"""The join with kernel-hardening-checker (k-h-c): which of k-h-c's checks each feature
verifies at runtime, from scripts/khc-options ("feature_id option option ..." lines, "#"
comments). An option may carry "@x86_64" or "@arm64" when the feature verifies it on
that architecture only (k-h-c reports "arm64.nopauth" on x86_64 too, where pac_ret is
unsupported by construction). collect.py writes the result into each feature of
report.json as "verifies"; khc_join.py reads it back, or this file when it is absent.

Besides the registry's features, khc-options lists the kselftest runner's user-space
checks (proc_mem_force, umip, null_page, bpf_jit_harden, policy.<knob>:
selftests/hardprobe/hp_user.c),
which are no registry feature: their names are read from hp_user.c here (kselftest_names),
their outcomes from selftest.ktap's "# <name>: <outcome>: ..." lines (kselftest_outcomes)."""
import os
import re

from . import SCRIPTS, TOP, Error, renames

OPTIONS = os.path.join(SCRIPTS, "khc-options")
HP_USER = os.path.join(TOP, "selftests", "hardprobe", "hp_user.c")
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


def kselftest_names(path=HP_USER):
    """The names of the kselftest runner's user-space lines, in hp_user.c's order: every
    string literal "policy.<knob>", and the literals given as a line's name (`name =
    "..."`, `hp_line("...", ...)`). Their number must be HP_USER_LINES, the count the
    runner plans for (hp_user.h), or the reading is wrong (an Error)."""
    text = read_text(path) + read_text(os.path.splitext(path)[0] + ".h")
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    m = re.search(r"^#define\s+HP_USER_LINES\s+(\d+)", text, re.M)
    names = []
    for m2 in re.finditer(r'"(policy\.[a-z][a-z0-9_]*)"'
                          r'|\b(?:name\s*=|hp_line\()\s*"([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)?)"',
                          text):
        name = m2.group(1) or m2.group(2)
        if name not in names:
            names.append(name)
    if not m or len(names) != int(m.group(1)):
        raise Error(f"{path}: read {len(names)} line names ({' '.join(names)}), but "
                    f"HP_USER_LINES is {m.group(1) if m else 'not defined'}")
    return names


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
