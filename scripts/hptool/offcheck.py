# SPDX-License-Identifier: GPL-2.0
"""hardprobe offcheck: a kernel with some features turned off (boot parameters or a
kernel built without them, by the switches of the module's own records) against the
same kernel with them on. The features turned off must come out vulnerable, and every
other feature exactly as on the base run: a probe that changes its verdict when an
unrelated switch flips is judging something else.

A feature written +feature is turned on by the variant instead (one the reference
kernel leaves off: a debugging check, a boot switch): vulnerable on the base run,
protected on the variant. The same pair of kernels, read the other way round. A feature
written *feature is a CPU bug the variant forces on a CPU the kernel calls not affected
(retbleed=force): unsupported on the base run, protected on the variant. One written
~feature is turned off by the variant's other switches (none of its own).

usage: hptool off [NAME,...]   (make offcheck [OFF=name,...]) for each variant of
       scripts/off-variants (default: all), its target as it is (once per target, into
       results/off/base/) and with the variant (the features' switches from the base
       run's report.json: boot parameters, and Kconfig lines for a kernel build of its
       own, results/off/<name>.config; into results/off/<name>/), then the check below
       hptool offcheck NAME BASE_DIR VARIANT_DIR FEATURE[,+FEATURE,*FEATURE,~FEATURE...]
  BASE_DIR, VARIANT_DIR: results/<target> directories (report.json in each)
Prints one "check off-NAME <feature>: ok|FAIL ..." line per feature. A feature
inconclusive by chance on either run (report.json "chance": a random draw of that
boot hid the protection) is not compared: SKIP, never ok."""
import argparse
import json
import os
import sys

from . import TOP, Error, lines, outcome, say, to_log, tool, tool_env


def load(d):
    path = os.path.join(d, "report.json")
    try:
        with open(path) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        return None, "%s: %s" % (path, e)
    return {f["feature"]: f for f in rep.get("features", [])}, None


def brief(f):
    for p in f.get("probes", []):
        if p.get("outcome") == f.get("outcome"):
            return "%s: %s" % (p["probe"], p.get("evidence", "")[:150])
    return ""


def chance(f):
    """the feature is inconclusive by chance on this run (another boot decides)"""
    return outcome.by_chance(f.get("outcome"), f.get("probes"))


def main(argv):
    ap = argparse.ArgumentParser(prog="hptool offcheck", description=__doc__.splitlines()[0])
    ap.add_argument("name")
    ap.add_argument("base_dir")
    ap.add_argument("variant_dir")
    ap.add_argument("features", help="FEATURE[,+FEATURE,*FEATURE,~FEATURE...]")
    a = ap.parse_args(argv)
    name, base_dir, var_dir = a.name, a.base_dir, a.variant_dir
    # feature -> (outcome on the base run, on the variant)
    want = {}
    for x in a.features.split(","):
        if x.startswith("+"):
            want[x[1:]] = ("vulnerable", "protected")
        elif x.startswith("*"):
            want[x[1:]] = ("unsupported", "protected")
        elif x.startswith("~"):
            want[x[1:]] = ("protected", "vulnerable")
        elif x:
            want[x] = ("protected", "vulnerable")
    base, err = load(base_dir)
    var, err2 = load(var_dir)
    if base is None or var is None:
        print("check off-%s report: FAIL (%s)" % (name, err or err2))
        return 1
    fails = 0
    for feat, (was, now) in want.items():
        v = var.get(feat)
        b = base.get(feat)
        what = {"vulnerable": "turned off", "protected": "turned on"}[now]
        what = "forced on" if was == "unsupported" else what
        if v is None or b is None:
            print("check off-%s %s: FAIL (not in both reports)" % (name, feat))
            fails += 1
        elif chance(b) or chance(v):
            print("check off-%s %s: SKIP (%s run inconclusive by chance: %s)" %
                  (name, feat, "base" if chance(b) else "variant", brief(b if chance(b) else v)))
        elif b["outcome"] != was:
            print("check off-%s %s: FAIL (base run says %s, not %s: nothing to turn %s)"
                  % (name, feat, b["outcome"], was, what.split()[1]))
            fails += 1
        elif v["outcome"] != now:
            print("check off-%s %s: FAIL (%s, yet %s: %s)" %
                  (name, feat, what, v["outcome"], brief(v)))
            fails += 1
        else:
            print("check off-%s %s: ok %s -> %s (%s)" % (name, feat, was, now, brief(v)))
    same = changed = drawn = 0
    for feat, b in sorted(base.items()):
        if feat in want:
            continue
        v = var.get(feat)
        if v is None:
            print("check off-%s %s: FAIL (missing from the variant's report)" % (name, feat))
            fails += 1
        elif v["outcome"] != b["outcome"] and (chance(b) or chance(v)):
            print("check off-%s %s: SKIP (%s -> %s, inconclusive by chance: %s)" %
                  (name, feat, b["outcome"], v["outcome"], brief(b if chance(b) else v)))
            drawn += 1
        elif v["outcome"] != b["outcome"]:
            print("check off-%s %s: FAIL (unrelated feature changed: %s -> %s: %s)" %
                  (name, feat, b["outcome"], v["outcome"], brief(v)))
            fails += 1
            changed += 1
        else:
            same += 1
    print("check off-%s others-unchanged: %s (%d features as on the base run, %d changed%s)" %
          (name, "ok" if not changed else "FAIL", same, changed,
           ", %d not compared: inconclusive by chance" % drawn if drawn else ""))
    return 1 if fails else 0


def run_variant(target, rdir, log, cmdline="", extra_config=None):
    """hptool run of @target into @rdir (RESULTS), its output into @log; with a variant's
    boot parameters and Kconfig fragment (a file). False (and the log's last lines on
    stderr) when the run failed."""
    env = tool_env(RESULTS=rdir)
    if cmdline:
        env["CMDLINE"] = cmdline
    if extra_config:
        env["EXTRA_CONFIG"] = extra_config
    os.makedirs(rdir, exist_ok=True)
    rc = to_log(tool("run", target), log, env)
    if rc:
        print("\n".join(lines(log)[-5:]), file=sys.stderr)
    return rc == 0


def run_offvariant(v, base_dir, o, log):
    """the run of the variant @v into @o (results in @o/<target>), its switches from the
    module's records in the base run's report.json (@base_dir); Error when they cannot be
    had"""
    from . import offvariants
    feats, err = load(base_dir)
    if feats is None:
        raise Error(f"no base run to read the switches from: {err}")
    params, config = offvariants.switches(v, feats)
    extra = None
    if config:
        extra = f"{o}.config"
        os.makedirs(os.path.dirname(extra), exist_ok=True)
        with open(extra, "w") as f:
            f.write(offvariants.fragment(v, config))
    say("off", v["target"], f"{v['name']}: {' '.join(params)}" +
        (f"{' + ' if params else ''}a kernel with {' '.join(config)}" if config else ""))
    return run_variant(v["target"], o, log, " ".join(params), extra)


def cli_run(argv):
    """hptool off [NAME,...]: the off-variants' runs and their checks"""
    from . import offvariants
    ap = argparse.ArgumentParser(prog="hptool off", description=cli_run.__doc__)
    ap.add_argument("names", nargs="?", default=os.environ.get("OFF", ""),
                    help="comma-separated variant names (default: env OFF, else all)")
    a = ap.parse_args(argv)
    variants = offvariants.select(offvariants.parse(), a.names)
    off = os.path.join(TOP, "results", "off")
    fail, based = 0, set()
    for v in variants:
        t = v["target"]
        if t not in based:
            say("off", t, "base run")
            run_variant(t, os.path.join(off, "base"), os.path.join(off, f"base-{t}.log"))
            based.add(t)
        o = os.path.join(off, v["name"])
        try:
            run_offvariant(v, os.path.join(off, "base", t), o, os.path.join(o, "run.log"))
        except Error as e:
            print(f"check off-{v['name']} switches: FAIL ({e})")
            fail = 1
            continue
        sys.stdout.flush()
        fail |= main([v["name"], os.path.join(off, "base", t), os.path.join(o, t), v["features"]]) != 0
    return 1 if fail else 0
