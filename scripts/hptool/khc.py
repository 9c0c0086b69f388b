# SPDX-License-Identifier: GPL-2.0
"""The join with kernel-hardening-checker (k-h-c): which of k-h-c's checks each feature
verifies at runtime, from scripts/khc-options ("feature_id option option ..." lines, "#"
comments). An option may carry "@x86_64" or "@arm64" when the feature verifies it on
that architecture only (k-h-c reports "arm64.nopauth" on x86_64 too, where pac_ret is
unsupported by construction). collect.py writes the result into each feature of
report.json as "verifies"; khc_join.py reads it back, or this file when it is absent."""
import os
import re

from . import SCRIPTS, Error

OPTIONS = os.path.join(SCRIPTS, "khc-options")
ARCHES = ("x86_64", "arm64")
UNAME = {"aarch64": "arm64"}  # report.json's kernel.arch is uname -m


def read_options(path=OPTIONS):
    """{feature: [(option, arch or None), ...]} in file order."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise Error(f"{path}: {e.strerror}")
    out = {}
    for n, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        fid, opts = words[0], []
        if not re.fullmatch(r"[a-z][a-z0-9_]*", fid):
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


def annotate(report, options=None):
    """Give each feature of a report.json dict its "verifies" list, for the report's
    own architecture (kernel.arch)."""
    options = read_options() if options is None else options
    arch = (report.get("kernel") or {}).get("arch")
    for feat in report.get("features", []):
        feat["verifies"] = verifies(options, feat.get("feature"), arch)
    return report
