# SPDX-License-Identifier: GPL-2.0
"""Symbol sizes through binutils: readelf reads the ELF of every architecture."""
import os
import subprocess

from . import Error


def function_sizes(path, readelf="readelf"):
    """{name: size} of the defined function symbols of an object (readelf -sW)."""
    p = subprocess.run([readelf, "-sW", path], capture_output=True, text=True,
                       env=dict(os.environ, LC_ALL="C"))
    if p.returncode:
        raise Error(f"{readelf} -sW {path}: {p.stderr.strip() or 'failed'}")
    sizes = {}
    for line in p.stdout.splitlines():
        # Num: Value Size Type Bind Vis Ndx Name
        f = line.split()
        if len(f) < 8 or not f[0].endswith(":") or f[3] != "FUNC" or f[6] == "UND":
            continue
        sizes[f[7]] = int(f[2], 16) if f[2].startswith("0x") else int(f[2])
    return sizes
