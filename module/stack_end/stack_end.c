// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe stack_end_check: fork writes STACK_END_MAGIC into the lowest
 * word of every task stack (end_of_stack()); with
 * CONFIG_SCHED_STACK_END_CHECK, __schedule() checks it on every switch
 * away from a task and panics if it changed. A throwaway kthread checks
 * that its own stack end holds the magic (the control: the word the
 * scheduler checks is the one written), overwrites it and sleeps for a
 * jiffy, which switches it out. A catch panics (one probe per boot);
 * without the check the kthread wakes up, puts the magic back and reports
 * that the corruption went unnoticed.
 *
 * stack_end_check.corrupt's catch is "corrupted stack end detected inside
 * scheduler", a panic: it runs only with allow_fatal=2 (the bench gives it a
 * guest of its own, as stack_canary.smash). Without the check the probe is
 * vulnerable with the switches counted (nvcsw; none: inconclusive). A word
 * that was not the magic before the write is inconclusive, and is not
 * overwritten. No boot parameter turns the check off.
 */
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/magic.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>

#include "../hardprobe.h"

#define HP_SE_SIG	"corrupted stack end detected inside scheduler"

struct hp_se {
	struct completion done;
	unsigned long *end;
	unsigned long seen;	/* the word at end_of_stack() before the write */
	unsigned long switches;	/* voluntary switches over the sleep */
};

static int hp_se_thread(void *arg)
{
	struct hp_se *se = arg;
	unsigned long *end = end_of_stack(current);
	unsigned long nvcsw = current->nvcsw;

	se->end = end;
	se->seen = READ_ONCE(*end);
	if (se->seen == STACK_END_MAGIC) {
		WRITE_ONCE(*end, ~STACK_END_MAGIC);
		/* switched out here: a kernel with the check panics */
		schedule_timeout_uninterruptible(1);
		WRITE_ONCE(*end, STACK_END_MAGIC);
		se->switches = current->nvcsw - nvcsw;
	}
	/* no module code may run after the waiter returns: signal and exit at once */
	kthread_complete_and_exit(&se->done, 0);
}

static void hp_stack_end_check_corrupt(struct hp_result *r)
{
	struct hp_se se = {};
	struct task_struct *t;

	init_completion(&se.done);
	t = kthread_run(hp_se_thread, &se, "hardprobe-stackend");
	if (IS_ERR(t)) {
		hp_set(r, HP_ERROR, "cannot start the kthread: %ld", PTR_ERR(t));
		return;
	}
	wait_for_completion(&se.done);
	if (se.seen != STACK_END_MAGIC) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the kthread's stack end at %p holds %#lx, not STACK_END_MAGIC (%#lx); not overwritten",
		       se.end, se.seen, (unsigned long)STACK_END_MAGIC);
		return;
	}
	if (!se.switches) {
		hp_set(r, HP_INCONCLUSIVE,
		       "the kthread overwrote its stack-end magic but was never switched out (nvcsw unchanged); magic restored");
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "a kthread overwrote its stack-end magic at %p and was switched out %lu time(s): nothing noticed; magic restored",
	       se.end, se.switches);
}

static void hp_se_layers(struct hp_layers *l)
{
	l->configured = IS_ENABLED(CONFIG_SCHED_STACK_END_CHECK);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_SCHED_STACK_END_CHECK=%s", l->configured ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "a check in __schedule(): nothing to build");
	hp_layer(l->active, sizeof(l->active), "%s",
		 l->configured ? "on with the option (no boot parameter turns it off)" :
		 "off (not built)");
}

static const struct hp_probe hp_probes_stack_end_check[] = {
	HP_PROBE(stack_end_check, corrupt, HP_PANIC, .signature = HP_SE_SIG),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: a kthread's overwritten
 * end-of-stack magic, then a switch.
 */
HP_FEATURE(stack_end_check, .layers = hp_se_layers, .khc = "CONFIG_SCHED_STACK_END_CHECK",
	   .off = HP_LIST("CONFIG_SCHED_STACK_END_CHECK=n"));
