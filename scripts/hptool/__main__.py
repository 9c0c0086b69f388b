# SPDX-License-Identifier: GPL-2.0
"""python3 -m hptool <subcommand> ...  (PYTHONPATH=scripts; the make targets call it)

  check                         make check: host tests, lint, W=1 builds, the booted targets judged,
                                variants, LAVA, KASLR, LKDTM, lockdown, refusals, the drop-in
  check-debug                   make check-debug: the KASAN/kmemleak/lockdep kernel, 4 vCPUs, the
                                stress run, no finding in its log
  deps [--arm64] [--debian[=TARGET]]... [--kver=V] [--lava] [--lava-server]
                                install the Debian packages the bench needs (make deps; as root)
  intree KSRC                   hardprobe dropped into a kernel tree (make intree KSRC=<tree>)
  intree-check                  that drop-in as CI bots use it: kunit.py, kselftest, gen_tar
  lint                          checkpatch --strict on every C file (make lint)
  run [TARGET]                  kernel, module, initramfs, the guests, results/<target>/ (make run;
                                env KSRC, KVER, EXTRA_CONFIG, CMDLINE, RESULTS, BOOT_TIMEOUT, SMP,
                                KDIR, KIMAGE, ARCH, PANIC_GUESTS; hptool run -h)
  judge RESULTS_DIR TABLE [TARGET] | --lockdown DIR | --refusals SETTING all|any DIR
                                judge a results directory ("check" lines; hptool judge -h)
  collect RESULTS_DIR TARGET    split a guest's console.log into the results files
  bench RESULTS_DIR MODULE_BUILD_DIR | --run TARGET   the cost table of the code-changing
                                features (--run: of a run of TARGET without its panic guests;
                                make bench)
  ccprobe [-o FILE] [-v] ...    what each installed compiler accepts and emits (make ccprobe)
  matrix [TARGET...]            hptool run of each target, the compiler layer, matrix-render
                                (make matrix; env TARGETS, COMPILERS, KVERS, RESULTS)
  matrix-render [--results DIR] [--targets "T ..."]   results/matrix.{md,html,json}
  khc-join KHC_JSON REPORT_JSON [--all]   kernel-hardening-checker's checks beside outcomes
  khc-coverage REPORT [--list]  the k-h-c checks hardprobe verifies at runtime
  kaslr [TARGET] [--boots N]    kaslr.text alone in N boots: the text's offset across boots (make kaslr)
  kaslr-entropy NAME CONSOLE... that comparison alone, of the consoles of such boots
  lkdtm [TARGET]                LKDTM built against the target's kernel, its tests in one guest,
                                compared with hardprobe's outcomes (make lkdtm)
  lkdtm-compare RESULTS_DIR TESTS_TXT [UNLISTED]   hardprobe beside LKDTM (make lkdtm)
  lkdtm-guest-list REPORT_JSON TESTS_TXT [UNLISTED]   the LKDTM tests the guest runs
  off [NAME,...]                each off-variant's run beside its target's base run, then offcheck
                                (make offcheck; default: every variant of scripts/off-variants)
  offcheck NAME BASE_DIR VARIANT_DIR FEATURES   features turned off: vulnerable, the rest as before
  kernel TARGET [--prepare]     the target's kernel, configured and built (--prepare: for module
                                builds only), cached; prints its build directory (env KSRC, KVER,
                                EXTRA_CONFIG, JOBS)
  module TARGET KBUILD_DIR OUTDIR [make args...]   hardprobe.ko, hardprobe_kunit.ko and the
                                static selftest programs against a kernel build (W=1, ...)
  initramfs ARCH MODDIR RUNNER OUT [--extra DIR]   the guest's initramfs (busybox, /init,
                                the modules, the selftest programs; --extra: more files for /)
  boot ARCH KERNEL INITRD CMDLINE --log FILE [--timeout S] [--kvm yes|no] [--mte yes|no]
       [--smp N] [--print]      one guest, its console into FILE (124 and "TIMEOUT after S s"
                                when killed); --print: the QEMU command line only
  renames [--write]             module/lib/renames.h (HP_CONFIG_*, HP_SYM_*) from scripts/kconfig-renames

  debian series|arch NAME | kernel SERIES | pkgs SERIES [ARCH]   Debian's own kernels: a
                                target's series and arch, the installed kernel, the archive's
  target NAME [--kdir DIR]      "ARCH COMPILER" of a target, its tools checked (--kdir: a kernel
                                the bench did not configure, from its .config)
  kmake TARGET KDIR [make args...]   the kernel's make in KDIR with the target's arch and
                                compiler and the build cache's ccache (an external module)
  image ARCH                    the boot image's path in a build directory
  result-name TARGET            the results directory's name: TARGET, or TARGET-<KVER> for a
                                reference kernel of another version than 6.12 (env KVER)
  ksrc [--kver V] [--id]        the kernel source tree's path (--id: its source id), extracted
                                once (linux-source-<V>; default 6.12, --kver env: KVER's, KSRC)
  fragment TARGET [--stripped]  the target's merged config fragments (+ EXTRA_CONFIG)
  tally LOG [--manifest FILE] [--write-manifest FILE]
                                "N passed, N failed" ("N skipped" before it); exit 1 on any
                                failure; each name of FILE that LOG lacks is a failure, added
                                to LOG (--write-manifest: LOG's names into FILE)
  kcidb REPORT_JSON [-o FILE] [--check SCHEMA] [--same-paths REPORT_JSON]  a KCIDB v5.3
                                submission of a run (checkout, build, a test per feature and
                                per probe); --check: validated; --same-paths: another run's
                                test paths must be the same ("check" line)
  lava [TARGET]                 make lava: the run's kernel as a LAVA job, run by lava-run, each
                                result beside report.json's outcome
  lava-lab [TARGET] [--minutes N]   make lava-lab: a LAVA lab on this machine (lava-server,
                                PostgreSQL, lava-worker), make lava's job through it (root)
  lava-job ARCH TARGET KERNEL_URL RAMDISK_URL PROBES [--params P] [--smp N] [--machine M]
           [--append KERNEL_PARAMS]
                                hardprobe's LAVA job (lava/job-ARCH.yaml.jinja2); PROBES: the
                                module's probes file (its panicking probes get a boot each)
  lava-device ARCH [--smp N] [--machine M] [-d DICT]  the device YAML of a qemu device
                                (lava-server's templates); -d: the dictionary written there too
  lava-compare LAVA_LOG REPORT_JSON [--server]  each feature's and probe's LAVA result
                                (lava-run's log; --server: a server's, lavacli results --yaml)
                                beside report.json's outcome; exit 1 on a difference
  lava-server-job JOB_YAML      the job as a lava-server 2023.01 takes it (make lava-lab)
  ci-names DIR_A DIR_B [--label L]   "check" lines: the result names a CI system (Linaro's
                                kselftest parser) makes of each KTAP file of two guests agree
  findings LOG [REPORT_JSON] [--stress yes]  "N first-finding" of a debug kernel's log
                                up to the stress catches (the probes' intended reports from
                                REPORT_JSON); --stress yes: of the log after their marker
  stage-timings FILE            the time make check (or check-debug) spent per stage and target,
                                from its HP_STAGES file (progress lines' times)
  expect TABLE TARGET           one target's deviations in the expectation table
  expect-record RESULTS_DIR...  "target feature configured outcome" of each run's report.json
                                (target: the directory's name; scripts/tests/expect-recorded.txt)
  ktap-extract FILE [--only TEXT]  the KTAP lines of a raw log (kunit_parser.extract_tap_lines),
                                of its lines holding TEXT only
  objdeps MODULE_SRC_DIR        the objects of hardprobe.ko and who uses whom (nm); exit 1 on a
                                dependency cycle
  symbols OBJECT...             "size name" of each defined function (readelf)
  off-variants [NAME,...]       the variants of scripts/off-variants, one a line, fields
                                split by tabs: name target features
"""
import argparse
import json
import os
import sys
import time

from . import Error, say
from . import expect, findings, kcidb, kconfig, ktap, lava, objdeps, offvariants, qemu, symbols, tally, targets


# the subcommands of a module of their own: "module.function", each parsing its arguments
# with argparse (hptool SUBCOMMAND -h)
COMMANDS = {
    "judge": "judge.cli", "collect": "collect.cli",
    "bench": "bench.cli", "ccprobe": "ccprobe.main", "matrix-render": "matrix.main",
    "khc-join": "khc_join.main", "khc-coverage": "khc_coverage.main",
    "kaslr-entropy": "kaslr_entropy.main", "kaslr": "kaslr_entropy.cli_run", "lkdtm-compare": "lkdtm_compare.cli",
    "lkdtm-guest-list": "lkdtm_compare.cli_guest_list", "offcheck": "offcheck.main",
    "renames": "renames.main", "boot": "qemu.cli_boot", "kernel": "kbuild.cli",
    "module": "kbuild.cli_module", "kmake": "kbuild.cli_kmake", "initramfs": "initramfs.cli",
    "run": "run.cli", "debian": "debian.cli", "lkdtm": "lkdtm_compare.cli_run", "off": "offcheck.cli_run",
    "matrix": "matrix_run.cli", "check": "check.cli", "lava": "lava_run.cli", "lava-lab": "lava_lab.cli",
    "check-debug": "check_debug.cli", "lint": "lint.cli",
    "deps": "deps.cli", "intree": "intree.cli", "intree-check": "intree.cli_check",
}


def parser():
    """the subcommands small enough to live here: their arguments (hptool SUBCOMMAND -h)"""
    ap = argparse.ArgumentParser(prog="hptool", add_help=False)
    sub = ap.add_subparsers(dest="cmd", metavar="SUBCOMMAND")
    ap.commands = set()

    def cmd(name, *args, **opts):
        """a subcommand: positional arguments by name ("x?" optional, "x*" any number),
        options by their flag (a value, or True: a switch)"""
        p = sub.add_parser(name, prog=f"hptool {name}")
        ap.commands.add(name)
        for a in args:
            nargs = {"?": "?", "*": "*"}.get(a[-1])
            p.add_argument(a.rstrip("?*"), nargs=nargs)
        for flag, default in opts.items():
            flag = "-" + flag if len(flag) == 1 else "--" + flag.replace("_", "-")
            if default is True:
                p.add_argument(flag, action="store_true")
            else:
                p.add_argument(flag, default=default)
        return p

    cmd("target", "name", kdir=None)
    cmd("result-name", "target")
    cmd("image", "arch")
    cmd("ksrc", kver=None).add_argument("--id", action="store_true")
    cmd("fragment", "target", stripped=True)
    cmd("tally", "log", manifest=None, write_manifest=None)
    cmd("objdeps", "module_src_dir")
    cmd("kcidb", "report_json", o=None, check=None, same_paths=None)
    cmd("lava-job", "arch", "target", "kernel_url", "ramdisk_url", "probes", params="", smp="2", machine=None,
        append="")
    cmd("lava-device", "arch", smp="2", machine=None, d=None)
    cmd("lava-server-job", "job_yaml")
    cmd("lava-compare", "lava_log", "report_json", server=True)
    cmd("ci-names", "dir_a", "dir_b", label="")
    cmd("findings", "log", "report_json?", stress="no")
    cmd("expect", "table", "target")
    cmd("stage-timings", "file")
    cmd("expect-record", "results_dir*")
    cmd("ktap-extract", "file", only=None)
    cmd("symbols", "object*")
    cmd("off-variants", "names?")
    return ap


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[0]
    # the progress lines' clock starts with the first command of a make target (HP_T0,
    # passed on to the commands it runs), or here
    os.environ.setdefault("HP_T0", str(int(time.time())))
    if cmd in COMMANDS:
        import importlib
        mod, fn = COMMANDS[cmd].split(".")
        return getattr(importlib.import_module(f".{mod}", __package__), fn)(list(argv[1:]))
    ap = parser()
    if cmd not in ap.commands:
        print(f"hptool: unknown subcommand {cmd!r}\n{__doc__}", file=sys.stderr)
        return 2
    a = ap.parse_args(argv)
    if cmd == "target":
        t = targets.from_config(a.name, a.kdir) if a.kdir else targets.resolve(a.name)
        t.make_args()       # an unknown compiler fails here
        print(t.arch, t.compiler)
    elif cmd == "result-name":
        print(targets.result_name(a.target))
    elif cmd == "image":
        print(qemu.image(a.arch))
    elif cmd == "ksrc":
        path, srcid = kconfig.ksrc(say=say, version=kconfig.kver() if a.kver == "env" else a.kver)
        print(srcid if a.id else path)
    elif cmd == "fragment":
        text = kconfig.merged_fragment(targets.resolve(a.target).frags)
        if a.stripped:
            sys.stdout.write(kconfig.stripped(text.decode(errors="replace")))
        else:
            sys.stdout.buffer.write(text)
    elif cmd == "tally":
        text = open(a.log, errors="replace").read()
        if a.write_manifest:
            with open(a.write_manifest, "w") as f:
                f.write("# SPDX-License-Identifier: GPL-2.0\n# the checks make check runs "
                        "(hptool tally --write-manifest): a name missing from a run fails it\n")
                f.writelines(n + "\n" for n in tally.manifest_names(text))
        if a.manifest:
            lost = tally.missing(text, tally.read_manifest(a.manifest))
            if lost:
                with open(a.log, "a") as f:
                    f.writelines(ln + "\n" for ln in lost)
                print("\n".join(lost))
                text += "".join(ln + "\n" for ln in lost)
        print(tally.summary(text))
        return 1 if tally.count(text)[1] else 0
    elif cmd == "objdeps":
        return objdeps.main(a.module_src_dir)
    elif cmd == "kcidb":
        # a KCIDB v5.3 submission of a run; --check SCHEMA: validated ("check" lines)
        sub = kcidb.submission(a.report_json)
        if a.same_paths:
            # two runs of one target: the same test paths (a CI system's result history)
            same, detail = kcidb.same_paths(sub, kcidb.submission(a.same_paths))
            print(f"check kcidb-paths-two-runs: {'ok' if same else 'FAIL'} ({detail})")
            return 0 if same else 1
        text = json.dumps(sub, indent=1) + "\n"
        if a.o:
            with open(a.o, "w") as f:
                f.write(text)
        elif not a.check:
            sys.stdout.write(text)
        if a.check:
            errs = kcidb.validate(sub, a.check)
            print(f"check kcidb-schema: {'FAIL' if errs else 'ok'} ("
                  f"{len(sub['tests'])} tests, KCIDB {sub['version']['major']}."
                  f"{sub['version']['minor']}{': ' + '; '.join(errs[:3]) if errs else ''})")
            return 1 if errs else 0
    elif cmd == "lava-job":
        sys.stdout.write(lava.job(a.arch, a.target, a.kernel_url, a.ramdisk_url, open(a.probes).read(),
                                  params=a.params, smp=a.smp, machine=a.machine, append=a.append))
    elif cmd == "lava-device":
        d = lava.device_dictionary(a.arch, smp=a.smp, machine=a.machine)
        if a.d:
            with open(a.d, "w") as f:
                f.write(d)
        sys.stdout.write(lava.render_device(d, lava.device_types()))
    elif cmd == "lava-server-job":
        with open(a.job_yaml) as f:
            sys.stdout.write(lava.server_job(f.read()))
    elif cmd == "lava-compare":
        lines, bad, extra = lava.compare(a.lava_log, a.report_json, server=a.server)
        print("\n".join("    " + ln for ln in lines))
        n = sum(1 for ln in lines if not ln.startswith("n/a"))
        drawn = sum(1 for ln in lines if ln.startswith("n/a") and ln.endswith("by chance in make run's boot"))
        print(f"check lava-results: {'FAIL' if bad else 'ok'} ({n - bad} of {n} LAVA results equal "
              f"report.json's outcome{f', {bad} differ' if bad else ''}; "
              f"{len(lines) - n - drawn} not in LAVA: a panicking probe's feature; "
              + (f"{drawn} not compared: inconclusive by chance in make run's boot; " if drawn else "")
              + f"{len(extra)} more LAVA results: the insmod step and the runner's own checks)")
        return 1 if bad else 0
    elif cmd == "ci-names":
        # the result names a CI system files two runs under are the same
        label, bad = a.label or "ci-names", 0
        res = ktap.ci_compare(a.dir_a, a.dir_b)
        for name, ok, detail in res:
            print(f"check {label}-{name}: {'ok' if ok else 'FAIL'} ({detail})")
            bad += not ok
        if not res:
            print(f"check {label}: FAIL (no KTAP in {a.dir_a} or {a.dir_b})")
            bad = 1
        return 1 if bad else 0
    elif cmd == "findings":
        # the whole log, or the part before the stress catches (--stress: the part after)
        before, after = findings.split_stress(open(a.log, errors="replace"))
        if a.stress == "yes":
            if after is None:
                raise Error(f"{a.log}: no \"{findings.STRESS_MARKER}\" line")
            found = findings.stress_findings(after)
        else:
            found = findings.findings(before,
                                      findings.intended(a.report_json) if a.report_json else (),
                                      findings.probe_reports(a.report_json) if a.report_json else {})
        print(len(found), found[0] if found else "")
    elif cmd == "expect":
        sys.stdout.write(expect.parse(a.table).render(a.target))
    elif cmd == "stage-timings":
        from . import stage_timings
        with open(a.file) as f:
            rows, span = stage_timings(f.read(), int(time.time()))

        def m(n):
            return f"{n // 60}m{n % 60:02d}s"
        print(f"stage timings ({m(span)} in all; a stage lasts until the next progress line):")
        per = {}
        for stage, _, n in rows:
            per[stage] = per.get(stage, 0) + n
        for stage, n in sorted(per.items(), key=lambda x: -x[1]):
            detail = ", ".join(f"{t} {m(k)}" for s, t, k in sorted(rows, key=lambda x: -x[2])
                               if s == stage and t != "-" and k >= 30)
            print(f"  {stage:<8} {m(n):>8}" + (f"  ({detail})" if detail else ""))
    elif cmd == "expect-record":
        for d in a.results_dir:
            with open(os.path.join(d, "report.json")) as f:
                for feat in json.load(f)["features"]:
                    print(os.path.basename(d.rstrip("/")), feat["feature"],
                          "y" if feat["configured_bool"] else "n", feat["outcome"])
    elif cmd == "ktap-extract":
        sys.stdout.write(ktap.extract(open(a.file, errors="replace").read(), only=a.only))
    elif cmd == "symbols":
        for path in a.object:
            for name, size in sorted(symbols.function_sizes(path).items()):
                print(size, name)
    elif cmd == "off-variants":
        for v in offvariants.select(offvariants.parse(), a.names or ""):
            print("\t".join(v[k] for k in ("name", "target", "features")))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (Error, expect.TableError) as e:
        print(f"hardprobe: error: {e}", file=sys.stderr)
        sys.exit(1)
    except (ValueError, IndexError) as e:
        print(f"hptool: {sys.argv[1:2]}: {e}\n{__doc__}", file=sys.stderr)
        sys.exit(2)
