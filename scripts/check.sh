#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe check (make check): host tests (collector, judge, compiler layer, matrix
# renderer with headless Chromium), lint, the module built with W=1 for all four
# targets on 6.12 and 6.1 and against Debian's 6.1 and 6.12 headers, then x86_64-gcc
# (6.12, 6.1, and 7.1 where the cache holds its tree), arm64-clang and Debian's 6.1 and
# 6.12 kernels booted (KUnit, the kselftests incl. the fuzz run, the report judged), LKDTM
# agreement on x86_64-gcc and arm64-clang, the variants of scripts/off-variants named in
# CHECK_VARIANTS (features turned off and on: x86-boot, x86-checks, slab-debug, nomerge,
# kfence), a debugfs=off boot (autorun KTAP in the log), and the kernel-tree drop-in
# (kunit.py run, kselftest build/run_tests, kselftest-merge).
# Ends with "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

L=$HP_TOP/results/check.log
mkdir -p "$HP_TOP/results"
: >"$L"
# the time of each stage, printed at the end (hptool stage-timings)
export HP_STAGES=$HP_TOP/results/check-stages.txt
: >"$HP_STAGES"
hp_say deps - "packages (scripts/deps.sh)"
# Clang 22 for the x86_64-clang-22 kernel on 7.1, booted where the cache holds a 7.1 tree
# (src71: the cached 7.1 tree's id, empty without one; no71: why its checks are skipped)
k71=() src71=
if src71=$(KVER=7.1 hp_tool ksrc --kver env --id 2>/dev/null) && [ -n "$src71" ]; then
	k71=(clang-22 lld-22 llvm-22)
else
	src71=
fi
no71="SKIP (no Linux 7.1 tree in the cache: make run KVER=7.1 KSRC=<tree or linux-7.1.N.tar.xz> once)"
EXTRA_PKGS="${EXTRA_PKGS:-} ${k71[*]+${k71[*]}}" \
	"$HP_TOP/scripts/deps.sh" --arm64 --debian=debian --debian=debian-6.12 --kver=6.1 --lava || exit 1
hp_ksrc
hp_say host - "install step against stand-in tools; pipefail audit of scripts/"
checked "host test_deps" python3 "$HP_TOP/scripts/tests/test_deps.py"
hp_say host - "collector and judge on recorded guest logs"
checked "host test_bench" python3 "$HP_TOP/scripts/tests/test_bench.py"
hp_say host - "the pipeline fails on each known way of losing a check (mutations of a run)"
checked "host test_mutations" python3 "$HP_TOP/scripts/tests/test_mutations.py"
hp_say host - "compiler layer (ccprobe) on this machine's compilers"
checked "host test_ccprobe" python3 "$HP_TOP/scripts/tests/test_ccprobe.py"
hp_say host - "kselftest programs against kselftest.h; their expectation rule against the module's JSON"
checked "host test_kselftest" python3 "$HP_TOP/scripts/tests/test_kselftest.py"
hp_say host - "dependency-cycle finder on known graphs"
checked "host test_objdeps" python3 "$HP_TOP/scripts/tests/test_objdeps.py"
hp_say host - "host tool (scripts/hptool): targets, QEMU command lines, outcome rules, expectation table"
checked "host test_hptool" python3 "$HP_TOP/scripts/tests/test_hptool.py"
hp_say host - "LAVA: the guest script, the jobs (lava-schema --strict), the device, the results against report.json"
checked "host test_lava" python3 "$HP_TOP/scripts/tests/test_lava.py"
hp_say host - "join with kernel-hardening-checker on a recorded k-h-c JSON and report.json"
checked "host test_khc_join" python3 "$HP_TOP/scripts/tests/test_khc_join.py"
hp_say host - "matrix renderer and make matrix's driver on recorded results; headless Chromium"
checked "host test_matrix" python3 "$HP_TOP/scripts/tests/test_matrix.py" --keep "$HP_TOP/results/check-matrix"

hp_say lint - "checkpatch --strict"
"$HP_TOP/scripts/lint.sh" | record

# W=1 module build of TARGET against the kernel build directory B (make args after it),
# then the dependency-cycle check on its objects
w1() {
	local t=$1 B=$2 w d
	shift 2
	hp_say W=1 "$t" "module build"
	d=$HP_TOP/results/.build/$t-w1
	if ! hp_tool module "$t" "$B" "$d" W=1 "$@" 2>/dev/null; then
		echo "check $t build-W=1: FAIL (build error: $d/module-build.log)" | record
		return
	fi
	w=$(grep -c -E ': (warning|error):' "$d/module-build.log")
	if [ "$w" = 0 ]; then
		echo "check $t build-W=1: ok (kernel $(cat "$B/include/config/kernel.release" 2>/dev/null || echo '?'))" | record
	else
		echo "check $t build-W=1: FAIL ($w warnings)" | record
		grep -E ': (warning|error):' "$d/module-build.log" | sed 's/^/    /' | record
	fi
	# the objects of hardprobe.ko depend one way: no cycle between files of module/
	if hp_tool objdeps "$d/src" >"$d/objdeps.txt" 2>&1; then
		echo "check $t objdeps: ok ($(tail -n 1 "$d/objdeps.txt"))" | record
	else
		echo "check $t objdeps: FAIL ($(tail -n 1 "$d/objdeps.txt"))" | record
		grep '^cycle: ' "$d/objdeps.txt" | sed 's/^/    /' | record
	fi
}

# W=1: full kernels for the booted targets, prepared trees for the others; 6.12 and 6.1
# (KVER=6.1: linux-source-6.1, the results and checks named <target>-6.1)
for spec in 6.12:x86_64-gcc:full 6.12:arm64-clang:full 6.12:x86_64-clang:--prepare \
	    6.12:arm64-gcc:--prepare 6.1:x86_64-gcc:full 6.1:arm64-clang:--prepare \
	    6.1:x86_64-clang:--prepare 6.1:arm64-gcc:--prepare; do
	IFS=: read -r kv t mode <<<"$spec"
	name=$(KVER=$kv hp_tool result-name "$t") || exit 1
	extra=()
	[ "$mode" = full ] && mode= || extra=(KBUILD_MODPOST_WARN=1)
	if ! B=$(KVER=$kv hp_tool kernel "$t" $mode); then
		echo "check $name kernel: FAIL (see the build log above)" | record
		continue
	fi
	w1 "$name" "$B" ${extra[@]+"${extra[@]}"}
done
# Linux 7.1 (a tree the user named once as KSRC=, kept in the cache): the module against
# prepared 7.1 trees of the four reference targets; skipped with the reason where none is cached
for t in x86_64-gcc x86_64-clang arm64-gcc arm64-clang; do
	if [ -z "$src71" ]; then
		for c in build-W=1 objdeps; do
			echo "check $t-7.1 $c: $no71"
		done | record
		continue
	fi
	if ! B=$(KVER=7.1 hp_tool kernel "$t" --prepare); then
		echo "check $t-7.1 kernel: FAIL (see the build log above)" | record
		continue
	fi
	KVER=7.1 w1 "$t-7.1" "$B" KBUILD_MODPOST_WARN=1
done
# and against Debian's own headers: Debian 12's default kernel (6.1) and its 6.12
for t in debian debian-6.12; do
	w1 "$t" "/usr/src/linux-headers-$(hp_debian_kernel "$(hp_debian_series "$t")")"
done

# (6.1:x86_64-gcc: the x86_64-gcc target on linux-source-6.1, results x86_64-gcc-6.1; the
# x86_64-gcc and x86_64-clang-22 7.1 kernels where the cache holds a 7.1 tree, skipped with
# the reason where it does not)
for spec in :x86_64-gcc 6.1:x86_64-gcc :arm64-clang :debian :debian-6.12 7.1:x86_64-gcc \
	    7.1:x86_64-clang-22; do
	IFS=: read -r kv base <<<"$spec"
	t=$(KVER=$kv hp_tool result-name "$base") || exit 1
	if [ "$kv" = 7.1 ]; then
		if [ -z "$src71" ]; then
			echo "check $t tree: $no71" | record
			continue
		fi
		echo "check $t tree: ok ($src71)" | record
	fi
	hp_say run "$t" "boot and judge"
	if ! KVER=$kv RESULTS=$HP_TOP/results hp_tool run "$base" >"$HP_TOP/results/$t.run.log" 2>&1; then
		tail -n 20 "$HP_TOP/results/$t.run.log" >&2
	fi
	checked "$t judge" hp_tool judge "$HP_TOP/results/$t" "$HP_TOP/scripts/expect.table" "$t"
	# the kernel's own KTAP parser must accept what we print
	for f in selftest.ktap fuzz.ktap kunit.ktap trust.ktap ktap.txt; do
		[[ "$t" == debian* ]] && [ "$f" = kunit.ktap ] && continue
		# (it exits 1 on a failed test too: those the judge holds against the table's expected
		# ones above; here the parse itself must go through, no [ERROR] or [CRASHED] line)
		P=$HP_TOP/results/$t/$f.parsed
		if python3 "$HP_KSRC/tools/testing/kunit/kunit.py" parse "$HP_TOP/results/$t/$f" >"$P" 2>&1; then
			echo "check $t kunit.py-parse-$f: ok" | record
		elif grep -q 'Testing complete. Ran [1-9]' "$P" && ! grep -q '\[ERROR\]\|\[CRASHED\]\|NO TESTS' "$P"; then
			echo "check $t kunit.py-parse-$f: ok (parsed; $(sed -n 's/.*\(Failures: .*\)/\1/p' "$P" | cut -c1-120): the judge's)" | record
		else
			echo "check $t kunit.py-parse-$f: FAIL ($(tail -n 1 "$HP_TOP/results/$t/$f.parsed"))" | record
		fi
	done
done

# features turned off must come out vulnerable, features turned on (+feature) protected, and
# nothing else may change: the variants of scripts/off-variants named here, each against the
# x86_64-gcc run above (x86-checks is a kernel build of its own: cached like the others)
for v in ${CHECK_VARIANTS:-x86-boot x86-checks slab-debug nomerge kfence}; do
	IFS=$'\t' read -r _ vt kind value feats <<<"$(hp_tool off-variants "$v")"
	hp_say off "$vt" "$v: $kind $value"
	O=$HP_TOP/results/off/$v
	mkdir -p "$O"
	if [ "$kind" = cmdline ]; then
		CMDLINE="$value" RESULTS=$O hp_tool run "$vt" >"$O.run.log" 2>&1
	else
		EXTRA_CONFIG=$HP_TOP/$value RESULTS=$O hp_tool run "$vt" >"$O.run.log" 2>&1
	fi || tail -n 5 "$O.run.log" >&2
	checked "off $v offcheck" hp_tool offcheck "$v" "$HP_TOP/results/$vt" "$O/$vt" "$feats"
done

# two runs of one kernel and module (the x86-boot variant turns features off at boot): a CI
# system must file their results under the same names, read as Linaro's kselftest parser
# reads them (a SKIP's reason is part of the name there; no result line carries evidence)
case " ${CHECK_VARIANTS:-x86-boot} " in
*" x86-boot "*)
	hp_say host x86_64-gcc "CI result names of two runs (x86_64-gcc, x86-boot variant)"
	checked "x86_64-gcc ci-names" hp_tool ci-names "$HP_TOP/results/x86_64-gcc" \
		"$HP_TOP/results/off/x86-boot/x86_64-gcc" --label "x86_64-gcc ci-names"
	checked "x86_64-gcc kcidb-paths" hp_tool kcidb "$HP_TOP/results/x86_64-gcc/report.json" \
		--same-paths "$HP_TOP/results/off/x86-boot/x86_64-gcc/report.json"
	;;
esac

# KCIDB: the x86_64-gcc run as a KCIDB v5.3 submission, validated against the schema
# (KCIDB_SCHEMA=, or the copy beside the project); skipped with the reason without one
schema=${KCIDB_SCHEMA:-$HP_TOP/../shared/kcidb/kcidb-io.schema.v5.3.json}
if [ -f "$schema" ]; then
	checked "x86_64-gcc kcidb" hp_tool kcidb "$HP_TOP/results/x86_64-gcc/report.json" \
		-o "$HP_TOP/results/x86_64-gcc/kcidb.json" --check "$schema"
else
	echo "check kcidb-schema: SKIP (no KCIDB schema at $schema: KCIDB_SCHEMA=<kcidb-io.schema.v5.3.json>)" | record
fi

# LAVA: the same kernels as a LAVA job, run by lava-dispatcher alone; each result must
# equal report.json's outcome (lava-run needs root)
for t in x86_64-gcc arm64-clang; do
	if [ "$(id -u)" != 0 ]; then
		echo "check lava-results-$t: SKIP (lava-run runs as root only)" | record
		continue
	fi
	hp_say lava "$t" "the LAVA job (lava-run), each result beside report.json's"
	"$HP_TOP/scripts/lava.sh" "$t" >"$HP_TOP/results/$t.lava.log" 2>&1
	grep '^check \|^lava-run:' "$HP_TOP/results/$t.lava.log" | sed 's/^lava-run:/    lava-run:/' | record
	grep -q '^check lava-results' "$HP_TOP/results/$t.lava.log" ||
		echo "check lava-results-$t: FAIL (no result: $(tail -n 1 "$HP_TOP/results/$t.lava.log"))" | record
done

# KASLR across boots: the kernel's text must move between four one-probe guests
hp_say kaslr x86_64-gcc "kaslr.text alone, four boots"
hp_tool kaslr x86_64-gcc --boots 4 >"$HP_TOP/results/kaslr.log" 2>&1
grep '^check ' "$HP_TOP/results/kaslr.log" | record
grep -q '^check ' "$HP_TOP/results/kaslr.log" ||
	echo "check x86_64-gcc kaslr-across-boots: FAIL (no result: $(tail -n 1 "$HP_TOP/results/kaslr.log"))" | record

# hardprobe and the kernel's own LKDTM must agree on the same kernel
for t in x86_64-gcc arm64-clang; do
	hp_say lkdtm "$t" "LKDTM tests, compared with hardprobe's outcomes"
	if hp_tool lkdtm "$t" >"$HP_TOP/results/$t.lkdtm.log" 2>&1; then
		echo "check $t lkdtm-agreement: ok ($(tail -n 1 "$HP_TOP/results/$t.lkdtm.log"))" | record
	else
		echo "check $t lkdtm-agreement: FAIL ($(tail -n 1 "$HP_TOP/results/$t.lkdtm.log"))" | record
		grep -E ' NO ' "$HP_TOP/results/$t.lkdtm.log" | sed 's/^/    /' | record
	fi
done

# without debugfs (lockdown, debugfs=off) autorun=1 must still print a parseable KTAP
hp_say run x86_64-gcc "boot with debugfs=off hardprobe.autorun=1"
N=$HP_TOP/results/nodebugfs
RESULTS=$N CMDLINE="debugfs=off hardprobe.autorun=1" hp_tool run x86_64-gcc \
	>"$HP_TOP/results/nodebugfs.run.log" 2>&1
# hardprobe's lines of the kernel log, their "[time] hardprobe: " prefix removed by the
# kernel's own kunit_parser (extract_tap_lines)
hp_tool ktap-extract "$N/x86_64-gcc/dmesg.txt" --only '] hardprobe: ' >"$N/autorun.ktap" 2>/dev/null
if python3 "$HP_KSRC/tools/testing/kunit/kunit.py" parse "$N/autorun.ktap" >"$N/autorun.parsed" 2>&1 &&
   grep -q 'Ran [1-9][0-9]* tests' "$N/autorun.parsed"; then
	echo "check nodebugfs autorun-ktap-in-log: ok ($(grep -o 'Ran [0-9]* tests.*' "$N/autorun.parsed"))" | record
else
	echo "check nodebugfs autorun-ktap-in-log: FAIL ($(tail -n 1 "$N/autorun.parsed"))" | record
fi

# under lockdown no probe may run: the unsigned module is refused (by the kernel's
# signature rule here; hardprobe's own refusal is checked in kunit.py's built-in boot)
hp_say run x86_64-gcc "boot with lockdown=integrity"
LD=$HP_TOP/results/lockdown
RESULTS=$LD CMDLINE="lockdown=integrity hardprobe.mode=lockdown" PANIC_GUESTS=no \
	hp_tool run x86_64-gcc >"$HP_TOP/results/lockdown.run.log" 2>&1
checked "lockdown judge" hp_tool judge --lockdown "$LD/x86_64-gcc"

# the refusal matrix: one guest per setting under which a catch panics, each reading the
# report and writing every fatal probe with allow_fatal=1 (from a child; from init itself
# for pid1): no guest may panic, and every refusal gives its reason. "all": every fatal
# probe must be refused; "any": those whose catch cannot panic under it run.
pad=
for i in $(seq 1 46); do pad+=" hp_pad.w$i=xxxxxxxxxxxxxxxxxxxxxxxxxxxx"; done
# (one module build for all: the guests share results/refusals/, each result moved aside;
# long-cmdline: about 1,970 bytes in all, last a switch only the command line holds; x86
# takes 2,047 bytes at most)
RF=$HP_TOP/results/refusals
mkdir -p "$RF"
while IFS='|' read -r name gmode want cmd; do
	hp_say refusal x86_64-gcc "$name: ${cmd:0:60}"
	RESULTS=$RF CMDLINE="$cmd hardprobe.mode=$gmode" PANIC_GUESTS=no BOOT_TIMEOUT=300 \
		hp_tool run x86_64-gcc >"$RF/$name.run.log" 2>&1
	rm -rf "${RF:?}/$name"
	mv "$RF/x86_64-gcc" "$RF/$name"
	checked "refusals-$name judge" hp_tool judge --refusals "$name" "$want" "$RF/$name"
done <<EOF
taint-die|refusals|all|panic_on_taint=0x80
taint-warn|refusals|all|panic_on_taint=0x200
taint-bad-page|refusals|any|panic_on_taint=0x20
kasan-panic|refusals|any|kasan.fault=panic
kasan-panic-on-write|refusals|any|kasan.fault=panic_on_write
panic-on-warn|refusals|all|panic_on_warn=1
warn-limit-1|refusals|all|sysctl.kernel.warn_limit=1
warn-limit-2|refusals|any|sysctl.kernel.warn_limit=2
warn-limit-3|refusals|any|sysctl.kernel.warn_limit=3
warn-limit-4|refusals|any|sysctl.kernel.warn_limit=4
oops-limit|refusals|all|sysctl.kernel.oops_limit=1
pid1|refusals-pid1|all|
long-cmdline|refusals|all|${pad# } panic_on_taint=0x80
hung-task-panic|refusals|any|sysctl.kernel.hung_task_panic=1
EOF

# the kernel-tree drop-in: kunit.py, kselftest build/run_tests, kselftest-merge
"$HP_TOP/scripts/intree-check.sh" | record

# "N passed, N failed" (.ci/run ends with it); exit 1 on any failure. Every check of
# scripts/check-manifest must have run (CHECK_VARIANTS, a subset of the variants, runs
# fewer: no manifest then)
hp_tool stage-timings "$HP_STAGES"
if [ -z "${CHECK_VARIANTS:-}" ] && [ -f "$HP_TOP/scripts/check-manifest" ]; then
	hp_tool tally "$L" --manifest "$HP_TOP/scripts/check-manifest"
else
	hp_tool tally "$L"
fi
