// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe core: the registry of families, running probes, the fatal-probe
 * bookkeeping, debugfs and module parameters.
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
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/kmsg_dump.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "../hardprobe.h"
#include "../bench/bench.h"

#define HP_NAME_MAX	64
#define HP_OUT_SIZE	(128 * 1024)

static int allow_fatal;

/* allow_fatal takes 0, 1 or 2 and nothing else (-1 must not act as 1) */
static int hp_allow_fatal_set(const char *val, const struct kernel_param *kp)
{
	int v;

	/* not a number, or out of int's range (ERANGE): no value either way */
	if (kstrtoint(val, 0, &v) || v < 0 || v > 2)
		return -EINVAL;
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops hp_allow_fatal_ops = {
	.set = hp_allow_fatal_set,
	.get = param_get_int,
};

module_param_cb(allow_fatal, &hp_allow_fatal_ops, &allow_fatal, 0600);
MODULE_PARM_DESC(allow_fatal,
		 "0: safe probes only (default); 1: also probes that oops the caller; 2: also probes that panic the kernel");

static char *run_at_load;
module_param_named(run, run_at_load, charp, 0400);
MODULE_PARM_DESC(run, "probe or feature to run at load (one probe per boot isolation)");

static bool autorun;
module_param(autorun, bool, 0400);
MODULE_PARM_DESC(autorun, "print the KTAP of the safe probes to the kernel log at load");

static char *target = "host";
module_param(target, charp, 0400);
MODULE_PARM_DESC(target, "name of the bench target, copied into the JSON report");

static const struct hp_family *const hp_families[] = {
	&hp_family_stackinit,
	&hp_family_heapinit,
	&hp_family_regs,
	&hp_family_canary,
	&hp_family_memperm,
	&hp_family_memexec,
	&hp_family_cfi,
	&hp_family_fortify,
	&hp_family_bounds,
	&hp_family_usercopy,
	&hp_family_refcount,
	&hp_family_list,
	&hp_family_slab,
	&hp_family_spec,
	&hp_family_kstack,
	&hp_family_overflow,
	&hp_family_backward,
	&hp_family_mte,
	&hp_family_layout,
};

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
static unsigned int hp_nr_probes, hp_nr_features;
/*
 * The one fatal probe that may be in flight (-1: none), guarded by hp_lock:
 * while its task lives nothing else runs, safe probes included, so that no
 * other probe's messages fall between its marker and its catch.
 */
static int hp_fatal_cur = -1;
/* what "run" reads: the last line, or the fatal probe fired last (-1: none) */
static char hp_last[HP_NAME_MAX + HP_EVIDENCE_LEN + 32];
static int hp_last_slot = -1;
static struct dentry *hp_dir;

static const char *const hp_outcome_names[HP_OUTCOME_MAX] = {
	[HP_NOT_RUN] = "not_run",
	[HP_PROTECTED] = "protected",
	[HP_VULNERABLE] = "vulnerable",
	[HP_UNSUPPORTED] = "unsupported",
	[HP_INCONCLUSIVE] = "inconclusive",
	[HP_ERROR] = "error",
};

const char *hp_outcome_name(enum hp_outcome o)
{
	return o < HP_OUTCOME_MAX ? hp_outcome_names[o] : "error";
}
EXPORT_SYMBOL_GPL(hp_outcome_name);

const char *hp_kind_name(enum hp_kind k)
{
	switch (k) {
	case HP_SAFE:
		return "safe";
	case HP_FATAL:
		return "fatal";
	case HP_PANIC:
		return "panic";
	}
	return "?";
}
EXPORT_SYMBOL_GPL(hp_kind_name);

void hp_set(struct hp_result *r, enum hp_outcome o, const char *fmt, ...)
{
	va_list ap;

	r->outcome = o;
	va_start(ap, fmt);
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
	va_end(ap);
}

void hp_layer(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/**
 * hp_layers_unavailable() - the layers of a feature this kernel cannot have
 * @l: the layers to fill
 * @sym: its Kconfig symbol
 * @why: e.g. "arm64 only"
 */
void hp_layers_unavailable(struct hp_layers *l, const char *sym, const char *why)
{
	l->configured = false;
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s: %s", sym, why);
	hp_layer(l->built, sizeof(l->built), "n/a (%s)", why);
	hp_layer(l->active, sizeof(l->active), "n/a (%s)", why);
}

/* The "built" layer of a compile-time feature: the flags the module got. */
void hp_built_flags(struct hp_layers *l, const char *flags, const char *none)
{
	hp_layer(l->built, sizeof(l->built), "module flags: %s",
		 flags[0] ? flags : none);
}

/* a catch's task: within this many lines of its signature, "PID: <pid> " */
#define HP_TIE_LINES	16

/* What one pass over the log looks for. */
struct hp_scan {
	const char *marker;		/* start after the last line holding it, or NULL */
	const char *const *needles;	/* NULL entries are skipped */
	unsigned int n;
	bool *found;
	char *line;			/* gets the first line holding needles[0] */
	size_t len;
	/*
	 * needles[0] counts only within HP_TIE_LINES lines of a line holding
	 * @tie: the same report as the task's "PID: <pid> " line
	 */
	const char *tie;
	bool marked;			/* out: the marker was found */
};

/* the record of the last marker found: a hint, a wrong one only costs a rescan */
static u64 hp_log_seen;

static void hp_scan_copy(struct hp_scan *sc, char *text)
{
	if (!sc->line)
		return;
	/* drop the "[    4.386934] " time stamp */
	if (text[0] == '[' && strstr(text, "] "))
		text = strstr(text, "] ") + 2;
	strscpy(sc->line, strim(text), sc->len);
}

/*
 * One pass over the kernel log: for each needle whether a line after the
 * last line holding the marker holds it.
 *
 * A marker is printed right before the search for it, after the markers of
 * earlier searches: the pass starts at the last marker found, and goes
 * back to the start of the log only if the marker is not there.
 */
static unsigned int hp_log_scan(struct hp_scan *sc)
{
	unsigned int i, hits = 0, since_tie = UINT_MAX, pending = 0;
	struct kmsg_dump_iter iter;
	bool rescan = false;
	u64 from, seq, mark = 0;
	size_t k;
	char *buf;

	sc->marked = !sc->marker;
	memset(sc->found, 0, sc->n * sizeof(*sc->found));
	buf = kmalloc(1024, GFP_KERNEL);
	if (!buf)
		return 0;
	kmsg_dump_rewind(&iter);
	from = READ_ONCE(hp_log_seen);
	if (sc->marker && from > iter.cur_seq && from < iter.next_seq) {
		iter.cur_seq = from;
		rescan = true;
	}
again:
	for (seq = iter.cur_seq; kmsg_dump_get_line(&iter, false, buf, 1023, &k);
	     seq = iter.cur_seq) {
		buf[k] = '\0';
		if (sc->marker && strstr(buf, sc->marker)) {
			sc->marked = true;
			mark = seq;
			since_tie = UINT_MAX;
			pending = 0;
			memset(sc->found, 0, sc->n * sizeof(*sc->found));
			continue;
		}
		if (!sc->marked)
			continue;
		if (sc->tie) {
			bool tie = strstr(buf, sc->tie);

			since_tie = tie ? 0 : since_tie == UINT_MAX ? since_tie : since_tie + 1;
			if (!sc->found[0] && strstr(buf, sc->needles[0])) {
				hp_scan_copy(sc, buf);
				pending = HP_TIE_LINES + 1;
			}
			if (pending && since_tie <= HP_TIE_LINES)
				sc->found[0] = true;
			pending -= !!pending;
		}
		for (i = sc->tie ? 1 : 0; i < sc->n; i++) {
			if (sc->found[i] || !sc->needles[i] || !strstr(buf, sc->needles[i]))
				continue;
			sc->found[i] = true;
			if (!i)
				hp_scan_copy(sc, buf);
		}
	}
	if (rescan && !sc->marked) {
		kmsg_dump_rewind(&iter);
		rescan = false;
		goto again;
	}
	if (sc->marker && sc->marked)
		WRITE_ONCE(hp_log_seen, mark);
	kfree(buf);
	for (i = 0; i < sc->n; i++)
		hits += sc->found[i];
	return hits;
}

/**
 * hp_log_find() - search the kernel log after a marker line
 * @marker: text of the line that starts the search (exclusive), or NULL
 *	to search the whole log
 * @needle: text to find in a later line
 * @line: where to copy the matching line (may be NULL)
 * @len: size of @line
 *
 * Return: true if a line after the last line holding @marker holds @needle;
 * @line then holds the first such line.
 */
bool hp_log_find(const char *marker, const char *needle, char *line,
		 size_t len)
{
	bool found;
	struct hp_scan sc = { .marker = marker, .needles = &needle, .n = 1,
			      .found = &found, .line = line, .len = len };

	return hp_log_scan(&sc) == 1;
}

/**
 * hp_log_find_all() - search the kernel log after a marker for several needles
 * @marker: as for hp_log_find()
 * @needles: texts to find in later lines (NULL entries are skipped)
 * @n: number of @needles
 * @found: set per needle: found after the last @marker line
 * @line: where to copy the first line holding needles[0] (may be NULL)
 * @len: size of @line
 *
 * One pass over the log, where hp_log_find() per needle would make @n.
 *
 * Return: how many of @needles were found.
 */
unsigned int hp_log_find_all(const char *marker, const char *const *needles,
			     unsigned int n, bool *found, char *line, size_t len)
{
	struct hp_scan sc = { .marker = marker, .needles = needles, .n = n,
			      .found = found, .line = line, .len = len };

	return hp_log_scan(&sc);
}

/**
 * hp_fn_size() - the size of a function of ours, from kallsyms
 * @fn: its address
 *
 * "name+0x0/0x40 [hardprobe]": the size runs to the next symbol, so it
 * includes the assembler's padding.
 *
 * Return: the size in bytes, or 0 if unknown or over 4 KiB.
 */
unsigned long hp_fn_size(const void *fn)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long size;
	char *slash;

	sprint_symbol(sym, (unsigned long)fn);
	slash = strchr(sym, '/');
	if (!slash)
		return 0;
	*strchrnul(slash, ' ') = '\0';
	if (kstrtoul(slash + 1, 16, &size) || size > 4096)
		return 0;
	return size;
}

/* Flat views of the family tables, built once at load. */
static const struct hp_probe **hp_probe_tab;
static const struct hp_feature **hp_feature_tab;

static const struct hp_probe *hp_probe_index(unsigned int i)
{
	return i < hp_nr_probes ? hp_probe_tab[i] : NULL;
}

static const struct hp_feature *hp_feature_index(unsigned int i)
{
	return i < hp_nr_features ? hp_feature_tab[i] : NULL;
}

static int hp_build_tables(void)
{
	unsigned int f, i, np = 0, nf = 0;

	for (f = 0; f < ARRAY_SIZE(hp_families); f++) {
		hp_nr_probes += hp_families[f]->nr_probes;
		hp_nr_features += hp_families[f]->nr_features;
	}
	hp_probe_tab = kcalloc(hp_nr_probes, sizeof(*hp_probe_tab), GFP_KERNEL);
	hp_feature_tab = kcalloc(hp_nr_features, sizeof(*hp_feature_tab), GFP_KERNEL);
	hp_fatal = kcalloc(hp_nr_probes, sizeof(*hp_fatal), GFP_KERNEL);
	if (!hp_probe_tab || !hp_feature_tab || !hp_fatal)
		return -ENOMEM;
	for (f = 0; f < ARRAY_SIZE(hp_families); f++) {
		for (i = 0; i < hp_families[f]->nr_probes; i++)
			hp_probe_tab[np++] = &hp_families[f]->probes[i];
		for (i = 0; i < hp_families[f]->nr_features; i++)
			hp_feature_tab[nf++] = &hp_families[f]->features[i];
	}
	return 0;
}

static void hp_free_tables(void)
{
	kfree(hp_probe_tab);
	kfree(hp_feature_tab);
	kfree(hp_fatal);
}

unsigned int hardprobe_probe_count(void)
{
	return hp_nr_probes;
}
EXPORT_SYMBOL_GPL(hardprobe_probe_count);

const struct hp_probe *hardprobe_probe_at(unsigned int i)
{
	return hp_probe_index(i);
}
EXPORT_SYMBOL_GPL(hardprobe_probe_at);

const struct hp_feature *hardprobe_feature(const char *id)
{
	unsigned int i;

	for (i = 0; i < hp_nr_features; i++)
		if (!strcmp(hp_feature_index(i)->id, id))
			return hp_feature_index(i);
	return NULL;
}
EXPORT_SYMBOL_GPL(hardprobe_feature);

void hardprobe_feature_layers(const struct hp_feature *f, struct hp_layers *l)
{
	memset(l, 0, sizeof(*l));
	f->layers(l);
}
EXPORT_SYMBOL_GPL(hardprobe_feature_layers);

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
		hp_fatal_judge(hp_probe_tab[slot], &hp_fatal[slot], &r);
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
	if (p->warns && hp_warn_refusal(p->warns, why, sizeof(why))) {
		hp_set(r, HP_UNSUPPORTED,
		       "refused: %s; it raises up to %u warning%s, and a warning then panics",
		       why, p->warns, p->warns == 1 ? "" : "s");
		mutex_unlock(&hp_lock);
		return 0;
	}
	counted = !hp_setting("/sys/kernel/warn_count", &w0);
	t0 = ktime_get_ns();
	p->run(r);
	r->ns = ktime_get_ns() - t0;
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
	char panics[160];

	if (p->kind == HP_PANIC && allow < 2)
		return "it panics the kernel on success: needs allow_fatal=2 (one probe per boot)";
	if (!allow)
		return "fatal probes need allow_fatal=1";
	if (allow < 2 && hp_oops_refusal(panics, sizeof(panics))) {
		scnprintf(why, len, "%s: a catch would panic; needs allow_fatal=2", panics);
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
static int hp_run_fatal(const struct hp_probe *p, int slot)
{
	struct hp_fatal_state *st = &hp_fatal[slot];
	int allow = READ_ONCE(allow_fatal);
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
 * The verdict on a fatal probe whose task is gone: its own catch is its
 * signature after its marker, in the same report as its task's
 * "PID: <pid> " line. Kept once found: the log ring may wrap later.
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
	if (sig && hp_log_scan(&sc))
		r->outcome = HP_PROTECTED;
	else if (!sc.marked)
		hp_set(r, HP_ERROR,
		       "its task (pid %d) died, and the kernel log no longer holds its marker: the verdict is lost (log_buf_len)",
		       st->pid);
	else
		hp_set(r, HP_ERROR,
		       "its task (pid %d) died without '%s' in its own report: it died of something else",
		       st->pid, sig ?: "-");
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
static struct hp_run *hp_run_all(void)
{
	struct hp_run *run;
	unsigned int i, pi = 0, fi;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return NULL;
	run->features = kcalloc(hp_nr_features, sizeof(*run->features), GFP_KERNEL);
	run->probes = kcalloc(hp_nr_probes, sizeof(*run->probes), GFP_KERNEL);
	if (!run->features || !run->probes)
		goto fail;
	run->nr_features = hp_nr_features;
	run->nr_probes = hp_nr_probes;

	for (fi = 0; fi < hp_nr_features; fi++) {
		struct hp_feature_result *fr = &run->features[fi];

		fr->feature = hp_feature_index(fi);
		hardprobe_feature_layers(fr->feature, &fr->layers);
		if (fr->feature->unavailable)
			fr->unavailable = fr->feature->unavailable();
		fr->first = pi;
		for (i = 0; i < hp_nr_probes; i++) {
			const struct hp_probe *p = hp_probe_index(i);
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
			static const u8 rank[HP_OUTCOME_MAX] = {
				[HP_NOT_RUN] = 0, [HP_UNSUPPORTED] = 1,
				[HP_PROTECTED] = 2, [HP_INCONCLUSIVE] = 3,
				[HP_VULNERABLE] = 4, [HP_ERROR] = 5,
			};
			const struct hp_result *res = &run->probes[i].res;
			enum hp_outcome o = res->outcome;

			/* a documented gap is shown by its probe, not failed */
			if (o == HP_VULNERABLE && res->known_gap)
				continue;
			if (o < HP_OUTCOME_MAX && rank[o] > rank[fr->outcome])
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

static void hp_run_free(struct hp_run *run)
{
	if (!run)
		return;
	kfree(run->features);
	kfree(run->probes);
	kfree(run);
}

/* debugfs: report, ktap, json render one fresh run into a private buffer */
struct hp_out {
	size_t len;
	char buf[];
};

static struct hp_out *hp_out_alloc(struct seq_buf *s)
{
	struct hp_out *out = kvmalloc(sizeof(*out) + HP_OUT_SIZE, GFP_KERNEL);

	if (out)
		seq_buf_init(s, out->buf, HP_OUT_SIZE);
	return out;
}

/* Hand a rendered buffer to the open file, or fail on overflow. */
static int hp_out_install(struct file *file, struct hp_out *out, struct seq_buf *s)
{
	if (seq_buf_has_overflowed(s)) {
		kvfree(out);
		return -EOVERFLOW;
	}
	out->len = seq_buf_used(s);
	file->private_data = out;
	return 0;
}

/*
 * Render at open, into a private buffer: probes and layer callbacks read
 * files (/proc/cmdline, sysfs), which must not happen under a seq_file lock
 * (lockdep: the same lock class, "possible recursive locking").
 */
static int hp_render_open(struct inode *inode, struct file *file)
{
	void (*render)(struct seq_buf *s, const struct hp_run *run) = inode->i_private;
	struct hp_run *run;
	struct hp_out *out;
	struct seq_buf s;

	if (hp_locked_down())
		return -EPERM;
	out = hp_out_alloc(&s);
	if (!out)
		return -ENOMEM;
	run = hp_run_all();
	if (!run || fatal_signal_pending(current)) {
		hp_run_free(run);
		kvfree(out);
		return run ? -EINTR : -ENOMEM;
	}
	render(&s, run);
	hp_run_free(run);
	return hp_out_install(file, out, &s);
}

static ssize_t hp_render_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct hp_out *out = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, out->buf, out->len);
}

static int hp_render_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct file_operations hp_render_fops = {
	.owner = THIS_MODULE,
	.open = hp_render_open,
	.read = hp_render_read,
	.release = hp_render_release,
	.llseek = default_llseek,
};

static int hp_probes_open(struct inode *inode, struct file *file)
{
	struct hp_out *out;
	struct seq_buf s;
	unsigned int i;

	if (hp_locked_down())
		return -EPERM;
	out = hp_out_alloc(&s);
	if (!out)
		return -ENOMEM;
	for (i = 0; i < hp_nr_probes; i++) {
		const struct hp_probe *p = hp_probe_index(i);
		const struct hp_feature *f = hardprobe_feature(p->feature);
		struct hp_layers l;

		hardprobe_feature_layers(f, &l);
		seq_buf_printf(&s, "%s %s %s %s %s\n", p->name, p->feature,
			       hp_kind_name(p->kind), l.configured ? "y" : "n",
			       p->signature ?: "-");
	}
	return hp_out_install(file, out, &s);
}

static const struct file_operations hp_probes_fops = {
	.owner = THIS_MODULE,
	.open = hp_probes_open,
	.read = hp_render_read,
	.release = hp_render_release,
	.llseek = default_llseek,
};

static bool hp_valid_name(const char *s)
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
 */
static int hp_run_name(const char *name, bool init)
{
	unsigned int i;
	int ret = -EINVAL;

	if (!hp_valid_name(name))
		return -EINVAL;
	for (i = 0; i < hp_nr_probes; i++) {
		const struct hp_probe *p = hp_probe_index(i);
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
			err = hp_run_fatal(p, i);
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

static ssize_t hp_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char name[HP_NAME_MAX];
	int err;

	if (hp_locked_down())
		return -EPERM;
	if (count == 0 || count >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	name[count] = '\0';
	if (name[count - 1] == '\n')
		name[count - 1] = '\0';
	err = hp_run_name(name, false);
	return err ? err : count;
}

/*
 * The last probe's line; after a fatal probe that never returned (its
 * writer was killed by the catch), that probe's verdict as of now.
 */
static ssize_t hp_run_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	char buf[sizeof(hp_last)];
	struct hp_result r;
	int slot;

	if (hp_locked_down())
		return -EPERM;
	if (mutex_lock_killable(&hp_lock))
		return -EINTR;
	slot = hp_last_slot;
	strscpy(buf, hp_last, sizeof(buf));
	mutex_unlock(&hp_lock);
	if (slot >= 0) {
		const struct hp_probe *p = hp_probe_index(slot);

		hp_fatal_result(p, slot, &r);
		hp_last_line(buf, sizeof(buf), p, &r);
	}
	return simple_read_from_buffer(ubuf, count, ppos, buf, strlen(buf));
}

static const struct file_operations hp_run_fops = {
	.owner = THIS_MODULE,
	.read = hp_run_read,
	.write = hp_run_write,
	.llseek = default_llseek,
};

/* autorun: KTAP to the kernel log, one line per printk */
static void hp_autorun(void)
{
	struct hp_run *run = hp_run_all();
	struct seq_buf s;
	char *buf, *line, *next;

	buf = kvmalloc(HP_OUT_SIZE, GFP_KERNEL);
	if (!buf || !run) {
		pr_err("autorun: out of memory\n");
		goto out;
	}
	seq_buf_init(&s, buf, HP_OUT_SIZE);
	hp_render_ktap(&s, run);
	seq_buf_str(&s);
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		pr_info("%s\n", line);
	}
out:
	kvfree(buf);
	hp_run_free(run);
}

static void hp_fatal_put_all(void)
{
	unsigned int i;

	for (i = 0; hp_fatal && i < hp_nr_probes; i++)
		hp_fatal_put(&hp_fatal[i]);
}

/*
 * The files are debugfs "unsafe" files: no debugfs reference is held across
 * a call into them. A writer killed by a fatal probe's catch never returns
 * from write(), and with debugfs_create_file() the reference it held would
 * make debugfs_remove() (rmmod) wait for it forever, in D state. Their fops'
 * owner is this module: an open file pins it, and every file is removed
 * only in module exit, so nothing of ours runs after removal.
 */
static void hp_create_files(void)
{
	hp_dir = debugfs_create_dir("hardprobe", NULL);
	debugfs_create_file_unsafe("probes", 0400, hp_dir, NULL, &hp_probes_fops);
	debugfs_create_file_unsafe("report", 0400, hp_dir, hp_render_text, &hp_render_fops);
	debugfs_create_file_unsafe("ktap", 0400, hp_dir, hp_render_ktap, &hp_render_fops);
	debugfs_create_file_unsafe("json", 0400, hp_dir, hp_render_json, &hp_render_fops);
	debugfs_create_file_unsafe("run", 0600, hp_dir, NULL, &hp_run_fops);
	debugfs_create_file_unsafe("bench", 0400, hp_dir, NULL, &hp_bench_fops);
	debugfs_create_file_unsafe("kstack", 0400, hp_dir, NULL, &hp_kstack_fops);
}

static int __init hardprobe_init(void)
{
	if (hp_locked_down()) {
		pr_err("the kernel is locked down (lockdown=integrity or confidentiality): hardprobe refuses to load, as its probes write kernel memory the way an attack does\n");
		return -EPERM;
	}
	if (run_at_load && !hp_valid_name(run_at_load)) {
		pr_err("run=%s: not a probe or feature name\n", run_at_load);
		return -EINVAL;
	}
	if (hp_build_tables()) {
		hp_free_tables();
		return -ENOMEM;
	}
	hp_settings_init();
	hp_create_files();
	pr_info("loaded: %u probes of %u features (target %s)\n", hp_nr_probes,
		hp_nr_features, target);

	if (run_at_load) {
		int err = hp_run_name(run_at_load, true);

		if (err)
			pr_err("run=%s: %d\n", run_at_load, err);
	}
	if (autorun)
		hp_autorun();
	return 0;
}

static void __exit hardprobe_exit(void)
{
	debugfs_remove_recursive(hp_dir);
	hp_settings_exit();
	hp_fatal_put_all();
	hp_free_tables();
}

module_init(hardprobe_init);
module_exit(hardprobe_exit);

const char *hardprobe_target(void)
{
	return target;
}

MODULE_DESCRIPTION("hardprobe: prove at run time which hardening features protect this kernel");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
