// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe run loop: running probes and the fatal-probe bookkeeping.
 *
 * Safe probes run one at a time under the probe lock. A fatal probe cannot
 * hold the lock across its trigger (a catch kills the calling task inside
 * the trigger, and a dead task never unlocks), so it records itself as "in
 * flight" under the lock, prints a unique marker, drops the lock and fires.
 * If it returns, it records what it saw; if the task died, the next report
 * looks for the probe's signature in the kernel log after the marker: in
 * the copy of the log taken at the catch itself (a kmsg dumper, so that a
 * "dmesg -C" in between loses nothing), else in the log.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/fdtable.h>
#include <linux/kmsg_dump.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "../hardprobe.h"
#include "../lib/log.h"
#include "core.h"

/*
 * The probe lock: one probe at a time. Not a mutex: a task that dies
 * holding it (an oops in a safe probe) never unlocks it, and every later
 * reader would wait for it forever. The lock knows its holder, and the lock
 * of a holder that is exiting is taken over.
 */
static DEFINE_SPINLOCK(hp_lock_spin);
static struct task_struct *hp_lock_owner;	/* a reference */
static DECLARE_WAIT_QUEUE_HEAD(hp_lock_wq);
static u64 hp_seq;

/*
 * For hardprobe_trust only: the safe probe that dies (BUG()) instead of
 * running, holding the probe lock inside a reader's read() of a report, so
 * that the test can show that a reader's death leaves the module usable and
 * unloadable. Set at load only; refused like a fatal probe where an oops
 * would panic.
 */
static char *inject_oops;
module_param(inject_oops, charp, 0400);
MODULE_PARM_DESC(inject_oops, "test only: this safe probe oopses instead of running (hardprobe_trust)");

/*
 * reports=0: the safe probes whose catch is a report that taints the kernel
 * (SLUB, KASAN, KFENCE: their "reports") do not run. SLUB's and KASAN's
 * reports turn lockdep off for good (add_taint(..., LOCKDEP_NOW_UNRELIABLE)):
 * make check-debug loads the module so, for its races to run under lockdep.
 */
static bool reports = true;
module_param(reports, bool, 0400);
MODULE_PARM_DESC(reports, "0: do not run the safe probes whose catch is a SLUB/KASAN/KFENCE report (lockdep stays on)");

/*
 * A catch that taints with LOCKDEP_NOW_UNRELIABLE: SLUB's "BUG <cache>" and
 * KASAN's "BUG: KASAN:" reports (KFENCE's "BUG: KFENCE:" too, to be safe);
 * warnings (UBSAN, refcount, list debugging) leave lockdep on.
 */
static bool hp_report_taints(const struct hp_probe *p)
{
	return p->reports && str_has_prefix(p->reports, "BUG");
}

/* Take the probe lock if it is free, or if its holder is dead. */
static bool hp_trylock(void)
{
	struct task_struct *dead = NULL;
	bool taken = false;

	spin_lock(&hp_lock_spin);
	if (hp_lock_owner && (READ_ONCE(hp_lock_owner->flags) & PF_EXITING)) {
		dead = hp_lock_owner;
		hp_lock_owner = NULL;
	}
	if (!hp_lock_owner) {
		hp_lock_owner = get_task_struct(current);
		taken = true;
	}
	spin_unlock(&hp_lock_spin);
	if (dead) {
		pr_warn("the probe lock's holder (pid %d) died holding it: taken over\n",
			task_pid_nr(dead));
		put_task_struct(dead);
	}
	return taken;
}

/* Return: 0 with the probe lock held, -EINTR on a fatal signal. */
static int hp_lock_killable(void)
{
	while (!hp_trylock()) {
		/* a dead holder wakes nobody: look again every 10 ms */
		if (wait_event_killable_timeout(hp_lock_wq, !READ_ONCE(hp_lock_owner),
						msecs_to_jiffies(10)) < 0)
			return -EINTR;
	}
	return 0;
}

static void hp_unlock(void)
{
	struct task_struct *t;

	spin_lock(&hp_lock_spin);
	t = hp_lock_owner;
	hp_lock_owner = NULL;
	spin_unlock(&hp_lock_spin);
	if (t)
		put_task_struct(t);
	wake_up(&hp_lock_wq);
}

/*
 * The log as it was at a fatal probe's catch: armed for the writer when it
 * fires, filled by the kmsg dumper the kernel calls at the end of an oops
 * (oops_exit(): the task's report printed, the task not yet exiting), read
 * by the judge once the task is gone. A "dmesg -C" after the catch hides
 * the log before it from every later reader of the log; not from this copy.
 */
#define HP_CAP_LEN	(64 * 1024)
enum { HP_CAP_IDLE, HP_CAP_ARMED, HP_CAP_FILLING, HP_CAP_FULL };
static char *hp_cap_buf;
static struct task_struct *hp_cap_task;	/* no reference: only compared */
static atomic_t hp_cap_state = ATOMIC_INIT(HP_CAP_IDLE);

static void hp_cap_take(enum kmsg_dump_reason reason)
{
	struct kmsg_dump_iter iter;
	size_t len = 0;

	if (reason != KMSG_DUMP_OOPS || READ_ONCE(hp_cap_task) != current ||
	    atomic_cmpxchg(&hp_cap_state, HP_CAP_ARMED, HP_CAP_FILLING) != HP_CAP_ARMED)
		return;
	kmsg_dump_rewind(&iter);
	/* the youngest lines that fit: the marker, then the report */
	if (!kmsg_dump_get_buffer(&iter, false, hp_cap_buf, HP_CAP_LEN - 1, &len))
		len = 0;
	hp_cap_buf[len] = '\0';
	atomic_set_release(&hp_cap_state, HP_CAP_FULL);
}

#if HP_KMSG_DUMP_DETAIL
static void hp_cap_dump(struct kmsg_dumper *d, struct kmsg_dump_detail *detail)
{
	hp_cap_take(detail->reason);
}
#else
static void hp_cap_dump(struct kmsg_dumper *d, enum kmsg_dump_reason reason)
{
	hp_cap_take(reason);
}
#endif

static struct kmsg_dumper hp_cap_dumper = {
	.dump = hp_cap_dump,
	.max_reason = KMSG_DUMP_OOPS,
};

/* Arm the copy for the writer about to fire. Under the probe lock. */
static void hp_cap_arm(void)
{
	atomic_set(&hp_cap_state, HP_CAP_IDLE);
	WRITE_ONCE(hp_cap_task, current);
	atomic_set(&hp_cap_state, HP_CAP_ARMED);
}

/* The probe returned, or was judged: no copy wanted. Under the probe lock. */
static void hp_cap_disarm(void)
{
	WRITE_ONCE(hp_cap_task, NULL);
	/* a dumper that is filling finishes into a buffer nobody reads */
	atomic_cmpxchg(&hp_cap_state, HP_CAP_ARMED, HP_CAP_IDLE);
	atomic_cmpxchg(&hp_cap_state, HP_CAP_FULL, HP_CAP_IDLE);
}

/* Fatal-probe state, one slot per probe, guarded by the probe lock. */
struct hp_fatal_state {
	u64 seq;		/* marker of the last attempt, 0: never run */
	bool in_flight;		/* fired, not returned, not judged yet */
	struct task_struct *task;	/* the writer that fired it (a reference) */
	pid_t pid;
	struct hp_result res;	/* what it returned, or the verdict found */
	/* never run, and its last write was refused: why (empty: not asked) */
	char refused[HP_EVIDENCE_LEN - 32];
};

static struct hp_fatal_state *hp_fatal;
/*
 * The one fatal probe that may be in flight (-1: none), guarded by the probe lock:
 * while its task lives nothing else runs, safe probes included, so that no
 * other probe's messages fall between its marker and its catch.
 */
static int hp_fatal_cur = -1;
/* what "run" reads: the last line, or the fatal probe fired last (-1: none) */
static char hp_last[HP_LAST_LEN];
static int hp_last_slot = -1;

/* The fatal probe in @st fired and its task is dying or dead. Under the probe lock. */
static bool hp_task_gone(const struct hp_fatal_state *st)
{
	return st->task && (READ_ONCE(st->task->flags) & PF_EXITING);
}

/* A fatal probe is in flight and its task lives. Under the probe lock. */
static bool hp_fatal_busy(void)
{
	return hp_fatal_cur >= 0 && !hp_task_gone(&hp_fatal[hp_fatal_cur]);
}

/* Forget the task of @st (it returned, or its verdict is kept). Under the probe lock. */
static void hp_fatal_put(struct hp_fatal_state *st)
{
	if (st->task)
		put_task_struct(st->task);
	st->task = NULL;
}

static void hp_fatal_judge(const struct hp_probe *p, struct hp_fatal_state *st,
			   struct hp_result *r);

/*
 * The fatal probe fired last died: judge it now, while its marker is
 * surely in the log, rather than at the next read of a report (the ring may
 * have wrapped by then). Under the probe lock.
 */
static void hp_fatal_judge_gone(void)
{
	struct hp_result r;
	int slot = hp_fatal_cur;

	if (slot >= 0 && hp_fatal[slot].in_flight && hp_task_gone(&hp_fatal[slot]))
		hp_fatal_judge(hardprobe_probe_at(slot), &hp_fatal[slot], &r);
}

/*
 * Take the probe lock with no fatal probe in flight. One whose task lives
 * fails the caller at once (-EBUSY: no wait per probe of a report); one
 * whose task died is judged first.
 *
 * Return: 0 with the probe lock held, -EINTR or -EBUSY.
 */
static int hp_lock_exclusive(void)
{
	if (hp_lock_killable())
		return -EINTR;
	if (hp_fatal_busy()) {
		hp_unlock();
		return -EBUSY;
	}
	hp_fatal_judge_gone();
	return 0;
}

/*
 * Run a safe probe alone and time it. A probe that may warn is refused when
 * that many warnings would panic (panic_on_warn, warn_limit), as a fatal
 * probe is refused near oops_limit; the warnings it really raised are
 * counted, and more than it declared is an error of the probe.
 */
static int hp_run_safe(const struct hp_probe *p, struct hp_result *r)
{
	char why[160], ev[HP_EVIDENCE_LEN];
	unsigned long w0, w1;
	bool counted;
	u64 t0, seq0, seq1;
	int err;

	memset(r, 0, sizeof(*r));
	if (hp_locked_down()) {
		hp_set(r, HP_UNSUPPORTED, "not run: the kernel is locked down");
		return -EPERM;
	}
	err = hp_lock_exclusive();
	if (err) {
		hp_set(r, HP_INCONCLUSIVE, "not run: %s",
		       err == -EBUSY ? "a fatal probe is still in flight" : "interrupted");
		return err;
	}
	if (hp_probe_refusal(p, why, sizeof(why))) {
		hp_set(r, HP_UNSUPPORTED, "refused: %s", why);
		hp_unlock();
		return 0;
	}
	if (!reports && hp_report_taints(p)) {
		hp_set(r, HP_NOT_RUN,
		       "not run: reports=0 (its catch is a SLUB, KASAN or KFENCE report, whose taint turns lockdep off)");
		hp_unlock();
		return 0;
	}
	if (inject_oops && !strcmp(inject_oops, p->name)) {
		struct hp_probe as_fatal = *p;

		/* refused where an oops of a fatal probe would be */
		as_fatal.kind = HP_FATAL;
		if (!hp_probe_refusal(&as_fatal, why, sizeof(why)))
			hp_inject_oops(p->name);
	}
	/* no WARN of another task half-counted at either end (lib/log.c) */
	hp_log_settle();
	seq0 = hp_log_seq();
	counted = !hp_setting("/sys/kernel/warn_count", &w0);
	/* a log checker excuses the reports it declares between these two lines */
	if (p->reports)
		pr_info("begin %s\n", p->name);
	t0 = ktime_get_ns();
	p->run(r);
	r->ns = ktime_get_ns() - t0;
	if (p->reports)
		pr_info("end %s\n", p->name);
	if (counted)
		hp_log_settle();
	if (counted && !hp_setting("/sys/kernel/warn_count", &w1)) {
		seq1 = hp_log_seq();
		r->warns = w1 - w0;
		/* another task's WARNs meanwhile (another CPU's) are not the probe's */
		if (r->warns > p->warns) {
			r->warns_foreign = min_t(unsigned int, r->warns,
						 hp_log_foreign_warns(seq0, seq1, current->pid));
			r->warns -= r->warns_foreign;
		}
		if (r->warns > p->warns) {
			strscpy(ev, r->evidence, sizeof(ev));
			hp_set(r, HP_ERROR,
			       "raised %u warnings, declared at most %u (its warn_limit refusal is wrong); %s",
			       r->warns, p->warns, ev);
		}
	}
	hp_unlock();
	return 0;
}

/**
 * hardprobe_run_probe() - run one safe probe
 * @p: the probe
 * @r: its result
 *
 * Return: 0, -EPERM for a probe that is not safe (those run through debugfs
 * "run" with allow_fatal, never from KUnit), under lockdown or without
 * CAP_SYS_ADMIN, -EINTR or -EBUSY when it could not run.
 */
int hardprobe_run_probe(const struct hp_probe *p, struct hp_result *r)
{
	if (p->kind != HP_SAFE || hp_may_use())
		return -EPERM;
	return hp_run_safe(p, r);
}
EXPORT_SYMBOL_GPL(hardprobe_run_probe);

#define HP_SHARED_FILES							\
	"its writer shares its file table (a thread, or CLONE_FILES): the catch would "	\
	"leak its reference to the file and pin the module; write from a single-threaded process"

/* Why @p may not fire now, into @why; NULL if it may. Under the probe lock. */
static const char *hp_fatal_refusal(const struct hp_probe *p, int allow, char *why,
				    size_t len)
{
	char panics[192];

	if (p->kind == HP_PANIC && allow < 2)
		return "it panics the kernel on success: needs allow_fatal=2 (one probe per boot)";
	if (!allow)
		return "fatal probes need allow_fatal=1";
	/* every way its catch (an oops, its warnings and reports) would panic */
	if (allow < 2 && hp_probe_refusal(p, panics, sizeof(panics))) {
		scnprintf(why, len, "%s; needs allow_fatal=2", panics);
		return why;
	}
	/*
	 * A writer that shares its file table (a thread of a multi-threaded
	 * process: a Go tool, a thread pool) holds a reference to the file it
	 * writes for the length of write(); killed by the catch, it never
	 * drops it, and the file pins the module for good.
	 */
	if (atomic_read(&current->files->count) > 1)
		return HP_SHARED_FILES;
	return NULL;
}

/*
 * Fire a fatal probe; returns only if the kernel did not stop it. The
 * refusal is decided and the probe marked in flight under one hold of
 * the probe lock, with no other fatal probe in flight: two writers cannot both pass
 * a check that one oops would fail.
 */
static int hp_run_fatal(const struct hp_probe *p, int slot, int allow)
{
	struct hp_fatal_state *st = &hp_fatal[slot];
	struct hp_result r = {};
	const char *refused;
	char why[224];
	u64 seq, t0;
	int err;

	if (hp_locked_down())
		return -EPERM;
	err = hp_lock_exclusive();
	if (err)
		return err;
	refused = hp_fatal_refusal(p, allow, why, sizeof(why));
	if (refused) {
		strscpy(st->refused, refused, sizeof(st->refused));
		hp_unlock();
		/* the report says why too (st->refused) */
		pr_notice_ratelimited("refused %s: %s\n", p->name, refused);
		return -EPERM;
	}
	hp_fatal_put(st);
	seq = ++hp_seq;
	st->seq = seq;
	st->in_flight = true;
	st->task = get_task_struct(current);
	st->pid = task_pid_nr(current);
	hp_fatal_cur = slot;
	hp_last_slot = slot;
	hp_cap_arm();
	pr_info("begin %s [%llu]\n", p->name, seq);
	hp_unlock();

	t0 = ktime_get_ns();
	p->run(&r);
	r.ns = ktime_get_ns() - t0;

	/* killed while waiting: the probe stays in flight and is judged when we exit */
	if (!hp_lock_killable()) {
		if (st->seq == seq) {
			st->res = r;
			st->in_flight = false;
			hp_fatal_put(st);
			hp_cap_disarm();
		}
		if (hp_fatal_cur == slot)
			hp_fatal_cur = -1;
		hp_unlock();
	}
	/* no evidence in the log, which more than root may read: "run" has it */
	pr_info("result %s %s%s\n", p->name, hp_outcome_name(r.outcome),
		r.known_gap ? " known_gap" : "");
	return 0;
}

/*
 * A fatal probe's task died after its marker without its catch: of one of
 * the oopses a bug past its feature meets (.escape, if it has any), in its
 * own report (@sc, tied to its PID), or of something else. Under the probe lock.
 */
static void hp_fatal_escaped(const struct hp_probe *p, const struct hp_fatal_state *st,
			     struct hp_scan *sc, struct hp_result *r)
{
	const struct hp_escape *e;
	char line[HP_EVIDENCE_LEN];

	sc->line = line;
	sc->len = sizeof(line);
	for (e = p->escape; e && e->text; e++) {
		sc->needles = &e->text;
		if (!hp_log_scan(sc))
			continue;
		if (e->first)
			hp_set(r, HP_INCONCLUSIVE,
			       "not tested: its task (pid %d) died of %s first: %s",
			       st->pid, e->by, line);
		else
			hp_set(r, HP_VULNERABLE,
			       "not caught by this check: its task (pid %d) went on and died of %s: %s",
			       st->pid, e->by, line);
		return;
	}
	hp_set(r, HP_ERROR,
	       "its task (pid %d) died without '%s'%s in its own report: it died of something else",
	       st->pid, p->signature ?: "-",
	       p->escape ? " (or an oops the bug meets past it)" : "");
}

/*
 * The verdict on a fatal probe whose task is gone: its own catch is its
 * signature after its marker, in the same report as its task's
 * "PID: <pid> " line; another protection's catch there (.escape) means
 * the bug got past this one. Kept once found: the log ring may wrap later.
 * Under the probe lock.
 */
static void hp_fatal_judge(const struct hp_probe *p, struct hp_fatal_state *st,
			   struct hp_result *r)
{
	char marker[HP_NAME_MAX + 32], tie[24];
	const char *sig = p->signature;
	struct hp_scan sc = { .marker = marker, .needles = &sig, .n = 1,
			      .line = r->evidence, .len = sizeof(r->evidence),
			      .tie = tie };
	bool found;

	sc.found = &found;
	snprintf(marker, sizeof(marker), "begin %s [%llu]", p->name, st->seq);
	snprintf(tie, sizeof(tie), " PID: %d ", st->pid);
	/* the copy taken at its catch, if it holds the marker; else the log */
	if (atomic_read_acquire(&hp_cap_state) == HP_CAP_FULL) {
		sc.text = hp_cap_buf;
		hp_log_scan(&sc);
		if (!sc.marked)
			sc.text = NULL;
	}
	if (sig && hp_log_scan(&sc)) {
		r->outcome = HP_PROTECTED;
	} else if (!sc.marked) {
		hp_set(r, HP_ERROR,
		       "its task (pid %d) died, and the kernel log no longer holds its marker: the verdict is lost (log_buf_len)",
		       st->pid);
	} else {
		hp_fatal_escaped(p, st, &sc, r);
	}
	st->res = *r;
	st->in_flight = false;
	hp_fatal_put(st);
	hp_cap_disarm();
	if (hp_fatal_cur == st - hp_fatal)
		hp_fatal_cur = -1;
}

/* The recorded state of a fatal probe, judged from the log if it never returned. */
static void hp_fatal_result(const struct hp_probe *p, int slot,
			    struct hp_result *r)
{
	struct hp_fatal_state *st = &hp_fatal[slot];

	memset(r, 0, sizeof(*r));
	if (hp_lock_killable()) {
		hp_set(r, HP_INCONCLUSIVE, "not judged: interrupted");
		return;
	}
	if (!st->seq && st->refused[0])
		hp_set(r, HP_NOT_RUN, "%s probe not run: refused: %s", hp_kind_name(p->kind),
		       st->refused);
	else if (!st->seq)
		hp_set(r, HP_NOT_RUN, "%s probe not run: %s", hp_kind_name(p->kind),
		       p->kind == HP_PANIC ? "needs allow_fatal=2, one per boot" :
		       "needs allow_fatal=1 and a write to run");
	else if (!st->in_flight)
		*r = st->res;
	else if (!hp_task_gone(st))
		hp_set(r, HP_INCONCLUSIVE, "in flight: its task (pid %d) has not returned yet",
		       st->pid);
	else
		hp_fatal_judge(p, st, r);
	hp_unlock();
}

/* Run every probe (safe ones now, fatal ones from their record) into @run. */
struct hp_run *hp_run_all(const char *target)
{
	struct hp_run *run;
	unsigned int i, pi = 0, fi;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return NULL;
	run->features = kcalloc(hp_feature_count(), sizeof(*run->features), GFP_KERNEL);
	run->probes = kcalloc(hardprobe_probe_count(), sizeof(*run->probes), GFP_KERNEL);
	if (!run->features || !run->probes)
		goto fail;
	run->target = target;
	run->nr_features = hp_feature_count();
	run->nr_probes = hardprobe_probe_count();

	for (fi = 0; fi < hp_feature_count(); fi++) {
		struct hp_feature_result *fr = &run->features[fi];

		fr->feature = hp_feature_at(fi);
		hardprobe_feature_layers(fr->feature, &fr->layers);
		if (fr->feature->impl->unavailable)
			fr->unavailable = fr->feature->impl->unavailable();
		fr->first = pi;
		for (i = 0; i < hardprobe_probe_count(); i++) {
			const struct hp_probe *p = hardprobe_probe_at(i);
			struct hp_probe_result *pr = &run->probes[pi];

			if (strcmp(p->feature, fr->feature->id))
				continue;
			pr->probe = p;
			if (p->kind == HP_SAFE)
				hp_run_safe(p, &pr->res);
			else
				hp_fatal_result(p, i, &pr->res);
			pi++;
			fr->count++;
		}
		fr->outcome = HP_NOT_RUN;
		for (i = fr->first; i < fr->first + fr->count; i++) {
			const struct hp_result *res = &run->probes[i].res;
			enum hp_outcome o = res->outcome;

			/* a documented gap is shown by its probe, not failed */
			if (o == HP_VULNERABLE && res->known_gap)
				continue;
			if (hp_outcome_rank(o) > hp_outcome_rank(fr->outcome))
				fr->outcome = o;
		}
	}
	return run;
fail:
	kfree(run->features);
	kfree(run->probes);
	kfree(run);
	return NULL;
}

void hp_run_free(struct hp_run *run)
{
	if (!run)
		return;
	kfree(run->features);
	kfree(run->probes);
	kfree(run);
}

bool hp_valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

/* The line "run" reads: @p's name, outcome and evidence. */
static void hp_last_line(char *buf, size_t len, const struct hp_probe *p,
			 const struct hp_result *r)
{
	snprintf(buf, len, "%s %s %s\n", p->name, hp_outcome_name(r->outcome), r->evidence);
}

/* A probe returned: "run" reads its line (no fatal probe left to judge). */
static void hp_last_set(const struct hp_probe *p, const struct hp_result *r)
{
	if (hp_lock_killable())
		return;
	hp_last_line(hp_last, sizeof(hp_last), p, r);
	hp_last_slot = -1;
	hp_unlock();
}

/*
 * Run a probe, or every probe of a feature, by name; records what "run"
 * reads. @init: from module init (run=), where a fatal probe would kill
 * insmod inside the module's init and leave it stuck "coming": refused.
 * @allow: allow_fatal, read once by the caller.
 */
int hp_run_name(const char *name, bool init, int allow)
{
	unsigned int i;
	int ret = -EINVAL;

	if (!hp_valid_name(name))
		return -EINVAL;
	for (i = 0; i < hardprobe_probe_count(); i++) {
		const struct hp_probe *p = hardprobe_probe_at(i);
		struct hp_result r;
		int err;

		if (strcmp(p->name, name) && strcmp(p->feature, name))
			continue;
		if (p->kind != HP_SAFE && init) {
			pr_err("run=%s: refused %s: a %s probe cannot run at load (its catch would kill insmod inside module init); write its name to debugfs hardprobe/run\n",
			       name, p->name, hp_kind_name(p->kind));
			ret = -EPERM;
			continue;
		}
		if (p->kind != HP_SAFE) {
			err = hp_run_fatal(p, i, allow);
			if (err)
				return err;
			hp_fatal_result(p, i, &r);
			hp_last_set(p, &r);
		} else {
			err = hp_run_safe(p, &r);
			if (err)
				return err;
			pr_info("result %s %s%s\n", p->name,
				hp_outcome_name(r.outcome),
				r.known_gap ? " known_gap" : "");
			hp_last_set(p, &r);
		}
		ret = ret == -EPERM ? ret : 0;
	}
	return ret;
}

/*
 * What "run" reads: the last probe's line; after a fatal probe that never
 * returned (its writer was killed by the catch), that probe's verdict as of
 * now. Returns -EINTR if interrupted.
 */
int hp_run_last(char *buf, size_t len)
{
	struct hp_result r;
	int slot;

	if (hp_lock_killable())
		return -EINTR;
	slot = hp_last_slot;
	strscpy(buf, hp_last, len);
	hp_unlock();
	if (slot >= 0) {
		const struct hp_probe *p = hardprobe_probe_at(slot);

		hp_fatal_result(p, slot, &r);
		hp_last_line(buf, len, p, &r);
	}
	return 0;
}

int hp_run_init(void)
{
	hp_fatal = kcalloc(hardprobe_probe_count(), sizeof(*hp_fatal), GFP_KERNEL);
	hp_cap_buf = vmalloc(HP_CAP_LEN);
	if (!hp_fatal || !hp_cap_buf)
		return -ENOMEM;
	/* without it (-EBUSY: only one per dumper) the judge reads the log */
	if (kmsg_dump_register(&hp_cap_dumper))
		pr_warn("no kmsg dumper: a fatal probe's catch is judged from the log alone\n");
	return 0;
}

void hp_run_exit(void)
{
	unsigned int i;

	kmsg_dump_unregister(&hp_cap_dumper);
	for (i = 0; hp_fatal && i < hardprobe_probe_count(); i++)
		hp_fatal_put(&hp_fatal[i]);
	kfree(hp_fatal);
	hp_fatal = NULL;
	vfree(hp_cap_buf);
	hp_cap_buf = NULL;
	if (hp_lock_owner)
		put_task_struct(hp_lock_owner);
	hp_lock_owner = NULL;
}
