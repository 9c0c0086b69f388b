# SPDX-License-Identifier: GPL-2.0
"""hardprobe bench: split a guest console log into results/<target>/ files.

usage: hptool collect RESULTS_DIR TARGET
"""
import argparse
import json
import os
import re
import sys

from . import Error
from . import khc, outcome

FRAME = re.compile(r"^----- hardprobe:file (\S+) -----$")
END = "----- hardprobe:end {} -----"



def final_table(report, data, panic):
    """the module's text report with its feature table (before DETAIL) and the DETAIL
    headers showing each feature's final outcome, the one-guest probes' verdicts merged as
    in report.json: the module, which never ran them, says not_run there."""
    if not data or not panic:
        return report
    head, sep, detail = report.partition("\nDETAIL\n")
    ran = {}
    for p in panic:
        ran.setdefault(p["feature"], []).append(f"{p['probe']} {p['outcome']}")
    for f in data.get("features", []):
        fid = f.get("feature", "")
        if fid not in ran:
            continue
        why = "one-guest probes merged (" + ", ".join(ran[fid]) + ")"
        row = f"{fid:<18} {f.get('outcome', ''):<13} {f.get('ktap', ''):<7} {why}"
        head = re.sub(rf"^{re.escape(fid)} +[a-z_]+ +.*$", lambda _m: row, head, count=1,
                      flags=re.M)
        detail = re.sub(rf"^{re.escape(fid)}: \S+$", lambda _m: f"{fid}: {f.get('outcome', '')}",
                        detail, count=1, flags=re.M)
    return head + sep + detail

def frames(text):
    """{name: content} of every framed file in a console log."""
    out, name, buf = {}, None, []
    for line in text.replace("\r", "").splitlines():
        if name is None:
            m = FRAME.match(line.strip())
            if m:
                name, buf = m.group(1), []
        elif line.strip() == END.format(name):
            out[name] = "\n".join(buf) + "\n"
            name = None
        else:
            buf.append(line)
    return out


def cut_frames(text):
    """[the framed file of a console log that begins and never ends] (frames do not
    nest: none or one): the log was cut inside it, or its end line was lost; frames()
    drops it and, after a lost end line, every file that follows."""
    name = None
    for line in text.replace("\r", "").splitlines():
        if name is None:
            m = FRAME.match(line.strip())
            name = m.group(1) if m else None
        elif line.strip() == END.format(name):
            name = None
    return [name] if name else []


def panic_line(text):
    """the kernel's "Kernel panic - not syncing: ..." message of a console log, or ""."""
    for line in text.replace("\r", "").splitlines():
        if "Kernel panic - not syncing" in line:
            return line.split("] ", 1)[-1].strip()
    return ""


def merge_ktap(text):
    """Join the per-suite KUnit result documents into one KTAP document."""
    docs, cur = [], None
    for line in text.splitlines():
        if line == "KTAP version 1":
            cur = []
            docs.append(cur)
        elif cur is not None:
            cur.append(line)
    if len(docs) < 2:
        return text
    out = ["KTAP version 1", f"1..{len(docs)}"]
    for n, doc in enumerate(docs, 1):
        body = [l for l in doc if not re.match(r"^1\.\.\d+$", l)]
        if body and re.match(r"^(ok|not ok) 1 ", body[-1]):
            body[-1] = re.sub(r"^(ok|not ok) 1 ", rf"\1 {n} ", body[-1])
        out.extend(body)
    return "\n".join(out) + "\n"


def kunit_incomplete(text):
    """the parameterised tests of a KUnit document whose result lines fall short of its
    own totals line: 6.1's debugfs log keeps only the last parameter's result (the log is
    reset for each parameter), e.g. one "ok 3 ..." under "pass:1 fail:0 skip:2 total:3"."""
    short, n = [], 0
    for line in text.splitlines():
        if re.match(r"^\s+(ok|not ok) \d+ ", line) and line.startswith(" " * 8):
            n += 1
        m = re.match(r"^\s+# (\S+): pass:\d+ fail:\d+ skip:\d+ total:(\d+)$", line)
        if m:
            if n < int(m.group(2)):
                short.append(f"{m.group(1)} ({n} of {m.group(2)} results)")
            n = 0
        elif re.match(r"^\s+(ok|not ok) \d+ ", line) and not line.startswith(" " * 8):
            n = 0
    return short


def kunit_from_log(dmesg):
    """the KUnit run as one KTAP document, from the kernel log between the guest's
    markers "hardprobe-kunit: insmod" and "hardprobe-kunit: read": the suites' lines as
    KUnit printed them (each suite a subtest, "ok N <suite>" at the left), the "[time] "
    prefix and every other message (the probes' own reports) left out, under a
    "KTAP version 1" and a plan of the suites found."""
    body, on = [], False
    ktap = re.compile(r"^\s*(KTAP version \d+|# |\d+\.\.\d+$|ok \d+|not ok \d+)")
    for line in dmesg.splitlines():
        text = re.sub(r"^\[\s*\d+\.\d+\] ", "", line)
        if text.startswith("hardprobe-kunit: insmod"):
            on, body = True, []
        elif text.startswith("hardprobe-kunit: read"):
            on = False
        elif on and ktap.match(text):
            body.append(text)
    suites = [l for l in body if re.match(r"^(ok|not ok) \d+ ", l)]
    if not suites:
        return ""
    return "\n".join(["KTAP version 1", f"1..{len(suites)}"] + body) + "\n"


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def probe_table(files):
    """[(name, feature, kind, configured, signature)] from the probes file."""
    rows = []
    for line in files.get("probes.txt", "").splitlines():
        parts = line.split(None, 4)
        if len(parts) == 5:
            rows.append(tuple(parts))
    return rows


def merge_panic(data, panic):
    """Put one-guest probe results into the features they belong to, with the module's
    own rules (report.json "rules": the ranking and the KTAP table)."""
    rules = outcome.rules_of(data)
    for res in panic:
        for feat in data.get("features", []):
            for p in feat.get("probes", []):
                if p["probe"] == res["probe"]:
                    p["outcome"], p["evidence"] = res["outcome"], res["evidence"]
                    p["guest"] = res.get("guest", "own")
                    # "stopped" only on a protected probe: a panic is a catch that stopped
                    p.pop("stopped", None)
                    if res["outcome"] == "protected":
                        p["stopped"] = True
            if res["feature"] != feat["feature"]:
                continue
            worst = outcome.feature_outcome(rules, feat["probes"])
            if worst != feat["outcome"]:
                feat["outcome"] = worst
                feat["why"] = res["evidence"]
            feat["ktap"] = outcome.ktap_of(rules, feat["outcome"], False, feat["configured_bool"])


def judge_panic(log, probe, signature):
    """Outcome of a one-probe guest, from the log after its marker."""
    text = log.replace("\r", "")
    start = text.find("hardprobe: one-probe guest: " + probe)
    if start < 0:
        return "error", "the guest never reached the probe"
    after = text[start:]
    for line in after.splitlines():
        msg = re.sub(r"^\[\s*[0-9.]+\]\s*", "", line.strip())
        # the catch is the kernel's message, never hardprobe's own (as in the selftest)
        if signature != "-" and signature in msg and not msg.startswith("hardprobe: "):
            return "protected", msg
    if "hardprobe: survived " + probe in after:
        return "vulnerable", "the probe returned: nothing stopped it"
    if "TIMEOUT" in after:
        return "error", "TIMEOUT: the guest hung and was killed"
    return "error", "the guest stopped without the signature"


def early_death(log, target):
    """What killed a kernel before the guest's init loaded hardprobe, in the
    kernel's own words: the panic line and the first and count of bug reports."""
    if "hardprobe: loaded" in log or "===== hardprobe:" in log:
        return []
    out = []
    bugs = [l for l in log.splitlines() if re.search(r"\] (BUG|Oops|WARNING|UBSAN|Unable to handle)", l)]
    panic = [l for l in log.splitlines() if "Kernel panic - not syncing" in l]
    if bugs:
        first = bugs[0].split("] ", 1)[-1].strip()
        out.append(f"{target}: the kernel reported {len(bugs)} bug(s) before hardprobe "
                   f"loaded, the first: {first}")
    if panic:
        out.append(f"{target}: {panic[0].split('] ', 1)[-1].strip()}")
    return out


def collect(rdir, target):
    log = read(os.path.join(rdir, "console.log"))
    files = frames(log)
    if "kunit.ktap" in files:
        short = kunit_incomplete(files["kunit.ktap"])
        logged = kunit_from_log(files.get("dmesg.txt", "")) if short else ""
        if logged and not kunit_incomplete(logged):
            files["kunit-debugfs.ktap"] = files["kunit.ktap"]
            files["kunit.ktap"] = logged
        files["kunit.ktap"] = merge_ktap(files["kunit.ktap"])
    for name, content in files.items():
        with open(os.path.join(rdir, name), "w") as f:
            f.write(content)
    ok = "===== hardprobe:end" in log
    problems = []
    if not ok:
        why = "TIMEOUT" if "TIMEOUT after" in log else "the guest stopped early"
        problems.append(f"{target}: {why}; partial results kept in {rdir}")
        early = early_death(log, target)
        problems += early
        if not early and panic_line(log):
            problems.append(f"{target}: {panic_line(log)}")
    for name in cut_frames(log):
        problems.append(f"{target}: the console log cuts {name} (its end line never came): "
                        "it and every file after it are lost")

    # panicking probes, each judged from its own guest's log
    panic = []
    for name, feature, kind, conf, sig in probe_table(files):
        if kind != "panic":
            continue
        path = os.path.join(rdir, f"console-{name}.log")
        guest = "own"
        if os.path.exists(path):
            verdict, ev = judge_panic(read(path), name, sig)
        elif os.environ.get("PANIC_GUESTS") == "no":
            verdict, ev = "not_run", "one-guest probes skipped on purpose (PANIC_GUESTS=no)"
            guest = "skipped"
        else:
            verdict, ev, guest = "error", "no guest log", "none"
        panic.append({"probe": name, "feature": feature, "outcome": verdict,
                      "evidence": ev, "guest": guest})
    data = None
    if "report.json" in files:
        try:
            data = json.loads(files["report.json"])
            # a panicking probe of the report that the probes file lacks got no guest
            # (hptool run picks them from that file): an error, never the module's not_run
            listed = {p["probe"] for p in panic}
            for feat in data.get("features", []):
                for p in feat.get("probes", []):
                    if p.get("kind") == "panic" and p["probe"] not in listed:
                        panic.append({"probe": p["probe"], "feature": feat["feature"],
                                      "outcome": "error", "guest": "none",
                                      "evidence": "not in probes.txt: no guest of its own ran it"})
                        problems.append(f"{target}: panicking probe {p['probe']} of report.json is "
                                        "not in probes.txt: no guest of its own ran it")
            data["panic_probes"] = panic
            merge_panic(data, panic)
            info = os.path.join(rdir, "build-info.txt")
            if os.path.exists(info):
                kv = dict(l.split(": ", 1) for l in read(info).splitlines() if ": " in l)
                data["kernel"]["config_hash"] = kv.get("config_hash", "")
                data["kernel"]["build"] = kv
            khc.annotate(data)  # each feature's "verifies": the k-h-c checks it verifies
            with open(os.path.join(rdir, "report.json"), "w") as f:
                json.dump(data, f, indent=1)
        except (outcome.RulesError, Error) as e:
            problems.append(f"{target}: {e}")
        except (ValueError, KeyError) as e:
            problems.append(f"{target}: report.json does not parse: {e}")
    else:
        problems.append(f"{target}: no report in the console log")

    stages = read(os.path.join(rdir, "stages.txt")) if os.path.exists(
        os.path.join(rdir, "stages.txt")) else ""
    guest = files.get("timings", "")
    with open(os.path.join(rdir, "timings"), "w") as f:
        f.write("host stages:\n" + stages + "guest stages (uptime s):\n" + guest)

    report = final_table(files.get("report.txt", "(no report)\n"), data, panic)
    if panic:
        report += "\nONE-GUEST PROBES (a catch panics: each ran in a fresh guest)\n"
        for p in panic:
            report += f"  {p['probe']:<32} {p['outcome']:<12} {p['evidence']}\n"
        for f in (data or {}).get("features", []):
            if any(p["feature"] == f["feature"] for p in panic):
                report += f"  => {f['feature']}: {f['outcome']} ({f['ktap']})\n"
        with open(os.path.join(rdir, "report.txt"), "w") as f:
            f.write(report)
    print(report, end="")
    sel = files.get("selftest.rc", "").strip()
    if sel:
        print(f"\nselftest: {sel} (results/{target}/selftest.ktap)")
    print("\nstage timings:\n" + stages + "guest (uptime, s):\n" + guest, end="")
    print(f"results: {rdir}/")
    for p in problems:
        print("hardprobe: " + p, file=sys.stderr)
    return 1 if problems else 0


def cli(args):
    ap = argparse.ArgumentParser(prog="hptool collect", description=__doc__.splitlines()[0])
    ap.add_argument("results_dir", help="holds the guest's console.log")
    ap.add_argument("target")
    a = ap.parse_args(args)
    return collect(a.results_dir, a.target)
