// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe backward edge: a return address overwritten on the stack.
 *
 * hp_bwd_hijack() calls a victim that finds its own saved return address in
 * its frame record and rewrites it to a label inside hp_bwd_hijack_one() (the
 * label trick of LKDTM's CFI_BACKWARD): if the overwrite is used, the
 * victim "returns" to the label, which records the hijack and carries on;
 * if a shadow stack supplies the return address, it returns to the call
 * site. On arm64 the new address is signed with the same key and modifier
 * as the saved one (the victim checks it can reproduce the saved PAC
 * first), so pac-ret does not decide the shadow-call-stack experiment.
 *
 * Features: shadow_call_stack, pac_ret, bti (arm64; triggers in
 * arch/arm64.c) and ret_overwrite (x86_64: no kernel-mode shadow stack
 * exists, KSPP #142/#178). Every feature is listed on every architecture;
 * where its architecture does not apply its probes say "unsupported".
 */
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/printk.h>

#include "backward.h"
#include "../hardprobe.h"

#define HP_ARM64_KIND	(IS_ENABLED(CONFIG_ARM64) ? HP_FATAL : HP_SAFE)

#ifdef CONFIG_ARM64
#define HP_PAC_SIG	hp_arm64_pac_sig
#define HP_BTI_SIG	"Oops - BTI"
#else
#define HP_PAC_SIG	NULL
#define HP_BTI_SIG	NULL
#endif

/* never set: keeps the label of hp_bwd_hijack_one() reachable for the compiler */
static int hp_bwd_force;

static const char *const hp_bwd_status_txt[] = {
	[HP_BWD_NONE] = "the victim did not run",
	[HP_BWD_WRITTEN] = "written",
	[HP_BWD_MISMATCH] = "saved return address is not the call site: frame layout?",
	[HP_BWD_NOSIGN] = "the saved return address's PAC could not be reproduced",
};

/**
 * hp_bwd_rewrite() - the value the victim stores over its return address
 * @rq: the request; records what was found and written
 * @slot: the victim's saved return address
 * @ret: the victim's return address (__builtin_return_address(), no PAC)
 *
 * Return: the new return address (signed as the old one was), or the old
 * value unchanged if the slot is not what it should be.
 */
noinline unsigned long hp_bwd_rewrite(struct hp_bwd_req *rq, unsigned long *slot,
				     void *ret)
{
	unsigned long old = READ_ONCE(*slot), raw = hp_arm64_pac_strip(old);
	unsigned long target = (unsigned long)rq->target, new;

	rq->expected = ret;
	rq->slot = (unsigned long)slot;
	rq->old = old;
	rq->new = old;
	if (raw != (unsigned long)rq->expected) {
		rq->status = HP_BWD_MISMATCH;
		return old;
	}
	/* a frame record holds the signed address; a shadow stack entry may be raw */
	if (hp_arm64_pac_sign(raw, rq->modifier) != old &&
	    !(hp_bwd_scs_mode(rq) && old == raw)) {
		rq->status = HP_BWD_NOSIGN;
		return old;
	}
	if (rq->mode == HP_BWD_SCS_RAW || (rq->mode == HP_BWD_SCS_SAME && old == raw))
		new = target;
	else
		new = hp_arm64_pac_sign(target, rq->modifier);
	/* a wrong PAC only where there is one: else the address stays valid */
	if (rq->mode == HP_BWD_CORRUPT && new != target)
		new = hp_arm64_pac_flip(new);
	rq->new = new;
	rq->status = HP_BWD_WRITTEN;
	return new;
}

/* The victim with the kernel's flags (shadow call stack included). */
noinline void hp_bwd_victim(struct hp_bwd_req *rq)
{
	hp_bwd_victim_body(rq);
}

/* Reset the record; a real call, so hp_bwd_hijack_one() sets its frame up first. */
noinline void hp_bwd_prepare(struct hp_bwd_req *rq)
{
	rq->status = HP_BWD_NONE;
	rq->expected = NULL;
	rq->slot = 0;
	rq->old = 0;
	rq->new = 0;
	rq->landed = false;
	rq->returned = false;
}

/* The request in flight on this CPU (hp_bwd_hijack() disables preemption). */
static DEFINE_PER_CPU(struct hp_bwd_req *, hp_bwd_cur);

/*
 * Reached only at the label: a call, so the compiler cannot move its work
 * in front of the label (a plain assignment was hoisted there by clang);
 * no argument, because a caller-saved register the compiler loaded before
 * its jump to the label is garbage when the victim "returns" there (gcc
 * passed rq in rdi, which the victim had zeroed).
 */
noinline void hp_bwd_land(void)
{
	WRITE_ONCE(this_cpu_read(hp_bwd_cur)->landed, true);
}

/* The caller's stack pointer: the callee's paciasp signs with it (arm64). */
static __always_inline unsigned long hp_bwd_sp(void)
{
#ifdef CONFIG_ARM64
	unsigned long sp;

	asm volatile("mov %0, sp" : "=r" (sp));
	return sp;
#else
	return 0;
#endif
}

/**
 * hp_bwd_hijack_one() - call @victim and see where it returns to
 * @victim: hp_bwd_victim or hp_bwd_victim_control
 * @rq: the request (mode set by the caller)
 *
 * The label is kept in this function's own code by a computed goto that
 * never runs. The first statement is a call, so the frame is built at
 * entry and not around the victim's call only (shrink wrapping): the label
 * must be inside the frame. The victim checks that the slot it rewrites
 * holds its own return address before it writes anything.
 *
 * @rq->landed tells whether @victim came back to its call site or
 * "returned" to the label.
 */
static noinline void hp_bwd_hijack_one(hp_bwd_victim_fn victim,
				       struct hp_bwd_req *rq)
{
	void *labels[] = { &&redirected };

	hp_bwd_prepare(rq);
	if (READ_ONCE(hp_bwd_force))
		goto *labels[0];
	rq->target = &&redirected;
	rq->modifier = hp_bwd_sp();

	switch (READ_ONCE(hp_bwd_force)) {
	case 0:
		victim(rq);
		/* a store after the call: no tail call, or the label would be outside our frame */
		WRITE_ONCE(rq->returned, true);
		break;
	default:
redirected:
		hp_bwd_land();
		break;
	}
}

/* hp_bwd_hijack_one() on this CPU, with @rq where hp_bwd_land() finds it */
void hp_bwd_hijack(hp_bwd_victim_fn victim, struct hp_bwd_req *rq)
{
	preempt_disable();
	this_cpu_write(hp_bwd_cur, rq);
	hp_bwd_hijack_one(victim, rq);
	this_cpu_write(hp_bwd_cur, NULL);
	preempt_enable();
}

static noinline void hp_bwd_nop(struct hp_bwd_req *rq)
{
}

/* The label's address (its low bits name a fault at the label in the log). */
unsigned long hp_bwd_label(void)
{
	struct hp_bwd_req rq = {};

	hp_bwd_hijack(hp_bwd_nop, &rq);
	return (unsigned long)rq.target;
}

/* The positive control: the overwrite must redirect the victim built without a shadow stack. */
static bool hp_bwd_control(struct hp_result *r)
{
	struct hp_bwd_req rq = { .mode = HP_BWD_SIGNED };

	hp_bwd_hijack(hp_bwd_victim_control, &rq);
	if (rq.status != HP_BWD_WRITTEN) {
		hp_set(r, HP_ERROR, "control: %s (slot 0x%lx held 0x%lx, call site %pS)",
		       hp_bwd_status_txt[rq.status], rq.slot, rq.old, rq.expected);
		return false;
	}
	if (!rq.landed) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: return address at 0x%lx rewritten 0x%lx -> 0x%lx, yet it returned to %pS",
		       rq.slot, rq.old, rq.new, rq.expected);
		return false;
	}
	return true;
}

/* The experiment on the victim built with the kernel's flags. */
static void hp_bwd_run(struct hp_result *r, const char *what)
{
	struct hp_bwd_req rq = { .mode = HP_BWD_SIGNED };

	if (!hp_bwd_control(r))
		return;
	hp_bwd_hijack(hp_bwd_victim, &rq);
	if (rq.status != HP_BWD_WRITTEN)
		hp_set(r, HP_ERROR, "%s (slot 0x%lx held 0x%lx, call site %pS)",
		       hp_bwd_status_txt[rq.status], rq.slot, rq.old, rq.expected);
	else if (!rq.landed && rq.returned)
		hp_set(r, HP_PROTECTED,
		       "control flow unchanged (%s): return address at 0x%lx rewritten 0x%lx -> 0x%lx (%pS), returned to %pS; control went to the label",
		       what, rq.slot, rq.old, rq.new, rq.target, rq.expected);
	else if (rq.landed)
		hp_set(r, HP_VULNERABLE,
		       "return address at 0x%lx rewritten 0x%lx -> 0x%lx: returned to %pS, not %pS (control too)",
		       rq.slot, rq.old, rq.new, rq.target, rq.expected);
	else
		hp_set(r, HP_ERROR, "returned neither to %pS nor to the label",
		       rq.expected);
}

static void hp_shadow_call_stack_ret_overwrite(struct hp_result *r)
{
	if (!IS_ENABLED(CONFIG_ARM64)) {
		hp_set(r, HP_UNSUPPORTED, "arm64 only");
		return;
	}
	hp_bwd_run(r, "shadow call stack");
}

static void hp_ret_overwrite_stack(struct hp_result *r)
{
	if (!IS_ENABLED(CONFIG_X86_64)) {
		hp_set(r, HP_UNSUPPORTED, "x86_64 only");
		return;
	}
	hp_bwd_run(r, "x86_64");
}

#ifndef CONFIG_ARM64
/* the arm64 probes of arch/arm64.c say "arm64 only" elsewhere */
static void hp_not_arm64(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "arm64 only");
}

#define hp_pac_ret_signed_lr	hp_not_arm64
#define hp_pac_ret_corrupt	hp_not_arm64
#define hp_pac_ret_scs_entry	hp_not_arm64
#define hp_bti_mid_function	hp_not_arm64
#endif

static const char *hp_arm64_only(void)
{
	return IS_ENABLED(CONFIG_ARM64) ? NULL : "arm64 only";
}

static const char *hp_bti_unavailable(void)
{
	if (!IS_ENABLED(CONFIG_ARM64))
		return "arm64 only";
	if (IS_ENABLED(CONFIG_CC_IS_GCC))
		return "ARM64_BTI_KERNEL depends on !CC_IS_GCC (GCC PR106671)";
	return NULL;
}

static const char *hp_ret_unavailable(void)
{
	if (!IS_ENABLED(CONFIG_X86_64))
		return "x86_64 only";
	return "no kernel-mode shadow stack exists in Linux: KSPP #142, #178";
}

static void hp_scs_layers(struct hp_layers *l)
{
#ifdef CONFIG_ARM64
	hp_arm64_scs_layers(l);
#else
	hp_layers_unavailable(l, "CONFIG_SHADOW_CALL_STACK", "arm64 only");
#endif
}

static void hp_pac_layers(struct hp_layers *l)
{
#ifdef CONFIG_ARM64
	hp_arm64_pac_layers(l);
#else
	hp_layers_unavailable(l, "CONFIG_ARM64_PTR_AUTH_KERNEL", "arm64 only");
#endif
}

static void hp_bti_layers(struct hp_layers *l)
{
#ifdef CONFIG_ARM64
	hp_arm64_bti_layers(l);
#else
	hp_layers_unavailable(l, "CONFIG_ARM64_BTI_KERNEL", "arm64 only");
#endif
}

static void hp_ret_layers(struct hp_layers *l)
{
	/* nothing can configure it: the probe shows the hole, KTAP skips it */
	l->configured = false;
	if (!IS_ENABLED(CONFIG_X86_64)) {
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "x86_64 only (arm64: see shadow_call_stack, pac_ret)");
		hp_layer(l->built, sizeof(l->built), "n/a (x86_64 only)");
		hp_layer(l->active, sizeof(l->active), "n/a (x86_64 only)");
		return;
	}
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "no kernel shadow stack option (CONFIG_X86_USER_SHADOW_STACK=%s covers user space only)",
		 IS_ENABLED(CONFIG_X86_USER_SHADOW_STACK) ? "y" : "n");
	hp_layer(l->built, sizeof(l->built),
		 "return addresses only on the normal stack%s%s",
		 IS_ENABLED(CONFIG_MITIGATION_RETHUNK) ? "; rethunk" : "",
		 IS_ENABLED(CONFIG_CALL_DEPTH_TRACKING) ? "; call depth tracking" : "");
	hp_layer(l->active, sizeof(l->active),
		 "no kernel-mode CET shadow stack (SHSTK is user-only in Linux)");
}

static const struct hp_probe hp_probes_shadow_call_stack[] = {
	HP_PROBE(shadow_call_stack, ret_overwrite, HP_SAFE),
};

HP_FEATURE(shadow_call_stack, .layers = hp_scs_layers, .unavailable = hp_arm64_only);

static const struct hp_probe hp_probes_pac_ret[] = {
	HP_PROBE(pac_ret, signed_lr, HP_SAFE),
	HP_PROBE(pac_ret, corrupt, HP_ARM64_KIND, .signature = HP_PAC_SIG),
	HP_PROBE(pac_ret, scs_entry, HP_ARM64_KIND, .signature = HP_PAC_SIG),
};

HP_FEATURE(pac_ret, .layers = hp_pac_layers, .unavailable = hp_arm64_only);

static const struct hp_probe hp_probes_bti[] = {
	HP_PROBE(bti, mid_function, HP_ARM64_KIND, .signature = HP_BTI_SIG),
};

HP_FEATURE(bti, .layers = hp_bti_layers, .unavailable = hp_bti_unavailable);

static const struct hp_probe hp_probes_ret_overwrite[] = {
	HP_PROBE(ret_overwrite, stack, HP_SAFE),
};

HP_FEATURE(ret_overwrite, .layers = hp_ret_layers, .unavailable = hp_ret_unavailable);
