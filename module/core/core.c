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
#include "../lib/log.h"
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
static char hp_last[HP_NAME_MAX + HP_EVIDENCE_LEN + 32];
static int hp_last_slot = -1;
static struct dentry *hp_dir;


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
	run->features = kcalloc(hp_feature_count(), sizeof(*run->features), GFP_KERNEL);
	run->probes = kcalloc(hardprobe_probe_count(), sizeof(*run->probes), GFP_KERNEL);
	if (!run->features || !run->probes)
		goto fail;
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
	for (i = 0; i < hardprobe_probe_count(); i++) {
		const struct hp_probe *p = hardprobe_probe_at(i);
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
		const struct hp_probe *p = hardprobe_probe_at(slot);

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

	for (i = 0; hp_fatal && i < hardprobe_probe_count(); i++)
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
	if (hp_registry_init())
		return -ENOMEM;
	hp_fatal = kcalloc(hardprobe_probe_count(), sizeof(*hp_fatal), GFP_KERNEL);
	if (!hp_fatal) {
		hp_registry_exit();
		return -ENOMEM;
	}
	hp_settings_init();
	hp_create_files();
	pr_info("loaded: %u probes of %u features (target %s)\n", hardprobe_probe_count(),
		hp_feature_count(), target);

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
	kfree(hp_fatal);
	hp_registry_exit();
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
