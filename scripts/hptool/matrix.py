# SPDX-License-Identifier: GPL-2.0
"""hardprobe: render the comparison matrix from the bench's results.

usage: hptool matrix-render [--results DIR] [--out DIR] [--targets "T1 T2 ..."] [--title TEXT]

Reads, for each target, DIR/<target>/report.json (the module's JSON, schema 1) and, when
present, DIR/<target>/bench.json (cost per feature), DIR/<target>/matrix-status.json (how
`make matrix` ran that target) and DIR/compiler.json (the compiler layer). Writes
OUT/matrix.md, OUT/matrix.html and OUT/matrix.json (OUT defaults to DIR). An input that is
absent renders as "—"; nothing is recomputed: outcomes are the module's. The rows, their
order, titles and groups are the module's too: the order of report.json's features[]
(its registry order), their "title" and "group"; a report without the module's "rules"
(an older module) is an error.
Without --targets, every subdirectory of DIR holding a report.json or matrix-status.json.
"""
import argparse
import datetime
import html
import json
import os
import re
import sys

from . import TOP, outcome as rules, targets as hptargets

SCHEMA = 1
DASH = "—"

DEFAULT_TARGETS = hptargets.MATRIX_DEFAULT

# outcome -> (background, text colour, meaning); "missing" and "failed" are the matrix's own
PALETTE = {
    "protected": ("#4caf50", "#ffffff", "provoked and caught"),
    "vulnerable": ("#e53935", "#ffffff", "provoked, nothing stopped it"),
    "unsupported": ("#9e9e9e", "#ffffff", "the arch, CPU, emulator or compiler lacks it"),
    "inconclusive": ("#ffb300", "#000000", "the positive control failed"),
    "not_run": ("#dde7f0", "#000000", "fatal probe not allowed to run"),
    "error": ("#8e44ad", "#ffffff", "the probe itself broke"),
    "missing": ("#ffffff", "#555555", "no result: not probed on this target"),
    "failed": ("#5d4037", "#ffffff", "the target's run failed (reason in the header)"),
}
# compiler layer: accepted and emits / accepted, no code / rejected / no entry
CC_PALETTE = {
    "emits": ("#4caf50", "#ffffff", "accepts the flag and emits the code"),
    "accepted": ("#ffb300", "#000000", "accepts the flag, the code does not change"),
    "rejected": ("#9e9e9e", "#ffffff", "rejects the flag or attribute"),
    "n/a": ("#dde7f0", "#000000", "not a feature of this architecture"),
    "unknown": ("#ffffff", "#8e44ad", "compiler absent or the probe broke"),
    "missing": ("#ffffff", "#555555", "not probed"),
}


def load_json(path):
    """(data, error): data is None when the file is absent or unreadable."""
    if not os.path.exists(path):
        return None, None
    try:
        with open(path) as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, f"{path}: {e}"


def norm_arch(a):
    return {"aarch64": "arm64", "amd64": "x86_64"}.get(a or "", a or "")


def short_compiler(text):
    """'gcc-12 (Debian 12.2.0-14) 12.2.0' -> 'GCC 12.2.0'."""
    if not text:
        return ""
    m = re.search(r"clang version (\d+[\d.]*)", text)
    if m:
        return f"Clang {m.group(1)}"
    m = re.search(r"gcc\S*\s.*?(\d+\.\d+\.\d+)\s*$", text) or re.search(r"(\d+\.\d+\.\d+)", text)
    kind = "GCC" if "gcc" in text.lower() else ""
    return f"{kind} {m.group(1)}".strip() if m else text


def mark(text, negative):
    """one layer's mark from the module's text for it."""
    if text is None or text == "":
        return "?"
    if re.search(r"nothing to build", text):
        return "·"
    return "✗" if negative.search(text) else "✓"


NEG_BUILT = re.compile(r"(^|: )no |not built|not emitted|\bmissing\b", re.I)
NEG_ACTIVE = re.compile(r"^\s*off\b|\(off\)|\bnot active\b|=(0|off|n|no)\b|(?<!not )disabled", re.I)


def layers(feat):
    """{'configured': bool|None, 'built': '✓|✗|·|?', 'active': ..., 'marks': 'C✓ B✓ A✓'}."""
    conf = feat.get("configured_bool")
    b = feat.get("built_bool")
    a = feat.get("active_bool")
    built = ("✓" if b else "✗") if isinstance(b, bool) else mark(feat.get("built"), NEG_BUILT)
    active = ("✓" if a else "✗") if isinstance(a, bool) else mark(feat.get("active"), NEG_ACTIVE)
    if conf is False:
        marks = "C✗"
    else:
        marks = f"C{'✓' if conf else '?'} B{built} A{active}"
    return {"configured": conf, "built": built, "active": active, "marks": marks}


def cost_of(bench, fid):
    if not bench:
        return None
    c = (bench.get("features") or {}).get(fid)
    if not isinstance(c, dict):
        return None
    c = dict(c)
    c["emulated"] = bool(bench.get("emulated"))
    on, off = c.get("text_bytes_on"), c.get("text_bytes_off")
    if isinstance(on, (int, float)) and isinstance(off, (int, float)):
        c["text_bytes_delta"] = on - off
    return c


def fmt_num(x, nd=1):
    return DASH if not isinstance(x, (int, float)) else f"{x:.{nd}f}"


def cost_short(c):
    if not c or not isinstance(c.get("ratio"), (int, float)):
        return ""
    return f"×{c['ratio']:.2f}"


def cost_long(c):
    if not c:
        return ""
    parts = [f"cost {cost_short(c) or DASH}: {fmt_num(c.get('ns_on'))} ± {fmt_num(c.get('spread_on'))} ns/call "
             f"with, {fmt_num(c.get('ns_off'))} ± {fmt_num(c.get('spread_off'))} ns/call without"]
    if c.get("calls"):
        parts.append(f"over {c['calls']} calls")
    if "text_bytes_delta" in c:
        parts.append(f"text {c['text_bytes_off']} -> {c['text_bytes_on']} bytes ({c['text_bytes_delta']:+d})")
    if c.get("emulated"):
        parts.append("timed under QEMU TCG: the emulator's cost, not the CPU's")
    return "; ".join(parts)


def discover(results):
    found = []
    for d in sorted(os.listdir(results)) if os.path.isdir(results) else []:
        p = os.path.join(results, d)
        if not d.startswith(".") and os.path.isdir(p) and (
                os.path.exists(os.path.join(p, "report.json")) or
                os.path.exists(os.path.join(p, "matrix-status.json"))):
            found.append(d)
    order = {t: i for i, t in enumerate(DEFAULT_TARGETS)}
    return sorted(found, key=lambda t: (order.get(t, len(order)), t))


class ReportError(Exception):
    pass


def row_order(reports, extra_ids):
    """the rows: the features of the reports in their features[] order (the module's
    registry order; a feature only some reports have goes after the one it follows
    there), then ids known only from bench.json or compiler.json, alphabetically; and
    {id: (title, group, family)} from the first report that has the feature."""
    order, meta = [], {}
    for rep in reports:
        prev = None
        for f in (rep or {}).get("features", []):
            fid = f.get("feature")
            if not fid:
                continue
            if fid not in meta:
                meta[fid] = (f.get("title"), f.get("group"), f.get("family"))
            if fid not in order:
                order.insert(order.index(prev) + 1 if prev in order else len(order), fid)
            prev = fid
    return order + sorted(set(extra_ids) - set(order)), meta


def build_model(results, targets, top):
    problems = []
    cc, err = load_json(os.path.join(results, "compiler.json"))
    if err:
        problems.append(err)
    tmodel, reports = [], {}
    for t in targets:
        rdir = os.path.join(results, t)
        rep, e1 = load_json(os.path.join(rdir, "report.json"))
        bench, e2 = load_json(os.path.join(rdir, "bench.json"))
        st, e3 = load_json(os.path.join(rdir, "matrix-status.json"))
        problems += [e for e in (e1, e2, e3) if e]
        if rep is not None and rep.get("schema") != SCHEMA:
            problems.append(f"{rdir}/report.json: schema {rep.get('schema')!r}, expected {SCHEMA}")
            rep = None
        if rep is not None:
            try:
                rules.rules_of(rep, f"{rdir}/report.json")
            except rules.RulesError as e:
                raise ReportError(str(e)) from None
            untitled = [f.get("feature") for f in rep.get("features", []) if not f.get("title")]
            if untitled:
                raise ReportError(f"{rdir}/report.json: features without a \"title\" "
                                  f"({', '.join(map(str, untitled[:3]))}): written by an older hardprobe module")
        arch, comp = hptargets.arch_compiler(t, top)
        kernel = (rep or {}).get("kernel") or {}
        build = kernel.get("build") or {}
        status = "ok" if rep is not None else "missing"
        reason = "" if rep is not None else (e1 or f"no {rdir}/report.json")
        if st and st.get("status") not in (None, "ok"):
            status = "failed"
            reason = st.get("reason") or f"failed at stage {st.get('stage', '?')}"
        elif rep is None and st:
            status = "failed"
            reason = st.get("reason") or reason
        tmodel.append({
            "id": t,
            "status": status,
            "reason": reason,
            "arch": norm_arch(kernel.get("arch")) or arch,
            "compiler_id": comp,
            "compiler": kernel.get("compiler") or build.get("compiler") or comp,
            "compiler_short": short_compiler(kernel.get("compiler")) or comp or "",
            "kernel": {"release": kernel.get("release"), "version": kernel.get("version"),
                       "config_hash": kernel.get("config_hash") or build.get("config_hash"),
                       "cmdline": kernel.get("cmdline"), "source": build.get("source"),
                       "extra_config": build.get("extra_config")},
            "run": st,
            "bench": None if bench is None else {
                "emulated": bool(bench.get("emulated")),
                "features": sorted((bench.get("features") or {}).keys())},
            "inputs": {"report": rep is not None, "bench": bench is not None,
                       "status": st is not None},
        })
        reports[t] = (rep, bench)

    ids = set()
    for rep, bench in reports.values():
        ids |= set(((bench or {}).get("features") or {}).keys())
    ids |= set(((cc or {}).get("features") or {}).keys())
    order, meta = row_order([rep for rep, _ in reports.values()], ids)

    compilers = (cc or {}).get("compilers") or []
    cc_by_target = {}
    for t in tmodel:
        for c in compilers:
            if c.get("name") == t["compiler_id"] and norm_arch(c.get("arch")) == norm_arch(t["arch"]):
                cc_by_target[t["id"]] = c.get("id")

    features = []
    for fid in order:
        cells = {}
        for t in tmodel:
            rep, bench = reports[t["id"]]
            feat = next((f for f in (rep or {}).get("features", []) if f.get("feature") == fid), None)
            cost = cost_of(bench, fid)
            ccent = None
            if t["id"] in cc_by_target:
                ccent = (((cc or {}).get("features") or {}).get(fid) or {}).get(cc_by_target[t["id"]])
            if feat is None:
                outcome = "failed" if t["status"] == "failed" and rep is None else "missing"
                cell = {"outcome": outcome, "layers": None, "ktap": None,
                        "why": t["reason"] if outcome == "failed" else "not probed on this target",
                        "probes": []}
            else:
                probes = list(feat.get("probes") or [])
                for p in (rep or {}).get("panic_probes") or []:
                    if p.get("feature") == fid and not any(q.get("probe") == p.get("probe") for q in probes):
                        probes.append(dict(p, kind="panic"))
                cell = {"outcome": feat.get("outcome") or "error",
                        "layers": layers(feat) | {
                            "configured_text": feat.get("configured"), "symbol": feat.get("symbol"),
                            "built_text": feat.get("built"), "active_text": feat.get("active")},
                        "ktap": feat.get("ktap"), "why": feat.get("why"), "probes": probes}
            cell["cost"] = cost
            cell["compiler"] = ccent
            cells[t["id"]] = cell
        ccrow = ((cc or {}).get("features") or {}).get(fid)
        title, group, family = meta.get(fid, (None, "other", None))
        features.append({"id": fid, "name": title or fid.replace("_", " "),
                         "group": group or "", "family": family,
                         "cells": cells, "compiler": ccrow})
    return {"schema": SCHEMA,
            "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "results": os.path.abspath(results),
            "targets": tmodel,
            "compilers": compilers if cc is not None else None,
            "compiler_layer": cc is not None,
            "features": features,
            "legend": {k: v[2] for k, v in PALETTE.items()},
            "compiler_legend": {k: v[2] for k, v in CC_PALETTE.items()},
            "problems": problems}


def cc_state(e):
    """compiler.json entry -> emits|accepted|rejected|n/a|unknown|missing ("emits" null: not
    measured, because the flag was rejected or the feature is another architecture's)."""
    if not isinstance(e, dict):
        return "missing"
    if e.get("accepted") is None:
        return "unknown"
    if re.match(r"(x86_64|arm64) only", e.get("evidence") or ""):
        return "n/a"
    if not e.get("accepted"):
        return "rejected"
    return "emits" if e.get("emits") else "accepted"


def cc_mark(e):
    """compact compiler-layer mark of a kernel cell."""
    return {"emits": "cc✓", "accepted": "cc(flag only)", "rejected": "cc✗", "n/a": "cc n/a",
            "unknown": "cc?", "missing": "cc" + DASH}[cc_state(e)]


def cc_short(e):
    s = cc_state(e)
    return {"emits": "can ✓", "accepted": "flag ✓ code ✗", "rejected": "can't ✗", "n/a": "n/a",
            "unknown": "?", "missing": DASH}[s]


def known_gaps(cell):
    """"N known gap(s)": probes that got through a documented hole (the feature's
    outcome leaves them out), or "" when there are none."""
    n = len(rules.known_gaps(cell.get("probes")))
    return f"{n} known gap{'s' if n > 1 else ''}" if n else ""


def cell_short(cell, with_cost=True):
    if cell["outcome"] == "missing":
        text = DASH
        if cell.get("compiler") is None and not cost_short(cell["cost"]):
            return text
    elif cell["outcome"] == "failed":
        text = "run failed"
    else:
        text = f"{cell['outcome']} {cell['layers']['marks']}"
        if gaps := known_gaps(cell):
            text += " · " + gaps
    if cell.get("compiler") is not None:
        text += " · " + cc_mark(cell["compiler"])
    if with_cost and (cell["outcome"] not in ("failed", "missing") or cell["cost"]):
        text += f" · {cost_short(cell['cost']) or DASH}"
    return text


def target_head(t):
    bits = [t["compiler_short"] or DASH]
    if t["kernel"]["release"]:
        bits.append(t["kernel"]["release"])
    return ", ".join(bits)


# ---------------------------------------------------------------- Markdown

def md_esc(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_md(m):
    ts = m["targets"]
    out = ["# hardprobe comparison matrix", "",
           f"Generated {m['generated']} from `{m['results']}`. One row per feature, one column "
           "per target; a cell is the module's outcome, the layers (C configured, B built, "
           "A active: ✓ yes, ✗ no, · nothing to build, ? not reported; only C✗ when not "
           "configured), how many probes got through a known gap (a documented hole the outcome "
           "leaves out: a compiler's, or the feature's own), `cc✓`/`cc✗` whether the target's "
           "compiler can (compiler layer), and the "
           f"measured cost (with/without ratio of ns per call) or {DASH} where not measured. "
           "Details: `matrix.html` (hover or click a cell) and `matrix.json`.", ""]
    head = ["feature"] + [f"{t['id']} ({target_head(t)}"
                          + (f"; {t['status'].upper()}" + (f" at {t['run']['stage']}" if t["run"] and t["run"].get("stage") else "")
                             if t["status"] != "ok" else "") + ")" for t in ts]
    out.append("| " + " | ".join(md_esc(h) for h in head) + " |")
    out.append("|" + "---|" * len(head))
    for f in m["features"]:
        name = f"{f['name']} (`{f['id']}`)" + (f", {f['group']}" if f["group"] and f["group"] != "other" else "")
        row = [name] + [cell_short(f["cells"][t["id"]]) for t in ts]
        out.append("| " + " | ".join(md_esc(c) for c in row) + " |")
    out.append("")
    out.append("Targets:")
    out.append("")
    for t in ts:
        k = t["kernel"]
        line = f"- `{t['id']}`: "
        if t["status"] != "ok":
            line += f"**{t['status'].upper()}**: {t['reason']}; "  # the reason, in full
        line += (f"compiler {t['compiler'] or DASH}, kernel {k['release'] or DASH}, config hash "
                 f"{k['config_hash'] or DASH}, bench {('emulated (QEMU TCG)' if t['bench']['emulated'] else 'native') if t['bench'] else DASH}")
        out.append(md_esc(line).replace("\\|", "|"))
    out.append("")
    costs = [(f, t, f["cells"][t["id"]]["cost"]) for f in m["features"] for t in ts
             if f["cells"][t["id"]]["cost"]]
    out.append("## Cost per feature")
    out.append("")
    if not costs:
        out.append(f"{DASH} (no bench.json in any target's results)")
    else:
        out.append("| feature | target | with (ns/call ± spread) | without (ns/call ± spread) | ratio | calls | text bytes (with / without) | timing |")
        out.append("|---|---|---|---|---|---|---|---|")
        for f, t, c in costs:
            tb = (f"{c['text_bytes_on']} / {c['text_bytes_off']} ({c['text_bytes_delta']:+d})"
                  if "text_bytes_delta" in c else DASH)
            out.append(f"| `{f['id']}` | {t['id']} | {fmt_num(c.get('ns_on'))} ± {fmt_num(c.get('spread_on'))} | "
                       f"{fmt_num(c.get('ns_off'))} ± {fmt_num(c.get('spread_off'))} | {cost_short(c) or DASH} | "
                       f"{c.get('calls') or DASH} | {tb} | {'QEMU TCG (emulated)' if c['emulated'] else 'native'} |")
    out.append("")
    out.append("## Compiler layer: what the compiler can (build-time probes)")
    out.append("")
    if not m["compiler_layer"]:
        out.append(f"{DASH} (no compiler.json: run make ccprobe)")
    else:
        cs = m["compilers"]
        out.append("| feature | " + " | ".join(md_esc(c.get("id")) for c in cs) + " |")
        out.append("|---|" + "---|" * len(cs))
        for f in m["features"]:
            if not f["compiler"]:
                continue
            row = [f"`{f['id']}`"] + [cc_short(f["compiler"].get(c.get("id"))) for c in cs]
            out.append("| " + " | ".join(md_esc(x) for x in row) + " |")
        out.append("")
        out.append("The flags and the evidence (what changed in the code) are in matrix.html and matrix.json.")
        out.append("")
        out.append("Compilers: " + "; ".join(f"{c.get('id')}: {c.get('version') or DASH}" for c in cs))
    if m["problems"]:
        out.append("")
        out.append("Inputs that could not be read: " + "; ".join(m["problems"]))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- HTML

CSS = """
body{font:14px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:16px;color:#222;background:#fafafa}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:22px 0 6px}
p.sub{margin:0 0 10px;color:#555}
table.m{border-collapse:separate;border-spacing:3px}
table.m th{background:#37474f;color:#fff;padding:6px 8px;text-align:left;vertical-align:bottom;font-weight:600}
table.m th.f{background:#eceff1;color:#222;min-width:240px;font-weight:600;vertical-align:middle}
table.m th.f code{color:#666;font-weight:400;font-size:12px}
table.m th.f .g{display:block;color:#777;font-weight:400;font-size:11px}
table.m th .s{display:block;font-weight:400;font-size:12px;opacity:.85}
table.m th.bad{background:#5d4037} table.m th.miss{background:#78909c}
table.m th .why{display:block;font-weight:400;font-size:12px;color:#ffccbc;overflow-wrap:anywhere}
table.m thead th:not(.f){width:200px;max-width:200px;overflow-wrap:anywhere}
#compiler thead th:not(.f){width:140px;max-width:140px} #compiler td.c{min-width:0;max-width:140px}
#compiler td.c .l{font-size:10.5px;overflow-wrap:anywhere}
td.c{min-width:150px;padding:5px 8px;border-radius:3px;vertical-align:top;border:1px solid #ccc}
td.c .o{font-weight:700} td.c .l{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
td.c .k{font-size:12px}
td.c details summary{cursor:pointer;list-style:none} td.c details summary::-webkit-details-marker{display:none}
td.c{position:relative}
td.c details[open] .d{position:absolute;z-index:5;left:0;top:100%;width:520px;background:#fff;color:#222;
 padding:8px 10px;border:1px solid #888;border-radius:4px;box-shadow:0 4px 14px rgba(0,0,0,.25);margin:0}
.d{font-size:12px} .d dt{font-weight:700} .d dd{margin:0 0 4px 8px}
.d ul{margin:2px 0;padding-left:16px} .d li{margin:1px 0}
.legend span.sw{display:inline-block;width:16px;height:16px;border:1px solid #999;vertical-align:middle;margin:0 4px 0 12px}
.legend{margin:8px 0 12px}
table.cost{border-collapse:collapse} table.cost td,table.cost th{border:1px solid #ccc;padding:3px 6px;text-align:right}
table.cost td:first-child,table.cost td:nth-child(2){text-align:left}
.note{color:#555;font-size:12px}
"""


def h(s):
    return html.escape("" if s is None else str(s), quote=True)


def cell_detail_text(fid, t, cell):
    """the plain-text detail of a cell: the title attribute (hover)."""
    lines = [f"{fid} on {t['id']}: {cell['outcome']}"]
    if cell["layers"]:
        L = cell["layers"]
        lines += [f"configured: {L['configured_text'] or DASH}", f"built: {L['built_text'] or DASH}",
                  f"active: {L['active_text'] or DASH}", f"KTAP: {cell['ktap'] or DASH}"]
    lines.append(f"why: {cell['why'] or DASH}")
    for p in cell["probes"]:
        lines.append(f"  {p.get('probe')} [{p.get('kind', '?')}] {p.get('outcome')}: {p.get('evidence', '')}")
    lines.append(cost_long(cell["cost"]) or f"cost: {DASH}")
    if cell.get("compiler") is not None:
        e = cell["compiler"]
        lines.append(f"compiler: {cc_state(e)} {e.get('flag', '')} {e.get('evidence', '')}".rstrip())
    return "\n".join(lines)


def render_cell(f, t, cell):
    bg, fg, _ = PALETTE.get(cell["outcome"], PALETTE["error"])
    o = cell["outcome"]
    if o == "missing":
        summ = f'<span class="o">{DASH}</span>'
    elif o == "failed":
        summ = '<span class="o">run failed</span>'
    else:
        summ = f'<span class="o">{h(o)}</span> <span class="l">{h(cell["layers"]["marks"])}</span>'
    extra = []
    if gaps := known_gaps(cell):
        extra.append(gaps)
    if cell.get("compiler") is not None:
        extra.append(cc_mark(cell["compiler"]))
    if o not in ("missing", "failed") or cell["cost"]:
        extra.append(f"cost {cost_short(cell['cost']) or DASH}")
    if extra:
        summ += f'<br><span class="k">{h(" · ".join(extra))}</span>'
    d = ['<dl class="d">']
    if cell["layers"]:
        L = cell["layers"]
        d.append(f"<dt>configured</dt><dd>{h(L['configured_text'] or DASH)}</dd>")
        d.append(f"<dt>built</dt><dd>{h(L['built_text'] or DASH)}</dd>")
        d.append(f"<dt>active</dt><dd>{h(L['active_text'] or DASH)}</dd>")
        d.append(f"<dt>KTAP</dt><dd>{h(cell['ktap'] or DASH)}</dd>")
    d.append(f"<dt>why</dt><dd>{h(cell['why'] or DASH)}</dd>")
    if cell["probes"]:
        d.append(f"<dt>probes ({len(cell['probes'])})</dt><dd><ul>")
        for p in cell["probes"]:
            ns = f", {p['ns']} ns" if isinstance(p.get("ns"), (int, float)) else ""
            gap = ", known gap" if p.get("known_gap") else ""
            d.append(f"<li><code>{h(p.get('probe'))}</code> [{h(p.get('kind', '?'))}{gap}{ns}] "
                     f"<b>{h(p.get('outcome'))}</b>: {h(p.get('evidence', ''))}</li>")
        d.append("</ul></dd>")
    d.append(f"<dt>cost</dt><dd>{h(cost_long(cell['cost']) or DASH)}</dd>")
    if cell.get("compiler") is not None:
        e = cell["compiler"]
        d.append(f"<dt>compiler ({h(t['compiler_id'])})</dt><dd>{h(cc_state(e))}: "
                 f"<code>{h(e.get('flag', ''))}</code> {h(e.get('evidence', ''))}</dd>")
    d.append("</dl>")
    return (f'<td class="c o-{h(o)}" data-outcome="{h(o)}" style="background:{bg};color:{fg}" '
            f'title="{h(cell_detail_text(f["id"], t, cell))}"><details><summary>{summ}</summary>'
            + "".join(d) + "</details></td>")


def render_html(m):
    ts = m["targets"]
    o = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         "<title>hardprobe comparison matrix</title>", f"<style>{CSS}</style></head><body>",
         "<h1>hardprobe comparison matrix</h1>",
         f'<p class="sub">Generated {h(m["generated"])} from <code>{h(m["results"])}</code>. '
         "What this kernel does, per feature and target, from the module's probes. "
         "Hover a cell for its evidence, click it for the probe list. "
         "C/B/A: configured, built, active (✓ yes, ✗ no, · nothing to build). "
         "Known gaps: probes that got through a documented hole, left out of the outcome. "
         "cc: the target's compiler can (compiler layer). Cost: ns/call ratio with/without.</p>",
         '<div class="legend"><b>Legend:</b>']
    for k, (bg, _, meaning) in PALETTE.items():
        o.append(f'<span class="sw" style="background:{bg}" title="{h(meaning)}"></span>{h(k)}'
                 f' <span class="note">({h(meaning)})</span>')
    o.append("</div>")
    o.append('<table class="m" id="matrix"><thead><tr><th class="f">feature</th>')
    for t in ts:
        k = t["kernel"]
        tip = (f"{t['id']}\ncompiler: {t['compiler'] or DASH}\nkernel: {k['release'] or DASH} "
               f"{k['version'] or ''}\nconfig hash: {k['config_hash'] or DASH}\nsource: {k['source'] or DASH}"
               f"\nextra config: {k['extra_config'] or DASH}\ncmdline: {k['cmdline'] or DASH}"
               f"\nbench: {('QEMU TCG (emulated timing)' if t['bench']['emulated'] else 'native') if t['bench'] else DASH}")
        if t["status"] != "ok":
            tip = f"{t['status'].upper()}: {t['reason']}\n" + tip
        cls = {"ok": "", "missing": ' class="miss"'}.get(t["status"], ' class="bad"')
        label = t["reason"] if t["reason"].startswith(t["status"]) else f'{t["status"]}: {t["reason"]}'
        why = f'<span class="why">{h(label)}</span>' if t["status"] != "ok" else ""
        emu = " · timing emulated" if t["bench"] and t["bench"]["emulated"] else ""
        o.append(f'<th{cls} data-target="{h(t["id"])}" title="{h(tip)}">{h(t["id"])}'
                 f'<span class="s">{h(target_head(t))}{h(emu)}</span>'
                 f'<span class="s">config {h(k["config_hash"] or DASH)}</span>{why}</th>')
    o.append("</tr></thead><tbody>")
    for f in m["features"]:
        g = f'<span class="g">{h(f["group"])}</span>' if f["group"] and f["group"] != "other" else ""
        o.append(f'<tr data-feature="{h(f["id"])}"><th class="f">{h(f["name"])} <code>{h(f["id"])}</code>{g}</th>')
        for t in ts:
            o.append(render_cell(f, t, f["cells"][t["id"]]))
        o.append("</tr>")
    o.append("</tbody></table>")

    o.append("<h2>Cost per feature</h2>")
    costs = [(f, t, f["cells"][t["id"]]["cost"]) for f in m["features"] for t in ts
             if f["cells"][t["id"]]["cost"]]
    if not costs:
        o.append(f'<p id="cost-none">{DASH} no bench.json in any target\'s results.</p>')
    else:
        o.append('<table class="cost" id="cost"><tr><th>feature</th><th>target</th><th>with, ns/call ± spread</th>'
                 "<th>without, ns/call ± spread</th><th>ratio</th><th>calls</th><th>text bytes with / without</th>"
                 "<th>timing</th></tr>")
        for f, t, c in costs:
            tb = (f"{c['text_bytes_on']} / {c['text_bytes_off']} ({c['text_bytes_delta']:+d})"
                  if "text_bytes_delta" in c else DASH)
            o.append(f"<tr><td><code>{h(f['id'])}</code></td><td>{h(t['id'])}</td>"
                     f"<td>{fmt_num(c.get('ns_on'))} ± {fmt_num(c.get('spread_on'))}</td>"
                     f"<td>{fmt_num(c.get('ns_off'))} ± {fmt_num(c.get('spread_off'))}</td>"
                     f"<td>{h(cost_short(c) or DASH)}</td><td>{h(c.get('calls') or DASH)}</td><td>{h(tb)}</td>"
                     f"<td>{'QEMU TCG (emulated)' if c['emulated'] else 'native'}</td></tr>")
        o.append("</table>")

    o.append("<h2>Compiler layer: what the compiler can (build-time probes)</h2>")
    if not m["compiler_layer"]:
        o.append(f'<p id="compiler-none">{DASH} no compiler.json: the compiler layer was not probed.</p>')
    else:
        o.append('<div class="legend"><b>Legend:</b>')
        for k, (bg, _, meaning) in CC_PALETTE.items():
            o.append(f'<span class="sw" style="background:{bg}"></span>{h(meaning)}')
        o.append('</div><table class="m" id="compiler"><thead><tr><th class="f">feature</th>')
        for c in m["compilers"]:
            o.append(f'<th title="{h(c.get("version") or "")}">{h(c.get("name") or c.get("id"))}'
                     f'<span class="s">{h(c.get("arch") or "")}</span></th>')
        o.append("</tr></thead><tbody>")
        for f in m["features"]:
            if not f["compiler"]:
                continue
            o.append(f'<tr data-feature="{h(f["id"])}"><th class="f">{h(f["name"])} <code>{h(f["id"])}</code></th>')
            for c in m["compilers"]:
                e = f["compiler"].get(c.get("id"))
                st = cc_state(e)
                bg, fg, _ = CC_PALETTE[st]
                tip = (f"{f['id']} with {c.get('id')} ({c.get('version') or DASH}): {st}\n"
                       f"flag: {(e or {}).get('flag', DASH)}\nevidence: {(e or {}).get('evidence', DASH)}")
                o.append(f'<td class="c cc-{st}" style="background:{bg};color:{fg}" title="{h(tip)}">'
                         f'<span class="o">{h(cc_short(e))}</span><br>'
                         f'<span class="l">{h((e or {}).get("flag", ""))}</span></td>')
            o.append("</tr>")
        o.append("</tbody></table>")
    if m["problems"]:
        o.append('<p class="note">Inputs that could not be read: ' + h("; ".join(m["problems"])) + "</p>")
    o.append('<p class="note">Every figure above is in matrix.json next to this file.</p>')
    o.append("</body></html>")
    return "\n".join(o) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(prog="hptool matrix-render", description="render results/matrix.{md,html,json}")
    ap.add_argument("--results", default=None, help="results directory (default: <top>/results)")
    ap.add_argument("--out", default=None, help="output directory (default: the results directory)")
    ap.add_argument("--targets", default=None, help="space-separated targets, in column order")
    a = ap.parse_args(argv)
    top = TOP
    results = a.results or os.path.join(top, "results")
    out = a.out or results
    if not os.path.isdir(results):
        print(f"hardprobe: error: no results directory {results} (run make matrix or make run first)",
              file=sys.stderr)
        return 1
    targets = a.targets.split() if a.targets else discover(results)
    if not targets:
        print(f"hardprobe: error: no results in {results}: no <target>/report.json (run make matrix)",
              file=sys.stderr)
        return 1
    try:
        m = build_model(results, targets, top)
    except ReportError as e:
        print(f"hardprobe: error: {e}", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    for name, text in (("matrix.json", json.dumps(m, indent=1, ensure_ascii=False) + "\n"),
                       ("matrix.md", render_md(m)), ("matrix.html", render_html(m))):
        tmp = os.path.join(out, name + ".tmp")
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, os.path.join(out, name))
    for p in m["problems"]:
        print(f"hardprobe: warning: {p}", file=sys.stderr)
    print(f"matrix: {len(m['features'])} features x {len(targets)} targets -> "
          f"{os.path.join(out, 'matrix.md')}, matrix.html, matrix.json")
    return 0
