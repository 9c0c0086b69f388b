#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe bench: build hardprobe.ko, hardprobe_kunit.ko and the selftest runner
# for a target against its kernel build, in a private copy of the sources, and the
# static kselftest programs (hardprobe_test, hardprobe_fuzz).
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

# the selftest runner, static, for the target's architecture
ucc=$HP_UCC
command -v "$ucc" >/dev/null || hp_die "$ucc not found: run scripts/deps.sh"
for prog in hardprobe_test hardprobe_fuzz hardprobe_trust; do
	"$ucc" -O2 -Wall -Werror -static -o "$out/$prog" "$HP_TOP/selftests/hardprobe/$prog.c" ||
		hp_die "$target: selftest $prog build failed"
done
