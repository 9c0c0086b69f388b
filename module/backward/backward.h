/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe backward edge: the return-address overwrite (backward_hijack.c)
 * and its two victims, hp_bwd_victim() with the kernel's flags and
 * hp_bwd_victim_control() without the shadow call stack
 * (shadow_call_stack_uninstrumented.c), used by backward.c and pac_ret.c.
 */
#ifndef _HP_BACKWARD_H
#define _HP_BACKWARD_H

#include <linux/compiler.h>
#include <linux/types.h>

#include "../arch/arm64.h"
#include "../lib/compat.h"

struct hp_result;
struct hp_layers;

/* How the victim rewrites its saved return address. */
enum hp_bwd_mode {
	HP_BWD_SIGNED,		/* the new address carries a valid PAC, if PAC is on */
	HP_BWD_CORRUPT,		/* the new address carries a wrong PAC, if PAC is on */
	/* arm64: the victim's shadow call stack entry instead of its frame record */
	HP_BWD_SCS_SAME,	/* signed as the entry was (raw if it was raw) */
	HP_BWD_SCS_RAW,		/* unsigned, as a writer without the key would write it */
};

/* What the victim did. */
enum hp_bwd_status {
	HP_BWD_NONE,		/* the victim did not run */
	HP_BWD_WRITTEN,		/* the return address slot was rewritten */
	HP_BWD_MISMATCH,	/* the slot did not hold the expected return address */
	HP_BWD_NOSIGN,		/* the PAC of the saved address could not be reproduced */
	HP_BWD_VALIDPAC,	/* SCS_RAW: the unsigned address is a valid signature here */
};

struct hp_bwd_req {
	void *expected;		/* the return address the slot must hold (the call site) */
	void *target;		/* the label it is rewritten to */
	unsigned long modifier;	/* the caller's sp: the PAC modifier (arm64) */
	enum hp_bwd_mode mode;
	enum hp_bwd_status status;
	unsigned long slot;	/* where the return address was */
	unsigned long old, new;	/* the slot's value before and after */
	bool landed;		/* the victim "returned" to the label */
	bool returned;		/* the victim came back to its call site */
};

typedef void (*hp_bwd_victim_fn)(struct hp_bwd_req *rq);

void hp_bwd_victim(struct hp_bwd_req *rq);		/* backward_hijack.c */
void hp_bwd_victim_control(struct hp_bwd_req *rq);	/* shadow_call_stack_uninstrumented.c */
unsigned long hp_bwd_rewrite(struct hp_bwd_req *rq, unsigned long *slot,
			     void *ret);
void hp_bwd_prepare(struct hp_bwd_req *rq);
void hp_bwd_hijack(hp_bwd_victim_fn victim, struct hp_bwd_req *rq);
void hp_bwd_land(void);
unsigned long hp_bwd_label(void);
extern const char *const hp_bwd_status_txt[];

/* Does @rq rewrite the victim's shadow call stack entry (not its frame record)? */
static inline bool hp_bwd_scs_mode(const struct hp_bwd_req *rq)
{
	return rq->mode == HP_BWD_SCS_SAME || rq->mode == HP_BWD_SCS_RAW;
}

/*
 * The victim's body: the saved return address sits above the saved frame
 * pointer in the frame record (arm64) or above the saved rbp (x86_64,
 * __builtin_frame_address() forces the frame). hp_bwd_rewrite() is a real
 * call, so the prologue must save the return address (and push it on the
 * shadow call stack); the store comes after it, so it is no tail call, and
 * it is WRITE_ONCE(), so it is not a dead store to a dying frame. In the
 * HP_BWD_SCS_* modes the slot is the victim's own shadow call stack entry,
 * just below x18 after its prologue's push (the caller checks that the
 * victim pushes and that x18 is in this task's shadow stack).
 */
static __always_inline void hp_bwd_victim_body(struct hp_bwd_req *rq)
{
	unsigned long *slot = (unsigned long *)__builtin_frame_address(0) + 1;
	unsigned long v;

#ifdef CONFIG_ARM64
	if (hp_bwd_scs_mode(rq)) {
		unsigned long x18;

		asm volatile("mov %0, x18" : "=r" (x18));
		slot = (unsigned long *)x18 - 1;
	}
#endif
	v = hp_bwd_rewrite(rq, slot, __builtin_return_address(0));

	WRITE_ONCE(*slot, v);
}

#endif /* _HP_BACKWARD_H */
