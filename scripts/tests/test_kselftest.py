#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the kselftest programs' shared code (selftests/hardprobe/).

The programs build against the kernel source's kselftest.h the way hptool module (scripts/hptool/kbuild.py) builds
them (a copy beside it, "../kselftest.h"), -Wall -Werror. Prints one "check host <name>:
ok|FAIL" line per test; exit 1 on any FAIL.

One judge: hardprobe_test holds no rule of its own. hp_rules_load() reads the module's
"rules" from its JSON (compact as debugfs prints it or indented as
results/<target>/report.json) into a table, and hp_verdict(), which turns an outcome and the
configured layer into the KTAP line of a probe or a user-space check, only looks the verdict
up there. Fed the module's recorded rules (module-rules.json), every outcome, known gap and
configured layer gets the line of its record; fed the same table with any one record
changed, the line follows the change (the programs have no opinion); fed a table with a
record missing, an unknown KTAP word, a record cut short, an empty or cut list or no "rules"
at all, the table is incomplete: every verdict is an ERROR line that names why, and the
check module_rules_complete fails.

The user-space checks (the HP_USER_CHECK entries of hp_checks.def, run from the program's
table) run here (as the caller: checks that need uid 65534 report an error when it cannot
become that user) and each prints one result in the runner's form: "# <name>: <outcome>:
<evidence>; configured: <layer>" then the KTAP line of that name, the names and their order
those of hp_checks.def.

hardprobe_test -l prints the name of every result line a run would print (the table's on a
host without the module; with a stand-in debugfs directory, the probes and their
warns_declared.<probe> too), and a run with a skip list (-x and HARDPROBE_SKIP, names or
features, "hardprobe:" prefixes, spaces and commas) prints every one of those lines all the
same, in that order and under the same plan, the listed ones as skips by request, and says
which listed name matched nothing.

hardprobe_test's warns_declared.<probe> results: warn_count's rise across each safe probe's
run against "warns_max" of that probe's record in the module's JSON: "ok" within it, "not
ok" above it, an error without the key, a skip without warn_count; fatal probes have none.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SELFTESTS = os.path.join(TOP, "selftests", "hardprobe")
results = []

# The module's rules as its JSON exports them ("rules"), recorded from a guest: what the
# programs' verdicts are held to is the module's own table, never a copy here.
with open(os.path.join(HERE, "module-rules.json")) as f:
    _MODULE = json.load(f)["rules"]
OUTCOMES = _MODULE["rank"]
RULES = _MODULE["ktap"]
KTAP_WORDS = ("ok", "not ok", "skip", "error")

RULES_DRIVER = r"""
#define main hp_test_main
#include "hardprobe_test.c"
#undef main
/*
 * stdin: the module's JSON (empty: it could not be read); argv: "<outcome> <y|n>" pairs,
 * one verdict line each, named case.<i>; then module_rules_complete's line
 */
int main(int argc, char **argv)
{
	static char json[1 << 20];
	size_t len = fread(json, 1, sizeof(json) - 1, stdin);
	char name[32];
	int i;

	json[len] = '\0';
	hp_print_header();
	hp_rules_load(len ? json : NULL, ENOENT);
	ksft_set_plan(argc / 2 + 1);
	for (i = 1; i + 1 < argc; i += 2) {
		snprintf(name, sizeof(name), "case.%d", (i + 1) / 2);
		hp_verdict(name, argv[i + 1][0] == 'y', argv[i], "the evidence");
	}
	rules_test("module_rules_complete");
	ksft_finished();
}
"""

USER_DRIVER = r"""
#define main hp_test_main
#include "hardprobe_test.c"
#undef main
/* argv[1]: the module's JSON (its rules); runs the table's user-space checks */
int main(int argc, char **argv)
{
	static char json[1 << 20];
	FILE *f = fopen(argv[1], "r");
	size_t len, i, n = 0;

	if (!f)
		return 2;
	len = fread(json, 1, sizeof(json) - 1, f);
	json[len] = '\0';
	fclose(f);
	hp_print_header();
	hp_rules_load(json, 0);
	for (i = 0; i < ARRAY_SIZE(hp_checks); i++)
		n += hp_checks[i].user;
	ksft_set_plan(n);
	for (i = 0; i < ARRAY_SIZE(hp_checks); i++)
		if (hp_checks[i].user)
			hp_checks[i].run(hp_checks[i].name);
	ksft_finished();
}
"""

WARNS_DRIVER = r"""
#define main hp_test_main
#include "hardprobe_test.c"
#undef main
/*
 * argv[1]: the module's JSON; stdin: "<probe> <kind> <warn_count before>
 * <after> [<other tasks' WARN()s>]" lines, and "HEADER <log line>" lines whose
 * task warn_header_pid() prints ("# header pid <n>", "# header none")
 */
int main(int argc, char **argv)
{
	static char json[1 << 16], line[LINE];
	FILE *f = fopen(argv[1], "r");
	int n = 0, safe = 0;
	size_t len;
	long pid;
	/* the window of a run whose writer is pid 79 */
	struct warn_window ww = { .marker = "selftest: begin x", .end = "selftest: end x",
				  .pid = 79 };
	struct report_state rs = { .lines = 0 };

	if (!f)
		return 2;
	len = fread(json, 1, sizeof(json) - 1, f);
	json[len] = '\0';
	fclose(f);
	while (n < MAX_PROBES && fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "LOG ", 4)) {	/* a line of the log, for the window */
			warn_window_feed(&ww, line + 4);
			report_state_feed(&rs, line + 4);
			continue;
		}
		if (!strncmp(line, "WINDOW", 6)) {
			printf("# window %ld state %d open %d\n", ww.count, ww.state,
			       report_state_open(&rs));
			continue;
		}
		if (!strncmp(line, "HEADER ", 7)) {	/* a line of the corpus */
			if (warn_header_pid(line + 7, &pid))
				printf("# header pid %ld\n", pid);
			else
				printf("# header none\n");
			continue;
		}
		if (sscanf(line, "%63s %15s %ld %ld %ld", probes[n].name, probes[n].kind,
			   &warned[n].before, &warned[n].after, &warned[n].foreign) >= 4) {
			warned[n].cleared = true;
			safe += !strcmp(probes[n++].kind, "safe");
		}
	}
	hp_print_header();
	ksft_set_plan(safe);
	warns_tests(n, json, 0);
	ksft_finished();
}
"""

# the programs and their translation units, as selftests/hardprobe/Makefile links them
PROGRAMS = {"hardprobe_fuzz": ["hardprobe_fuzz.c"],
            "hardprobe_test": ["hardprobe_test.c", "hp_user.c"],
            "hardprobe_trust": ["hardprobe_trust.c"]}

OUTCOME_WORDS = ("protected", "vulnerable", "unsupported", "inconclusive", "not_run", "error")


def check(name, ok, detail=""):
    results.append(ok)
    print(f"check host {name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")


def ksrc():
    p = subprocess.run([sys.executable, "-m", "hptool", "ksrc"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(TOP, "scripts")))
    return p.stdout.strip() if p.returncode == 0 else None


def document(rules, compact=True, after_features=True):
    """A module JSON with @rules (None: no "rules" key), features before or after them."""
    doc = {"schema": 1, "target": "host"}
    features = [{"feature": "stack_init", "outcome": "protected", "ktap": "ok",
                 "probes": [{"probe": "stack_init.u8_none", "known_gap": False}]}]
    if not after_features:
        doc["features"] = features
    if rules is not None:
        doc["rules"] = {"rank": OUTCOMES, "ktap": rules}
    if after_features:
        doc["features"] = features
    if compact:
        return json.dumps(doc, separators=(",", ":"))
    return json.dumps(doc, indent=1)


def main():
    src = ksrc()
    kh = os.path.join(src or "", "tools", "testing", "selftests", "kselftest.h")
    if not src or not os.path.isfile(kh):
        check("kselftest-header", False, f"no kselftest.h in the kernel source ({src})")
        return 1
    tmp = tempfile.mkdtemp(prefix="hp-kselftest-")
    try:
        stage = os.path.join(tmp, "hardprobe")
        shutil.copytree(SELFTESTS, stage)
        os.symlink(kh, os.path.join(tmp, "kselftest.h"))
        for prog, srcs in PROGRAMS.items():
            p = subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-D_GNU_SOURCE=", "-o",
                                os.path.join(tmp, prog), *(os.path.join(stage, c) for c in srcs)],
                               capture_output=True, text=True)
            check(f"kselftest-build-{prog}", p.returncode == 0,
                  "against " + kh + ("" if p.returncode == 0 else ": " + p.stderr[-300:]))
        libmk_test(src, tmp)
        rules_tests(stage, tmp)
        findings_tests(stage, tmp)
        warns_tests(stage, tmp)
        user_tests(stage, tmp)
        cli_tests(stage, tmp)
    finally:
        shutil.rmtree(tmp)
    return 0 if all(results) else 1


def libmk_test(src, tmp):
    """The collection's Makefile, built and installed by the kernel's lib.mk as
    hptool module builds it (a copy beside lib.mk and kselftest.h, OUTPUT= elsewhere):
    the three programs, hardprobe_test linked from both of its files, and an install of
    the programs, config and settings only."""
    ks = os.path.join(src, "tools", "testing", "selftests")
    top = os.path.join(tmp, "libmk")
    out, inst = os.path.join(top, "out"), os.path.join(top, "install")
    shutil.copytree(SELFTESTS, os.path.join(top, "hardprobe"),
                    ignore=shutil.ignore_patterns(*PROGRAMS))
    for f in ("lib.mk", "kselftest.h", "kselftest_harness.h"):
        os.symlink(os.path.join(ks, f), os.path.join(top, f))
    os.mkdir(out)
    env = dict(os.environ, MAKEFLAGS="")
    p = subprocess.run(["make", "-C", os.path.join(top, "hardprobe"), f"OUTPUT={out}", "V=1",
                        "USERCFLAGS=-Werror", "all", "install", f"INSTALL_PATH={inst}"],
                       capture_output=True, text=True, env=env)
    link = [ln for ln in p.stdout.splitlines() if ln.endswith("-o " + os.path.join(out, "hardprobe_test"))]
    got = sorted(os.listdir(inst)) if os.path.isdir(inst) else []
    want = sorted([*PROGRAMS, "config", "settings"])
    check("kselftest-libmk-build-install",
          p.returncode == 0 and got == want and len(link) == 1 and
          all(c in link[0].split() for c in PROGRAMS["hardprobe_test"]),
          f"installed {' '.join(got)}; {link[0] if link else 'no link line'}"
          if p.returncode == 0 else (p.stdout + p.stderr)[-300:])


def build(stage, tmp, name, text, extra=("hp_user.c",)):
    """a driver @text, with hardprobe_test's other translation unit(s) @extra"""
    with open(os.path.join(stage, name + ".c"), "w") as f:
        f.write(text)
    exe = os.path.join(tmp, name)
    p = subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", exe, os.path.join(stage, name + ".c"),
                        *(os.path.join(stage, c) for c in extra)],
                       capture_output=True, text=True)
    check(f"kselftest-{name}-build", p.returncode == 0, p.stderr[-300:])
    return exe if p.returncode == 0 else None


def combo(rule):
    """the driver's arguments for a rules record: its outcome word and configured layer"""
    return [rule["outcome"] + (" known_gap" if rule["known_gap"] else ""),
            "y" if rule["configured"] else "n"]


def verdicts(exe, text, rules):
    """Run the rules driver on the JSON @text with one case per record of @rules: ({case
    number: (result line, the diagnostic line before it)}, module_rules_complete's result
    line, its "# module_rules_complete: " line, exit code)."""
    args = [a for rule in rules for a in combo(rule)]
    r = subprocess.run([exe, *args], input=text, capture_output=True, text=True)
    lines = r.stdout.splitlines()
    cases, check_line, why = {}, "", ""
    for i, ln in enumerate(lines):
        m = re.match(r"(?:not )?ok \d+ case\.(\d+)", ln)
        if m:
            cases[int(m.group(1))] = (ln, lines[i - 1] if i else "")
        elif re.match(r"(?:not )?ok \d+ module_rules_complete", ln):
            check_line = ln
        elif ln.startswith("# module_rules_complete: "):
            why = ln[len("# module_rules_complete: "):]
            why = why[len("ERROR: "):] if why.startswith("ERROR: ") else why
    return cases, check_line, why, r.returncode


def line_of(word, n):
    """the result line (a regular expression) of verdict @word for case @n, and the
    diagnostic line a skip or an error has right before it (None: none)"""
    name = rf"case\.{n}"
    return {"ok": (rf"^ok \d+ {name}$", None), "not ok": (rf"^not ok \d+ {name}$", None),
            "skip": (rf"^ok \d+ {name} # SKIP ?$", rf"^# {name}: skip: \S"),
            "error": (rf"^not ok \d+ {name} # +ERROR$", rf"^# {name}: ERROR: \S")}[word]


def follows(cases, rules):
    """the cases whose line is not the verdict of their record in @rules"""
    bad = []
    for n, rule in enumerate(rules, 1):
        line, before = cases.get(n, ("", ""))
        want, why = line_of(rule["ktap"], n)
        if not re.match(want, line) or (why and not re.match(why, before)):
            bad.append(f"{' '.join(combo(rule))}: {line!r}, rule {rule['ktap']}")
    return bad


def all_errors(cases, n, because):
    """the cases (1..@n) that are not an ERROR line whose reason holds @because"""
    bad = []
    for i in range(1, n + 1):
        line, before = cases.get(i, ("", ""))
        if (not re.match(rf"^not ok \d+ case\.{i} # +ERROR$", line) or
                not before.startswith(f"# case.{i}: ERROR: no verdict: ") or because not in before):
            bad.append(f"case {i}: {before!r} {line!r}")
    return bad


def rules_tests(stage, tmp):
    """hp_rules_load() and hp_verdict(): the lookup in the module's table, and only that."""
    exe = build(stage, tmp, "rules_driver", RULES_DRIVER)
    if not exe:
        return
    for label, text in (("compact", document(RULES)),
                        ("indented", document(RULES, compact=False, after_features=False))):
        cases, line, why, rc = verdicts(exe, text, RULES)
        bad = follows(cases, RULES)
        check(f"kselftest-verdict-follows-rules-{label}",
              not bad and re.match(r"^ok \d+ module_rules_complete$", line) and
              why.startswith(f"{len(RULES)} records: each of {len(OUTCOMES)} outcomes") and
              (rc == 0) == all(r["ktap"] in ("ok", "skip") for r in RULES),
              "; ".join(bad[:3]) or f"{len(RULES)} records, each its own line; {why}")

    # any one record changed: the verdict follows the module's table, whatever it says
    bad = []
    for i, rule in enumerate(RULES):
        changed = [dict(r) for r in RULES]
        changed[i]["ktap"] = KTAP_WORDS[(KTAP_WORDS.index(rule["ktap"]) + 1) % len(KTAP_WORDS)]
        cases, line, why, rc = verdicts(exe, document(changed), changed)
        b = follows(cases, changed)
        if b or not re.match(r"^ok \d+ module_rules_complete$", line):
            bad.append(f"record {i + 1} -> {changed[i]['ktap']}: {'; '.join(b[:2]) or line}")
    check("kselftest-verdict-follows-changed-table", not bad,
          "; ".join(bad[:3]) or f"each of {len(RULES)} records changed in turn: the line followed")

    # any one record missing: the table is incomplete, every verdict an error that says so
    bad = []
    for i, rule in enumerate(RULES):
        missing = RULES[:i] + RULES[i + 1:]
        cases, line, why, rc = verdicts(exe, document(missing), RULES)
        want = (f"no rule for {rule['outcome']}, known_gap {int(rule['known_gap'])}, "
                f"configured {int(rule['configured'])}")
        b = all_errors(cases, len(RULES), want)
        if b or not re.match(r"^not ok \d+ module_rules_complete$", line) or want not in why or rc == 0:
            bad.append(f"record {i + 1} missing: {why!r} {line!r} {'; '.join(b[:1])}")
    check("kselftest-rules-missing-record-fails", not bad,
          "; ".join(bad[:2]) or f"each of {len(RULES)} records left out in turn: "
          f"{len(RULES)} ERROR lines naming it, module_rules_complete not ok")

    # tables that cannot be used: fail closed, each for its reason
    text = document(RULES)
    unknown = [dict(r) for r in RULES]
    unknown[5]["ktap"] = "maybe"
    cut_record = [dict(r) for r in RULES]
    del cut_record[3]["configured"]
    stranger = RULES + [{"outcome": "weird", "known_gap": False, "configured": False,
                         "ktap": "ok"}]
    twice = RULES + [dict(RULES[7])]
    no_rank = json.loads(text)
    del no_rank["rules"]["rank"]
    for label, doc, because in (
            ("no-rules", document(None), 'no "rules" object'),
            ("empty-list", document([]), "no rule for "),
            ("cut", text[:text.index('"ktap":[') + 200], "not closed"),
            ("record-cut-short", document(cut_record), "rules record 4: not {outcome, known_gap"),
            ("unknown-word", document(unknown), 'rules record 6: unknown KTAP verdict "maybe"'),
            ("unranked-outcome", document(stranger), 'outcome "weird" is not in "rank"'),
            ("record-twice", document(twice), "rules record 25: "),
            ("no-rank", json.dumps(no_rank), 'no "rank" list'),
            ("unreadable", "", "cannot read /sys/kernel/debug/hardprobe/json")):
        cases, line, why, rc = verdicts(exe, doc, RULES)
        b = all_errors(cases, len(RULES), because)
        want = r"^not ok \d+ module_rules_complete" + (" # +ERROR$" if label == "unreadable" else "$")
        check(f"kselftest-rules-{label}-fails",
              not b and re.match(want, line) and because in why and rc != 0,
              f"{why!r} {line!r}" + ("; " + "; ".join(b[:2]) if b else
                                     f"; {len(RULES)} ERROR lines naming it"))

    # an outcome the module's table does not know, with the table complete: an error too
    cases, line, why, rc = verdicts(exe, text, [{"outcome": "guarded", "known_gap": False,
                                                 "configured": True, "ktap": "error"}])
    c1 = cases.get(1, ("", ""))
    check("kselftest-verdict-unknown-outcome-error",
          re.match(r"^not ok 1 case\.1 # +ERROR$", c1[0]) and
          'no rule for the outcome "guarded"' in c1[1] and
          re.match(r"^ok \d+ module_rules_complete$", line), f"{c1[1]!r} {c1[0]!r}")


FINDINGS_DRIVER = r"""
#define main hp_fuzz_main
#include "hardprobe_fuzz.c"
#undef main
/* argv[1]: the module's JSON; stdin: kernel log messages, one a line; prints the findings */
int main(int argc, char **argv)
{
	static char json[256 * 1024], line[LINE];
	FILE *f = fopen(argv[1], "r");
	size_t n;

	if (!f)
		return 2;
	n = fread(json, 1, sizeof(json) - 1, f);
	json[n] = '\0';
	parse_intended(json, n);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (is_finding(line, NULL))
			printf("finding: %s\n", line);
	}
	printf("%ld\n", sc.n);
	return 0;
}
"""


def warn_corpus():
    """scripts/tests/logs/warn-headers.txt: (pid or None, log message) pairs"""
    out = []
    with open(os.path.join(HERE, "logs", "warn-headers.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            pid, msg = line.rstrip("\n").split("\t", 1)
            out.append((None if pid == "-" else int(pid), msg))
    return out


def findings_tests(stage, tmp):
    """hardprobe_fuzz's log rule: a BUG report a probe declares is its catch only while that
    probe is in flight (begin .. end or result); every probe of the JSON is read (each
    "probe" key, none skipped)."""
    exe = build(stage, tmp, "findings_driver", FINDINGS_DRIVER, extra=())
    if not exe:
        return
    probes = [{"probe": "a.one", "reports": ""}, {"probe": "kfence.oob_read", "reports": "BUG: KFENCE: "},
              {"probe": "b.two", "reports": "UBSAN:"},
              {"probe": "slab_debug.redzone", "reports": "Redzone overwritten"}]
    js = os.path.join(tmp, "findings.json")
    with open(js, "w") as f:
        json.dump({"features": [{"feature": "x", "probes": probes}]}, f, indent=1)
    log = ["hardprobe: begin kfence.oob_read",
           "BUG: KFENCE: out-of-bounds read in hp_kf_read+0x5/0x10 [hardprobe]",
           "hardprobe: end kfence.oob_read",
           "BUG: KFENCE: use-after-free read in foo+0x1/0x2",
           "hardprobe: begin slab_debug.redzone",
           "BUG hp_slab (Not tainted): Right Redzone overwritten",
           "WARNING: CPU: 0 PID: 70 at mm/slub.c:1127 object_err+0x40/0x50",
           "CPU: 0 UID: 0 PID: 70 Comm: hardprobe_test Tainted: G    B   W  O",
           "---[ end trace 0000000000000000 ]---",
           "BUG: KFENCE: out-of-bounds read in bar+0x1/0x2",
           "Oops: general protection fault",
           "hardprobe: result slab_debug.redzone protected: x",
           "BUG hp_slab (Not tainted): Right Redzone overwritten",
           # 7.x spells a WARN()'s first line "WARNING: <file>:<line> at <where>, CPU#<n>: <task>"
           "hardprobe: begin slab_debug.redzone",
           "BUG hp_slab (Not tainted): Right Redzone overwritten",
           "WARNING: mm/slub.c:1127 at object_err+0x40/0x50, CPU#0: hardprobe_test/70",
           "---[ end trace 0000000000000000 ]---",
           "hardprobe: end slab_debug.redzone",
           "WARNING: possible circular locking dependency detected",
           "WARNING: module/x.c:1 at hp_x+0x1/0x2 [hardprobe], CPU#1: hardprobe_fuzz/50",
           # the kernel's race of an open with rmmod (the reloads provoke it): not a finding
           "debugfs file owner did not clean up at exit: report",
           "WARNING: CPU: 1 PID: 59 at fs/debugfs/file.c:282 open_proxy_open+0x11c/0x1c0",
           "CPU: 1 UID: 0 PID: 59 Comm: hardprobe_fuzz Tainted: G        W  OE    N",
           "---[ end trace 0000000000000000 ]---"]
    r = subprocess.run([exe, js], input="\n".join(log) + "\n", capture_output=True, text=True)
    got = [ln[9:] for ln in r.stdout.splitlines() if ln.startswith("finding: ")]
    want = [log[3], log[9], log[10], log[12], log[18], log[19]]
    # the corpus's "WARNING: " lines one by one: not a WARN()'s header, or one naming [hardprobe]
    # code, is a finding; any other header is not (it opens a block the lines after it judge)
    warns = [(pid, m) for pid, m in warn_corpus() if m.startswith("WARNING: ")]
    rc = subprocess.run([exe, js], input="".join(f"{m}\n---[ end trace 0 ]---\n" for _, m in warns),
                        capture_output=True, text=True)
    cgot = [ln[9:] for ln in rc.stdout.splitlines() if ln.startswith("finding: ")]
    cwant = [m for pid, m in warns if pid is None or "[hardprobe]" in m]
    check("kselftest-fuzz-warn-headers", cgot == cwant and len(warns) >= 10,
          f"{len(cwant)} findings of {len(warns)} corpus lines" if cgot == cwant else
          f"got {cgot}, want {cwant}")
    check("kselftest-fuzz-bug-report-in-flight", got == want and ", of 3 probes" in r.stdout,
          f"{len(got)} findings: {'; '.join(got)}" if got != want else
          "6 of 24 lines, 3 declared BUG reports, SLUB's warning (6.x and 7.x) and the unload race excused")


def warns_tests(stage, tmp):
    """warns_declared.<probe>: each safe probe's warnings held to its own record's warns_max
    (not a key quoted in another record's evidence), in stable names, the figures on a "# "
    line; the program fails when one is exceeded."""
    exe = build(stage, tmp, "warns_driver", WARNS_DRIVER)
    if not exe:
        return
    probes = [{"probe": "a.one", "evidence": 'quoted: {\"warns_max\":9} }', "warns": 0,
               "warns_max": 1},
              {"probe": "b.two", "evidence": "", "warns": 0, "warns_max": 0},
              {"probe": "c.three", "evidence": "an older module: no warns_max"},
              {"probe": "d.four", "evidence": "", "warns": 0, "warns_max": 2},
              {"probe": "e.five", "evidence": "", "warns": 0, "warns_max": 1},
              {"probe": "f.six", "evidence": "", "warns": 1, "warns_max": 1},
              {"probe": "g.seven", "evidence": "", "warns": 2, "warns_max": 1}]
    js = os.path.join(tmp, "warns.json")
    with open(js, "w") as f:
        f.write(json.dumps({"schema": 1, "features": [{"feature": "x", "probes": probes}]},
                           separators=(",", ":")))
    # f.six: 3 warnings, 2 of them other tasks' (an idle CPU's WARN meanwhile); g.seven: 3, 1
    runs = ("a.one safe 5 6\nb.two safe 5 7\nc.three safe 0 0\nd.four fatal 0 9\n"
            "e.five safe -1 -1\nf.six safe 5 8 2\ng.seven safe 5 8 1\n")
    # the WARN() header corpus the host's findings.warn_pid() is held to as well
    headers = warn_corpus()
    runs += "".join(f"HEADER {line}\n" for _, line in headers)
    # the window: another task's WARN inside it counted (6.x and 7.x headers); the writer's
    # own, and others' before or after it, not; a report is open from its "cut here" to its
    # end of trace
    win = ["------------[ cut here ]------------",
           "WARNING: CPU: 0 PID: 0 at a.c:1 f+0x1/0x2", "selftest: begin x",
           "WARNING: a.c:1 at f+0x1/0x2, CPU#0: swapper/0/0",
           "WARNING: b.c:2 at g+0x1/0x2, CPU#1: hardprobe_test/79",
           "WARNING: CPU: 1 PID: 12 at c.c:3 h+0x1/0x2", "selftest: end x",
           "WARNING: CPU: 0 PID: 0 at a.c:1 f+0x1/0x2"]
    runs += "".join(f"LOG {x}\n" for x in win) + "WINDOW\n"
    runs += "LOG ---[ end trace 0000000000000000 ]---\nWINDOW\n"
    r = subprocess.run([exe, js], input=runs, capture_output=True, text=True)
    lines = r.stdout.splitlines()
    want = [r"^ok 1 warns_declared\.a\.one$", r"^not ok 2 warns_declared\.b\.two$",
            r"^not ok 3 warns_declared\.c\.three # +ERROR$",
            r"^ok 4 warns_declared\.e\.five # SKIP ?$", r"^ok 5 warns_declared\.f\.six$",
            r"^not ok 6 warns_declared\.g\.seven$"]
    got = [ln for ln in lines if re.match(r"(not )?ok \d+ ", ln)]
    ok = (len(got) == len(want) and all(re.match(w, g) for w, g in zip(want, got)) and
          "1..6" in lines and r.returncode != 0 and
          [x for x in lines if x.startswith("# header ")] ==
          [f"# header pid {pid}" if pid is not None else "# header none" for pid, _ in headers] and
          "# window 2 state 2 open 1" in lines and "# window 2 state 2 open 0" in lines and
          "# warns_declared.f.six: 1 of at most 1 warnings (warn_count 5 -> 8, 2 of them "
          "WARN()s of other tasks, after clear_warn_once)" in lines and
          any(re.match(r"^# warns_declared\.c\.three: ERROR: no \"warns_max\"", x) for x in lines) and
          any(re.match(r"^# warns_declared\.e\.five: skip: cannot read ", x) for x in lines) and
          "# warns_declared.b.two: 2 of at most 0 warnings (warn_count 5 -> 7, after clear_warn_once)"
          in lines)
    check("kselftest-warns-declared", ok, f"rc {r.returncode}: " + " | ".join(got) if not ok else
          "within ok, above not ok, no warns_max an error, no warn_count a skip, fatal none, "
          "other tasks' WARN()s (6.x and 7.x headers) not the probe's")


def ktap_word(line):
    """the verdict word of a result line, as the module's rules spell it"""
    if re.search(r" # +ERROR$", line):
        return "error"
    if re.search(r" # SKIP ?$", line):
        return "skip"
    return "not ok" if line.startswith("not ok") else "ok"


def def_checks(stage):
    """[(name, user)] of hp_checks.def by a plain reading: its HP_*_CHECK("name", ...) lines
    outside comments"""
    text = re.sub(r"/\*.*?\*/", "", open(os.path.join(stage, "hp_checks.def")).read(), flags=re.S)
    return [(m.group(2), m.group(1) == "USER")
            for m in re.finditer(r'^HP_(USER|TEST)_CHECK\("([^"]+)"', text, re.M)]


def user_tests(stage, tmp):
    """The table's user-space checks: one line each, a comment with its outcome, then its
    result, in hp_checks.def's order."""
    exe = build(stage, tmp, "user_driver", USER_DRIVER)
    if not exe:
        return
    rules = os.path.join(tmp, "module-rules.json")
    with open(rules, "w") as f:
        f.write(document(RULES))
    r = subprocess.run([exe, rules], capture_output=True, text=True, timeout=300)
    lines = r.stdout.splitlines()
    registered = [n for n, user in def_checks(stage) if user]
    planned = len(registered)
    results = [ln for ln in lines if re.match(r"(not )?ok \d+ ", ln)]
    check("kselftest-user-plan", f"1..{planned}" in lines and len(results) == planned,
          f"plan {planned}, {len(results)} results")
    bad, names = [], []
    for i, ln in enumerate(lines):
        m = re.match(r"(?:not )?ok \d+ (\S+)", ln)
        if not m:
            continue
        name = m.group(1)
        names.append(name)
        j = i - 1
        # a skip's or an error's reason comes between them, on its own "# name: skip: " line
        if j > 0 and re.match(rf"^# {re.escape(name)}: (skip|ERROR): \S", lines[j]):
            j -= 1
        prev = lines[j] if j >= 0 else ""
        c = re.match(r"^# ([A-Za-z0-9_.-]+): ([a-z_]+): .*; configured: \S", prev)
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            bad.append(f"{name}: not a stable name")
        elif not c or c.group(1) != name:
            bad.append(f"{name}: no '# {name}: <outcome>: ...; configured: ...' line before it")
        elif c.group(2) not in OUTCOME_WORDS:
            bad.append(f"{name}: outcome {c.group(2)}")
        elif c.group(2) == "vulnerable" and ln.startswith("not ok") and "configured: no " in prev:
            bad.append(f"{name}: not ok without a configured knob")
        elif ktap_word(ln) not in {r["ktap"] for r in RULES
                                   if r["outcome"] == c.group(2) and not r["known_gap"]}:
            bad.append(f"{name}: {ktap_word(ln)} is no verdict of the module's rules for {c.group(2)}")
        if int(re.match(r"(?:not )?ok (\d+) ", ln).group(1)) != len(names):
            bad.append(f"{name}: not numbered {len(names)} (one count for every line)")
    check("kselftest-user-lines", not bad and names == registered and len(set(names)) == planned,
          "; ".join(bad[:3]) or (f"{len(names)} lines: " + " ".join(names) if names == registered
                                 else f"printed {names}, registered {registered}"))



# a stand-in of the module's debugfs directory: its probe list ("<name> <feature> <kind>
# <configured> <signature>"), its JSON (the rules) and files that take reads and writes
FAKE_PROBES = ("a.one a safe y -\n"
               "a.two a fatal y BUG:\n"
               "b.three b safe n -\n")


def cli_tests(stage, tmp):
    """hardprobe_test's own command line: -l, -x, HARDPROBE_SKIP."""
    table = [n for n, _ in def_checks(stage)]
    exe = os.path.join(tmp, "hardprobe_test")
    r = subprocess.run([exe, "-l"], capture_output=True, text=True)
    got = r.stdout.splitlines()
    # (where the module is loaded here, its probes and their warnings come first)
    loaded = os.path.isdir("/sys/kernel/debug/hardprobe")
    check("kselftest-list-this-host", r.returncode == 0 and got[len(got) - len(table):] == table
          and (loaded or got == table),
          f"rc {r.returncode}, {len(got)} names, the table's {len(table)} last"
          + (" (the module is loaded here)" if loaded else " (no module here)"))
    fake = os.path.join(tmp, "fake-debugfs")
    os.mkdir(fake)
    for name, text in (("probes", FAKE_PROBES), ("json", document(RULES)),
                       ("kstack", "0 1\n"), ("run", "")):
        with open(os.path.join(fake, name), "w") as f:
            f.write(text)
    fexe = os.path.join(tmp, "hardprobe_test_fake")
    p = subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-D_GNU_SOURCE=", f'-DHP_DIR="{fake}"',
                        "-o", fexe, *(os.path.join(stage, c) for c in PROGRAMS["hardprobe_test"])],
                       capture_output=True, text=True)
    check("kselftest-fake-debugfs-build", p.returncode == 0, p.stderr[-300:])
    if p.returncode:
        return
    probes = ["a.one", "a.two", "b.three"]
    every = probes + ["warns_declared.a.one", "warns_declared.b.three"] + table
    listed = {}
    for args in ([], ["a"], ["a.two", "b.three"]):
        r = subprocess.run([fexe, "-l", *args], capture_output=True, text=True)
        listed[" ".join(args)] = (r.returncode, r.stdout.splitlines())
    want = {"": (0, every), "a": (0, ["a.one", "a.two", "warns_declared.a.one"]),
            "a.two b.three": (0, ["a.two", "b.three", "warns_declared.b.three"])}
    check("kselftest-list", listed == want,
          f"{len(every)} names, probes and their warnings by argument" if listed == want else
          "; ".join(f"{k or '(all)'}: {v}" for k, v in listed.items() if v != want[k]))

    # everything skipped but two table checks that are safe to run on this host; the
    # probes by feature (a) and by name (b.three), one warning line by its own name
    keep = ["spectre_v1_sysfs", "module_rules_complete"]
    skip = [n for n in table if n not in keep]
    env = dict(os.environ, HARDPROBE_SKIP="hardprobe:a, b.three," + ",".join(skip[5:]) +
               " hardprobe:no_such_check")
    env.pop("KSFT_TAP_LEVEL", None)
    # (-s: a stand-in run never sets a real module's allow_fatal)
    args = ["-s"] + [x for n in skip[:5] + ["warns_declared.a.one"] for x in ("-x", n)]
    r = subprocess.run([fexe, *args], capture_output=True, text=True, env=env, timeout=120)
    lines = r.stdout.splitlines()
    results = [re.match(r"(not )?ok (\d+) (\S+)(.*)$", ln) for ln in lines]
    results = [m for m in results if m]
    names = [m.group(3) for m in results]
    bad = []
    if lines[:2] != ["KTAP version 1"] + lines[1:2] or f"1..{len(every)}" not in lines:
        bad.append(f"header/plan: {lines[:4]}")
    if names != every:
        bad.append(f"names {names}")
    if [int(m.group(2)) for m in results] != list(range(1, len(every) + 1)):
        bad.append("numbering")
    for m in results:
        name = m.group(3)
        i = lines.index(m.group(0))
        if name in keep:
            if m.group(4) == " # SKIP" or m.group(1):
                bad.append(f"{name} not run: {m.group(0)}")
        elif not (m.group(0) == f"ok {m.group(2)} {name} # SKIP " or
                  m.group(0) == f"ok {m.group(2)} {name} # SKIP") or \
                lines[i - 1] != f"# {name}: skip: skipped by request":
            bad.append(f"{name}: {lines[i - 1]!r} {m.group(0)!r}")
    if "# skip list: no_such_check names no check of this run" not in lines:
        bad.append("no word on no_such_check")
    if any("skip list: " in ln and "no_such_check" not in ln for ln in lines):
        bad.append("a name that matched reported unmatched")
    if r.returncode != 0:
        bad.append(f"exit {r.returncode}")
    check("kselftest-skip-list", not bad,
          "; ".join(bad[:3]) or f"{len(every)} lines in -l's order, {len(every) - len(keep)} "
          f"skipped by request (-x, HARDPROBE_SKIP, features, 'hardprobe:'), {len(keep)} run")


if __name__ == "__main__":
    sys.exit(main())
