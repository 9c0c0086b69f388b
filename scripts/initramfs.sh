#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe bench: build the guest initramfs (busybox, /init, modules, selftest runner).
# usage: initramfs.sh ARCH MODDIR RUNNER OUT.cpio.gz [EXTRA_DIR]   (EXTRA_DIR: more files for /)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=$1 moddir=$2 runner=$3 out=$4 extra=${5:-}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# the guest's / (mktemp made it 0700): other users must reach /proc, /dev and /tmp
# (hardprobe_test's checks run as uid 65534)
chmod 755 "$stage"
mkdir -p "$stage/bin"
cp "$(hp_busybox "$arch")" "$stage/bin/busybox"
cp "$HP_TOP/scripts/guest-init" "$stage/init"
cp "$moddir/hardprobe.ko" "$stage/"
[ -f "$moddir/hardprobe_kunit.ko" ] && cp "$moddir/hardprobe_kunit.ko" "$stage/"
cp "$runner" "$stage/hardprobe_test"
cp "$(dirname "$runner")/hardprobe_fuzz" "$stage/hardprobe_fuzz"
cp "$(dirname "$runner")/hardprobe_trust" "$stage/hardprobe_trust"
[ -z "$extra" ] || cp -r "$extra"/. "$stage/"
chmod +x "$stage/init" "$stage/bin/busybox" "$stage/hardprobe_test" "$stage/hardprobe_fuzz" "$stage/hardprobe_trust"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$out"
