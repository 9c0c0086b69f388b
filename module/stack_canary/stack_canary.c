// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe stack_canary: the canary is present in a protected frame and
 * differs between tasks (safe); a real overwrite past a local array must
 * be caught on return (panic: one probe per boot, judged from the log).
 *
 * stack_canary.per_task finds the task's canary in the words above a char
 * array in a protected frame, and a second task (a kthread) must have a
 * different one. stack_canary.smash writes two words from the start of an
 * 8-byte local array and returns: a protected kernel panics with
 * "stack-protector: Kernel stack is corrupted in:". It runs only with
 * allow_fatal=2.
 */
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "../hardprobe.h"

#define HP_CANARY_SIG "stack-protector: Kernel stack is corrupted in:"
#define HP_CANARY_WINDOW 16

struct hp_canary_seen {
	unsigned long value;
	int offset;		/* words above the array, 0: not found */
	struct completion done;
};

/* Look for the task's canary in the words just above a local array. */
static noinline void hp_canary_find(unsigned long *stack,
				    struct hp_canary_seen *seen)
{
#ifdef CONFIG_STACKPROTECTOR
	int i;

	for (i = 1; i < HP_CANARY_WINDOW; i++) {
		/* past the array on purpose: NOCHECK, or KASAN reports it */
		unsigned long word = READ_ONCE_NOCHECK(stack[i]);

		if (word == current->stack_canary) {
			seen->offset = i;
			seen->value = word;
			return;
		}
	}
#endif
}

/* A char array is what -fstack-protector-strong guards. */
static noinline void hp_canary_frame(struct hp_canary_seen *seen)
{
	char data[8] __aligned(sizeof(void *)) = {};

	hp_canary_find((unsigned long *)data, seen);
}

static int hp_canary_thread(void *arg)
{
	struct hp_canary_seen *seen = arg;

	hp_canary_frame(seen);
	/*
	 * complete() and then "return 0" would run module code after the
	 * waiter may have returned and the module been unloaded: signal and
	 * exit in one call that never comes back here.
	 */
	kthread_complete_and_exit(&seen->done, 0);
}

static void hp_stack_canary_per_task(struct hp_result *r)
{
	struct hp_canary_seen self = {}, other = {};
	struct task_struct *t;

	if (!IS_ENABLED(CONFIG_STACKPROTECTOR)) {
		hp_set(r, HP_UNSUPPORTED,
		       "no task canary to look for: the kernel has no stack protector (the smash probe tests the frame)");
		return;
	}
	hp_canary_frame(&self);
	init_completion(&other.done);
	t = kthread_run(hp_canary_thread, &other, "hardprobe-canary");
	if (IS_ERR(t)) {
		hp_set(r, HP_ERROR, "cannot start a second task: %ld", PTR_ERR(t));
		return;
	}
	wait_for_completion(&other.done);
	if (!self.offset || !other.offset) {
		hp_set(r, HP_VULNERABLE,
		       "the task's canary is not in a frame holding a char array (this task: %s, second task: %s)",
		       self.offset ? "found" : "absent", other.offset ? "found" : "absent");
		return;
	}
	if (self.value == other.value) {
		hp_set(r, HP_VULNERABLE,
		       "two tasks share one canary (found at word %d above the array): a leak of one is a leak of all",
		       self.offset);
		return;
	}
	hp_set(r, HP_PROTECTED,
	       "canary found at word %d above the array; two tasks have different canaries",
	       self.offset);
}

/* Write past the array: the canary above it is the first thing hit. */
static noinline void hp_canary_overwrite(void *stack)
{
	memset(stack, 0xff, 2 * sizeof(unsigned long));
}

static noinline void hp_canary_victim(void)
{
	char data[8] __aligned(sizeof(void *));

	hp_canary_overwrite(data);
}

static void hp_stack_canary_smash(struct hp_result *r)
{
	hp_canary_victim();
	hp_set(r, HP_VULNERABLE,
	       "overwrote the word above a local char array and returned: nothing checked it");
}

static void hp_canary_layers(struct hp_layers *l)
{
	l->configured = IS_ENABLED(CONFIG_STACKPROTECTOR);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_STACKPROTECTOR=%s%s", l->configured ? "y" : "n",
		 IS_ENABLED(CONFIG_STACKPROTECTOR_STRONG) ? " (STRONG)" : "");
	hp_built_flags(l, HP_FLAG_SSP, "no -fstack-protector");
	if (IS_ENABLED(CONFIG_STACKPROTECTOR_PER_TASK))
		hp_layer(l->active, sizeof(l->active), "per-task canary (arm64 sysreg guard)");
	else if (IS_ENABLED(CONFIG_X86_64))
		hp_layer(l->active, sizeof(l->active),
			 "per-task canary (x86_64: per-cpu, switched with the task)");
	else
		hp_layer(l->active, sizeof(l->active), "global canary");
}

static const struct hp_probe hp_probes_stack_canary[] = {
	/*
	 * LKDTM: CORRUPT_STACK and CORRUPT_STACK_STRONG (smash's bug, a panic)
	 * are not paired: tests.txt marks them "Crashes entire system on
	 * success".
	 */
	HP_PROBE(stack_canary, per_task, HP_SAFE,
		 .lkdtm = HP_LIST("REPORT_STACK_CANARY")),
	HP_PROBE(stack_canary, smash, HP_PANIC, .signature = HP_CANARY_SIG),
};

HP_FEATURE(stack_canary, .layers = hp_canary_layers,
	   .khc =
	   "CONFIG_STACKPROTECTOR CONFIG_STACKPROTECTOR_STRONG CONFIG_STACKPROTECTOR_PER_TASK");
