#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe build-time probes: run by a Kbuild rule during the module build, with the
# compiler and the flags kbuild gives a C file of this directory ($(c_flags)). Compiles
# module/buildprobe/*.c, keeps every diagnostic and the assembly in LOGDIR (never in the
# build output), reads the first bytes of a module object (LLVM bitcode under LTO) and the
# section order of function_sections_split.o, and writes what it saw as C defines into OUT, which
# module/layout.c includes: the results join the report as probes of the fallthrough,
# stack_clash, lto and function_sections features.
# usage: layout_build.sh OUT LOGDIR SRCDIR CORE_O FNS_O "CC" "OBJDUMP" "CC_FLAGS_LTO" FLAGS...
set -u
export LC_ALL=C
out=$1 dir=$2 src=$3 core=$4 fns=$5 cc=$6 objdump=$7 ltoflags=$8
shift 8
flags=("$@")
mkdir -p "$dir"

# the flags without the LTO ones, for assembly (as kbuild's own %.s rule does)
read -r -a lto <<<"$ltoflags"
asmflags=()
for f in "${flags[@]}"; do
	keep=1
	for l in "${lto[@]}"; do [ "$f" = "$l" ] && keep=0; done
	[ $keep = 1 ] && asmflags+=("$f")
done

# a C string: no quotes, backslashes or control characters, at most 120 bytes
cstr() { printf '"%s"' "$(printf '%s' "$1" | tr -d '"\\' | tr '\t\n' '  ' | cut -c1-120)"; }
# CC is one or more words (ccache gcc-12)
run_cc() { $cc "$@"; }

ccver=$(run_cc --version 2>/dev/null | head -n 1)
ftflag=$(printf '%s\n' "${flags[@]}" | grep -E '^-W(no-)?implicit-fallthrough' | tr '\n' ' ')
scflag=$(printf '%s\n' "${flags[@]}" | grep -E 'stack-clash-protection' | tr '\n' ' ')
# GCC: "this statement may fall through"; Clang: "unannotated fall-through between switch labels"
ftre='this statement may fall through|unannotated fall-through between switch labels'

# fallthrough: NAME EXTRA-FLAGS...; sets rc_NAME, n_NAME, msg_NAME
ft() {
	local name=$1 log=$dir/fallthrough-$1.log
	shift
	# no object kept: the directory holds only text (the bench's rsync keeps *.o)
	run_cc "${flags[@]}" "$@" -c -o /dev/null "$src/buildprobe/fallthrough.c" >"$log" 2>&1
	eval "rc_$name=$?"
	eval "n_$name=$(grep -cE "$ftre" "$log")"
	# the diagnostic without the path and line: "warning: this statement ..."
	eval "msg_$name=\$(grep -m1 -E '$ftre' '$log' | sed -e 's#^.*: \\(warning\\|error\\): #\\1: #')"
	[ -n "$(eval echo "\$msg_$name")" ] || eval "msg_$name=\$(grep -m1 -E 'error' '$log' | sed 's|^.*/||')"
}
ft plain
ft annotated -DHP_FT_ANNOTATE
ft control -Wno-implicit-fallthrough

# stack_clash: NAME EXTRA-FLAGS...; assembly, then the probes per function
sc() {
	local name=$1 s=$dir/stack_clash-$1.s
	shift
	# the frames are larger than the kernel's -Wframe-larger-than on purpose
	run_cc "${asmflags[@]}" -Wframe-larger-than=1048576 "$@" -S -o "$s" \
		"$src/buildprobe/stack_clash.c" >"$dir/stack_clash-$name.log" 2>&1
	eval "rc_$name=$?"
	[ -f "$s" ] || : >"$s"
	# a probe: x86 GCC "orq $0,(%rsp)", x86 Clang "movq $0,(%rsp)", arm64 "str xzr,[sp...]";
	# a loop: a branch back to a label with a probe after it
	awk -v pre="sc_$name" '
	function flush() {
		if (fn != "")
			printf "%s_%s=%d\n%s_%s_loop=%d\n", pre, fn, n, pre, fn, loop
	}
	/^hp_sc_(small|large):/ { flush(); fn = substr($1, 7, 5); n = 0; loop = 0; delete at; next }
	fn == "" { next }
	/^\.?L[A-Za-z0-9_.$]*:/ { l = $1; sub(/:.*/, "", l); at[l] = n; next }
	/^[ \t]*(or[bwlq]?|mov[bwlq]?)[ \t]+\$0x?0*,[ \t]*(-?[0-9a-fx]*)?\(%rsp\)/ ||
	/^[ \t]*str[ \t]+xzr,[ \t]*\[sp(,[ \t]*#?[0-9]+)?\]/ {
		n++
		if (sample == "") { sample = $0; gsub(/[ \t]+/, " ", sample); sub(/^ /, "", sample); sub(/ *(#|\/\/).*$/, "", sample) }
		next
	}
	/^[ \t]*(j[a-z]+|b\.[a-z]+|b)[ \t]+\.?L/ { t = $2; if (t in at && n > at[t]) loop = 1 }
	END { flush(); if (sample != "") printf "%s_sample=\047%s\047\n", pre, sample }
	' "$s" >"$dir/stack_clash-$name.count"
	. "$dir/stack_clash-$name.count"
}
sc_kernel_small=-1 sc_kernel_large=-1 sc_kernel_small_loop=0 sc_kernel_large_loop=0 sc_kernel_sample=
sc_on_small=-1 sc_on_large=-1 sc_on_small_loop=0 sc_on_large_loop=0 sc_on_sample=
sc kernel
sc on -fstack-clash-protection
scerr=
[ "$rc_kernel" = 0 ] || scerr=$(grep -m1 error "$dir/stack_clash-kernel.log" | sed 's|^.*/||')
[ "$rc_on" = 0 ] || [ -n "$scerr" ] || scerr=$(grep -m1 error "$dir/stack_clash-on.log" | sed 's|^.*/||')

# lto: the first four bytes of a module object: "BC\xc0\xde" is LLVM bitcode
magic() { od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' \n'; }
kind() {
	case $1 in
	4243c0de) echo bitcode ;;
	7f454c46) echo ELF ;;
	*) echo "unknown ($1)" ;;
	esac
}
core_kind=$(kind "$(magic "$core")")
# positive control (Clang): the same flags plus -flto must give bitcode
ltoctl=-1
if run_cc --version 2>/dev/null | grep -q clang; then
	ltoctl=0
	run_cc "${flags[@]}" -flto -c -o "$dir/lto-control.o" "$src/buildprobe/stack_clash.c" \
		-Wframe-larger-than=1048576 >"$dir/lto-control.log" 2>&1 &&
		[ "$(magic "$dir/lto-control.o")" = 4243c0de ] && ltoctl=1
fi
rm -f "$dir/lto-control.o"

# function_sections: the order of function_sections_split.o's .text.hp_fs_f<N> sections
fsorder=$("$objdump" -h "$fns" 2>/dev/null | awk '$2 ~ /^\.text\.hp_fs_f[0-9]$/ { printf "%s", substr($2, 14) }')

tmp=$out.tmp
{
	echo "/* SPDX-License-Identifier: GPL-2.0 */"
	echo "/* Generated by module/layout_build.sh during the module build: do not edit. */"
	echo "#define HP_LB_CC $(cstr "$ccver")"
	echo "#define HP_LB_FT_FLAG $(cstr "${ftflag% }")"
	for n in plain annotated control; do
		N=$(echo $n | tr a-z A-Z)
		echo "#define HP_LB_FT_${N}_RC $(eval echo "\$rc_$n")"
		echo "#define HP_LB_FT_${N}_N $(eval echo "\$n_$n")"
		echo "#define HP_LB_FT_${N}_MSG $(cstr "$(eval echo "\"\$msg_$n\"")")"
	done
	echo "#define HP_LB_SC_FLAG $(cstr "${scflag% }")"
	for n in kernel on; do
		N=$(echo $n | tr a-z A-Z)
		echo "#define HP_LB_SC_${N}_RC $(eval echo "\$rc_$n")"
		for f in small large; do
			F=$(echo $f | tr a-z A-Z)
			echo "#define HP_LB_SC_${N}_${F} $(eval echo "\$sc_${n}_$f")"
			echo "#define HP_LB_SC_${N}_${F}_LOOP $(eval echo "\$sc_${n}_${f}_loop")"
		done
		echo "#define HP_LB_SC_${N}_SAMPLE $(cstr "$(eval echo "\"\$sc_${n}_sample\"")")"
	done
	echo "#define HP_LB_SC_ERR $(cstr "$scerr")"
	echo "#define HP_LB_LTO_FLAGS $(cstr "$ltoflags")"
	echo "#define HP_LB_LTO_CORE $(cstr "$core_kind")"
	echo "#define HP_LB_LTO_CONTROL $ltoctl"
	echo "#define HP_LB_FS_ORDER $(cstr "$fsorder")"
} >"$tmp" && mv "$tmp" "$out"
