// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe backward edge: the overwrite itself. hp_bwd_hijack() calls a
 * victim that finds its own saved return address in its frame record and
 * rewrites it to a label inside hp_bwd_hijack_one() (the label trick of
 * LKDTM's CFI_BACKWARD): if the overwrite is used, the victim "returns" to
 * the label, which records the hijack and carries on; if a shadow stack
 * supplies the return address, it returns to the call site. On arm64 the
 * new address is signed with the same key and modifier as the saved one
 * (the victim checks it can reproduce the saved PAC first), so pac-ret does
 * not decide the shadow-call-stack experiment.
 *
 * Built with the kernel's flags; the probes of backward.c and pac_ret.c
 * use it, and the uninstrumented victim calls hp_bwd_rewrite().
 */
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/printk.h>

#include "backward.h"

/* never set: keeps the label of hp_bwd_hijack_one() reachable for the compiler */
static int hp_bwd_force;

const char *const hp_bwd_status_txt[] = {
	[HP_BWD_NONE] = "the victim did not run",
	[HP_BWD_WRITTEN] = "written",
	[HP_BWD_MISMATCH] = "saved return address is not the call site: frame layout?",
	[HP_BWD_NOSIGN] = "the saved return address's PAC could not be reproduced",
	[HP_BWD_VALIDPAC] = "the unsigned address carries a valid PAC for this frame",
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
	/*
	 * An unsigned address whose PAC bits happen to be the valid PAC for
	 * this key and modifier (1 in 2^15 with 48-bit addresses) passes
	 * autiasp: writing it tests nothing, the caller tries a deeper frame.
	 */
	if (rq->mode == HP_BWD_SCS_RAW && old != raw &&
	    hp_arm64_pac_sign(target, rq->modifier) == target) {
		rq->status = HP_BWD_VALIDPAC;
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

/* hp_bwd_hijack_one() with its stack pointer, the PAC modifier, 64 bytes lower */
static noinline void hp_bwd_hijack_deeper(hp_bwd_victim_fn victim,
					  struct hp_bwd_req *rq)
{
	unsigned long pad[8];

	/* the array must exist in this frame: its address escapes */
	barrier_data(pad);
	hp_bwd_hijack_one(victim, rq);
}

/*
 * hp_bwd_hijack_one() on this CPU, with @rq where hp_bwd_land() finds it;
 * once more with another modifier if the unsigned address was by chance a
 * valid signature (HP_BWD_VALIDPAC stays only if both frames collide).
 */
void hp_bwd_hijack(hp_bwd_victim_fn victim, struct hp_bwd_req *rq)
{
	preempt_disable();
	this_cpu_write(hp_bwd_cur, rq);
	hp_bwd_hijack_one(victim, rq);
	if (rq->status == HP_BWD_VALIDPAC) {
		pr_info("hardprobe: the unsigned address 0x%lx is a valid signature in this frame: once more, a frame deeper\n",
			(unsigned long)rq->target);
		hp_bwd_hijack_deeper(victim, rq);
	}
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
