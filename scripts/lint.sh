#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe lint: checkpatch --strict on every C file. Plumbing must be clean;
# the deliberately buggy trigger code gets a short, reviewed ignore list.
# Prints one "lint <file>: ok|FAIL" line per file; exit 1 if any failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

hp_ksrc
cp=$HP_KSRC/scripts/checkpatch.pl
[ -x "$cp" ] || hp_die "no checkpatch.pl in $HP_KSRC"

# Trigger code: leaves and register samplers are macros that expand to whole
# functions and reuse their arguments (MACRO_ARG_REUSE, COMPLEX_MACRO); the
# register sampler's asm operand lists confuse the cast-spacing check
# (SPACING); the stack_init leaves need an array typedef to declare
# "type var;" generically (NEW_TYPEDEFS); the stack_init matrix is one
# X-macro list whose expansions each use only some columns (MACRO_ARG_UNUSED)
# and one of which declares prototypes (TRAILING_SEMICOLON).
trigger_ignore=MACRO_ARG_REUSE,COMPLEX_MACRO,SPACING,NEW_TYPEDEFS,MACRO_ARG_UNUSED,TRAILING_SEMICOLON
trigger_files=" module/stackinit_leaves.h module/stackinit.c module/stackinit_control.c module/regs.c module/cfi.c module/cfi_control.c "

cd "$HP_TOP" || exit 1
fail=0
for f in module/*.[ch] module/arch/*.[ch] kunit/*.c selftests/hardprobe/*.c; do
	args=(--strict --no-tree --terse --show-types --quiet -f)
	[[ "$trigger_files" == *" $f "* ]] && args=(--ignore "$trigger_ignore" "${args[@]}")
	out=$("$cp" "${args[@]}" "$f" 2>&1)
	if [ $? != 0 ]; then
		echo "lint $f: FAIL"
		echo "$out" | sed 's/^/    /'
		fail=1
	else
		echo "lint $f: ok"
	fi
done
exit $fail
