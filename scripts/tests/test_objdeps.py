#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hardprobe host test: the dependency-cycle finder of scripts/hptool/objdeps.py on known graphs."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from hptool import objdeps  # noqa: E402

fails = 0


def check(what, ok, detail=""):
    global fails
    fails += not ok
    print(f"check host objdeps-{what}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")


# the shape the module must have: core -> registry -> families -> leaves
tree = {"debugfs.o": ["run.o", "report.o"], "run.o": ["registry.o", "probe.o"],
        "registry.o": ["fortify.o", "backward.o"], "fortify.o": ["fortify_place.o", "probe.o"],
        "backward.o": ["hijack.o"], "hijack.o": ["arm64.o"], "arm64.o": [], "probe.o": [],
        "report.o": ["probe.o"], "fortify_place.o": []}
check("acyclic", objdeps.cycles(tree) == [], str(objdeps.cycles(tree)))
# the cycles the module had before the registry: family <-> its control, core <-> families
loop = dict(tree, **{"fortify_place.o": ["fortify.o"], "probe.o": ["registry.o"]})
found = objdeps.cycles(loop)
check("finds-cycle", len(found) == 1 and {"fortify.o", "fortify_place.o", "registry.o",
                                           "probe.o"} <= set(found[0]), str(found))
check("self-edge-ignored", objdeps.cycles({"a.o": ["a.o"]}) == [])
sys.exit(1 if fails else 0)
