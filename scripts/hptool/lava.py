# SPDX-License-Identifier: GPL-2.0
"""LAVA: hardprobe's job and device dictionary rendered from lava/, and the results of a
job compared with report.json.

The job (lava/job-<arch>.yaml.jinja2): the kernel and a cpio ramdisk with LAVA's overlay,
the test definition lava/hardprobe.yaml inline, then a fresh boot and an interactive step
for each panicking probe of the kernel's probes file. The device dictionary extends
lava-server's qemu.jinja2 (make lava fetches lava-server's device-type templates alone):
the values a server takes from the job's context, which lava-run alone never applies.

Result names: a result's LAVA definition without its "<stage>_" prefix, its test set and
its case, joined by dots: hardprobe.<feature>.<probe> (a test set of the definition
"hardprobe", or an interactive step "hardprobe.<feature>"), hardprobe.<feature>. These
are KCIDB's test paths (hptool kcidb); the status a result must have is KCIDB's, by the
module's KTAP rule: PASS pass, FAIL and ERROR fail, SKIP skip.
"""
import json
import os
import re

from . import qemu_configs
from . import CACHE, TOP, Error
from . import kcidb

LAVA_DIR = os.path.join(TOP, "lava")
LAVA_ARCH = {"x86_64": "amd64", "arm64": "arm64"}
STATUS = {"PASS": "pass", "FAIL": "fail", "ERROR": "fail", "SKIP": "skip"}
# a lab's own, lava-server's, and its templates alone unpacked by hptool deps --lava
DEVICE_TYPES = ("/etc/lava-server/dispatcher-config/device-types",
                "/usr/share/lava-server/device-types",
                os.path.join(CACHE, "lava", "server", "usr", "share", "lava-server", "device-types"))


def _jinja(paths):
    try:
        import jinja2
    except ImportError:
        raise Error("python3-jinja2 is missing (apt-get install python3-jinja2; "
                    "lava-dispatcher depends on it)") from None
    return jinja2.Environment(loader=jinja2.FileSystemLoader(paths), trim_blocks=True,
                              undefined=jinja2.StrictUndefined, autoescape=False)


def panic_probes(probes_text):
    """[{feature, short, probe, signature}] of a probes file's "panic" lines; the
    signature a regular expression (matched by pexpect), quoted for YAML."""
    out = []
    for line in probes_text.splitlines():
        f = line.split(None, 4)
        if len(f) == 5 and f[2] == "panic":
            if f[4].strip() in ("", "-"):
                raise Error(f"panicking probe {f[0]} has no log signature: LAVA cannot see its catch")
            short = f[0][len(f[1]) + 1:] if f[0].startswith(f[1] + ".") else f[0]
            out.append({"feature": kcidb.part(f[1]), "short": kcidb.part(short), "probe": f[0],
                        "signature": json.dumps(re.escape(f[4].strip()))})
    return out


def job(arch, target, kernel_url, ramdisk_url, probes_text, params="", smp=2,
        test_minutes=60, machine=None, append=""):
    """the job's YAML text (append: more kernel parameters)."""
    if arch not in LAVA_ARCH:
        raise Error(f"no LAVA job template for arch '{arch}' (lava/job-<arch>.yaml.jinja2)")
    if not re.match(r"^[A-Za-z0-9_.-]+$", target) or re.search(r'["\\\']', params + append):
        raise Error(f"target {target!r}, module parameters {params!r} or kernel parameters "
                    f"{append!r}: not for a job file (quotes, backslashes)")
    import yaml
    # from: inline takes no "parameters": the values go in the definition's params
    with open(os.path.join(LAVA_DIR, "hardprobe.yaml")) as f:
        testdef = yaml.safe_load(f)
    testdef["params"] = {"TARGET": target, "PARAMS": params}
    definition = yaml.safe_dump(testdef, sort_keys=False, default_flow_style=False, width=200)
    tpl = _jinja([LAVA_DIR]).get_template(f"job-{arch}.yaml.jinja2")
    ctx = {"target": target, "kernel_url": kernel_url, "ramdisk_url": ramdisk_url,
           "params": params, "smp": int(smp), "append": append, "definition": definition,
           "test_minutes": int(test_minutes), "panic_probes": panic_probes(probes_text)}
    if machine:
        ctx["machine"] = machine
    return tpl.render(**ctx) + "\n"


def device_types(extra=None):
    """the directory of lava-server's device-type templates (qemu.jinja2)."""
    for d in ([extra] if extra else []) + list(DEVICE_TYPES):
        if d and os.path.isfile(os.path.join(d, "qemu.jinja2")):
            return d
    raise Error("no lava-server device-type templates (qemu.jinja2): run hptool deps "
                "--lava as root (it unpacks Debian's lava-server package into the cache)")


def device_dictionary(arch, smp=2, machine=None):
    """a device dictionary as a lab keeps it: the qemu device type with the values the
    job's context would give on a server."""
    extra = [f"-smp {int(smp)}", "-no-reboot"]
    lines = ["{% extends 'qemu.jinja2' %}", f"{{% set arch = '{LAVA_ARCH[arch]}' %}}",
             "{% set no_kvm = True %}", "{% set memory = 512 %}", "{% set netdevice = 'user' %}"]
    if arch == "x86_64":
        # as hptool/qemu.py boots it: one TCG thread (qemu_configs/x86_64.py says why)
        extra += ["-cpu max", "-accel tcg" + qemu_configs.get(arch).tcg]
    else:
        lines += ["{% set cpu = 'max,pauth-impdef=on' %}",
                  f"{{% set machine = '{machine or 'virt'}' %}}"]
    lines.append("{% set extra_options = " + json.dumps(extra) + " %}")
    return "\n".join(lines) + "\n"


def render_device(dictionary, templates):
    """the device YAML of a dictionary, through the lava-server templates."""
    import jinja2
    env = _jinja([templates])
    env.undefined = jinja2.Undefined   # the templates test many variables for being unset
    return env.from_string(dictionary).render() + "\n"


def results(path):
    """{name: result} of a job's log as lava-run writes it on stdout (one YAML flow
    mapping a line; the results are those of level "results"; see the module doc for
    the names). A name twice is an error: two results would stand for one test."""
    import yaml
    out = {}
    try:
        with open(path, errors="replace") as f:
            lines = [ln for ln in f if '"lvl": "results"' in ln]
    except OSError as e:
        raise Error(f"{path}: {e}") from None
    for ln in lines:
        try:
            r = (yaml.load(ln, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}).get("msg")
        except yaml.YAMLError as e:
            raise Error(f"{path}: a result line that is not YAML: {e}") from None
        if not isinstance(r, dict):
            continue
        name = _name(r)
        if name is None:
            continue       # LAVA's own steps (deploy, boot, the job), definition "lava"
        if name in out:
            raise Error(f"{path}: two results named {name}")
        out[name] = r.get("result")
    return out


def _name(r):
    """a result's name (the module doc) of its definition, set and case; None for LAVA's
    own. A server's interactive step is "hardprobe-<feature>" (server_job)."""
    definition = re.sub(r"^\d+_", "", str(r.get("definition") or ""))
    if not definition.startswith("hardprobe"):
        return None
    definition = re.sub(r"^hardprobe-", "hardprobe.", definition)
    return ".".join([definition] + ([str(r["set"])] if r.get("set") else []) + [str(r.get("case"))])


def server_job(job_text):
    """the job as a lava-server 2023.01 takes it (make lava-lab): its submission schema
    (lava_scheduler_app/schema.py) refuses what lava-run and lava-schema.py accept: an
    inline definition's "params" (the values become the first lines of its run steps, as
    the dispatcher writes them into run.sh) and a dot in an interactive step's name
    ("hardprobe.<feature>" becomes "hardprobe-<feature>"; _name turns it back)."""
    import shlex
    import yaml
    data = yaml.safe_load(job_text)
    for action in data.get("actions") or []:
        test = action.get("test") or {}
        for d in test.get("definitions") or []:
            repo = d.get("repository")
            if isinstance(repo, dict) and "params" in repo:
                steps = [f"{k}={shlex.quote(str(v))}" for k, v in repo.pop("params").items()]
                repo.setdefault("run", {})["steps"] = steps + list(repo.get("run", {}).get("steps") or [])
        for step in test.get("interactive") or []:
            step["name"] = re.sub(r"^hardprobe\.", "hardprobe-", str(step.get("name")))
            if not re.match(r"^[A-Za-z0-9_-]+$", step["name"]):
                raise Error(f"interactive step {step['name']!r}: a server refuses its name")
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, width=200)


def server_results(path):
    """{name: result} of a job's results as a server gives them (lavacli results --yaml
    JOB: a list of test cases, each with the dispatcher's definition, set, case and
    result in its metadata); the names as results() makes them of lava-run's log."""
    import yaml
    try:
        with open(path, errors="replace") as f:
            cases = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as e:
        raise Error(f"{path}: {e}") from None
    if not isinstance(cases, list):
        raise Error(f"{path}: not a list of test cases (lavacli results --yaml)")
    out = {}
    for c in cases:
        meta = c.get("metadata") if isinstance(c, dict) else None
        if not isinstance(meta, dict):
            continue
        name = _name(meta)
        if name is None:
            continue
        if name in out:
            raise Error(f"{path}: two results named {name}")
        out[name] = c.get("result")
    return out


def joined(report_json):
    """the KCIDB paths of the features with a panicking probe: no boot of a LAVA job sees
    their outcome (the probe's own boot dies in its catch), so the job has no result
    of that name; their probes have one each."""
    with open(report_json) as f:
        data = json.load(f)
    return {f"{kcidb.ORIGIN}.{kcidb.part(f.get('feature', ''))}" for f in data.get("features") or []
            if any(p.get("kind") == "panic" for p in f.get("probes") or [])}


def compare(lava_log, report_json, server=False):
    """(lines, differences, extra names): each KCIDB test of the report beside its LAVA
    result, the same status expected; extra: LAVA results that are not KCIDB tests (the
    insmod step, the runner's own checks). server: lava_log is a server's results
    (server_results), not lava-run's log."""
    want = {t["path"]: (STATUS[t["status"]], t["misc"].get("outcome"), t["misc"].get("chance"))
            for t in kcidb.submission(report_json)["tests"]}
    got, skip = (server_results if server else results)(lava_log), joined(report_json)
    lines, bad = [], 0
    for path, (status, outcome, drawn) in want.items():
        res = got.get(path)
        if path in skip and res is None:
            lines.append(f"n/a  {path:<52} lava -        report.json {outcome} ({status}): "
                         "a panicking probe's feature, joined from two boots")
            continue
        if drawn and res != status:
            lines.append(f"n/a  {path:<52} lava {res or 'missing':<8} report.json {outcome} "
                         f"({status}): inconclusive by chance in make run's boot")
            continue
        ok = res == status
        bad += not ok
        lines.append(f"{'ok  ' if ok else 'DIFF'} {path:<52} lava {res or 'missing':<8} "
                     f"report.json {outcome} ({status})")
    extra = sorted(set(got) - set(want))
    return lines, bad, extra
