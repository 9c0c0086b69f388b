// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kcfi: indirect calls through an int (*)(int) pointer to targets
 * of another prototype (entirely different, another return type, another
 * argument count, another argument type). kCFI traps them ("CFI failure at
 * ... (target: ...)"), which oopses the caller unless CONFIG_CFI_PERMISSIVE
 * turns the trap into a warning. Before each, legal indirect calls inside
 * the module, into the kernel and from the kernel back into the module must
 * pass (the module's type hashes agree with the kernel's); the positive
 * control makes the same bad call from an object built without kCFI.
 *
 * kcfi.mismatch calls a long (*)(long, long), kcfi.return_type a
 * void (*)(int), kcfi.arg_count an int (*)(int, int), kcfi.arg_type an
 * int (*)(long). The legal calls are one inside the module, one into
 * kstrtoint() and sort()'s calls of a module comparator. The control
 * (kcfi_unchecked_call.c) must reach the target. On GCC kernels the feature
 * is not configured: GCC has no kCFI.
 *
 * ibt (x86_64): an indirect call to hp_ibt_target+4, just past its endbr64
 * (a valid instruction boundary, since endbr64 is 4 bytes), made from the
 * object without kCFI so that only IBT can stop it: "Missing ENDBR" (#CP),
 * which oopses the caller unless ibt=warn (a warning then: .warns). A
 * legal call to the function comes first. Needs a CPU with IBT and CR4.CET
 * set: otherwise "unsupported" (QEMU TCG does not emulate CET). Under
 * ibt=warn the "Missing ENDBR: hp_ibt_target+0x4/..." line after the
 * probe's marker makes it protected; a survived call that ran the body is
 * vulnerable. built counts endbr64 (f3 0f 1e fa) at the entries of six
 * address-taken functions of the module (objtool seals, at load, the ENDBR
 * of functions whose address is never taken, so those are not counted).
 * Off x86_64: unsupported (BTI is arm64's own feature).
 */
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/printk.h>
#include <linux/sort.h>

#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/processor-flags.h>
#include <asm/special_insns.h>
#endif

#include "../arch/x86.h"
#include "cfi.h"
#include "../hardprobe.h"

#define HP_CFI_KIND (IS_ENABLED(CONFIG_CFI_PERMISSIVE) ? HP_SAFE : HP_FATAL)
/*
 * Each probe makes one mismatched call. Permissive, the kernel's handler
 * (report_cfi_failure(), from x86's #UD and arm64's BRK) __warn()s and
 * goes on: one warning. Otherwise the catch is an oops, no warning.
 */
#define HP_CFI_WARNS (IS_ENABLED(CONFIG_CFI_PERMISSIVE) ? 1 : 0)

/* a catch names the probe's own target, so no other CFI failure counts */
#define HP_CFI_SIG_LONG2	"(target: hp_cfi_t_long2+"
#define HP_CFI_SIG_VOID		"(target: hp_cfi_t_void+"
#define HP_CFI_SIG_ARGC		"(target: hp_cfi_t_argc+"
#define HP_CFI_SIG_ARGTYPE	"(target: hp_cfi_t_argtype+"
#define HP_IBT_SIG		"Missing ENDBR: hp_ibt_target+0x4/"

static int hp_cfi_hit;

static noinline int hp_cfi_int_target(int x)
{
	return x + 1;
}

/* The wrong prototypes. Each records that it was reached. */
static noinline long hp_cfi_t_long2(long a, long b)
{
	WRITE_ONCE(hp_cfi_hit, 0x5a00 + (a & 0xff));
	return READ_ONCE(hp_cfi_hit);
}

static noinline void hp_cfi_t_void(int x)
{
	WRITE_ONCE(hp_cfi_hit, 0x5a00 + (x & 0xff));
}

static noinline int hp_cfi_t_argc(int x, int y)
{
	WRITE_ONCE(hp_cfi_hit, 0x5a00 + (x & 0xff));
	return READ_ONCE(hp_cfi_hit);
}

static noinline int hp_cfi_t_argtype(long x)
{
	WRITE_ONCE(hp_cfi_hit, 0x5a00 + (int)(x & 0xff));
	return READ_ONCE(hp_cfi_hit);
}

#ifdef CONFIG_X86_64
/* ibt: called at +4, past its endbr64 */
static noinline int hp_ibt_target(int x)
{
	WRITE_ONCE(hp_cfi_hit, 0x5a00 + (x & 0xff));
	return READ_ONCE(hp_cfi_hit);
}
#endif

static int hp_cfi_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Every call goes through a local pointer the compiler cannot see through
 * (OPTIMIZER_HIDE_VAR), never a shared one: a legal call of one run must
 * not go through the bad pointer another run stored. (A fatal probe also
 * runs alone: hp_lock_exclusive() in the core.)
 */
static atomic_t hp_cfi_seq = ATOMIC_INIT(0);

/* Legal indirect calls must pass: in the module, module to kernel, kernel to module. */
static bool hp_cfi_legal(struct hp_result *r)
{
	int (*to_kernel)(const char *s, unsigned int base, int *res) = kstrtoint;
	hp_cfi_int_fn fn = hp_cfi_int_target;
	int v[4] = { 3, 1, 4, 2 }, n = 0;

	OPTIMIZER_HIDE_VAR(fn);
	if (fn(41) != 42) {
		hp_set(r, HP_ERROR, "a matched-prototype call went wrong");
		return false;
	}
	OPTIMIZER_HIDE_VAR(to_kernel);
	if (to_kernel("42", 10, &n) || n != 42) {
		hp_set(r, HP_ERROR, "an indirect call into the kernel (kstrtoint) went wrong");
		return false;
	}
	sort(v, ARRAY_SIZE(v), sizeof(v[0]), hp_cfi_cmp, NULL);
	if (v[0] != 1 || v[3] != 4) {
		hp_set(r, HP_ERROR, "sort()'s indirect calls into the module went wrong");
		return false;
	}
	return true;
}

static void hp_cfi_run(struct hp_result *r, void *target, const char *proto,
		       const char *sig)
{
	hp_cfi_int_fn fn = (hp_cfi_int_fn)target;
	char marker[48], line[HP_EVIDENCE_LEN - 32];

	if (!hp_cfi_legal(r))
		return;
	/* positive control: the same mismatched call without CFI checks */
	WRITE_ONCE(hp_cfi_hit, 0);
	OPTIMIZER_HIDE_VAR(fn);
	hp_cfi_call_unchecked(fn, 0x11);
	if (READ_ONCE(hp_cfi_hit) != 0x5a11) {
		hp_set(r, HP_INCONCLUSIVE, "control: the unchecked call did not reach %s",
		       proto);
		return;
	}
	WRITE_ONCE(hp_cfi_hit, 0);
	snprintf(marker, sizeof(marker), "kcfi call [%d]", atomic_inc_return(&hp_cfi_seq));
	pr_info("%s: int (*)(int) -> %s\n", marker, proto);
	fn(0x22);

	/* still here: permissive mode warned (and made the call), or nothing checked it */
	if (hp_log_find(marker, sig, line, sizeof(line))) {
		r->went_on = IS_ENABLED(CONFIG_CFI_PERMISSIVE);
		hp_set(r, r->went_on ? HP_PROTECTED : HP_ERROR, "%s%s",
		       r->went_on ? "detected, not stopped: " : "", line);
		return;
	}
	hp_set(r, READ_ONCE(hp_cfi_hit) == 0x5a22 ? HP_VULNERABLE : HP_ERROR,
	       "call through int (*)(int) %s %s; legal calls in, out of and into the module ok; control reached it too",
	       READ_ONCE(hp_cfi_hit) == 0x5a22 ? "reached" : "did not reach", proto);
}

static void hp_kcfi_mismatch(struct hp_result *r)
{
	hp_cfi_run(r, hp_cfi_t_long2, "long (*)(long, long)", HP_CFI_SIG_LONG2);
}

static void hp_kcfi_return_type(struct hp_result *r)
{
	hp_cfi_run(r, hp_cfi_t_void, "void (*)(int)", HP_CFI_SIG_VOID);
}

static void hp_kcfi_arg_count(struct hp_result *r)
{
	hp_cfi_run(r, hp_cfi_t_argc, "int (*)(int, int)", HP_CFI_SIG_ARGC);
}

static void hp_kcfi_arg_type(struct hp_result *r)
{
	hp_cfi_run(r, hp_cfi_t_argtype, "int (*)(long)", HP_CFI_SIG_ARGTYPE);
}

static const char *hp_cfi_unavailable(void)
{
	if (IS_ENABLED(CONFIG_CC_IS_GCC))
		return "GCC has no kCFI";
	if (!HP_CONFIG_ARCH_CFI)
		return "the architecture has no kCFI";
	return NULL;
}

static void hp_cfi_layers(struct hp_layers *l)
{
	char line[HP_LAYER_LEN];

	l->configured = HP_CONFIG_CFI;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 HP_SYM_CFI "=%s%s", l->configured ? "y" : "n",
		 IS_ENABLED(CONFIG_CFI_PERMISSIVE) ? ", CONFIG_CFI_PERMISSIVE=y" : "");
	hp_built_flags(l, HP_FLAG_CFI, "no -fsanitize=kcfi");
	if (!l->configured)
		hp_layer(l->active, sizeof(l->active), "off (not built)");
	else if (IS_ENABLED(CONFIG_ARM64))
		hp_layer(l->active, sizeof(l->active), "kCFI (the only arm64 mode)");
	else if (hp_log_find(NULL, "Using kCFI", line, sizeof(line)) ||
		 hp_log_find(NULL, HP_LOG_FINEIBT, line, sizeof(line)) ||
		 hp_log_find(NULL, HP_LOG_FINEIBT_BHI, line, sizeof(line)) ||
		 hp_log_find(NULL, "Disabling CFI", line, sizeof(line)))
		hp_layer(l->active, sizeof(l->active), "boot log: %s", line);
	else
		hp_layer(l->active, sizeof(l->active),
			 "unknown: no CFI mode line left in the log");
}

#ifdef CONFIG_X86_64
static void hp_ibt_past_endbr(struct hp_result *r)
{
	const u8 *entry = (const u8 *)hp_ibt_target;
	hp_cfi_int_fn fn = hp_ibt_target;
	unsigned int past = 4;
	char marker[48], line[HP_EVIDENCE_LEN - 32];

	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && !hp_x86_ibt_active()) {
		hp_set(r, HP_UNSUPPORTED,
		       "the CPU does not enforce IBT here: X86_FEATURE_IBT=%d, CR4.CET=%d%s",
		       boot_cpu_has(X86_FEATURE_IBT), !!(hp_x86_cr4() & X86_CR4_CET),
		       boot_cpu_has(X86_FEATURE_HYPERVISOR) ?
		       " (under a hypervisor; QEMU TCG does not emulate CET)" : "");
		return;
	}
	/*
	 * reads of the entry's bytes through a register too: a read at a
	 * constant hp_ibt_target+4 is a relocation to a non-ENDBR address,
	 * which objtool warns about (seen with ThinLTO)
	 */
	OPTIMIZER_HIDE_VAR(entry);
	/*
	 * endbr64 and FineIBT's poison are 4 bytes long, so +4 starts an
	 * instruction. Without IBT built in, a traced function starts with
	 * ftrace's 5-byte nop instead, and +5 starts the body: the same bug,
	 * an indirect call past the function's entry, with no landing pad to
	 * miss. Any other first bytes leave no known instruction boundary.
	 */
	if (memcmp(entry, hp_x86_endbr64, sizeof(hp_x86_endbr64)) &&
	    memcmp(entry, hp_x86_endbr_poison, sizeof(hp_x86_endbr_poison))) {
		if (hp_x86_ibt_active()) {
			hp_set(r, HP_ERROR,
			       "hp_ibt_target starts with neither endbr64 nor FineIBT's poison (%4ph)",
			       entry);
			return;
		}
		if (memcmp(entry, hp_x86_nop5, sizeof(hp_x86_nop5))) {
			hp_set(r, HP_UNSUPPORTED,
			       "hp_ibt_target starts with %5ph: no endbr64 (IBT not built) and no ftrace nop, so no known instruction start past its entry",
			       entry);
			return;
		}
		past = sizeof(hp_x86_nop5);
	}
	/* the legal call, kCFI-checked where there is kCFI */
	OPTIMIZER_HIDE_VAR(fn);
	if (fn(0x11) != 0x5a11) {
		hp_set(r, HP_ERROR, "the legal call to hp_ibt_target went wrong");
		return;
	}
	WRITE_ONCE(hp_cfi_hit, 0);
	snprintf(marker, sizeof(marker), "ibt call [%d]", atomic_inc_return(&hp_cfi_seq));
	pr_info("%s: indirect call to hp_ibt_target+%u\n", marker, past);
	/*
	 * the bug: a call past the landing pad, from code without kCFI (the
	 * address is hidden from the compiler so that objtool does not see a
	 * relocation to a non-ENDBR address: that is the point here)
	 */
	OPTIMIZER_HIDE_VAR(entry);
	hp_cfi_call_unchecked((hp_cfi_int_fn)(entry + past), 0x22);

	/* still here: ibt=warn (the call went on), or nothing checked it */
	if (hp_log_find(marker, HP_IBT_SIG, line, sizeof(line))) {
		r->went_on = true;
		hp_set(r, HP_PROTECTED, "detected, not stopped: %s", line);
		return;
	}
	hp_set(r, READ_ONCE(hp_cfi_hit) == 0x5a22 ? HP_VULNERABLE : HP_ERROR,
	       "survived: the call to hp_ibt_target+%u (past %s) %s; IBT %s", past,
	       past == 4 ? "endbr64" : "ftrace's nop: no endbr64",
	       READ_ONCE(hp_cfi_hit) == 0x5a22 ? "ran the body" : "did not run the body",
	       hp_x86_ibt_active() ? "active" : "not built");
}

static void hp_ibt_layers(struct hp_layers *l)
{
	static const void *const fns[] = {
		hp_cfi_int_target, hp_cfi_t_long2, hp_cfi_t_void, hp_cfi_t_argc,
		hp_cfi_t_argtype, hp_ibt_target,
	};
	unsigned int i, endbr = 0;

	for (i = 0; i < ARRAY_SIZE(fns); i++)
		endbr += !memcmp(fns[i], hp_x86_endbr64, sizeof(hp_x86_endbr64));
	l->configured = IS_ENABLED(CONFIG_X86_KERNEL_IBT);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_X86_KERNEL_IBT=%s", l->configured ? "y" : "n");
	hp_layer(l->built, sizeof(l->built),
		 "module flags: %s; endbr64 at %u/%zu address-taken function entries",
		 HP_FLAG_IBT[0] ? HP_FLAG_IBT : "no -fcf-protection", endbr,
		 ARRAY_SIZE(fns));
	hp_layer(l->active, sizeof(l->active), "X86_FEATURE_IBT=%d, CR4.CET=%d",
		 cpu_feature_enabled(X86_FEATURE_IBT), !!(hp_x86_cr4() & X86_CR4_CET));
}
#else
static void hp_ibt_past_endbr(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "x86_64 only");
}

static void hp_ibt_layers(struct hp_layers *l)
{
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "x86_64 only");
	hp_layer(l->built, sizeof(l->built), "n/a");
	hp_layer(l->active, sizeof(l->active), "n/a");
}
#endif

static const char *hp_ibt_unavailable(void)
{
	return IS_ENABLED(CONFIG_X86_64) ? NULL : "x86_64 only";
}

static const struct hp_probe hp_probes_kcfi[] = {
	HP_PROBE(kcfi, mismatch, HP_CFI_KIND, .signature = HP_CFI_SIG_LONG2,
		 .warns = HP_CFI_WARNS, .reports = "CFI failure"),
	/*
	 * LKDTM's CFI_FORWARD_PROTO calls int (*)(int *) through void (*)(int
	 * *): a return-type mismatch.
	 */
	HP_PROBE(kcfi, return_type, HP_CFI_KIND, .signature = HP_CFI_SIG_VOID,
		 .warns = HP_CFI_WARNS, .reports = "CFI failure",
		 .lkdtm = HP_LIST("CFI_FORWARD_PROTO")),
	HP_PROBE(kcfi, arg_count, HP_CFI_KIND, .signature = HP_CFI_SIG_ARGC,
		 .warns = HP_CFI_WARNS, .reports = "CFI failure"),
	HP_PROBE(kcfi, arg_type, HP_CFI_KIND, .signature = HP_CFI_SIG_ARGTYPE,
		 .warns = HP_CFI_WARNS, .reports = "CFI failure"),
};

/*
 * kernel-hardening-checker: CONFIG_CFI (v6.18's name for CONFIG_CFI_CLANG)
 * joins through scripts/kconfig-renames; CONFIG_CFI_AUTO_DEFAULT is not
 * verified: the probes do not tell kCFI from FineIBT.
 */
HP_FEATURE(kcfi, .layers = hp_cfi_layers, .unavailable = hp_cfi_unavailable,
	   .khc = "CONFIG_CFI_CLANG CONFIG_CFI_PERMISSIVE cfi",
	   .off = HP_X86_64(HP_LIST("cfi=off")));

static const struct hp_probe hp_probes_ibt[] = {
	HP_PROBE(ibt, past_endbr, HP_FATAL, .signature = HP_IBT_SIG, .warns = 1),
};

HP_FEATURE(ibt, .layers = hp_ibt_layers, .unavailable = hp_ibt_unavailable,
	   .khc = "CONFIG_X86_KERNEL_IBT");
