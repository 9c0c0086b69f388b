// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe pac_ret: pointer authentication of return addresses (arm64).
 *
 * pac_ret.signed_lr (safe): the return address saved in a frame record
 *   differs from the raw one only by its PAC bits.
 * pac_ret.corrupt (fatal): the return-address overwrite of
 *   backward_hijack.c on the victim built without the shadow call stack,
 *   with one PAC bit of the new address flipped (LKDTM CORRUPT_PAC changes
 *   the keys instead): autiasp fails, "Oops - FPAC" with FEAT_FPAC, else a
 *   fault on the poisoned, non-canonical address at ret. With PAC off the
 *   address is written raw and the victim "returns" to the label: vulnerable.
 * pac_ret.scs_entry (fatal): the overwrite with the victim's shadow call
 *   stack entry rewritten to an unsigned address: does PAC cover the entry
 *   the return takes? (GCC: yes, clang: no; see hp_a64_scs_order()).
 *
 * pac_ret.corrupt flips PAC bit 54 of the correctly signed label address.
 * Without FEAT_FPAC (QEMU 7.2's -cpu max, for one) the poisoned address
 * faults at ret, and the signature is the label's low 48 bits in hex; the
 * CPU's ID registers choose between the two. built counts paciasp and
 * autiasp in the module text; active gives the CPU's PAuth and FPAC,
 * system_supports_address_auth() and SCTLR_EL1.EnIA; arm64.nopauth on the
 * command line counts as not configured.
 *
 * pac_ret.scs_entry rewrites the entry just below x18 after the victim's
 * push. GCC 12 signs first and pushes the signed address ("paciasp; str x30,
 * [x18], #8" ... "ldr x30, [x18, #-8]!; autiasp"): autiasp fails and the
 * return faults as in pac_ret.corrupt (protected). clang-19 pushes the raw
 * x30 before paciasp and reloads it after autiasp: the victim returns to
 * the label, vulnerable and a known gap of the build (the feature stays
 * protected by its other probes). The evidence quotes the order read from
 * the victim's loaded code; the same order decides LKDTM's CORRUPT_PAC.
 * Without a shadow call stack in the task the probe is unsupported. An
 * unsigned address whose top bits happen to be its valid PAC for the
 * frame (1 in 2^15) would pass autiasp and read as vulnerable: the victim
 * does not write it and runs again a frame deeper, with another modifier
 * (inconclusive if that collides too).
 *
 * Off arm64 every probe says "arm64 only".
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>
#ifdef CONFIG_ARM64
#include <asm/cpufeature.h>
#include <asm/memory.h>
#include <asm/sysreg.h>
#endif

#include "backward.h"
#include "../hardprobe.h"

#ifdef CONFIG_ARM64
#define HP_PAC_SIG	hp_arm64_pac_sig

static char hp_arm64_pac_sig[64] = "Oops - FPAC";

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

	if (hp_arm64_cpu_pauth(&fpac) && !fpac)
		snprintf(hp_arm64_pac_sig, sizeof(hp_arm64_pac_sig), "%012lx",
			 hp_bwd_label() & (unsigned long)GENMASK_ULL(47, 0));
	else
		strscpy(hp_arm64_pac_sig, "Oops - FPAC", sizeof(hp_arm64_pac_sig));
}

static void hp_pac_layers(struct hp_layers *l)
{
	bool fpac, cpu = hp_arm64_cpu_pauth(&fpac);
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

/* Is the return address in this (non-leaf) frame signed? */
static noinline void hp_pac_ret_signed_lr(struct hp_result *r)
{
	unsigned long saved = ((unsigned long *)__builtin_frame_address(0))[1];
	unsigned long raw = (unsigned long)__builtin_return_address(0);
	bool fpac;

	if (!hp_arm64_cpu_pauth(&fpac)) {
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

static void hp_pac_ret_corrupt(struct hp_result *r)
{
	struct hp_bwd_req rq = { .mode = HP_BWD_CORRUPT };
	bool fpac;

	if (!hp_arm64_cpu_pauth(&fpac)) {
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
static void hp_pac_ret_scs_entry(struct hp_result *r)
{
	struct hp_bwd_req ctl = { .mode = HP_BWD_SCS_SAME };
	struct hp_bwd_req rq = { .mode = HP_BWD_SCS_RAW };
	unsigned long x18, base;
	const char *order;
	bool fpac;

	if (!hp_arm64_cpu_pauth(&fpac)) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no pointer authentication (FEAT_PAuth)");
		return;
	}
	if (!hp_arm64_scs_live(&x18, &base)) {
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
	if (rq.status == HP_BWD_VALIDPAC) {
		hp_set(r, HP_INCONCLUSIVE,
		       "the label's unsigned address 0x%lx is a valid signature for two frames in a row (modifiers differ, chance 1 in 2^30): nothing to test",
		       (unsigned long)rq.target);
		r->chance = true;
	} else if (rq.status != HP_BWD_WRITTEN) {
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
#else
#define HP_PAC_SIG	NULL

static void hp_pac_ret_arm64_only(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "arm64 only");
}

#define hp_pac_ret_signed_lr	hp_pac_ret_arm64_only
#define hp_pac_ret_corrupt	hp_pac_ret_arm64_only
#define hp_pac_ret_scs_entry	hp_pac_ret_arm64_only

static void hp_pac_layers(struct hp_layers *l)
{
	hp_layers_unavailable(l, "CONFIG_ARM64_PTR_AUTH_KERNEL", "arm64 only");
}
#endif

static const char *hp_pac_unavailable(void)
{
	return IS_ENABLED(CONFIG_ARM64) ? NULL : "arm64 only";
}

#define HP_PAC_KIND	(IS_ENABLED(CONFIG_ARM64) ? HP_FATAL : HP_SAFE)

static const struct hp_probe hp_probes_pac_ret[] = {
	HP_PROBE(pac_ret, signed_lr, HP_SAFE),
	HP_PROBE(pac_ret, corrupt, HP_PAC_KIND, .signature = HP_PAC_SIG),
	HP_PROBE(pac_ret, scs_entry, HP_PAC_KIND, .signature = HP_PAC_SIG),
};

/*
 * LKDTM's CORRUPT_PAC (shown, not compared) resets the task's PAC keys and
 * expects its own signed returns to fail. On arm64-clang it prints "FAIL:
 * survived PAC changes": clang-19 pushes the raw return address on the shadow
 * call stack before paciasp and reloads it after autiasp, so the failed check
 * is discarded (arm64-gcc: caught). corrupt corrupts the PAC bits of one saved
 * return address on a victim without the shadow call stack and faults;
 * scs_entry shows the clang gap itself.
 */
HP_FEATURE(pac_ret, .layers = hp_pac_layers, .unavailable = hp_pac_unavailable,
	   .khc = "CONFIG_ARM64_PTR_AUTH_KERNEL arm64.nopauth@arm64",
	   .lkdtm = HP_LIST("?CORRUPT_PAC"),
	   .off = HP_ARM64(HP_LIST("arm64.nopauth")));
