#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of hardprobe's LAVA side (lava/, hptool/lava.py), on a recorded run of the
x86_64-gcc guest (lava/: the runner's and the module's KTAP, the probes file, its
report.json, and the results lava-run logged for the same kernel).

  - the guest script (lava/hardprobe-lava.sh, run by dash with stand-in lava-test-case,
    insmod and runner) makes one case per probe in its feature's set, with the KTAP
    line's verdict, a case per feature without a panicking probe, none for a panicking
    probe; a mutated runner line changes its case;
  - the job renders for x86_64 and arm64, lava-schema.py --strict accepts both, one
    boot and interactive step per panicking probe, whose success pattern matches the
    probe's own catch line; a target or parameter that would break the job is refused;
  - the device dictionary renders through lava-server's qemu template;
  - the recorded LAVA results equal report.json's outcomes (names = KCIDB's test paths),
    and a flipped result or a duplicate name is caught;
  - make lava-lab's services stop, each with its process group and every descendant (one
    in a session of its own too), one that ignores SIGTERM too; a failed step is a failed
    check.
Prints one "check host <name>: ok|FAIL|SKIP" line per test; exit 1 on any FAIL.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
TOP = os.path.dirname(SCRIPTS)
REC = os.path.join(HERE, "lava")
sys.path.insert(0, SCRIPTS)
from hptool import Error, kcidb, lava, lava_lab  # noqa: E402

LAVA_SCHEMA = "/usr/share/lava-common/lava-schema.py"
results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"check host {name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}", flush=True)


def skip(name, why):
    print(f"check host {name}: SKIP {why}", flush=True)


def rec(name):
    with gzip.open(os.path.join(REC, name + ".gz"), "rt") as f:
        return f.read()


def guest(d, selftest):
    """run lava/hardprobe-lava.sh under dash with stand-ins; [(set, case, result)]."""
    for sub in ("bin", "root", "dbg"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    log = os.path.join(d, "log")
    stubs = {"insmod": "exit 0",
             "lava-test-case": f'echo "case $CUR $1 $3" >>{log}',
             "lava-test-raise": f'echo "raise $*" >>{log}'}
    for name, body in stubs.items():
        with open(os.path.join(d, "bin", name), "w") as f:
            f.write(f"#!/bin/sh\nCUR=$(cat {d}/cur 2>/dev/null)\n{body}\n")
    with open(os.path.join(d, "bin", "lava-test-set"), "w") as f:
        f.write(f'#!/bin/sh\n[ "$1" = start ] && echo "$2" >{d}/cur || rm -f {d}/cur\n')
    with open(os.path.join(d, "selftest.ktap"), "w") as f:
        f.write(selftest)
    with open(os.path.join(d, "root", "hardprobe_test"), "w") as f:
        f.write(f"#!/bin/sh\ncat {d}/selftest.ktap\nexit 1\n")
    with open(os.path.join(d, "dbg", "ktap"), "w") as f:
        f.write(rec("ktap.txt"))
    with open(os.path.join(d, "dbg", "probes"), "w") as f:
        f.write(rec("probes.txt"))
    for sub in ("bin", "root"):
        for n in os.listdir(os.path.join(d, sub)):
            os.chmod(os.path.join(d, sub, n), 0o755)
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, PATH=f"{d}/bin:" + os.environ["PATH"], HP_ROOT=f"{d}/root",
               HP_DEBUGFS=f"{d}/dbg", HP_OUT=f"{d}/out")
    p = subprocess.run(["dash", os.path.join(TOP, "lava", "hardprobe-lava.sh"), "x86_64-gcc"],
                       env=env, capture_output=True, text=True)
    out = []
    for ln in open(log).read().splitlines() if os.path.exists(log) else []:
        f = ln.split(" ")
        if f[0] == "case":
            # "case SET NAME RESULT": an empty set leaves two spaces
            out.append((f[1], f[2], f[3]) if len(f) == 4 else ("", f[1], f[2]))
    return p.returncode, out


def ktap_results(text):
    """{name: pass|fail|skip} of a KTAP file's top-level result lines."""
    out = {}
    for m in re.finditer(r"^(not )?ok \d+ (\S+)(.*)$", text, re.M):
        out[m.group(2)] = "fail" if m.group(1) else "skip" if "# SKIP" in m.group(3) else "pass"
    return out


def test_guest_script():
    if not shutil.which("dash"):
        skip("lava-guest-script", "no dash (the guest's shell is busybox sh; dash stands in)")
        return
    probes = [ln.split(None, 4) for ln in rec("probes.txt").splitlines()]
    kinds = {p[0]: p[2] for p in probes}
    feats = {p[0]: p[1] for p in probes}
    selftest, module = ktap_results(rec("selftest.ktap")), ktap_results(rec("ktap.txt"))
    panic_feats = {feats[p] for p, k in kinds.items() if k == "panic"}
    with tempfile.TemporaryDirectory(prefix="hp-lava-") as d:
        rc, got = guest(d, rec("selftest.ktap"))
        cases = {(s, c): r for s, c, r in got}
        want = {(feats[p], p[len(feats[p]) + 1:]): selftest.get(p, "unknown")
                for p, k in kinds.items() if k != "panic"}
        want.update({("", f): r for f, r in module.items() if f not in panic_feats})
        probe_cases = {k: v for k, v in cases.items() if k[0] and k[0] != "selftest"}
        bad = [k for k in set(want) | set(probe_cases) | {k for k in cases if not k[0]} - {("", "insmod")}
               if want.get(k) != cases.get(k)]
        check("lava-guest-script-results", rc == 0 and not bad and len(got) == len(cases) and
              ("", "insmod") in cases and "unknown" not in cases.values(),
              f"rc {rc}, {len(want)} wanted, {len(bad)} differ: {bad[:3]}")
        panics = [p for p, k in kinds.items() if k == "panic"]
        check("lava-guest-script-no-panicking-probe", panics and not any(
            (feats[p], p[len(feats[p]) + 1:]) in cases or ("", feats[p]) in cases for p in panics),
            ", ".join(panics))
        # a mutated runner line: its case follows
        victim = next(p for p, k in kinds.items() if k == "safe" and selftest.get(p) == "pass")
        mutated = re.sub(rf"^ok (\d+) {re.escape(victim)}$", rf"not ok \1 {victim}",
                         rec("selftest.ktap"), flags=re.M)
        _, got2 = guest(d, mutated)
        key = (feats[victim], victim[len(feats[victim]) + 1:])
        check("lava-guest-script-follows-ktap", {(s, c): r for s, c, r in got2}.get(key) == "fail",
              f"{victim} made not ok")


def test_job():
    probes = rec("probes.txt")
    panics = [ln.split(None, 4) for ln in probes.splitlines() if ln.split(None, 4)[2:3] == ["panic"]]
    with tempfile.TemporaryDirectory(prefix="hp-lava-") as d:
        jobs = {}
        for arch in ("x86_64", "arm64"):
            text = lava.job(arch, f"{arch}-t", "file:///k", "file:///r", probes, params="reports=0",
                            machine="virt,mte=on" if arch == "arm64" else None)
            jobs[arch] = text
            with open(os.path.join(d, f"{arch}.yaml"), "w") as f:
                f.write(text)
        import yaml
        ok, detail = True, []
        for arch, text in jobs.items():
            job = yaml.safe_load(text)
            acts = job["actions"]
            boots = [a for a in acts if "boot" in a]
            inter = [a["test"]["interactive"][0] for a in acts if "interactive" in a.get("test", {})]
            ok &= len(boots) == 1 + len(panics) and len(inter) == len(panics)
            for (name, feat, _, _, sig), step in zip(panics, inter):
                cmd = step["script"][-1]
                pat = cmd["successes"][0]["message"]
                ok &= step["name"] == f"hardprobe.{feat}" and name in cmd["command"]
                ok &= bool(re.search(pat, f"[ 1.0] Kernel panic - not syncing: {sig.strip()} x"))
                # the command's own echo must not match: neither the catch nor the survival
                ok &= not re.search(pat, cmd["command"]) and "hardprobe: survived" not in cmd["command"]
            tdef = acts[2]["test"]["definitions"][0]["repository"]
            ok &= tdef["params"] == {"TARGET": f"{arch}-t", "PARAMS": "reports=0"}
            detail.append(f"{arch}: {len(boots)} boots")
        ok &= "-cpu max" in jobs["x86_64"] and "cpu: max,pauth-impdef=on" in jobs["arm64"] and \
            "machine: virt,mte=on" in jobs["arm64"]
        check("lava-job-render", ok, "; ".join(detail))
        refused = 0
        for target, params in (("a b", ""), ("t", 'x="y"'), ("t", "a\\b"), ("$(reboot)", "")):
            try:
                lava.job("x86_64", target, "file:///k", "file:///r", probes, params=params)
            except Error:
                refused += 1
        check("lava-job-refuses-unsafe-names", refused == 4, f"{refused} of 4 refused")
        if not os.path.isfile(LAVA_SCHEMA):
            skip("lava-job-schema-strict", f"no {LAVA_SCHEMA} (lava-common: hptool deps --lava)")
            return
        got = {}
        for arch in jobs:
            p = subprocess.run(["/usr/bin/python3", LAVA_SCHEMA, "job", "--strict",
                                os.path.join(d, f"{arch}.yaml")], capture_output=True, text=True)
            got[arch] = p.returncode
        # positive control: a job the schema must refuse
        with open(os.path.join(d, "bad.yaml"), "w") as f:
            f.write(jobs["x86_64"].replace("to: tmpfs", "to: nowhere"))
        p = subprocess.run(["/usr/bin/python3", LAVA_SCHEMA, "job", "--strict",
                            os.path.join(d, "bad.yaml")], capture_output=True, text=True)
        check("lava-job-schema-strict", got == {"x86_64": 0, "arm64": 0} and p.returncode != 0,
              f"{got}, a broken job: rc {p.returncode}")


def test_device():
    try:
        templates = lava.device_types()
    except Error as e:
        skip("lava-device-render", str(e))
        return
    import yaml
    x86 = yaml.safe_load(lava.render_device(lava.device_dictionary("x86_64", smp=2), templates))
    arm = yaml.safe_load(lava.render_device(lava.device_dictionary("arm64", smp=4, machine="virt,mte=on"),
                                            templates))
    xq = x86["actions"]["boot"]["methods"]["qemu"]["parameters"]
    aq = arm["actions"]["boot"]["methods"]["qemu"]["parameters"]
    ok = xq["command"] == "qemu-system-x86_64" and "-cpu max" in xq["extra"] and \
        "-smp 2" in xq["extra"] and "-no-reboot" in xq["extra"] and \
        not any("enable-kvm" in o for o in xq["options"]) and \
        aq["command"] == "qemu-system-aarch64" and "-cpu max,pauth-impdef=on" in aq["options"] and \
        "-machine virt,mte=on" in aq["options"] and "-smp 4" in aq["extra"]
    check("lava-device-render", ok, f"x86_64 {xq['extra']}, arm64 {aq['options'][:2]}")


def test_compare():
    with tempfile.TemporaryDirectory(prefix="hp-lava-") as d:
        logp, rep = os.path.join(d, "lava.log"), os.path.join(d, "report.json")
        with open(logp, "w") as f:
            f.write(rec("lava-results.log"))
        with open(rep, "w") as f:
            f.write(rec("report.json"))
        lines, bad, extra = lava.compare(logp, rep)
        n = sum(1 for ln in lines if ln.startswith("ok"))
        check("lava-results-equal-report", bad == 0 and n > 150 and
              all(ln.startswith(("ok", "n/a")) for ln in lines), f"{n} equal, {bad} differ")
        # names: every LAVA result of a probe or feature is a KCIDB test path
        got = lava.results(logp)
        check("lava-names-are-kcidb-paths", not [x for x in extra if x.count(".") >= 2 and
                                                 not x.startswith("hardprobe.selftest.")],
              f"{len(got)} results, {len(extra)} not KCIDB tests (insmod, the runner's checks)")
        text = rec("lava-results.log")
        m = re.search(r'"case": "(\w+)", "definition": "0_hardprobe", [^\n]*"result": "pass", "set": "(\w+)"', text)
        with open(logp, "w") as f:
            f.write(text.replace(m.group(0), m.group(0).replace('"result": "pass"', '"result": "fail"'), 1))
        _, bad2, _ = lava.compare(logp, rep)
        with open(logp, "w") as f:
            f.write(text + [ln for ln in text.splitlines() if m.group(0) in ln][0] + "\n")
        try:
            lava.results(logp)
            dup = "accepted"
        except Error as e:
            dup = str(e)
        check("lava-results-difference-caught", bad2 == 1 and "two results" in dup,
              f"{m.group(2)}.{m.group(1)} flipped: {bad2} difference(s); a duplicate: {dup[:60]}")
        # the flipped result's probe inconclusive by chance in make run's boot (report.json
        # "chance"): it and its feature not compared, neither equal nor a difference; without
        # "chance" both differ
        with open(logp, "w") as f:
            f.write(text.replace(m.group(0), m.group(0).replace('"result": "pass"', '"result": "fail"'), 1))
        flipped = [k for k, v in lava.results(logp).items() if v != got.get(k)]
        data = json.loads(rec("report.json"))
        for drawn in (True, False):
            for feat in data["features"]:
                for p in feat["probes"]:
                    if kcidb.probe_path(feat["feature"], p["probe"]) in flipped:
                        p["outcome"], p["chance"] = "inconclusive", drawn
            with open(rep, "w") as f:
                json.dump(data, f)
            lines3, bad3, _ = lava.compare(logp, rep)
            na = [ln for ln in lines3 if ln.startswith("n/a") and ln.endswith("by chance in make run's boot")]
            if drawn:
                ok3, say3 = bad3 == 0 and len(na) == 2 and len(flipped) == 1, f"{bad3} differ, {len(na)} by chance"
            else:
                ok3 = ok3 and bad3 == 2 and not na
                say3 += f"; without chance: {bad3} differ"
        check("lava-results-chance-not-compared", ok3, f"{flipped[:1]}: {say3}")


def test_lab():
    """the lab's stop: SIGTERM to each service's process group and descendants, SIGKILL where
    that is ignored, every one of them gone (a child in a session of its own too); a failed
    step records its FAIL line"""
    d = tempfile.mkdtemp()
    os.makedirs(os.path.join(d, "log"))
    got = []
    lab = lava_lab.Lab("t", d, got.append)
    # one ignores SIGTERM (its children too), one has a child in a session of its own (as
    # lava-run's QEMU is)
    services = [lab.start(["bash", "-c", "trap '' TERM; sleep 300 & sleep 300 & wait"], "deaf"),
                lab.start(["bash", "-c", "setsid sleep 300 & sleep 300 & wait"], "plain")]
    time.sleep(0.5)
    trees = {p.pid: lab.tree(p.pid) for p in services}
    running = [len(t) for t in trees.values()]
    t0 = time.time()
    lab.stop()
    el = time.time() - t0
    left = {pid: lab.alive(pid, procs) for pid, procs in trees.items()}
    left = {k: v for k, v in left.items() if v}
    for procs in left.values():
        for pid in procs:
            os.kill(pid, 9)
    check("lava-lab-stop", running == [3, 3] and not left and 5 < el < 30
          and got == ["check lava-lab-stop-t: ok (every service this run started has stopped)"],
          f"processes {running}, left {left}, {el:.1f} s, {got}")
    got.clear()
    try:
        lab.fail("server", "gunicorn: no answer")
        failed = False
    except lava_lab.Failed:
        failed = True
    check("lava-lab-step-fails", failed and got == ["check lava-lab-server-t: FAIL (gunicorn: no answer)"],
          str(got))
    check("lava-lab-job-field", lava_lab.job_field("id     : 1\nstate  : Finished\nHealth : Complete\n", "state")
          == "Finished" and lava_lab.job_field("state :\n", "Health") == "", "")
    shutil.rmtree(d)


def main():
    test_guest_script()
    test_job()
    test_device()
    test_compare()
    test_lab()
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
