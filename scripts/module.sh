#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe bench: build hardprobe.ko, hardprobe_kunit.ko and the selftest runner
# for a target against its kernel build, in a private copy of the sources, and the
# static kselftest programs (hardprobe_test, hardprobe_fuzz, hardprobe_trust) against the
# kselftest.h of the kernel source (hp_ksrc).
# usage: module.sh TARGET KBUILD_DIR OUTDIR [make args...]   (prints nothing on success)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=$1 kdir=$2 out=$3
shift 3
hp_target_kdir "$target" "$kdir"
hp_make_args
hp_ccache_seed "$kdir"
mkdir -p "$out"
rsync -a --delete --exclude .git --exclude results --exclude '*.o' --exclude '*.ko' \
	--include Kbuild --include 'module/***' --include 'kunit/***' --exclude '*' \
	"$HP_TOP/" "$out/src/"
make -C "$kdir" M="$out/src" "${HP_MAKE[@]}" "$@" modules >"$out/module-build.log" 2>&1 || {
	cat "$out/module-build.log" >&2
	hp_die "$target: module build failed"
}
cp "$out/src/hardprobe.ko" "$out/"
rm -f "$out/hardprobe_kunit.ko"
[ ! -f "$out/src/hardprobe_kunit.ko" ] || cp "$out/src/hardprobe_kunit.ko" "$out/"

# the kselftest programs, static, for the target's architecture: built by the kernel's own
# lib.mk (selftests/hardprobe/Makefile) in a copy laid out as in a kernel tree,
# <dir>/hardprobe beside the kernel source's kselftest.h (their "../kselftest.h") and lib.mk
hp_ksrc
ks=$HP_KSRC/tools/testing/selftests
[ -f "$ks/kselftest.h" ] || hp_die "no $ks/kselftest.h in the kernel source"
# the user-space compiler of the arch's record (hptool/qemu_configs/<arch>.py)
cross=${HP_UCC%gcc}
command -v "$HP_UCC" >/dev/null || hp_die "$HP_UCC not found: run scripts/deps.sh"
mkdir -p "$out/kselftest"
rsync -a --delete --exclude hardprobe_test --exclude hardprobe_fuzz --exclude hardprobe_trust \
	"$HP_TOP/selftests/hardprobe/" "$out/kselftest/hardprobe/"
for f in lib.mk kselftest.h kselftest_harness.h; do
	ln -sfn "$ks/$f" "$out/kselftest/$f"
done
rm -f "$out"/hardprobe_test "$out"/hardprobe_fuzz "$out"/hardprobe_trust
# (MAKEFLAGS: none of the calling make's variables, such as TARGET=, reach lib.mk)
MAKEFLAGS='' make -C "$out/kselftest/hardprobe" OUTPUT="$out" CROSS_COMPILE="$cross" \
	USERCFLAGS=-Werror USERLDFLAGS=-static >"$out/selftest-build.log" 2>&1 || {
	cat "$out/selftest-build.log" >&2
	hp_die "$target: kselftest build failed"
}
