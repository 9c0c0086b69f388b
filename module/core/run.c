// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe run loop: running probes and the fatal-probe bookkeeping.
 *
 * Safe probes run one at a time under hp_lock. A fatal probe cannot hold the
 * lock across its trigger (a catch kills the calling task inside the
 * trigger, and a dead task never unlocks), so it records itself as "in
 * flight" under the lock, prints a unique marker, drops the lock and fires.
 * If it returns, it records what it saw; if the task died, the next report
 * looks for the probe's signature in the kernel log after the marker.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"
#include "../lib/log.h"
#include "core.h"

static DEFINE_MUTEX(hp_lock);
static u64 hp_seq;

/* Fatal-probe state, one slot per probe, guarded by hp_lock. */
struct hp_fatal_state {
	u64 seq;		/* marker of the last attempt, 0: never run */
	bool in_flight;		/* fired, not returned, not judged yet */
	struct task_struct *task;	/* the writer that fired it (a reference) */
	pid_t pid;
	struct hp_result res;	/* what it returned, or the verdict found */
};

static struct hp_fatal_state *hp_fatal;
/*
 * The one fatal probe that may be in flight (-1: none), guarded by hp_lock:
 * while its task lives nothing else runs, safe probes included, so that no
 * other probe's messages fall between its marker and its catch.
 */
static int hp_fatal_cur = -1;
/* what "run" reads: the last line, or the fatal probe fired last (-1: none) */
static char hp_last[HP_LAST_LEN];
static int hp_last_slot = -1;

/* The fatal probe in @st fired and its task is dying or dead. Under hp_lock. */
static bool hp_task_gone(const struct hp_fatal_state *st)
{
	return st->task && (READ_ONCE(st->task->flags) & PF_EXITING);
}

/* A fatal probe is in flight and its task lives. Under hp_lock. */
static bool hp_fatal_busy(void)
{
	return hp_fatal_cur >= 0 && !hp_task_gone(&hp_fatal[hp_fatal_cur]);
}

/* Forget the task of @st (it returned, or its verdict is kept). Under hp_lock. */
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
 * have wrapped by then). Under hp_lock.
 */
static void hp_fatal_judge_gone(void)
{
	struct hp_result r;
	int slot = hp_fatal_cur;

	if (slot >= 0 && hp_fatal[slot].in_flight && hp_task_gone(&hp_fatal[slot]))
		hp_fatal_judge(hardprobe_probe_at(slot), &hp_fatal[slot], &r);
}

/*
 * Take hp_lock with no fatal probe in flight, waiting up to 5 s for one to
 * return or die. An oops somewhere else must not wedge every later reader:
 * the wait ends on a fatal signal.
 *
 * Return: 0 with hp_lock held, -EINTR or -EBUSY.
 */
static int hp_lock_exclusive(void)
{
	unsigned int tries;

	for (tries = 0; ; tries++) {
		if (mutex_lock_killable(&hp_lock))
			return -EINTR;
		if (!hp_fatal_busy()) {
			hp_fatal_judge_gone();
			return 0;
		}
		mutex_unlock(&hp_lock);
		if (tries >= 500)
			return -EBUSY;
		schedule_timeout_killable(msecs_to_jiffies(10));
		if (fatal_signal_pending(current))
			return -EINTR;
	}
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
	u64 t0;
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
		mutex_unlock(&hp_lock);
		return 0;
	}
	counted = !hp_setting("/sys/kernel/warn_count", &w0);
	/* a log checker excuses the reports it declares between these two lines */
	if (p->reports)
		pr_info("begin %s\n", p->name);
	t0 = ktime_get_ns();
	p->run(r);
	r->ns = ktime_get_ns() - t0;
	if (p->reports)
		pr_info("end %s\n", p->name);
	if (counted && !hp_setting("/sys/kernel/warn_count", &w1)) {
		r->warns = w1 - w0;
		if (r->warns > p->warns) {
			strscpy(ev, r->evidence, sizeof(ev));
			hp_set(r, HP_ERROR,
			       "raised %u warnings, declared at most %u (its warn_limit refusal is wrong); %s",
			       r->warns, p->warns, ev);
		}
	}
	mutex_unlock(&hp_lock);
	return 0;
}

/**
 * hardprobe_run_probe() - run one safe probe
 * @p: the probe
 * @r: its result
 *
 * Return: 0, -EPERM for a probe that is not safe (those run through debugfs
 * "run" with allow_fatal, never from KUnit) or under lockdown, -EINTR or
 * -EBUSY when it could not run.
 */
int hardprobe_run_probe(const struct hp_probe *p, struct hp_result *r)
{
	if (p->kind != HP_SAFE)
		return -EPERM;
	return hp_run_safe(p, r);
}
EXPORT_SYMBOL_GPL(hardprobe_run_probe);

/* Why @p may not fire now, into @why; NULL if it may. Under hp_lock. */
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
	return NULL;
}

/*
 * Fire a fatal probe; returns only if the kernel did not stop it. The
 * refusal is decided and the probe marked in flight under one hold of
 * hp_lock, with no other fatal probe in flight: two writers cannot both pass
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
		mutex_unlock(&hp_lock);
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
	pr_info("begin %s [%llu]\n", p->name, seq);
	mutex_unlock(&hp_lock);

	t0 = ktime_get_ns();
	p->run(&r);
	r.ns = ktime_get_ns() - t0;

	/* killed while waiting: the probe stays in flight and is judged when we exit */
	if (!mutex_lock_killable(&hp_lock)) {
		if (st->seq == seq) {
			st->res = r;
			st->in_flight = false;
			hp_fatal_put(st);
		}
		if (hp_fatal_cur == slot)
			hp_fatal_cur = -1;
		mutex_unlock(&hp_lock);
	}
	pr_info("result %s %s%s: %s\n", p->name, hp_outcome_name(r.outcome),
		r.known_gap ? " known_gap" : "", r.evidence);
	return 0;
}

/*
 * A fatal probe's task died after its marker without its catch: of one of
 * the oopses a bug past its feature meets (.escape, if it has any), in its
 * own report (@sc, tied to its PID), or of something else. Under hp_lock.
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
 * Under hp_lock.
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
	if (hp_fatal_cur == st - hp_fatal)
		hp_fatal_cur = -1;
}

/* The recorded state of a fatal probe, judged from the log if it never returned. */
static void hp_fatal_result(const struct hp_probe *p, int slot,
			    struct hp_result *r)
{
	struct hp_fatal_state *st = &hp_fatal[slot];

	memset(r, 0, sizeof(*r));
	if (mutex_lock_killable(&hp_lock)) {
		hp_set(r, HP_INCONCLUSIVE, "not judged: interrupted");
		return;
	}
	if (!st->seq)
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
	mutex_unlock(&hp_lock);
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
	if (mutex_lock_killable(&hp_lock))
		return;
	hp_last_line(hp_last, sizeof(hp_last), p, r);
	hp_last_slot = -1;
	mutex_unlock(&hp_lock);
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
			pr_info("result %s %s%s: %s\n", p->name,
				hp_outcome_name(r.outcome),
				r.known_gap ? " known_gap" : "", r.evidence);
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

	if (mutex_lock_killable(&hp_lock))
		return -EINTR;
	slot = hp_last_slot;
	strscpy(buf, hp_last, len);
	mutex_unlock(&hp_lock);
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
	return hp_fatal ? 0 : -ENOMEM;
}

void hp_run_exit(void)
{
	unsigned int i;

	for (i = 0; hp_fatal && i < hardprobe_probe_count(); i++)
		hp_fatal_put(&hp_fatal[i]);
	kfree(hp_fatal);
	hp_fatal = NULL;
}
