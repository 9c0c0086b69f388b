# SPDX-License-Identifier: GPL-2.0
"""A KCIDB (KernelCI's common results database) I/O v5.3 submission of one run.

One checkout (the kernel source the target was built from), one build (the target's
kernel), one test per feature, "hardprobe.<feature>", and one per probe,
"hardprobe.<feature>.<probe>" (the probe's name after its feature's), the panic guests'
verdicts merged as in report.json. A test's status is hardprobe's KTAP verdict by the
module's own exported rule ("rules" in report.json): ok PASS, not ok FAIL, skip SKIP,
error ERROR. The outcome, the layers and the evidence go in "misc"; the run's kernel
command line and QEMU accelerator in "environment".

Timestamps: the kernel build's time is its cache directory's hardprobe-info.txt, the
tests' the time the host collected the run (report.json's modification time); each is
written as RFC 3339 and checked here (Debian 12's jsonschema never checks "date-time").
"""
import datetime
import hashlib
import json
import os
import re

from . import Error
from . import outcome

ORIGIN = "hardprobe"
VERSION = {"major": 5, "minor": 3}
KTAP_STATUS = {"ok": "PASS", "not ok": "FAIL", "skip": "SKIP", "error": "ERROR"}
PATH_PART = re.compile(r"^[a-zA-Z0-9_-]+$")
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def timestamp(t):
    """RFC 3339 in UTC of a POSIX time, checked: a time before 2000 or more than a day
    ahead of this machine's clock is a wrong clock, not a time."""
    now = datetime.datetime.now(datetime.timezone.utc).timestamp()
    if not 946684800 <= t <= now + 86400:
        raise Error(f"timestamp {t}: not between 2000 and now (a wrong clock?)")
    s = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat(timespec="seconds")
    if not RFC3339.match(s):
        raise Error(f"timestamp {s}: not RFC 3339")
    return s


def part(text):
    """a KCIDB path component: characters outside [a-zA-Z0-9_-] become '_'."""
    out = re.sub(r"[^a-zA-Z0-9_-]", "_", text)
    if not PATH_PART.match(out):
        raise Error(f"empty test path component from {text!r}")
    return out


def probe_path(feature, probe):
    """hardprobe.<feature>.<probe>: the probe's name after "<feature>." (all of it where
    it does not start so), its own dots made '_'."""
    short = probe[len(feature) + 1:] if probe.startswith(feature + ".") else probe
    return f"{ORIGIN}.{part(feature)}.{part(short)}"


def _id(*parts):
    return f"{ORIGIN}:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


def submission(report_path):
    """the KCIDB v5.3 submission (a dict) of a run's report.json."""
    try:
        with open(report_path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise Error(f"{report_path}: {e}") from None
    rules = outcome.rules_of(data, report_path)
    kernel = data.get("kernel") or {}
    build = kernel.get("build") or {}
    target = data.get("target") or build.get("target") or "unknown"
    release = kernel.get("release") or build.get("kver") or "unknown"
    source = build.get("source") or f"linux-{release}"
    chash = build.get("config_hash") or kernel.get("config_hash") or ""
    collected = timestamp(os.stat(report_path).st_mtime)
    info = os.path.join(build.get("build_dir") or "", "hardprobe-info.txt")
    built = timestamp(os.stat(info).st_mtime) if build.get("build_dir") and os.path.isfile(info) \
        else collected
    run_id = _id(target, release, kernel.get("version", ""), chash, collected)

    checkout_id = _id("checkout", source, release)
    checkout = {"id": checkout_id, "origin": ORIGIN, "tree_name": f"linux-{release}",
                "start_time": built, "valid": True,
                "misc": {"source": source, "kernel_release": release}}
    build_id = _id("build", target, source, build.get("compiler", ""), chash)
    kbuild = {"id": build_id, "origin": ORIGIN, "checkout_id": checkout_id,
              "start_time": built, "architecture": kernel.get("arch", "unknown"),
              "compiler": build.get("compiler") or kernel.get("compiler") or "unknown",
              "config_name": target, "status": "PASS",
              "misc": {"config_hash": chash, "extra_config": build.get("extra_config", "none"),
                       "kernel_version": kernel.get("version", "")}}
    env = {"comment": f"QEMU guest ({build.get('accel', 'tcg')})",
           "misc": {"cmdline": kernel.get("cmdline", ""), "accel": build.get("accel", "tcg"),
                    "target": target}}

    panic = {p.get("probe"): p for p in data.get("panic_probes") or []}
    tests, seen = [], set()

    def test(path, status, misc):
        if path in seen:
            raise Error(f"two tests named {path}")
        seen.add(path)
        t = {"id": f"{run_id}:{path}", "origin": ORIGIN, "build_id": build_id, "path": path,
             "status": status, "start_time": collected, "environment": env, "misc": misc}
        tests.append(t)

    for f in data.get("features") or []:
        fid = f.get("feature") or ""
        probes = []
        for p in f.get("probes") or []:
            p = dict(p)
            final = panic.get(p.get("probe"))
            if final and final.get("outcome"):
                p["outcome"], p["evidence"] = final["outcome"], final.get("evidence", "")
            probes.append(p)
        fo = outcome.feature_outcome(rules, probes) if probes else f.get("outcome")
        fk = outcome.ktap_of(rules, fo, False, f.get("configured_bool"))
        test(f"{ORIGIN}.{part(fid)}", KTAP_STATUS[fk],
             {"outcome": fo, "ktap": fk, "chance": outcome.by_chance(fo, probes),
              "configured": f.get("configured", ""),
              "built": f.get("built", ""), "active": f.get("active", ""),
              "why": f.get("why", ""), "title": f.get("title", "")})
        for p in probes:
            k = outcome.ktap_of(rules, p.get("outcome"), bool(p.get("known_gap")),
                                f.get("configured_bool"))
            test(probe_path(fid, p.get("probe", "")), KTAP_STATUS[k],
                 {"outcome": p.get("outcome"), "ktap": k, "kind": p.get("kind"),
                  "known_gap": bool(p.get("known_gap")),
                  "chance": outcome.by_chance(p.get("outcome"), [p]),
                  "stopped": p.get("stopped", True), "evidence": p.get("evidence", ""),
                  "ns": p.get("ns", 0)})
    return {"version": dict(VERSION), "checkouts": [checkout], "builds": [kbuild],
            "tests": tests}


def same_paths(sub_a, sub_b):
    """(same, detail): two submissions hold the same test paths (two runs of a target:
    a CI system's result history must go on under the same names)."""
    a, b = ({t["path"] for t in s["tests"]} for s in (sub_a, sub_b))
    if a == b:
        return True, f"{len(a)} test paths in both, the same"
    diff = sorted(a ^ b)
    return False, f"{len(a)} and {len(b)} test paths, {len(diff)} in one only: {', '.join(diff[:3])}"


def validate(sub, schema_path):
    """the schema errors of @sub (a list of strings), by Draft 7 with its format checker,
    and the writer's own timestamp check; raises Error without jsonschema."""
    try:
        import jsonschema
    except ImportError:
        raise Error("no python3-jsonschema: run hptool deps") from None
    with open(schema_path) as f:
        schema = json.load(f)
    v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errs = [f"{'/'.join(str(x) for x in e.absolute_path)}: {e.message}"
            for e in v.iter_errors(sub)]
    for kind in ("checkouts", "builds", "tests"):
        for i, o in enumerate(sub.get(kind, [])):
            if "start_time" in o and not RFC3339.match(o["start_time"]):
                errs.append(f"{kind}/{i}/start_time: {o['start_time']!r} is not RFC 3339")
    return errs
