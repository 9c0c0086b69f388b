#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe lint: checkpatch --strict on every C file and the selftests' X-macro table
# (hp_checks.def). Plumbing must be clean; the deliberately buggy trigger code gets a
# short, reviewed ignore list.
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
# and one of which declares prototypes (TRAILING_SEMICOLON). The fortify
# probes call strcpy() on purpose (STRCPY), and fortify_counting_hook.c redefines the
# fortify failure hook as lib/fortify_kunit.c does: a macro that returns from
# the fortified function (MACRO_WITH_FLOW_CONTROL) and calls a counter
# declared before any header (AVOID_EXTERNS).
trigger_ignore=MACRO_ARG_REUSE,COMPLEX_MACRO,SPACING,NEW_TYPEDEFS,MACRO_ARG_UNUSED,TRAILING_SEMICOLON
trigger_ignore+=,STRCPY,MACRO_WITH_FLOW_CONTROL,AVOID_EXTERNS
trigger_files=" module/stack_init/stack_init_leaves.h module/stack_init/stack_init.c module/stack_init/stack_init_uninitialized.c "
trigger_files+=" module/zero_call_regs/zero_call_regs.c module/cfi/cfi.c module/cfi/kcfi_unchecked_call.c "
trigger_files+=" module/fortify/fortify.h module/fortify/fortify_counting_hook.c "
# the build-time probe of the unannotated switch case warning talks about the
# very thing checkpatch looks for in comments (PREFER_FALLTHROUGH)
trigger_ignore+=,PREFER_FALLTHROUGH
trigger_files+=" module/layout/buildprobe/fallthrough.c "
# the test hook that makes a safe probe oops for hardprobe_trust (AVOID_BUG)
trigger_ignore+=,AVOID_BUG
trigger_files+=" module/core/inject.c "

# the header that defines the kernel's attribute macros for user space can only
# spell them with __attribute__
defines_ignore=PREFER_DEFINED_ATTRIBUTE_MACRO,COMPLEX_MACRO
defines_files=" selftests/hardprobe/hp_compiler.h "

# the compat header (and renames.h, which it includes) is the one place that compares kernel versions
# (LINUX_VERSION_CODE, CONSTANT_COMPARISON in "LINUX_VERSION_CODE >= KERNEL_VERSION()"),
# names headers in __has_include(<...>) (SPACING), and spells one report per version,
# the older of which names fewer sizes (MACRO_ARG_UNUSED)
compat_ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON,SPACING,MACRO_ARG_UNUSED
compat_files=" module/lib/compat.h module/lib/renames.h "

# pointer_hashing's positive control formats addresses with %px into a local
# buffer, never into the log, to compare them with what %p prints
leak_ignore=VSPRINTF_SPECIFIER_PX
leak_files=" module/infoleak/pointer_hashing.c "

# the user-space checks read ENOSYS as the kernel's answer for a system call it
# was built without (their "unsupported")
user_ignore=ENOSYS
user_files=" selftests/hardprobe/hp_user.c "

cd "$HP_TOP" || exit 1
fail=0
for f in module/*.[ch] module/*/*.[ch] module/*/*/*.[ch] kunit/*.c selftests/hardprobe/*.[ch] selftests/hardprobe/*.def; do
	args=(--strict --no-tree --terse --show-types --quiet -f)
	[[ "$trigger_files" == *" $f "* ]] && args=(--ignore "$trigger_ignore" "${args[@]}")
	[[ "$defines_files" == *" $f "* ]] && args=(--ignore "$defines_ignore" "${args[@]}")
	[[ "$compat_files" == *" $f "* ]] && args=(--ignore "$compat_ignore" "${args[@]}")
	[[ "$leak_files" == *" $f "* ]] && args=(--ignore "$leak_ignore" "${args[@]}")
	[[ "$user_files" == *" $f "* ]] && args=(--ignore "$user_ignore" "${args[@]}")
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
