#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe: drop the module, its KUnit suites and the kselftests into a kernel tree:
#   drivers/misc/hardprobe/            (Kconfig HARDPROBE, HARDPROBE_KUNIT_TEST, .kunitconfig)
#   tools/testing/selftests/hardprobe/ (added to the selftests TARGETS list)
# Idempotent: a second run refreshes the files and adds no line twice. Files of the tree
# that it edits are replaced (new inode), never written in place, so a tree of hard links
# (cp -al) to a pristine source stays pristine.
# usage: intree.sh KSRC
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ksrc=${1:?usage: intree.sh <kernel tree>}
[ -f "$ksrc/Makefile" ] && [ -f "$ksrc/drivers/misc/Kconfig" ] ||
	hp_die "KSRC=$ksrc is not a kernel source tree"
D=$ksrc/drivers/misc/hardprobe
S=$ksrc/tools/testing/selftests/hardprobe

# replace a file of the tree (breaking any hard link) with stdin
replace() {
	local tmp
	tmp=$(mktemp "$1.XXXXXX")
	cat >"$tmp"
	chmod 644 "$tmp"
	mv "$tmp" "$1"
}

rm -rf "$D" "$S"
mkdir -p "$D" "$S"
cp -r "$HP_TOP/module" "$HP_TOP/kunit" "$D/"
cp "$HP_TOP/Kconfig" "$D/Kconfig"
cp "$HP_TOP/kunit/.kunitconfig" "$D/.kunitconfig"
# the same object lists as the out-of-tree build (Kbuild handles both)
cp "$HP_TOP/Kbuild" "$D/Makefile"
cp "$HP_TOP"/selftests/hardprobe/* "$S/"
rm -f "$S/hardprobe_test" "$S/hardprobe_fuzz" "$S/hardprobe_trust"

k=$ksrc/drivers/misc/Kconfig
if ! grep -q 'drivers/misc/hardprobe/Kconfig' "$k"; then
	# before the menu's closing endmenu (the last one in the file)
	awk -v n="$(grep -n '^endmenu' "$k" | tail -n 1 | cut -d: -f1)" \
		'NR == n { print "source \"drivers/misc/hardprobe/Kconfig\"" } { print }' "$k" | replace "$k"
fi
m=$ksrc/drivers/misc/Makefile
grep -q 'hardprobe/' "$m" || { cat "$m"; echo 'obj-$(CONFIG_HARDPROBE)		+= hardprobe/'; } | replace "$m"
t=$ksrc/tools/testing/selftests/Makefile
if ! grep -q '^TARGETS += hardprobe$' "$t"; then
	awk -v n="$(grep -n '^TARGETS += ' "$t" | tail -n 1 | cut -d: -f1)" \
		'{ print } NR == n { print "TARGETS += hardprobe" }' "$t" | replace "$t"
fi
hp_say intree - "hardprobe placed in $ksrc: drivers/misc/hardprobe, tools/testing/selftests/hardprobe"
