# SPDX-License-Identifier: GPL-2.0
"""hardprobe bench: the cost of each code-changing feature, from one guest run.

usage: hptool bench RESULTS_DIR MODULE_BUILD_DIR
Reads RESULTS_DIR/bench.txt (the module's debugfs "bench": timings of the same
workload built with and without each feature) and the workload variants'
objects under MODULE_BUILD_DIR/src/module/bench/ (exact code size of each
variant's function, from the ELF symbol table: readelf), writes RESULTS_DIR/bench.json
and prints a table.
"""
import argparse
import json
import os
import re
import sys

from . import symbols

LINE = re.compile(r"^bench (\S+) (\S+) (\S+) (.*)$")


def elf_symbol_sizes(path):
    """{name: size} of the defined function symbols of an object (binutils' readelf)."""
    return symbols.function_sizes(path)


def parse(text):
    rows = []
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if not m:
            continue
        kv = dict(p.split("=", 1) for p in m.group(4).split() if "=" in p)
        rows.append({"feature": m.group(1), "on": m.group(2), "off": m.group(3),
                     **{k: int(v) for k, v in kv.items()}})
    return rows


def main(rdir, mdir):
    text = ""
    try:
        with open(os.path.join(rdir, "bench.txt")) as f:
            text = f.read()
    except OSError:
        pass
    rows = parse(text)
    if not rows:
        print(f"hardprobe bench: no bench lines in {rdir}/bench.txt", file=sys.stderr)
        return 1
    sizes = {}
    odir = os.path.join(mdir, "src", "module", "bench")
    for name in sorted(os.listdir(odir)) if os.path.isdir(odir) else []:
        if name.endswith(".o"):
            sizes.update(elf_symbol_sizes(os.path.join(odir, name)))
    info = {}
    try:
        with open(os.path.join(rdir, "build-info.txt")) as f:
            info = dict(line.split(": ", 1) for line in f.read().splitlines() if ": " in line)
    except OSError:
        pass
    emulated = info.get("accel", "tcg") != "kvm"
    out = {"schema": 1, "target": os.path.basename(rdir.rstrip("/")), "emulated": emulated,
           "accel": info.get("accel", "tcg"), "compiler": info.get("compiler", ""),
           "features": {}}
    for r in rows:
        out["features"][r["feature"]] = {
            "on_variant": r["on"], "off_variant": r["off"],
            "ns_on": r["on_ps"] / 1000, "ns_off": r["off_ps"] / 1000,
            "spread_on": r["on_spread_ps"] / 1000, "spread_off": r["off_spread_ps"] / 1000,
            "ratio": r["ratio_milli"] / 1000, "calls": r["calls"],
            "text_bytes_on": sizes.get("hp_bench_" + r["on"]),
            "text_bytes_off": sizes.get("hp_bench_" + r["off"]),
        }
    with open(os.path.join(rdir, "bench.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    where = ("QEMU TCG: these are timings of the emulator, not of a CPU; run "
             "`insmod hardprobe.ko; cat /sys/kernel/debug/hardprobe/bench` on hardware"
             if emulated else "KVM guest")
    print(f"cost per feature, {out['target']} ({where})")
    print(f"{'feature':<20} {'ns/call with':>16} {'without':>16} {'ratio':>6} {'bytes with':>10} {'without':>8} {'growth':>7}")
    for feat, c in out["features"].items():
        on, off = c["text_bytes_on"], c["text_bytes_off"]
        growth = f"{on - off:+d}" if on is not None and off is not None else "-"
        with_ = f"{c['ns_on']:.2f} ± {c['spread_on']:.2f}"
        without = f"{c['ns_off']:.2f} ± {c['spread_off']:.2f}"
        print(f"{feat:<20} {with_:>16} {without:>16} {c['ratio']:>6.2f} "
              f"{on if on is not None else '-':>10} {off if off is not None else '-':>8} {growth:>7}")
    return 0


def cli(args):
    ap = argparse.ArgumentParser(prog="hptool bench", description=__doc__.splitlines()[0])
    ap.add_argument("results_dir", nargs="?")
    ap.add_argument("module_build_dir", nargs="?")
    ap.add_argument("--run", metavar="TARGET",
                    help="make bench: hptool run of TARGET without its panic guests into RESULTS/bench/ "
                         "(make run's results/<target>/ stays whole; its report on stdout dropped, its "
                         "progress lines kept), then the run's cost table")
    a = ap.parse_args(args)
    if a.run:
        import subprocess
        from . import results_root, targets, tool, tool_env
        results = os.path.join(results_root(), "bench")
        if subprocess.run(tool("run", a.run), env=tool_env(PANIC_GUESTS="no", RESULTS=results),
                          stdout=subprocess.DEVNULL).returncode:
            return 1
        table = os.path.join(results, targets.result_name(a.run), "bench-table.txt")
        with open(table) as f:
            sys.stdout.write(f.read())
        return 0
    if not (a.results_dir and a.module_build_dir):
        ap.error("RESULTS_DIR and MODULE_BUILD_DIR, or --run TARGET")
    return main(a.results_dir, a.module_build_dir)
