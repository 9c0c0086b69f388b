// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe arm64: pointer authentication of return addresses (pac_ret),
 * branch target identification (bti) and the evidence layers of the shadow
 * call stack. Built only on arm64; the feature records are in backward.c.
 *
 * pac_ret.signed_lr (safe): the return address saved in a frame record
 *   differs from the raw one only by its PAC bits.
 * pac_ret.corrupt (fatal): the return-address overwrite of backward.c on
 *   the victim built without the shadow call stack, with one PAC bit of the
 *   new address flipped (LKDTM CORRUPT_PAC changes the keys instead): autiasp
 *   fails, "Oops - FPAC" with FEAT_FPAC, else a fault on the poisoned,
 *   non-canonical address at ret. With PAC off the address is written raw
 *   and the victim "returns" to the label: vulnerable.
 * pac_ret.scs_entry (fatal): the overwrite with the victim's shadow call stack
 *   entry rewritten to an unsigned address: does PAC cover the entry the
 *   return takes? (GCC: yes, clang: no; see hp_a64_scs_order()).
 * bti.mid_function (fatal): blr to the second instruction of a function,
 *   past its "bti c": "Oops - BTI"; without BTI it returns sanely.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/scs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/memory.h>
#include <asm/sysreg.h>

#include "../backward/backward.h"
#include "../hardprobe.h"

/* A64 encodings counted in the module's own code */
#define HP_A64_PACIASP	0xd503233fU
#define HP_A64_AUTIASP	0xd50323bfU
#define HP_A64_BTI_C	0xd503245fU
#define HP_A64_BTI_J	0xd503249fU
#define HP_A64_BTI_JC	0xd50324dfU
#define HP_A64_SCS_PUSH	0xf800865eU	/* str x30, [x18], #8 */
#define HP_A64_SCS_POP	0xf85f8e5eU	/* ldr x30, [x18, #-8]! */
#define HP_A64_RET	0xd65f03c0U
#define HP_A64_MOV_5A	0x52800b40U	/* mov w0, #0x5a */

/* one PAC bit of a kernel address (bit 55 selects the range; 54 is PAC) */
#define HP_PAC_FLIP	BIT_ULL(54)

char hp_arm64_pac_sig[64] = "Oops - FPAC";

/* PACIA1716: sign x17 with the A key and modifier x16 (a hint: a nop without PAuth or keys) */
unsigned long hp_arm64_pac_sign(unsigned long ptr, unsigned long modifier)
{
	register unsigned long x17 asm("x17") = ptr;
	register unsigned long x16 asm("x16") = modifier;

	asm volatile("hint #8" : "+r" (x17) : "r" (x16));
	return x17;
}

/* A kernel address without its PAC: the PAC bits of a kernel address are all ones. */
unsigned long hp_arm64_pac_strip(unsigned long ptr)
{
	return ptr | GENMASK_ULL(63, vabits_actual);
}

unsigned long hp_arm64_pac_flip(unsigned long ptr)
{
	return ptr ^ HP_PAC_FLIP;
}

static unsigned int hp_id_field(u64 reg, unsigned int shift)
{
	return (reg >> shift) & 0xf;
}

/* PAuth in the CPU (not what the kernel made of it): the raw ID registers */
static bool hp_cpu_pauth(bool *fpac)
{
	u64 isar1 = read_sysreg_s(SYS_ID_AA64ISAR1_EL1);
	u64 isar2 = read_sysreg_s(SYS_ID_AA64ISAR2_EL1);
	unsigned int apa = hp_id_field(isar1, ID_AA64ISAR1_EL1_APA_SHIFT);
	unsigned int api = hp_id_field(isar1, ID_AA64ISAR1_EL1_API_SHIFT);
	unsigned int apa3 = hp_id_field(isar2, ID_AA64ISAR2_EL1_APA3_SHIFT);

	/* 4: FEAT_FPAC, 5: FEAT_FPACCOMBINE */
	*fpac = max3(apa, api, apa3) >= 4;
	return apa || api || apa3;
}

static bool hp_cpu_bti(void)
{
	return hp_id_field(read_sysreg_s(SYS_ID_AA64PFR1_EL1),
			   ID_AA64PFR1_EL1_BT_SHIFT) != 0;
}

/*
 * The catch of pac_ret.corrupt depends on the CPU: an FPAC trap, or without
 * FEAT_FPAC a fault at ret on the label's address with PAC error bits in its
 * top bits ("Unable to handle kernel paging request at virtual address
 * bfff..."): the signature is then the label's low 48 bits, which only that
 * fault line holds.
 */
static void hp_pac_sig_init(void)
{
	bool fpac;

	if (hp_cpu_pauth(&fpac) && !fpac)
		snprintf(hp_arm64_pac_sig, sizeof(hp_arm64_pac_sig), "%012lx",
			 hp_bwd_label() & (unsigned long)GENMASK_ULL(47, 0));
	else
		strscpy(hp_arm64_pac_sig, "Oops - FPAC", sizeof(hp_arm64_pac_sig));
}

struct hp_a64_count {
	unsigned int paciasp, autiasp, bti_c, bti_j, bti_jc, push, pop;
	unsigned long bytes;
};

/* Count the instructions of interest in [start, start + bytes). */
static void hp_a64_scan(struct hp_a64_count *c, const u32 *start, unsigned long bytes)
{
	unsigned long i;

	for (i = 0; i < bytes / 4; i++) {
		switch (READ_ONCE(start[i])) {
		case HP_A64_PACIASP:
			c->paciasp++;
			break;
		case HP_A64_AUTIASP:
			c->autiasp++;
			break;
		case HP_A64_BTI_C:
			c->bti_c++;
			break;
		case HP_A64_BTI_J:
			c->bti_j++;
			break;
		case HP_A64_BTI_JC:
			c->bti_jc++;
			break;
		case HP_A64_SCS_PUSH:
			c->push++;
			break;
		case HP_A64_SCS_POP:
			c->pop++;
			break;
		}
	}
	c->bytes += bytes;
}

/* The module's own .text; false when built in (no module text of our own). */
static bool hp_a64_module_text(struct hp_a64_count *c)
{
	memset(c, 0, sizeof(*c));
#ifdef MODULE
	hp_a64_scan(c, THIS_MODULE->mem[MOD_TEXT].base, THIS_MODULE->mem[MOD_TEXT].size);
	return true;
#else
	return false;
#endif
}

/* Does a function push its return address on the shadow stack (first 16 instructions)? */
static bool hp_a64_pushes(const void *fn)
{
	struct hp_a64_count c = {};

	hp_a64_scan(&c, fn, 64);
	return c.push;
}

/* Is x18 inside this task's shadow call stack? (@x18, @base: what was read) */
static bool hp_scs_live(unsigned long *x18, unsigned long *base)
{
	asm volatile("mov %0, x18" : "=r" (*x18));
	*base = 0;
#ifdef CONFIG_SHADOW_CALL_STACK
	*base = (unsigned long)task_scs(current);
	return *base && *x18 >= *base && *x18 < *base + SCS_SIZE;
#else
	return false;
#endif
}

void hp_arm64_scs_layers(struct hp_layers *l)
{
	unsigned long x18, base;
	struct hp_a64_count c;
	bool on = hp_scs_live(&x18, &base);

	/*
	 * DYNAMIC_SCS keeps PAC and patches it into SCS at boot only on CPUs
	 * without PAC: then no shadow stack is set up, and SCS is not what
	 * this kernel asked for on this CPU.
	 */
	l->configured = IS_ENABLED(CONFIG_SHADOW_CALL_STACK) &&
			(!IS_ENABLED(CONFIG_DYNAMIC_SCS) || on);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_SHADOW_CALL_STACK=%s%s",
		 IS_ENABLED(CONFIG_SHADOW_CALL_STACK) ? "y" : "n",
		 !IS_ENABLED(CONFIG_DYNAMIC_SCS) ? "" :
		 on ? ", CONFIG_DYNAMIC_SCS=y (patched in: CPU without PAC)" :
		 ", CONFIG_DYNAMIC_SCS=y (not patched in: PAC in use)");
	hp_a64_module_text(&c);
	hp_layer(l->built, sizeof(l->built),
		 "module flags: %s; %u x18 pushes, %u pops in %lu bytes of module text; victim %s, control %s",
		 HP_FLAG_SCS[0] ? HP_FLAG_SCS : "no -fsanitize=shadow-call-stack",
		 c.push, c.pop, c.bytes,
		 hp_a64_pushes(hp_bwd_victim) ? "pushes x30" : "does not push x30",
		 hp_a64_pushes(hp_bwd_victim_control) ? "pushes x30" : "does not push x30");
	if (on)
		hp_layer(l->active, sizeof(l->active),
			 "x18=0x%lx inside this task's shadow stack 0x%lx+%lu (%lu bytes in use)",
			 x18, base, (unsigned long)SCS_SIZE, x18 - base);
	else
		hp_layer(l->active, sizeof(l->active),
			 "x18=0x%lx is not in a shadow stack of this task (base 0x%lx)",
			 x18, base);
}

void hp_arm64_pac_layers(struct hp_layers *l)
{
	bool fpac, cpu = hp_cpu_pauth(&fpac);
	bool off = hp_cmdline_word("arm64.nopauth");
	struct hp_a64_count c;

	hp_pac_sig_init();
	l->configured = IS_ENABLED(CONFIG_ARM64_PTR_AUTH_KERNEL) && !off;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_ARM64_PTR_AUTH_KERNEL=%s%s",
		 IS_ENABLED(CONFIG_ARM64_PTR_AUTH_KERNEL) ? "y" : "n",
		 off ? ", arm64.nopauth on the command line" : "");
	hp_a64_module_text(&c);
	hp_layer(l->built, sizeof(l->built),
		 "module flags: %s; %u paciasp, %u autiasp in %lu bytes of module text",
		 HP_FLAG_BRANCH[0] ? HP_FLAG_BRANCH : "no -mbranch-protection",
		 c.paciasp, c.autiasp, c.bytes);
	hp_layer(l->active, sizeof(l->active),
		 "CPU PAuth %s%s; system_supports_address_auth()=%d; SCTLR_EL1.EnIA=%d",
		 cpu ? "yes" : "no", fpac ? " with FPAC" : cpu ? " without FPAC" : "",
		 system_supports_address_auth(),
		 !!(read_sysreg(sctlr_el1) & SCTLR_ELx_ENIA));
}

/* a leaf that returns 0x5a: "bti c; mov w0, #0x5a; ret" (address taken below) */
static noinline int hp_bti_target(void)
{
	return 0x5a;
}

static int (*hp_bti_target_ptr)(void) = hp_bti_target;

static bool hp_a64_landing(u32 insn)
{
	return insn == HP_A64_BTI_C || insn == HP_A64_BTI_JC ||
	       insn == HP_A64_PACIASP;
}

void hp_arm64_bti_layers(struct hp_layers *l)
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
		 "CPU BTI %s; system_supports_bti_kernel()=%d; SCTLR_EL1.BT1=%d",
		 hp_cpu_bti() ? "yes" : "no", system_supports_bti_kernel(),
		 !!(read_sysreg(sctlr_el1) & SCTLR_EL1_BT1));
}

/* Is the return address in this (non-leaf) frame signed? */
noinline void hp_pac_ret_signed_lr(struct hp_result *r)
{
	unsigned long saved = ((unsigned long *)__builtin_frame_address(0))[1];
	unsigned long raw = (unsigned long)__builtin_return_address(0);
	bool fpac;

	if (!hp_cpu_pauth(&fpac)) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no pointer authentication (FEAT_PAuth)");
		return;
	}
	if (hp_arm64_pac_strip(saved) != raw)
		hp_set(r, HP_ERROR, "frame record holds 0x%lx, not the return address 0x%lx",
		       saved, raw);
	else if (saved == raw)
		hp_set(r, HP_VULNERABLE,
		       "saved return address 0x%lx is not signed (%pS): a rewritten one would be used",
		       saved, (void *)raw);
	else
		hp_set(r, HP_PROTECTED,
		       "saved return address 0x%lx is signed: raw 0x%lx (%pS), PAC bits 0x%lx",
		       saved, raw, (void *)raw,
		       saved & (unsigned long)GENMASK_ULL(63, vabits_actual));
}

void hp_pac_ret_corrupt(struct hp_result *r)
{
	struct hp_bwd_req rq = { .mode = HP_BWD_CORRUPT };
	bool fpac;

	if (!hp_cpu_pauth(&fpac)) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no pointer authentication (FEAT_PAuth)");
		return;
	}
	hp_pac_sig_init();
	pr_info("pac_ret.corrupt: a victim without shadow call stack returns through a rewritten return address (wrong PAC if PAC is on: %s)\n",
		fpac ? "expect an FPAC trap" : "no FPAC, expect a fault at the poisoned address");
	/* with PAC on, this does not return */
	hp_bwd_hijack(hp_bwd_victim_control, &rq);
	if (rq.status != HP_BWD_WRITTEN)
		hp_set(r, HP_ERROR, "no rewrite (status %d, slot 0x%lx held 0x%lx)",
		       rq.status, rq.slot, rq.old);
	else if (rq.landed)
		hp_set(r, HP_VULNERABLE,
		       "survived: return address at 0x%lx rewritten 0x%lx -> 0x%lx (%s), the victim returned to %pS",
		       rq.slot, rq.old, rq.new,
		       rq.new == (unsigned long)rq.target ? "unsigned: PAC not in use" :
		       "wrong PAC accepted", rq.target);
	else
		hp_set(r, HP_ERROR,
		       "return address at 0x%lx rewritten 0x%lx -> 0x%lx, yet the victim returned to its call site",
		       rq.slot, rq.old, rq.new);
}

/*
 * Where a function's shadow call stack push and pop sit against its
 * paciasp and autiasp: GCC signs x30 first and pushes the signed address,
 * then pops it and authenticates it; clang-19 pushes the raw x30 before
 * paciasp and reloads it after autiasp, so the return uses the shadow
 * stack's copy and the authentication's result is dropped.
 */
static const char *hp_a64_scs_order(const void *fn)
{
	const u32 *p = fn;
	unsigned long n = hp_fn_size(fn) / 4, i;
	long pac = -1, push = -1, aut = -1, pop = -1;

	for (i = 0; i < min(n, 256UL); i++) {
		u32 insn = READ_ONCE(p[i]);

		if (insn == HP_A64_PACIASP && pac < 0)
			pac = i;
		else if (insn == HP_A64_SCS_PUSH && push < 0)
			push = i;
		else if (insn == HP_A64_AUTIASP && aut < 0)
			aut = i;
		else if (insn == HP_A64_SCS_POP && pop < 0)
			pop = i;
	}
	if (push < 0 || pop < 0)
		return "no shadow call stack push and pop in the victim";
	if (pac < 0 || aut < 0)
		return "no paciasp/autiasp in the victim: nothing signs the entry";
	if (push < pac && aut < pop)
		return "raw x30 pushed before paciasp, popped after autiasp: not authenticated";
	if (pac < push && pop < aut)
		return "paciasp before the push, autiasp after the pop: entry authenticated";
	return "mixed order of push/pop and paciasp/autiasp";
}

/*
 * pac_ret.scs_entry (fatal): the victim's shadow call stack entry, not its
 * frame record, rewritten with the label's unsigned address, as a writer
 * without the key would. Control first: the entry rewritten in its own form
 * (signed if it was signed) must take the victim to the label. With GCC's
 * order autiasp fails on the unsigned address (the catch of pac_ret.corrupt);
 * with clang's the victim returns to the label: PAC does not cover the shadow
 * stack's entry (a known gap of this build; LKDTM CORRUPT_PAC survives the
 * same way).
 */
void hp_pac_ret_scs_entry(struct hp_result *r)
{
	struct hp_bwd_req ctl = { .mode = HP_BWD_SCS_SAME };
	struct hp_bwd_req rq = { .mode = HP_BWD_SCS_RAW };
	unsigned long x18, base;
	const char *order;
	bool fpac;

	if (!hp_cpu_pauth(&fpac)) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no pointer authentication (FEAT_PAuth)");
		return;
	}
	if (!hp_scs_live(&x18, &base)) {
		hp_set(r, HP_UNSUPPORTED,
		       "no shadow call stack in this task (x18=0x%lx, base 0x%lx): no entry to rewrite",
		       x18, base);
		return;
	}
	if (!hp_a64_pushes(hp_bwd_victim)) {
		hp_set(r, HP_UNSUPPORTED, "%ps does not push x30 on the shadow call stack",
		       hp_bwd_victim);
		return;
	}
	order = hp_a64_scs_order(hp_bwd_victim);
	hp_bwd_hijack(hp_bwd_victim, &ctl);
	if (ctl.status != HP_BWD_WRITTEN) {
		hp_set(r, HP_ERROR, "control: status %d (entry 0x%lx held 0x%lx, call site %pS)",
		       ctl.status, ctl.slot, ctl.old, ctl.expected);
		return;
	}
	if (!ctl.landed) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: shadow stack entry at 0x%lx rewritten 0x%lx -> 0x%lx, yet the victim returned to %pS",
		       ctl.slot, ctl.old, ctl.new, ctl.expected);
		return;
	}
	hp_pac_sig_init();
	pr_info("pac_ret.scs_entry: the victim's shadow call stack entry rewritten with an unsigned address (%s)\n",
		order);
	/* with GCC's order and PAC on, this does not return */
	hp_bwd_hijack(hp_bwd_victim, &rq);
	if (rq.status != HP_BWD_WRITTEN) {
		hp_set(r, HP_ERROR, "status %d (entry 0x%lx held 0x%lx, call site %pS)",
		       rq.status, rq.slot, rq.old, rq.expected);
	} else if (rq.landed) {
		bool raw = hp_arm64_pac_strip(rq.old) == rq.old;

		hp_set(r, HP_VULNERABLE,
		       "survived: shadow stack entry at 0x%lx (%s) rewritten 0x%lx -> 0x%lx, unsigned: the victim returned to %pS; %s",
		       rq.slot, raw ? "raw" : "signed", rq.old, rq.new, rq.target, order);
		/* PAC is on, the compiler's order leaves the entry out of it */
		r->known_gap = system_supports_address_auth() && raw;
	} else {
		hp_set(r, HP_ERROR,
		       "shadow stack entry at 0x%lx rewritten 0x%lx -> 0x%lx, yet the victim returned to its call site",
		       rq.slot, rq.old, rq.new);
	}
}

/* blr to @addr outside C: no kCFI check (the target's hash is not ours to match) */
static int hp_bti_call(unsigned long addr)
{
	register unsigned long x0 asm("x0");
	register unsigned long x16 asm("x16") = addr;

	asm volatile("blr x16" : "=r" (x0) : "r" (x16) : "x30", "memory");
	return (int)x0;
}

void hp_bti_mid_function(struct hp_result *r)
{
	unsigned long fn = (unsigned long)READ_ONCE(hp_bti_target_ptr);
	const u32 *insn = (const u32 *)fn;
	bool pad = hp_a64_landing(insn[0]);
	unsigned int i = pad;	/* the mov after the pad: a plain instruction */
	int ret;

	if (!hp_cpu_bti()) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no BTI (FEAT_BTI)");
		return;
	}
	if (insn[i] != HP_A64_MOV_5A || insn[i + 1] != HP_A64_RET) {
		hp_set(r, HP_ERROR, "%pS is not \"[pad;] mov w0, #0x5a; ret\": %08x %08x %08x",
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
