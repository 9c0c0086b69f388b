# SPDX-License-Identifier: GPL-2.0
"""scripts/off-variants: kernels with features turned off or on (make offcheck, make check).

One line each, fields split by "|": name | target | features, comma-separated: "feature"
turned off, "+feature" turned on (one the reference kernel leaves off), "*feature" a CPU
bug's mitigation forced on a CPU the kernel calls not affected, each by its own switches;
"~feature" turned off by the line's other switches, with none of its own (slub_debug=
turns pointer hashing off).

The switches are the module's: each feature's "off" and "on" in a report.json of the
target (.off and .on of its HP_FEATURE() record, spelled for that architecture). Boot
parameters go on the variant's command line (one key twice is merged: clearcpuid=smap
and clearcpuid=smep make clearcpuid=smap,smep); Kconfig lines make a fragment, every
line required, for a kernel of the variant's own (respelled for the kernel version as
every fragment is).
"""
import os

from . import TOP, Error

SIGNS = {"": "off", "+": "on", "*": "on", "~": None}


def parse(path=None):
    """[{"name", "target", "features"}] in file order."""
    path = path or os.path.join(TOP, "scripts", "off-variants")
    out = []
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        f = [" ".join(x.split()) for x in line.split("|")]
        if len(f) != 3 or not all(f) or any(" " in x for x in f):
            raise Error(f"{path}:{n}: want name | target | feature,+feature,*feature,~feature")
        out.append(dict(zip(("name", "target", "features"), f)))
    return out


def select(variants, names):
    """the variants named in a comma-separated list (all when empty); an unknown name is an error."""
    want = [x for x in (names or "").split(",") if x]
    known = {v["name"] for v in variants}
    bad = [x for x in want if x not in known]
    if bad:
        raise Error(f"OFF={names}: no variant {', '.join(bad)} in scripts/off-variants "
                    f"(known: {' '.join(sorted(known))})")
    return [v for v in variants if not want or v["name"] in want]


def switches(variant, feats):
    """(boot parameters, Kconfig lines) that make @variant, from @feats (a report.json of
    its target, feature -> its record: offcheck.load()). Error when a feature is not in the
    report, the report has no switch records (an older module), or a feature has no switch
    of the kind wanted on that kernel."""
    params, config = [], []
    for x in variant["features"].split(","):
        sign, name = (x[0], x[1:]) if x[:1] in SIGNS and x[:1] else ("", x)
        f = feats.get(name)
        if f is None:
            raise Error(f"variant {variant['name']}: no feature {name!r} in the report")
        kind = SIGNS[sign]
        if kind is None:
            continue
        sw = f.get(kind)
        if not isinstance(sw, list):
            raise Error(f"variant {variant['name']}: the report has no \"{kind}\" switches (a module older "
                        "than the switch records: run the target again)")
        if not sw:
            raise Error(f"variant {variant['name']}: {name} has no switch that turns it {kind} on this kernel "
                        f"(its HP_FEATURE() record's .{kind})")
        for s in sw:
            (config if s.startswith("CONFIG_") else params).append(s)
    merged = {}         # key -> its values, or None for a bare switch (nokaslr)
    for p in params:
        key, eq, val = p.partition("=")
        if key in merged and (merged[key] is None) == bool(eq):
            raise Error(f"variant {variant['name']}: boot parameter {key} both with and without a value")
        if not eq:
            merged[key] = None
        elif val not in merged.setdefault(key, []):
            merged[key].append(val)
    out = [key if vals is None else f"{key}={','.join(vals)}" for key, vals in merged.items()]
    return out, list(dict.fromkeys(config))


def fragment(variant, config):
    """the Kconfig fragment of a variant's Kconfig lines (each required)"""
    return (f"# hardprobe offcheck variant {variant['name']} ({variant['target']}): from the module's "
            "switch records\n" + "".join(f"{c}  # required\n" for c in config))
