#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the kselftest programs' shared code (selftests/hardprobe/hp_util.h).

The programs build against the kernel source's kselftest.h the way scripts/module.sh builds
them (a copy beside it, "../kselftest.h"), -Wall -Werror; and hp_rules_check(), the case
ktap_rules_match_module of hardprobe_test, holds the programs' copy of the expectation rule
(hp_expect()) against the module's "rules" in its JSON, compact as debugfs prints it or
indented as results/<target>/report.json: it must agree with the module's table, and fail
on a JSON without "rules", an empty or cut list, or a record that differs. Prints one
"check host <name>: ok|FAIL" line per test; exit 1 on any FAIL.

hp_verdict(), which turns an outcome and the configured layer into the KTAP line of a probe
or a user-space check (hp_user.h), is held to the module's rules too: configured and
vulnerable is "not ok", vulnerable and not configured a skip, an error "not ok ... ERROR".
hp_user_tests() runs here (as the caller: checks that need uid 65534 report an error when
it cannot become that user) and must print its HP_USER_LINES results in the runner's form:
"# <name>: <outcome>: <evidence>; configured: <layer>" then the KTAP line of that name.

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

# The module's rules as its JSON exports them ("rules"), recorded from a guest: no copy of
# hp_expect() here, so what the C helper is held to is the module's own table.
with open(os.path.join(HERE, "module-rules.json")) as f:
    _MODULE = json.load(f)["rules"]
OUTCOMES = _MODULE["rank"]
RULES = _MODULE["ktap"]

DRIVER = r"""
#include "hp_util.h"

int main(void)
{
	static char json[1 << 20];
	size_t len = fread(json, 1, sizeof(json) - 1, stdin);
	char why[LINE];
	int n;

	json[len] = '\0';
	n = hp_rules_check(json, why, sizeof(why));
	printf("%d %s\n", n, why);
	return n > 0 ? 0 : 1;
}
"""


VERDICT_DRIVER = r"""
#include "hp_util.h"

int main(int argc, char **argv)
{
	hp_print_header();
	ksft_set_plan(1);
	hp_verdict("policy.x", argv[2][0] == 'y', argv[1], "the evidence");
	ksft_finished();
}
"""

USER_DRIVER = r"""
#define _GNU_SOURCE
#include "hp_user.h"

int main(void)
{
	hp_print_header();
	ksft_set_plan(HP_USER_LINES);
	hp_user_tests();
	ksft_finished();
}
"""

WARNS_DRIVER = r"""
#define main hp_test_main
#include "hardprobe_test.c"
#undef main
/* argv[1]: the module's JSON; stdin: "<probe> <kind> <warn_count before> <after>" lines */
int main(int argc, char **argv)
{
	static char json[1 << 16], line[LINE];
	FILE *f = fopen(argv[1], "r");
	int n = 0, safe = 0;
	size_t len;

	if (!f)
		return 2;
	len = fread(json, 1, sizeof(json) - 1, f);
	json[len] = '\0';
	fclose(f);
	while (n < MAX_PROBES && fgets(line, sizeof(line), stdin))
		if (sscanf(line, "%63s %15s %ld %ld", probes[n].name, probes[n].kind,
			   &warned[n].before, &warned[n].after) == 4) {
			warned[n].cleared = true;
			safe += !strcmp(probes[n++].kind, "safe");
		}
	hp_print_header();
	ksft_set_plan(safe);
	warns_tests(n, json, 0);
	ksft_finished();
}
"""

OUTCOME_WORDS = ("protected", "vulnerable", "unsupported", "inconclusive", "not_run", "error")


def check(name, ok, detail=""):
    results.append(ok)
    print(f"check host {name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")


def ksrc():
    p = subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh" && hp_ksrc && echo "$HP_KSRC"',
                        "-", TOP], capture_output=True, text=True)
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
        for prog in ("hardprobe_test", "hardprobe_fuzz", "hardprobe_trust"):
            p = subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-D_GNU_SOURCE=", "-o",
                                os.path.join(tmp, prog), os.path.join(stage, prog + ".c")],
                               capture_output=True, text=True)
            check(f"kselftest-build-{prog}", p.returncode == 0,
                  "against " + kh + ("" if p.returncode == 0 else ": " + p.stderr[-300:]))
        with open(os.path.join(stage, "rules_driver.c"), "w") as f:
            f.write(DRIVER)
        drv = os.path.join(tmp, "rules_driver")
        p = subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", drv,
                            os.path.join(stage, "rules_driver.c")], capture_output=True, text=True)
        check("kselftest-rules-driver-build", p.returncode == 0, p.stderr[-300:])
        if p.returncode:
            return 1

        def run(text):
            r = subprocess.run([drv], input=text, capture_output=True, text=True)
            return r.returncode, r.stdout.strip()

        rc, out = run(document(RULES))
        check("kselftest-rules-agree-compact", rc == 0 and out.startswith("24 "), out)
        rc, out = run(document(RULES, compact=False, after_features=False))
        check("kselftest-rules-agree-indented", rc == 0 and out.startswith("24 "), out)
        rc, out = run(document(None))
        check("kselftest-rules-missing-fails", rc == 1 and '"rules"' in out, out)
        for i, rule in enumerate(RULES):
            flipped = [dict(r) for r in RULES]
            flipped[i]["ktap"] = "ok" if rule["ktap"] != "ok" else "skip"
            rc, out = run(document(flipped))
            if rc != 1 or rule["outcome"] not in out:
                check("kselftest-rules-difference-fails", False, f"record {i}: {out}")
                break
        else:
            check("kselftest-rules-difference-fails", True, f"each of {len(RULES)} records")
        rc, out = run(document([]))
        check("kselftest-rules-empty-fails", rc == 1, out)
        text = document(RULES)
        rc, out = run(text[:text.index('"ktap":[') + 200])
        check("kselftest-rules-cut-fails", rc == 1, out)
        bad = [dict(r) for r in RULES]
        del bad[3]["configured"]
        rc, out = run(document(bad))
        check("kselftest-rules-incomplete-record-fails", rc == 1 and "record 4" in out, out)
        verdict_tests(stage, tmp)
        findings_tests(stage, tmp)
        warns_tests(stage, tmp)
        user_tests(stage, tmp)
    finally:
        shutil.rmtree(tmp)
    return 0 if all(results) else 1


def build(stage, tmp, name, text):
    with open(os.path.join(stage, name + ".c"), "w") as f:
        f.write(text)
    exe = os.path.join(tmp, name)
    p = subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", exe, os.path.join(stage, name + ".c")],
                       capture_output=True, text=True)
    check(f"kselftest-{name}-build", p.returncode == 0, p.stderr[-300:])
    return exe if p.returncode == 0 else None


def verdict_tests(stage, tmp):
    """hp_verdict(): the KTAP line of each outcome, configured or not, by the module's rules."""
    exe = build(stage, tmp, "verdict_driver", VERDICT_DRIVER)
    if not exe:
        return
    bad = []
    for rule in RULES:
        conf = "y" if rule["configured"] else "n"
        word = rule["outcome"] + (" known_gap" if rule["known_gap"] else "")
        r = subprocess.run([exe, word, conf], capture_output=True, text=True)
        out = r.stdout.splitlines()
        i = next((i for i, ln in enumerate(out) if re.match(r"(not )?ok 1 ", ln)), None)
        line = out[i] if i is not None else ""
        # the result line never changes from run to run (a bare directive); the reason is
        # the diagnostic line right before it
        want = {"ok": r"^ok 1 policy\.x$", "not ok": r"^not ok 1 policy\.x$",
                "skip": r"^ok 1 policy\.x # SKIP ?$", "error": r"^not ok 1 policy\.x # +ERROR$"}
        why = {"skip": r"^# policy\.x: skip: \S", "error": r"^# policy\.x: ERROR: \S"}
        if (not re.match(want[rule["ktap"]], line) or (r.returncode == 0) != line.startswith("ok") or
                (rule["ktap"] in why and not (i and re.match(why[rule["ktap"]], out[i - 1])))):
            bad.append(f"{word}/{conf}: {line!r} rc={r.returncode}, rule {rule['ktap']}")
    check("kselftest-verdict-follows-rules", not bad and len(RULES) > 0,
          "; ".join(bad[:3]) or f"{len(RULES)} records")


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


def findings_tests(stage, tmp):
    """hardprobe_fuzz's log rule: a BUG report a probe declares is its catch only while that
    probe is in flight (begin .. end or result); every probe of the JSON is read (each
    "probe" key, none skipped)."""
    exe = build(stage, tmp, "findings_driver", FINDINGS_DRIVER)
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
           "BUG hp_slab (Not tainted): Right Redzone overwritten"]
    r = subprocess.run([exe, js], input="\n".join(log) + "\n", capture_output=True, text=True)
    got = [ln[9:] for ln in r.stdout.splitlines() if ln.startswith("finding: ")]
    want = [log[3], log[9], log[10], log[12]]
    check("kselftest-fuzz-bug-report-in-flight", got == want and ", of 3 probes" in r.stdout,
          f"{len(got)} findings: {'; '.join(got)}" if got != want else "4 of 13 lines, 2 declared BUG reports and SLUB's warning excused")


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
              {"probe": "e.five", "evidence": "", "warns": 0, "warns_max": 1}]
    js = os.path.join(tmp, "warns.json")
    with open(js, "w") as f:
        f.write(json.dumps({"schema": 1, "features": [{"feature": "x", "probes": probes}]},
                           separators=(",", ":")))
    runs = "a.one safe 5 6\nb.two safe 5 7\nc.three safe 0 0\nd.four fatal 0 9\ne.five safe -1 -1\n"
    r = subprocess.run([exe, js], input=runs, capture_output=True, text=True)
    lines = r.stdout.splitlines()
    want = [r"^ok 1 warns_declared\.a\.one$", r"^not ok 2 warns_declared\.b\.two$",
            r"^not ok 3 warns_declared\.c\.three # +ERROR$",
            r"^ok 4 warns_declared\.e\.five # SKIP ?$"]
    got = [ln for ln in lines if re.match(r"(not )?ok \d+ ", ln)]
    ok = (len(got) == len(want) and all(re.match(w, g) for w, g in zip(want, got)) and
          "1..4" in lines and r.returncode != 0 and
          any(re.match(r"^# warns_declared\.c\.three: ERROR: no \"warns_max\"", x) for x in lines) and
          any(re.match(r"^# warns_declared\.e\.five: skip: cannot read ", x) for x in lines) and
          "# warns_declared.b.two: 2 of at most 0 warnings (warn_count 5 -> 7, after clear_warn_once)"
          in lines)
    check("kselftest-warns-declared", ok, f"rc {r.returncode}: " + " | ".join(got) if not ok else
          "within ok, above not ok, no warns_max an error, no warn_count a skip, fatal none")


def user_tests(stage, tmp):
    """hp_user_tests(): HP_USER_LINES lines, each a comment with its outcome, then its result."""
    exe = build(stage, tmp, "user_driver", USER_DRIVER)
    if not exe:
        return
    r = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    lines = r.stdout.splitlines()
    m = re.search(r"#define HP_USER_LINES\s+(\d+)", open(os.path.join(stage, "hp_user.h")).read())
    planned = int(m.group(1)) if m else -1
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
    check("kselftest-user-lines", not bad and len(set(names)) == len(names) == planned,
          "; ".join(bad[:3]) or f"{len(names)} lines: " + " ".join(names))


if __name__ == "__main__":
    sys.exit(main())
