#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of the matrix renderer (scripts/hptool/matrix.py) and make matrix's driver
(hptool matrix) on recorded results, without booting anything; and a look at the HTML
in headless Chromium.

Prints one "check host <name>: ok|FAIL" line per test; exit 1 on any FAIL.
usage: test_matrix.py [--keep DIR]   (DIR: where to leave the screenshot and renders)
"""
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
FIXTURES = os.path.join(HERE, "matrix")
sys.path.insert(0, SCRIPTS)
# the host tool as make check runs it (its subcommands import hptool from SCRIPTS)
os.environ["PYTHONPATH"] = SCRIPTS + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
HPTOOL = [sys.executable, "-m", "hptool"]
from hptool import matrix  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"check host {name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}", flush=True)


def render(rdir, out, targets=None):
    cmd = [*HPTOOL, "matrix-render", "--results", rdir, "--out", out]
    if targets:
        cmd += ["--targets", " ".join(targets)]
    return subprocess.run(cmd, capture_output=True, text=True)


# a feature taken out of one recorded report (x86_64-gcc) for the "not probed there" case
UNPROBED = "lto"
UNPROBED_ON = "x86_64-gcc"


def fixture_reports():
    """{target: report} of the recorded results."""
    out = {}
    for t in sorted(os.listdir(FIXTURES)):
        p = os.path.join(FIXTURES, t, "report.json")
        if os.path.exists(p):
            with open(p) as f:
                out[t] = json.load(f)
    return out


class Cells(html.parser.HTMLParser):
    """rows of the kernel table: {feature: [(outcome, title), ...]}, header targets."""

    def __init__(self):
        super().__init__()
        self.table = None
        self.row = None
        self.rows, self.targets = {}, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = a.get("id")
        if self.table != "matrix":
            return
        if tag == "th" and "data-target" in a:
            self.targets.append(a["data-target"])
        if tag == "tr" and "data-feature" in a:
            self.row = a["data-feature"]
            self.rows[self.row] = []
        if tag == "td" and self.row:
            self.rows[self.row].append((a.get("data-outcome"), a.get("title", "")))

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None


def parse_html(text):
    p = Cells()
    p.feed(text)
    return p


def md_rows(text):
    """{feature id: [cell, ...]} and the header of the first Markdown table."""
    rows, head = {}, None
    for line in text.splitlines():
        if not line.startswith("| "):
            if rows:
                break
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if head is None:
            head = cells
            continue
        m = re.search(r"\(`([^`]+)`\)", cells[0])
        if m:
            rows[m.group(1)] = cells[1:]
    return head or [], rows


# ------------------------------------------------------------------ PNG, stdlib only

def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit non-interlaced RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {ctype}, interlace {interlace}")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xff
        elif ft == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xff
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xff
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def colour_counts(path, palette, tol=4):
    """{name: pixels within tol of the palette colour}."""
    w, h, rows, bpp = png_pixels(path)
    want = {k: tuple(int(v[0][i:i + 2], 16) for i in (1, 3, 5)) for k, v in palette.items()}
    hist = {}
    for line in rows:
        for x in range(0, w * bpp, bpp):
            px = line[x:x + 3]
            hist[px] = hist.get(px, 0) + 1
    counts = {k: 0 for k in want}
    for px, n in hist.items():
        for k, c in want.items():
            if all(abs(px[i] - c[i]) <= tol for i in range(3)):
                counts[k] += n
    return w, h, counts, len(hist)


def synthetic(rdir):
    """add the recorded compiler.json and a failed target next to the recorded results."""
    # the compiler layer as scripts/hptool/ccprobe.py wrote it (a real run, recorded)
    shutil.copy(os.path.join(HERE, "matrix-compiler.json"), os.path.join(rdir, "compiler.json"))
    os.makedirs(os.path.join(rdir, "arm64-gcc"), exist_ok=True)
    with open(os.path.join(rdir, "arm64-gcc", "matrix-status.json"), "w") as f:
        json.dump({"schema": 1, "target": "arm64-gcc", "status": "failed", "stage": "kernel", "rc": 2,
                   "reason": "failed at stage kernel (exit 2): test failure reason"}, f)


def main(argv):
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    tmp = tempfile.mkdtemp(prefix="hp-matrix-")
    reports = fixture_reports()
    targets = matrix.discover(FIXTURES)

    # 1. the recorded results alone: no bench.json, no compiler.json
    plain = os.path.join(tmp, "plain-results")
    shutil.copytree(FIXTURES, plain, ignore=shutil.ignore_patterns("bench.json"))
    # and a feature one target did not probe: its cell there must be a dash
    registry = [f["feature"] for f in reports["arm64-clang"]["features"]]
    for t, r in reports.items():
        if t == UNPROBED_ON:
            r["features"] = [f for f in r["features"] if f["feature"] != UNPROBED]
        with open(os.path.join(plain, t, "report.json"), "w") as f:
            json.dump(r, f)
    out = os.path.join(tmp, "plain")
    p = render(plain, out)
    files = {n: os.path.join(out, n) for n in ("matrix.md", "matrix.html", "matrix.json")}
    check("matrix-writes-three-files", p.returncode == 0 and all(os.path.getsize(f) > 0 for f in files.values()
                                                                  if os.path.exists(f))
          and all(os.path.exists(f) for f in files.values()), p.stderr.strip())
    if not all(os.path.exists(f) for f in files.values()):
        return 1
    md = open(files["matrix.md"]).read()
    page = open(files["matrix.html"]).read()
    model = json.load(open(files["matrix.json"]))
    hp = parse_html(page)
    head, mrows = md_rows(md)

    want_rows = {f["feature"] for r in reports.values() for f in r["features"]}
    jrows = [f["id"] for f in model["features"]]
    check("matrix-rows-all-features", set(want_rows) <= set(jrows) and set(want_rows) <= set(hp.rows)
          and set(want_rows) <= set(mrows), f"{len(jrows)} rows")
    # the rows in the module's registry order (report.json features[]), a feature missing
    # from one report in its place all the same; titles and groups are the module's
    check("matrix-rows-registry-order", jrows == registry, " ".join(jrows[:4]) + " ...")
    rep = {f["feature"]: f for f in reports["arm64-clang"]["features"]}
    names = {f["id"]: (f["name"], f["group"]) for f in model["features"]}
    check("matrix-rows-titles-from-json", all(names[fid] == (rep[fid]["title"], rep[fid]["group"])
                                              for fid in registry)
          and names["kcfi"][1] == "forward-edge CFI" and "(`kcfi`), forward-edge CFI" in md,
          f"kcfi: {names['kcfi']}")
    check("matrix-columns-all-targets", [t["id"] for t in model["targets"]] == targets == hp.targets
          and all(any(h.startswith(t + " ") for h in head) for t in targets), " ".join(hp.targets))

    bad = []
    for ti, t in enumerate(targets):
        for f in reports[t]["features"]:
            fid, o = f["feature"], f["outcome"]
            if model["features"][jrows.index(fid)]["cells"][t]["outcome"] != o:
                bad.append(f"json {t}/{fid}")
            if hp.rows[fid][ti][0] != o:
                bad.append(f"html {t}/{fid}")
            if not mrows[fid][ti].startswith(o + " "):
                bad.append(f"md {t}/{fid}")
            if f.get("why") and f["why"] not in hp.rows[fid][ti][1].replace("\n", " "):
                bad.append(f"html-title {t}/{fid}")
    check("matrix-cells-match-reports", not bad, ", ".join(bad[:5]))
    cell = model["features"][jrows.index("kcfi")]["cells"]
    check("matrix-json-detail", all(cell[t]["probes"] and cell[t]["layers"]["configured_text"]
                                    for t in targets) and
          all(t["kernel"]["config_hash"] and t["kernel"]["release"] and t["compiler"]
              for t in model["targets"]))
    ext = re.findall(r"(?i)https?:|\bsrc\s*=|\bhref\s*=|@import|url\(|<script|<link", page)
    check("matrix-html-self-contained", not ext, " ".join(ext[:5]))
    check("matrix-html-legend", 'class="legend"' in page and
          all(f">{k} <" in page or f">{k}<" in page for k in matrix.PALETTE))
    check("matrix-missing-inputs-dash", 'id="cost-none">—' in page and 'id="compiler-none">—' in page
          and "## Cost per feature\n\n— " in md and "(build-time probes)\n\n— " in md
          and all(c["cost"] is None for f in model["features"] for c in f["cells"].values())
          and model["compiler_layer"] is False
          and mrows["stack_init"][0].endswith("· —"))
    ui = targets.index(UNPROBED_ON)
    check("matrix-unprobed-feature-dash", mrows[UNPROBED][ui] == "—"
          and hp.rows[UNPROBED][ui][0] == "missing"
          and all(o != "missing" for i, (o, _) in enumerate(hp.rows[UNPROBED]) if i != ui),
          f"{UNPROBED} on {UNPROBED_ON}: {mrows[UNPROBED][ui]}")

    # results of an older module (no "rules" in report.json): a clear error, no render
    old = os.path.join(tmp, "old-results")
    shutil.copytree(FIXTURES, old)
    r = json.load(open(os.path.join(old, "x86_64-gcc", "report.json")))
    del r["rules"]
    with open(os.path.join(old, "x86_64-gcc", "report.json"), "w") as f:
        json.dump(r, f)
    p = render(old, os.path.join(tmp, "old"))
    check("matrix-old-report-refused", p.returncode == 1 and 'has no "rules"' in p.stderr
          and "older hardprobe module" in p.stderr
          and not os.path.exists(os.path.join(tmp, "old", "matrix.md")), p.stderr.strip()[:160])

    render(FIXTURES, os.path.join(tmp, "readme"))
    full = open(os.path.join(tmp, "readme", "matrix.md")).read()
    table = full[full.index("| feature"):].split("\n\n")[0]
    readme = open(os.path.join(os.path.dirname(SCRIPTS), "Documentation", "bench.md")).read()
    m = re.search(r"<!-- matrix:begin -->\n(.*?)\n<!-- matrix:end -->", readme, re.S)
    check("readme-matrix-current", m is not None and m.group(1).strip() == table.strip(),
          "" if m and m.group(1).strip() == table.strip() else
          "Documentation/bench.md's matrix differs from hptool matrix-render on scripts/tests/matrix: paste the table of results/matrix.md")

    # 2. with a bench.json, a compiler.json and a target whose run failed
    rdir = os.path.join(tmp, "results")
    shutil.copytree(FIXTURES, rdir)
    synthetic(rdir)
    out2 = os.path.join(tmp, "full")
    cols = ["x86_64-gcc", "x86_64-clang", "arm64-gcc", "arm64-clang"]
    p = render(rdir, out2, cols)
    md2 = open(os.path.join(out2, "matrix.md")).read()
    page2 = open(os.path.join(out2, "matrix.html")).read()
    m2 = json.load(open(os.path.join(out2, "matrix.json")))
    hp2 = parse_html(page2)
    _, mrows2 = md_rows(md2)
    # the cost as the recorded bench.json has it: ratio, both medians with their spread, bytes
    bt = next(t for t in targets if os.path.exists(os.path.join(FIXTURES, t, "bench.json")))
    bj = json.load(open(os.path.join(FIXTURES, bt, "bench.json")))
    bf, bc = next(iter(bj["features"].items()))
    cell = m2["features"][[f["id"] for f in m2["features"]].index(bf)]["cells"][bt]
    want_ratio = f"×{bc['ratio']:.2f}"
    want_on = f"{bc['ns_on']:.1f} ± {bc['spread_on']:.1f}"
    ti = cols.index(bt)
    check("matrix-cost-shown", p.returncode == 0 and cell["cost"]["ratio"] == bc["ratio"]
          and mrows2[bf][ti].endswith("· " + want_ratio) and want_on in md2
          and "QEMU TCG" in md2 and f"{want_on} ns/call" in hp2.rows[bf][ti][1]
          and f"{bc['text_bytes_off']} -> {bc['text_bytes_on']} bytes" in hp2.rows[bf][ti][1],
          f"{bt} {bf}: {mrows2[bf][ti]}")
    # gcc-12 cannot do kCFI, clang-19 can; both compilers can do stack clash protection,
    # which no kernel uses (the build-time probe: vulnerable): "the compiler can" apart
    # from "this kernel does"
    check("matrix-compiler-layer", 'id="compiler"' in page2 and "cc✗" in mrows2["kcfi"][0]
          and "cc✓" in mrows2["kcfi"][3] and mrows2["stack_clash"][0].startswith("vulnerable ")
          and " · cc✓" in mrows2["stack_clash"][0]
          and "-fstack-clash-protection" in page2 and "| `slh` | can't ✗ |" in md2
          and m2["compiler_layer"] is True, mrows2["kcfi"][0])
    tgt = {t["id"]: t for t in m2["targets"]}
    check("matrix-failed-target", tgt["arm64-gcc"]["status"] == "failed"
          and "test failure reason" in page2 and "test failure reason" in md2
          and all(o == "failed" for o, _ in [r[2] for r in hp2.rows.values()])
          and tgt["x86_64-clang"]["status"] == "missing", tgt["arm64-gcc"]["reason"])

    # 3. make matrix's driver, with a stand-in for hptool run (no kernel, no QEMU)
    fake = os.path.join(tmp, "fake-run.sh")
    with open(fake, "w") as f:
        f.write("#!/bin/bash\nR=$RESULTS/$1; mkdir -p $R; echo kernel 1.0 >$R/stages.txt\n"
                f"if [ -f {FIXTURES}/$1/report.json ]; then cp {FIXTURES}/$1/report.json $R/; exit 0; fi\n"
                "echo 'hardprobe: error: stand-in failure' >&2; exit 3\n")
    os.chmod(fake, 0o755)
    mres = os.path.join(tmp, "mres")
    env = dict(os.environ, HP_MATRIX_RUN=fake, RESULTS=mres, TARGETS="x86_64-gcc arm64-gcc",
               COMPILERS="clang-999")
    p = subprocess.run([sys.executable, "-m", "hptool", "matrix"], capture_output=True, text=True,
                       env=dict(env, PYTHONPATH=SCRIPTS))
    st = {}
    for t in ("x86_64-gcc", "arm64-gcc", "x86_64-clang-999", "arm64-clang-999"):
        try:
            st[t] = json.load(open(os.path.join(mres, t, "matrix-status.json")))
        except OSError:
            st[t] = {}
    m3 = json.load(open(os.path.join(mres, "matrix.json"))) if os.path.exists(
        os.path.join(mres, "matrix.json")) else {"targets": []}
    check("matrix-run-progress", "matrix   x86_64-gcc     target 1/4" in p.stderr
          and "target 4/4" in p.stderr, p.stderr.splitlines()[0] if p.stderr else "")
    check("matrix-run-failure-not-fatal", p.returncode == 1 and st["x86_64-gcc"].get("status") == "ok"
          and st["arm64-gcc"].get("status") == "failed" and "stand-in failure" in st["arm64-gcc"].get("reason", "")
          and [t["id"] for t in m3["targets"]] == list(st), st["arm64-gcc"].get("reason", ""))
    check("matrix-run-clang-n", "clang-999 lld-999 llvm-999" in st["x86_64-clang-999"].get("reason", ""),
          st["x86_64-clang-999"].get("reason", ""))
    # KVERS: each target once per reference kernel version, the run given its KVER,
    # results/<target>-6.1 beside results/<target>
    kfake = os.path.join(tmp, "fake-run-kver.sh")
    with open(kfake, "w") as f:
        f.write("#!/bin/bash\nn=$1; [ -z \"$KVER\" ] || [ \"$KVER\" = 6.12 ] || n=$1-$KVER\n"
                "R=$RESULTS/$n; mkdir -p $R; echo kernel 1.0 >$R/stages.txt; echo \"$KVER\" >$R/kver\n"
                f"cp {FIXTURES}/$1/report.json $R/\n")
    os.chmod(kfake, 0o755)
    kres = os.path.join(tmp, "kres")
    env = dict(os.environ, HP_MATRIX_RUN=kfake, RESULTS=kres, TARGETS="x86_64-gcc", KVERS="6.1 6.12")
    p = subprocess.run([sys.executable, "-m", "hptool", "matrix"], capture_output=True, text=True,
                       env=dict(env, PYTHONPATH=SCRIPTS))
    m4 = json.load(open(os.path.join(kres, "matrix.json"))) if os.path.exists(
        os.path.join(kres, "matrix.json")) else {"targets": []}
    seen = [open(os.path.join(kres, t, "kver")).read().strip() if os.path.exists(os.path.join(kres, t, "kver"))
            else None for t in ("x86_64-gcc-6.1", "x86_64-gcc")]
    check("matrix-run-kvers", p.returncode == 0 and [t["id"] for t in m4["targets"]] ==
          ["x86_64-gcc-6.1", "x86_64-gcc"] and seen == ["6.1", "6.12"]
          and all(t["arch"] == "x86_64" and t["compiler_id"] == "gcc-12" for t in m4["targets"]),
          f"{[t['id'] for t in m4['targets']]}, KVER seen {seen}; {p.stderr.strip().splitlines()[-1:]}")

    # 4. a real browser: headless Chromium renders a coloured grid
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    shot = os.path.join(keep or tmp, "matrix-screenshot.png")
    if not chrome:
        check("matrix-chromium-screenshot", False, "no chromium: install the Debian package chromium (hptool deps)")
    else:
        if keep:
            os.makedirs(keep, exist_ok=True)
        prof = os.path.join(tmp, "chromium-profile")
        try:
            c = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                "--no-first-run", f"--user-data-dir={prof}", f"--screenshot={shot}",
                                "--window-size=1400,1000", "file://" + os.path.join(out2, "matrix.html")],
                               capture_output=True, text=True, timeout=120)
            err = c.stderr.strip().splitlines()[-1:] if c.returncode else []
        except subprocess.TimeoutExpired:
            err = ["chromium timed out after 120 s"]
        if not os.path.exists(shot):
            check("matrix-chromium-screenshot", False, " ".join(err) or "no screenshot written")
        else:
            w, h, counts, ncol = colour_counts(shot, matrix.PALETTE)
            # a grid cell is ~200x40 px; a legend swatch 16x16: only cells reach these counts
            big = sorted(k for k, n in counts.items() if n >= 3000 and k != "missing")
            need = {"protected", "vulnerable", "failed"}
            check("matrix-chromium-screenshot", w == 1400 and h == 1000 and need <= set(big) and ncol > 50,
                  f"{shot}: {w}x{h}, cells coloured {','.join(big)} "
                  f"({', '.join(f'{k} {counts[k]} px' for k in sorted(need))})")
    if keep:
        for d in (out2,):
            for n in ("matrix.md", "matrix.html", "matrix.json"):
                shutil.copy(os.path.join(d, n), os.path.join(keep, n))
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
