// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe backward edge: a return address overwritten on the stack.
 *
 * The overwrite is backward_hijack.c's; here are the experiments on it and
 * their positive control (the victim built without a shadow stack).
 *
 * Features: shadow_call_stack (arm64) and ret_overwrite (x86_64: no
 * kernel-mode shadow stack exists, KSPP #142/#178); pac_ret is in
 * pac_ret.c. Every feature is listed on every architecture; where its
 * architecture does not apply its probes say "unsupported".
 *
 * The control victim (shadow_call_stack_uninstrumented.c) must go to the
 * label, else inconclusive. shadow_call_stack.ret_overwrite is "protected:
 * control flow unchanged" with SCS; built counts the x18 pushes
 * ("str x30, [x18], #8") in the module text and checks that the victim
 * pushes and the control does not; active checks that x18 lies in this
 * task's shadow stack. With CONFIG_DYNAMIC_SCS the kernel patches SCS in
 * only on CPUs without PAC (the module loader patches module text too):
 * when no shadow stack is in use the feature counts as not configured, and
 * built reads the patched text. ret_overwrite.stack (x86_64) is the same
 * experiment: with no kernel shadow stack it is vulnerable and the feature
 * is never configured, a KTAP skip that still shows the hole. The label is
 * a valid target under rethunk, retpoline and IBT (a ret is not an indirect
 * branch for IBT).
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/scs.h>
#include <linux/sched.h>

#include "backward.h"
#include "../hardprobe.h"

/* scs.h defines SCS_SIZE only where the kernel has a shadow call stack */
#ifdef CONFIG_SHADOW_CALL_STACK
#define HP_SCS_SIZE	((unsigned long)SCS_SIZE)
#else
#define HP_SCS_SIZE	0UL
#endif

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

static const char *hp_arm64_only(void)
{
	return IS_ENABLED(CONFIG_ARM64) ? NULL : "arm64 only";
}

static const char *hp_ret_unavailable(void)
{
	if (!IS_ENABLED(CONFIG_X86_64))
		return "x86_64 only";
	return "no kernel-mode shadow stack exists in Linux: KSPP #142, #178";
}

#ifdef CONFIG_ARM64
static void hp_arm64_scs_layers(struct hp_layers *l)
{
	unsigned long x18, base;
	struct hp_a64_count c;
	bool on = hp_arm64_scs_live(&x18, &base);

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
			 x18, base, HP_SCS_SIZE, x18 - base);
	else
		hp_layer(l->active, sizeof(l->active),
			 "x18=0x%lx is not in a shadow stack of this task (base 0x%lx)",
			 x18, base);
}
#endif

static void hp_scs_layers(struct hp_layers *l)
{
#ifdef CONFIG_ARM64
	hp_arm64_scs_layers(l);
#else
	hp_layers_unavailable(l, "CONFIG_SHADOW_CALL_STACK", "arm64 only");
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
		 HP_CONFIG_RETHUNK ? "; rethunk" : "",
		 IS_ENABLED(CONFIG_CALL_DEPTH_TRACKING) ? "; call depth tracking" : "");
	hp_layer(l->active, sizeof(l->active),
		 "no kernel-mode CET shadow stack (SHSTK is user-only in Linux)");
}

static const struct hp_probe hp_probes_shadow_call_stack[] = {
	HP_PROBE(shadow_call_stack, ret_overwrite, HP_SAFE),
};

HP_FEATURE(shadow_call_stack, .layers = hp_scs_layers, .unavailable = hp_arm64_only,
	   .khc = "CONFIG_SHADOW_CALL_STACK",
	   .lkdtm = HP_LIST("CFI_BACKWARD"));

static const struct hp_probe hp_probes_ret_overwrite[] = {
	HP_PROBE(ret_overwrite, stack, HP_SAFE),
};

HP_FEATURE(ret_overwrite, .layers = hp_ret_layers, .unavailable = hp_ret_unavailable,
	   .lkdtm = HP_LIST("CFI_BACKWARD"));
