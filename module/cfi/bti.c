// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe bti: branch target identification (arm64), the forward edge of
 * the CPU's control-flow integrity.
 *
 * bti.mid_function (fatal): blr to the second instruction of a function,
 * past its "bti c": "Oops - BTI"; without BTI it returns sanely.
 *
 * hp_bti_target's code is checked at run time, and a legal blr to its entry
 * must first return 0x5a (both blr come from inline asm: no kCFI check). A
 * return of 0x5a from the second instruction is vulnerable. built counts
 * "bti c", "bti j" and "bti jc" in the module text and how many probe
 * functions (all address-taken) start on a landing pad (clang-22 elides
 * "bti c" in static functions whose address is not taken); active gives the
 * CPU's BTI, system_supports_bti() with ARM64_BTI_KERNEL and SCTLR_EL1.BT1.
 * ARM64_BTI_KERNEL depends on !CC_IS_GCC; arm64.nobti on the command line
 * counts as not configured.
 *
 * Off arm64 the probe says "arm64 only".
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#ifdef CONFIG_ARM64
#include <asm/cpufeature.h>
#include <asm/sysreg.h>
#endif

#include "../arch/arm64.h"
#include "../hardprobe.h"

#ifdef CONFIG_ARM64
#define HP_BTI_SIG	"Oops - BTI"

/*
 * a leaf that returns 0x5a: "bti c; mov w0, #0x5a; ret" (address taken
 * below; notrace: no ftrace patch site at its entry, as on a distro kernel)
 */
static noinline notrace int hp_bti_target(void)
{
	return 0x5a;
}

static int (*hp_bti_target_ptr)(void) = hp_bti_target;

static void hp_bti_layers(struct hp_layers *l)
{
	bool off = hp_cmdline_word("arm64.nobti");
	unsigned int i, n = 0, pads = 0;
	struct hp_a64_count c;

	l->configured = IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) && !off;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_ARM64_BTI_KERNEL=%s%s",
		 IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) ? "y" : "n",
		 off ? ", arm64.nobti on the command line" : "");
	hp_a64_module_text(&c);
	/* every probe function is address-taken: each needs a landing pad */
	for (i = 0; i < hardprobe_probe_count(); i++) {
		const struct hp_probe *p = hardprobe_probe_at(i);

		n++;
		pads += hp_a64_landing(READ_ONCE(*(const u32 *)p->run));
	}
	hp_layer(l->built, sizeof(l->built),
		 "module flags: %s; %u bti c, %u bti j, %u bti jc in module text; %u of %u probe functions start on a landing pad",
		 HP_FLAG_BRANCH[0] ? HP_FLAG_BRANCH : "no -mbranch-protection",
		 c.bti_c, c.bti_j, c.bti_jc, pads, n);
	hp_layer(l->active, sizeof(l->active),
		 "CPU BTI %s; kernel BTI (ARM64_BTI_KERNEL && system_supports_bti())=%d; SCTLR_EL1.BT1=%d",
		 hp_arm64_cpu_bti() ? "yes" : "no",
		 IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) && system_supports_bti(),
		 !!(read_sysreg(sctlr_el1) & SCTLR_EL1_BT1));
}

/* blr to @addr outside C: no kCFI check (the target's hash is not ours to match) */
static int hp_bti_call(unsigned long addr)
{
	register unsigned long x0 asm("x0");
	register unsigned long x16 asm("x16") = addr;

	asm volatile("blr x16" : "=r" (x0) : "r" (x16) : "x30", "memory");
	return (int)x0;
}

/*
 * a ret within the next four instructions, with only hints before it: a
 * kernel built with -mbranch-protection=pac-ret+leaf (6.1) signs leaves too,
 * "mov w0, #0x5a; paciasp; autiasp; ret"
 */
static bool hp_bti_ret_follows(const u32 *insn)
{
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (insn[i] == HP_A64_RET)
			return true;
		if ((insn[i] & 0xfffff01f) != 0xd503201f)	/* HINT #n */
			return false;
	}
	return false;
}

static void hp_bti_mid_function(struct hp_result *r)
{
	unsigned long fn = (unsigned long)READ_ONCE(hp_bti_target_ptr);
	const u32 *insn = (const u32 *)fn;
	bool pad = hp_a64_landing(insn[0]);
	unsigned int i = pad;	/* the mov after the pad: a plain instruction */
	int ret;

	if (!hp_arm64_cpu_bti()) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no BTI (FEAT_BTI)");
		return;
	}
	if (insn[i] != HP_A64_MOV_5A || !hp_bti_ret_follows(insn + i + 1)) {
		hp_set(r, HP_ERROR,
		       "%pS is not \"[pad;] mov w0, #0x5a; [hints;] ret\": %08x %08x %08x",
		       insn, insn[0], insn[1], insn[2]);
		return;
	}
	if (!pad && IS_ENABLED(CONFIG_ARM64_BTI_KERNEL)) {
		hp_set(r, HP_ERROR, "%pS has no landing pad (%08x) in a BTI kernel",
		       insn, insn[0]);
		return;
	}
	/* the legal indirect call, at the entry */
	ret = hp_bti_call(fn);
	if (ret != 0x5a) {
		hp_set(r, HP_ERROR, "blr to %pS returned 0x%x", insn, ret);
		return;
	}
	pr_info("bti.mid_function: blr to %pS (%08x, not a landing pad)\n",
		insn + i, insn[i]);
	/* without BTI in force this returns 0x5a */
	ret = hp_bti_call(fn + 4 * i);
	hp_set(r, ret == 0x5a ? HP_VULNERABLE : HP_ERROR,
	       "survived: blr to %pS (%08x, not a landing pad; entry %08x) returned 0x%x",
	       insn + i, insn[i], insn[0], ret);
}
#else
#define HP_BTI_SIG	NULL

static void hp_bti_mid_function(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "arm64 only");
}

static void hp_bti_layers(struct hp_layers *l)
{
	hp_layers_unavailable(l, "CONFIG_ARM64_BTI_KERNEL", "arm64 only");
}
#endif

static const char *hp_bti_unavailable(void)
{
	if (!IS_ENABLED(CONFIG_ARM64))
		return "arm64 only";
	if (IS_ENABLED(CONFIG_CC_IS_GCC))
		return "ARM64_BTI_KERNEL depends on !CC_IS_GCC (GCC PR106671)";
	return NULL;
}

static const struct hp_probe hp_probes_bti[] = {
	HP_PROBE(bti, mid_function, IS_ENABLED(CONFIG_ARM64) ? HP_FATAL : HP_SAFE,
		 .signature = HP_BTI_SIG),
};

HP_FEATURE(bti, .layers = hp_bti_layers, .unavailable = hp_bti_unavailable,
	   .khc = "CONFIG_ARM64_BTI_KERNEL arm64.nobti@arm64",
	   .off = HP_ARM64(HP_LIST("arm64.nobti")));
