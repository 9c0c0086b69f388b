/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe compat: what differs between the kernels hardprobe builds
 * against (6.1 LTS to mainline), in one place. Where a header or a macro
 * tells, it is tested for itself (__has_include, #ifdef); a kernel version
 * is compared only where nothing else tells. The families include this
 * file instead of the header that moved; none of them tests a version.
 *
 * Kconfig symbols renamed between versions come from renames.h, which
 * scripts/kconfig-renames generates (HP_CONFIG_*, HP_SYM_*).
 */
#ifndef _HARDPROBE_COMPAT_H
#define _HARDPROBE_COMPAT_H

#include <linux/kconfig.h>
#include <linux/version.h>

/* snprintf() and friends: <linux/sprintf.h> since 6.6, <linux/kernel.h> before */
#if __has_include(<linux/sprintf.h>)
#include <linux/sprintf.h>
#else
#include <linux/kernel.h>
#endif

/* get_unaligned(): <linux/unaligned.h> since 6.12, <asm/unaligned.h> before */
#if __has_include(<linux/unaligned.h>)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * arm64: asm/compiler.h's __builtin_return_address() (PAC bits cleared) uses
 * GENMASK_ULL() and vabits_actual, whose headers 6.1's does not include
 */
#ifdef CONFIG_ARM64
#include <linux/bits.h>
#include <asm/memory.h>
#include <asm/sysreg.h>

/* the PAN register (op0 3, op1 0, CRn 4, CRm 2, op2 3): not named in 6.1's sysreg.h */
#ifndef SYS_PSTATE_PAN
#define SYS_PSTATE_PAN		sys_reg(3, 0, 4, 2, 3)
#endif
#endif

/*
 * A slab cache that is never merged with another: SLAB_NO_MERGE since 6.5;
 * before, SLAB_NOLEAKTRACE is one of the flags that forbid merging
 * (SLAB_NEVER_MERGE) and changes nothing else a probe looks at (kmemleak
 * does not track the cache's objects).
 */
#ifdef SLAB_NO_MERGE
#define HP_SLAB_NO_MERGE	SLAB_NO_MERGE
#else
#define HP_SLAB_NO_MERGE	SLAB_NOLEAKTRACE
#endif

/*
 * A slab cache that slub_debug= leaves alone: SLAB_NO_USER_FLAGS (6.1 on,
 * the flag of the boot caches) keeps the command line's debug flags, which
 * change the cache's layout and forbid merging, off the cache.
 */
#ifdef SLAB_NO_USER_FLAGS
#define HP_SLAB_NO_DEBUG	SLAB_NO_USER_FLAGS
#else
#define HP_SLAB_NO_DEBUG	0
#endif

/*
 * A function that makes an indirect call without a kCFI check on purpose
 * (the controls built without the CFI flags): 7.x's objtool warns "no-cfi
 * indirect call!" for each such call unless the function is annotated, as
 * LKDTM annotates execute_location() (7.1 has the check and the annotation,
 * in <linux/annotate.h>; 6.12 has neither). The annotation only silences
 * objtool: the code is the same.
 */
#if __has_include(<linux/annotate.h>)
#include <linux/annotate.h>
#endif
#ifdef ANNOTATE_NOCFI_SYM
#define HP_ANNOTATE_NOCFI_SYM(sym)	ANNOTATE_NOCFI_SYM(sym)
#else
#define HP_ANNOTATE_NOCFI_SYM(sym)
#endif

/*
 * arm64 PAN: built by CONFIG_ARM64_PAN on 6.12 and before; 7.1 has no such
 * option and always builds it (hardware PAN used wherever the CPU has it).
 * The kernels between are not checked here: on them only the option counts.
 */
#if defined(CONFIG_ARM64) && LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0)
#define HP_PAN_BUILT		true
#define HP_PAN_SYM		"PAN (always built on 7.1, no Kconfig option)"
#define HP_PAN_TXT		"PAN always built (no Kconfig option on 7.1)"
#else
#define HP_PAN_BUILT		IS_ENABLED(CONFIG_ARM64_PAN)
#define HP_PAN_SYM		"CONFIG_ARM64_PAN"
#define HP_PAN_TXT		(HP_PAN_BUILT ? "CONFIG_ARM64_PAN=y" : "CONFIG_ARM64_PAN=n")
#endif

/* hex_asc (rodata): in <linux/hex.h>, which <linux/kernel.h> no longer includes after 6.12 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#include <linux/hex.h>
#endif

/*
 * __get_task_comm(): an exported function that reads task->comm with
 * vmlinux's own layout. After 6.12 get_task_comm() is a macro expanded in the
 * caller (the module's layout) and __get_task_comm() is gone; from 6.13 on,
 * only the pid and tgid readers (__task_pid_nr_ns()) remain exported.
 */
#define HP_HAVE_GET_TASK_COMM_FN	(LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0))
#if HP_HAVE_GET_TASK_COMM_FN
#define HP_VMLINUX_READERS	"__task_pid_nr_ns/__get_task_comm"
#else
#define HP_VMLINUX_READERS	"__task_pid_nr_ns (no exported comm reader after 6.12)"
#endif

/* SLUB's debugging switch: slub_debug=, also spelled slab_debug= from 6.8 on */
#define HP_HAVE_SLAB_DEBUG_PARAM	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0))

/*
 * kasan.fault=panic_on_write: "kasan: add support for kasan.fault=
 * panic_on_write" (6.5); 6.1 rejects the word and keeps what it had.
 * kfence.fault= (report, oops, panic): "kfence: add kfence.fault parameter"
 * (2026); neither 6.1 nor 6.12 has it. Kernels past 6.12 are taken to have
 * it: a word that might panic counts as one that does.
 */
#define HP_HAVE_KASAN_PANIC_ON_WRITE	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0))
#define HP_HAVE_KFENCE_FAULT		(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0))

/*
 * __counted_by_ptr(): the bound of a pointer member (7.0, include/linux/
 * compiler_types.h); before 7.0 the kernel has none: empty, as 7.0 defines it
 * for a compiler that cannot bound a pointer
 */
#ifndef __counted_by_ptr
#define __counted_by_ptr(member)
#endif

/* CONFIG_SLAB_BUCKETS (kmem_buckets, memdup_user()'s own caches) came in 6.11 */
#define HP_HAVE_SLAB_BUCKETS		(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0))

/*
 * pti= and nopti: early_param()s in 6.12 (the last word wins, nopti is
 * pti=off); 6.1 reads them with x86's cmdline_find_option() (pti= first,
 * then nopti). The change lies between; taken at 6.12.
 */
#define HP_PTI_EARLY_PARAMS		(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))

/* seq_buf_puts() and seq_buf_putc(): exported from 6.8 on */
#include <linux/seq_buf.h>

static inline void hp_seq_buf_puts(struct seq_buf *s, const char *str)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	seq_buf_puts(s, str);
#else
	seq_buf_printf(s, "%s", str);
#endif
}

static inline void hp_seq_buf_putc(struct seq_buf *s, unsigned char c)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	seq_buf_putc(s, c);
#else
	seq_buf_printf(s, "%c", c);
#endif
}

/*
 * The module's own memory: struct module_memory (THIS_MODULE->mem[]) since
 * 6.4, one struct module_layout (core_layout: text, rodata, ro_after_init,
 * data, in that order) before. hp_mod_region() gives one region's bounds.
 */
enum hp_mod_region { HP_MOD_TEXT, HP_MOD_RODATA, HP_MOD_RO_AFTER_INIT, HP_MOD_DATA };

#ifdef MODULE
#include <linux/module.h>

static inline void hp_mod_region(enum hp_mod_region r, unsigned long *base,
				 unsigned long *size)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	static const enum mod_mem_type type[] = {
		[HP_MOD_TEXT] = MOD_TEXT, [HP_MOD_RODATA] = MOD_RODATA,
		[HP_MOD_RO_AFTER_INIT] = MOD_RO_AFTER_INIT, [HP_MOD_DATA] = MOD_DATA,
	};
	const struct module_memory *m = &THIS_MODULE->mem[type[r]];

	*base = (unsigned long)m->base;
	*size = m->size;
#else
	const struct module_layout *l = &THIS_MODULE->core_layout;
	const unsigned int ends[] = {
		[HP_MOD_TEXT] = l->text_size, [HP_MOD_RODATA] = l->ro_size,
		[HP_MOD_RO_AFTER_INIT] = l->ro_after_init_size, [HP_MOD_DATA] = l->size,
	};
	unsigned int start = r == HP_MOD_TEXT ? 0 : ends[r - 1];

	*base = (unsigned long)l->base + start;
	*size = ends[r] - start;
#endif
}
#endif /* MODULE */

/*
 * FORTIFY_SOURCE's failure report: from 6.9 the fortify_panic(func, write,
 * avail, size, retfail) macro, which names the sizes, and which a caller may
 * redefine to count and return (HP_FORTIFY_HOOK: module/fortify/Makefile
 * looks for it); before, a __noreturn fortify_panic(name), which prints the
 * function's name only.
 */
#ifdef HP_FORTIFY_HOOK
#define HP_HAVE_FORTIFY_HOOK	true
#define HP_FORTIFY_SIG(fn, write, avail) \
	fn ": detected buffer overflow: " #write " byte write of buffer size " #avail
#else
#define HP_HAVE_FORTIFY_HOOK	false
#define HP_FORTIFY_SIG(fn, write, avail)	"detected buffer overflow in " fn
#endif

/*
 * Kconfig symbols renamed between the kernels hardprobe builds against:
 * HP_CONFIG_* (either name) and HP_SYM_* (this kernel's name), generated
 * from scripts/kconfig-renames.
 */
#include "renames.h"

/* the kernel the module is built for, as evidence texts name it: "6.1", "6.12" */
#define HP_KVER_STR		__stringify(LINUX_VERSION_MAJOR) "." \
				__stringify(LINUX_VERSION_PATCHLEVEL)
/*
 * 6.15's CONFIG_UBSAN_INTEGER_WRAP (the renamed UBSAN_SIGNED_WRAP) also adds
 * -fsanitize=unsigned-integer-overflow and both implicit-integer-truncation
 * checks to the kernel's flags, for size_t only (scripts/integer-wrap-ignore.scl),
 * and lib/ubsan.c gained __ubsan_handle_implicit_conversion; before, no option
 * adds either flag.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
#define HP_WRAP_SIZE_T		1
#define HP_SYM_UNSIGNED_WRAP	"CONFIG_UBSAN_INTEGER_WRAP (size_t only)"
#define HP_SYM_TRUNCATION	"CONFIG_UBSAN_INTEGER_WRAP (size_t only)"
#else
#define HP_WRAP_SIZE_T		0
#define HP_SYM_UNSIGNED_WRAP	"-fsanitize=unsigned-integer-overflow (no option before 6.15)"
#define HP_SYM_TRUNCATION	"-fsanitize=implicit-conversion (no option before 6.15)"
#endif
/* what the signed-wrap sanitizer's option is on this kernel */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define HP_WRAP_NOTE		HP_KVER_STR ": depends on BROKEN"
#else
#define HP_WRAP_NOTE		"not in " HP_KVER_STR ": added in 6.9"
#endif
/*
 * Stack erasing on a compiler other than GCC: why it cannot be built (NULL:
 * it can). Up to 6.16 only the GCC plugin builds it; from 6.17 also a
 * compiler with the stack-depth callback (Clang 21 or later), which the
 * kernel's own Kconfig tests.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define HP_ERASE_NO_CC		(IS_ENABLED(CONFIG_CC_HAS_SANCOV_STACK_DEPTH_CALLBACK) ? NULL : \
	"the compiler has no stack-depth callback " \
	"(CONFIG_CC_HAS_SANCOV_STACK_DEPTH_CALLBACK=n; Clang 21 or later has it)")
#else
#define HP_ERASE_NO_CC		HP_KVER_STR " erases the stack only with the GCC plugin"
#endif
/* the x86 return-thunk mitigations' registry symbols (retbleed, srso, its) */
#ifdef CONFIG_X86_64
#define HP_SYM_RETBLEED		HP_SYM_UNRET " or " HP_SYM_CALL_DEPTH
#define HP_SYM_SRSO_ARCH	HP_SYM_SRSO
#define HP_SYM_ITS		"CONFIG_MITIGATION_ITS"
#else
#define HP_SYM_RETBLEED		"none (an x86 return-thunk mitigation)"
#define HP_SYM_SRSO_ARCH	"none (an x86 return-thunk mitigation)"
#define HP_SYM_ITS		"none (an x86 return-thunk mitigation)"
#endif
/* 6.16 renamed rdmsrl() to rdmsrq() */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define hp_rdmsr(msr, v)	rdmsrq(msr, v)
#define hp_rdmsr_safe(msr, p)	rdmsrq_safe(msr, p)
#else
#define hp_rdmsr(msr, v)	rdmsrl(msr, v)
#define hp_rdmsr_safe(msr, p)	rdmsrl_safe(msr, p)
#endif
/*
 * the VERW buffer-clearing mitigations (mds, taa, mmio_stale_data, rfds, tsa):
 * 6.12 gave MDS, TAA and MMIO options of their own; before, they were built
 * with Intel support (CPU_SUP_INTEL). RFDS and TSA have theirs in 6.1 too.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define HP_CONFIG_MDS		IS_ENABLED(CONFIG_MITIGATION_MDS)
#define HP_CONFIG_TAA		IS_ENABLED(CONFIG_MITIGATION_TAA)
#define HP_CONFIG_MMIO		IS_ENABLED(CONFIG_MITIGATION_MMIO_STALE_DATA)
#define HP_SYM_VERW_INTEL(opt)	opt
#else
#define HP_CONFIG_MDS		IS_ENABLED(CONFIG_CPU_SUP_INTEL)
#define HP_CONFIG_TAA		IS_ENABLED(CONFIG_CPU_SUP_INTEL)
#define HP_CONFIG_MMIO		IS_ENABLED(CONFIG_CPU_SUP_INTEL)
#define HP_SYM_VERW_INTEL(opt)	"CONFIG_CPU_SUP_INTEL (no " opt " before 6.12)"
#endif
#ifdef CONFIG_X86_64
#define HP_SYM_MDS		HP_SYM_VERW_INTEL("CONFIG_MITIGATION_MDS")
#define HP_SYM_TAA		HP_SYM_VERW_INTEL("CONFIG_MITIGATION_TAA")
#define HP_SYM_MMIO		HP_SYM_VERW_INTEL("CONFIG_MITIGATION_MMIO_STALE_DATA")
#define HP_SYM_RFDS		"CONFIG_MITIGATION_RFDS"
#define HP_SYM_TSA		"CONFIG_MITIGATION_TSA"
#define HP_SYM_BHI		"CONFIG_MITIGATION_SPECTRE_BHI"
#else
#define HP_SYM_MDS		"none (an x86 mitigation)"
#define HP_SYM_TAA		"none (an x86 mitigation)"
#define HP_SYM_MMIO		"none (an x86 mitigation)"
#define HP_SYM_RFDS		"none (an x86 mitigation)"
#define HP_SYM_TSA		"none (an x86 mitigation)"
#define HP_SYM_BHI		"none (an x86 mitigation)"
#endif
/* pti's registry symbol: both architectures' options (the x86 one renamed in 6.9) */
#define HP_SYM_PTI		HP_SYM_PTI_X86 " (x86_64), CONFIG_UNMAP_KERNEL_AT_EL0 (arm64)"

/*
 * The CFI mode line: "Using FineIBT CFI" up to 6.12; after, "Using %sFineIBT%s CFI",
 * with "paranoid " before and "+BHI" after as the boot asks. Both tails, any prefix.
 */
#define HP_LOG_FINEIBT		"FineIBT CFI"
#define HP_LOG_FINEIBT_BHI	"FineIBT+BHI CFI"

/*
 * KUnit's generate_params() takes the test first after 6.12 ("kunit: Pass
 * parameterized test context to generate_params()"). A user defines both
 * gen(prev, desc) and gen_test(test, prev, desc); the type of the field picks
 * one, so no version number is guessed. Only the type is looked at: the
 * expression is never evaluated.
 */
#define HP_KUNIT_GEN_TAKES_TEST						\
	__builtin_types_compatible_p(					\
		typeof(((struct kunit_case *)NULL)->generate_params),	\
		const void *(*)(struct kunit *, const void *, char *))
#define HP_KUNIT_GEN(gen)						\
	__builtin_choose_expr(HP_KUNIT_GEN_TAKES_TEST, gen##_test, gen)

/*
 * 6.12 passes a kmsg dumper a struct kmsg_dump_detail (the reason and a
 * description) where it passed the reason alone.
 */
#define HP_KMSG_DUMP_DETAIL	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))

#endif /* _HARDPROBE_COMPAT_H */
