#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe check: the kernel-tree drop-in as CI bots use it. A tree of hard links to the
# cached 6.12 source (kept in the cache, with kunit.py's build directory) gets
# `scripts/intree.sh`; then in that tree:
#   tools/testing/kunit/kunit.py run --kunitconfig=drivers/misc/hardprobe --arch=x86_64
#   make -C tools/testing/selftests TARGETS=hardprobe (build) and run_tests
#   ... gen_tar (the kselftest tarball of KernelCI's kbuild), its run_kselftest.sh in a guest
#   make kselftest-merge on a defconfig picks up selftests/hardprobe/config
# Prints "check intree <what>: ok|FAIL" lines.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

hp_ksrc
T=$HP_CACHE/intree/${HP_KSRC##*/}
K=$HP_CACHE/intree/kunit-x86_64
L=$HP_TOP/results/intree
mkdir -p "$L" "$HP_CACHE/intree"
if [ ! -f "$T/.hardprobe-tree" ]; then
	hp_say intree - "hard-linked copy of $HP_KSRC"
	rm -rf "$T" && cp -al "$HP_KSRC" "$T" && touch "$T/.hardprobe-tree" ||
		{ echo "check intree tree: FAIL (cannot copy $HP_KSRC)"; exit 1; }
fi
if "$HP_TOP/scripts/intree.sh" "$T" 2>"$L/intree.log" && "$HP_TOP/scripts/intree.sh" "$T" 2>>"$L/intree.log" &&
   [ "$(grep -c 'drivers/misc/hardprobe/Kconfig' "$T/drivers/misc/Kconfig")" = 1 ] &&
   [ "$(grep -c '^TARGETS += hardprobe$' "$T/tools/testing/selftests/Makefile")" = 1 ]; then
	echo "check intree make-intree-twice: ok"
else
	echo "check intree make-intree-twice: FAIL ($(tail -n 1 "$L/intree.log"))"
fi

# kunit.py: a full x86_64 kernel build on a cold cache (ccache helps), then QEMU
hp_say kunit.py x86_64 "kunit.py run --kunitconfig=drivers/misc/hardprobe (build dir $K)"
export CCACHE_DIR=${CCACHE_DIR:-$HP_CACHE/ccache} CCACHE_BASEDIR=$HP_CACHE
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"
(cd "$T" && timeout 3000 python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	--kunitconfig=drivers/misc/hardprobe --build_dir="$K" --jobs="$(nproc)" \
	--make_options "CC=$cc" --timeout=600) >"$L/kunit.log" 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null; do
	sleep 30
	kill -0 $pid 2>/dev/null &&
		hp_say kunit.py x86_64 "$(find "$K" -name '*.o' 2>/dev/null | wc -l) objects so far; $(tail -n 1 "$L/kunit.log" | cut -c1-60)"
done
wait $pid
rc=$?
if [ $rc = 0 ] && grep -q 'Testing complete. Ran [1-9]' "$L/kunit.log" &&
   grep -q 'hardprobe_stack_init' "$L/kunit.log"; then
	echo "check intree kunit.py-run: ok ($(grep -o 'Ran [0-9]* tests.*' "$L/kunit.log" | tail -n 1))"
else
	echo "check intree kunit.py-run: FAIL (exit $rc: $(grep -m 1 -E 'FAILED|ERROR|error' "$L/kunit.log" | cut -c1-160))"
fi

# the same kernel under lockdown=integrity: the built-in hardprobe refuses at init, in
# its own words, and no probe runs (the suites are then empty or skipped)
(cd "$T" && timeout 600 python3 tools/testing/kunit/kunit.py exec --arch=x86_64 --build_dir="$K" \
	--kernel_args=lockdown=integrity --raw_output=all --timeout=300) >"$L/kunit-lockdown.log" 2>&1
if grep -q 'Kernel is locked down from command line' "$L/kunit-lockdown.log" &&
   grep -q 'hardprobe: the kernel is locked down' "$L/kunit-lockdown.log" &&
   ! grep -q -E ': (protected|vulnerable|inconclusive|unsupported|error): ' "$L/kunit-lockdown.log" &&
   ! grep -q 'hardprobe: loaded: ' "$L/kunit-lockdown.log"; then
	echo "check intree kunit.py-lockdown-refused: ok ($(grep -o 'hardprobe: the kernel is locked down[^:]*' "$L/kunit-lockdown.log" | sed -n 1p))"
else
	echo "check intree kunit.py-lockdown-refused: FAIL (see $L/kunit-lockdown.log)"
fi

# the kselftest collection, built and run the kselftest way (on this host the module is
# not loaded, so the programs report a skip; the bench runs them in its guests)
if make -C "$T/tools/testing/selftests" TARGETS=hardprobe O="$L/kselftest" >"$L/kselftest-build.log" 2>&1 &&
   [ -x "$L/kselftest/kselftest/hardprobe/hardprobe_test" ] && [ -x "$L/kselftest/kselftest/hardprobe/hardprobe_fuzz" ]; then
	echo "check intree kselftest-build: ok"
else
	echo "check intree kselftest-build: FAIL ($(tail -n 1 "$L/kselftest-build.log"))"
fi
make -C "$T/tools/testing/selftests" TARGETS=hardprobe O="$L/kselftest" run_tests \
	>"$L/kselftest-run.log" 2>&1
if grep -qE '^(not )?ok [0-9]+ selftests: hardprobe: hardprobe_test' "$L/kselftest-run.log" &&
   ! grep -qE '^not ok [0-9]+ selftests: hardprobe' "$L/kselftest-run.log"; then
	echo "check intree kselftest-run_tests: ok ($(grep -m 1 -E 'selftests: hardprobe: hardprobe_test' "$L/kselftest-run.log"))"
else
	echo "check intree kselftest-run_tests: FAIL ($(tail -n 1 "$L/kselftest-run.log"))"
fi

# the kselftest tarball the way KernelCI's kbuild makes it (gen_tar for TARGETS=hardprobe),
# then that tarball's own run_kselftest.sh in a guest of the bench's x86_64-gcc kernel (the
# same 6.12) with the module loaded: a CI lab's run, on a ramdisk with busybox and the C
# library the programs are linked against
TI=$L/kselftest-install
rm -rf "$TI"
tarball=$TI/kselftest-packages/kselftest.tar.gz
if make -C "$T/tools/testing/selftests" TARGETS=hardprobe O="$L/kselftest" KSFT_INSTALL_PATH="$TI" \
	FORMAT=.gz gen_tar >"$L/kselftest-tar.log" 2>&1 && [ -f "$tarball" ] &&
   list=$(tar tzf "$tarball") && grep -qx './run_kselftest.sh' <<<"$list" &&
   grep -qx './hardprobe/hardprobe_test' <<<"$list" && grep -qx './hardprobe/settings' <<<"$list"; then
	echo "check intree kselftest-gen_tar: ok ($(du -k "$tarball" | cut -f1) KiB, $(grep -c '^./hardprobe/.' <<<"$list") files of hardprobe)"
else
	echo "check intree kselftest-gen_tar: FAIL ($(tail -n 1 "$L/kselftest-tar.log"))"
	tarball=
fi
G=$HP_TOP/results/x86_64-gcc
B=$(sed -n 's/^build_dir: //p' "$G/build-info.txt" 2>/dev/null)
ko=$HP_TOP/results/.build/x86_64-gcc
if [ -z "$tarball" ]; then
	echo "check intree kselftest-tarball-guest: FAIL (no tarball)"
elif [ ! -f "$ko/hardprobe.ko" ] || [ ! -f "$B/arch/x86/boot/bzImage" ]; then
	echo "check intree kselftest-tarball-guest: SKIP (no x86_64-gcc run in this checkout: make run first)"
else
	X=$L/kselftest-guest
	rm -rf "$X" && mkdir -p "$X/root/kselftest" "$X/root/usr/bin"
	tar xzf "$tarball" -C "$X/root/kselftest"
	# the programs' shared libraries and loader, as on the build host
	for f in "$X"/root/kselftest/hardprobe/hardprobe_*; do
		ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true
	done | sort -u | while read -r lib; do
		mkdir -p "$X/root$(dirname "$lib")" && cp -L "$lib" "$X/root$lib"
	done
	# runner.sh calls /usr/bin/timeout --foreground: busybox's timeout has no such option
	# shellcheck disable=SC2016
	printf '#!/bin/sh
[ "$1" = --foreground ] && shift
exec /bin/busybox timeout "$@"
' >"$X/root/usr/bin/timeout"
	chmod +x "$X/root/usr/bin/timeout"
	hp_tool initramfs x86_64 "$ko" "$ko/hardprobe_test" "$X/initramfs.cpio.gz" --extra "$X/root"
	hp_say intree x86_64-gcc "the kselftest tarball's run_kselftest.sh in a guest"
	hp_tool boot x86_64 "$B/arch/x86/boot/bzImage" "$X/initramfs.cpio.gz" \
		"panic=-1 tsc=unstable hardprobe.target=x86_64-gcc hardprobe.mode=kselftest" \
		--log "$X/console.log" --timeout 1200 --kvm "${HP_KVM:-no}" \
		--mte "${HP_MTE:-}" --smp "${SMP:-}"
	out=$(tr -d '\r' <"$X/console.log" |
		sed -n '/^----- hardprobe:file kselftest.txt -----$/,/^----- hardprobe:end kselftest.txt -----$/p')
	ran=$(grep -cE '^(not )?ok [0-9]+ selftests: hardprobe: hardprobe_' <<<"$out")
	bad=$(grep -cE '^not ok [0-9]+ selftests: hardprobe' <<<"$out")
	probes=$(grep -cE '^# (not )?ok [0-9]+ [a-z0-9_]+\.[a-z0-9_]+' <<<"$out")
	if [ "$ran" = 3 ] && [ "$bad" = 0 ] && [ "$probes" -gt 100 ]; then
		echo "check intree kselftest-tarball-guest: ok (run_kselftest.sh -c hardprobe: 3 programs ok, $probes probe results)"
	else
		echo "check intree kselftest-tarball-guest: FAIL ($ran programs reported, $bad not ok, $probes probe results; see $X/console.log)"
	fi
fi

# kselftest-merge picks up our config fragment
M=$L/merge
rm -rf "$M"
if make -C "$T" O="$M" ARCH=x86_64 defconfig >"$L/merge.log" 2>&1 &&
   make -C "$T" O="$M" ARCH=x86_64 kselftest-merge >>"$L/merge.log" 2>&1 &&
   grep -q '^CONFIG_HARDPROBE=m' "$M/.config"; then
	echo "check intree kselftest-merge: ok"
else
	echo "check intree kselftest-merge: FAIL (CONFIG_HARDPROBE not =m after kselftest-merge)"
fi
rm -rf "$M"
