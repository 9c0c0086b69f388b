# SPDX-License-Identifier: GPL-2.0
"""scripts/off-variants: kernels with features turned off (make offcheck, make check).
One line each, fields split by "|": name | target | cmdline or config | boot parameters,
or a config fragment | features turned off (comma-separated; +feature: turned on; *feature:
a CPU bug forced on a CPU the kernel calls not affected)."""
import os

from . import TOP, Error


def parse(path=None):
    """[{"name", "target", "kind", "value", "features"}] in file order."""
    path = path or os.path.join(TOP, "scripts", "off-variants")
    out = []
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        f = [" ".join(x.split()) for x in line.split("|")]
        if len(f) != 5 or f[2] not in ("cmdline", "config") or not all(f):
            raise Error(f"{path}:{n}: want name | target | cmdline|config | value | features")
        out.append(dict(zip(("name", "target", "kind", "value", "features"), f)))
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
