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
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "hardprobe.h"
#include "bench.h"

#define HP_NAME_MAX	64
#define HP_OUT_SIZE	(128 * 1024)

static int allow_fatal;
module_param(allow_fatal, int, 0600);
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
	bool in_flight;
	struct hp_result res;
};

static struct hp_fatal_state *hp_fatal;
static unsigned int hp_nr_probes, hp_nr_features;
static char hp_last[HP_NAME_MAX + HP_EVIDENCE_LEN + 32];
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

/* the record of the last marker found: a hint, a wrong one only costs a rescan */
static u64 hp_log_seen;

/*
 * One pass over the kernel log: for each of @needles (NULL entries are
 * skipped) whether a line after the last line holding @marker holds it;
 * @line gets the first line holding needles[0].
 *
 * A marker is printed right before the search for it, after the markers of
 * earlier searches: the pass starts at the last marker found, and goes
 * back to the start of the log only if the marker is not there.
 */
static unsigned int hp_log_scan(const char *marker, const char *const *needles,
				unsigned int n, bool *found, char *line, size_t len)
{
	struct kmsg_dump_iter iter;
	bool after = !marker, rescan = false;
	unsigned int i, hits = 0;
	u64 from, seq, mark = 0;
	size_t k;
	char *buf;

	memset(found, 0, n * sizeof(*found));
	buf = kmalloc(1024, GFP_KERNEL);
	if (!buf)
		return 0;
	kmsg_dump_rewind(&iter);
	from = READ_ONCE(hp_log_seen);
	if (marker && from > iter.cur_seq && from < iter.next_seq) {
		iter.cur_seq = from;
		rescan = true;
	}
again:
	for (seq = iter.cur_seq; kmsg_dump_get_line(&iter, false, buf, 1023, &k);
	     seq = iter.cur_seq) {
		buf[k] = '\0';
		if (marker && strstr(buf, marker)) {
			after = true;
			mark = seq;
			memset(found, 0, n * sizeof(*found));
			continue;
		}
		if (!after)
			continue;
		for (i = 0; i < n; i++) {
			char *text = buf;

			if (found[i] || !needles[i] || !strstr(buf, needles[i]))
				continue;
			found[i] = true;
			if (i || !line)
				continue;
			/* drop the "[    4.386934] " time stamp */
			if (text[0] == '[' && strstr(text, "] "))
				text = strstr(text, "] ") + 2;
			strscpy(line, strim(text), len);
		}
	}
	if (rescan && !after) {
		kmsg_dump_rewind(&iter);
		rescan = false;
		goto again;
	}
	if (marker && after)
		WRITE_ONCE(hp_log_seen, mark);
	kfree(buf);
	for (i = 0; i < n; i++)
		hits += found[i];
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

	return hp_log_scan(marker, &needle, 1, &found, line, len) == 1;
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
	return hp_log_scan(marker, needles, n, found, line, len);
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

/* Read a small text file (procfs, sysctl) into @buf; returns length or -errno. */
ssize_t hp_read_file(const char *path, char *buf, size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, len - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	buf[n] = '\0';
	strim(buf);
	return n;
}

/**
 * hp_cmdline_bool() - a boolean boot parameter as the command line gives it
 * @param: parameter name, e.g. "init_on_alloc"
 * @val: set to its value when present
 *
 * Return: true if "@param=<bool>" is on the kernel command line.
 */
bool hp_cmdline_bool(const char *param, bool *val)
{
	char *buf, *tok, *p;
	size_t n = strlen(param);
	bool found = false;

	buf = kzalloc(1024, GFP_KERNEL);
	if (!buf || hp_read_file("/proc/cmdline", buf, 1024) < 0)
		goto out;
	p = buf;
	while ((tok = strsep(&p, " ")) != NULL) {
		if (!strncmp(tok, param, n) && tok[n] == '=' &&
		    !kstrtobool(tok + n + 1, val))
			found = true;
	}
out:
	kfree(buf);
	return found;
}

/**
 * hp_cmdline_word() - is @word, exactly, one of the kernel command line's words?
 * @word: e.g. "arm64.nopauth" or "kasan.fault=panic"
 */
bool hp_cmdline_word(const char *word)
{
	char *buf, *tok, *p;
	bool found = false;

	buf = kzalloc(1024, GFP_KERNEL);
	if (!buf || hp_read_file("/proc/cmdline", buf, 1024) < 0)
		goto out;
	p = buf;
	while ((tok = strsep(&p, " ")) != NULL)
		found |= !strcmp(tok, word);
out:
	kfree(buf);
	return found;
}

static bool hp_sysctl_set(const char *path)
{
	char buf[16];

	return hp_read_file(path, buf, sizeof(buf)) > 0 && strcmp(buf, "0");
}

/*
 * True if one more oops (or warning) reaches the kernel's limit, which panics:
 * @limit is a sysctl (0: no limit), @count the matching /sys/kernel counter.
 */
static bool hp_limit_near(const char *limit, const char *count)
{
	unsigned long lim, cnt = 0;
	char buf[24];

	if (hp_read_file(limit, buf, sizeof(buf)) <= 0 || kstrtoul(buf, 10, &lim) || !lim)
		return false;
	if (hp_read_file(count, buf, sizeof(buf)) > 0 && kstrtoul(buf, 10, &cnt))
		cnt = 0;
	return cnt + 1 >= lim;
}

/* True when a WARN would panic the kernel: safe probes that warn refuse then. */
bool hp_warn_panics(void)
{
	return hp_sysctl_set("/proc/sys/kernel/panic_on_warn");
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

/* Run a safe probe under the lock and time it. */
static void hp_run_safe(const struct hp_probe *p, struct hp_result *r)
{
	u64 t0;

	memset(r, 0, sizeof(*r));
	mutex_lock(&hp_lock);
	t0 = ktime_get_ns();
	p->run(r);
	r->ns = ktime_get_ns() - t0;
	mutex_unlock(&hp_lock);
}

/**
 * hardprobe_run_probe() - run one safe probe
 * @p: the probe
 * @r: its result
 *
 * Return: 0, or -EPERM for a probe that is not safe (those run through
 * debugfs "run" with allow_fatal, never from KUnit).
 */
int hardprobe_run_probe(const struct hp_probe *p, struct hp_result *r)
{
	if (p->kind != HP_SAFE)
		return -EPERM;
	hp_run_safe(p, r);
	return 0;
}
EXPORT_SYMBOL_GPL(hardprobe_run_probe);

static const char *hp_fatal_refusal(const struct hp_probe *p)
{
	bool panics;

	if (p->kind == HP_PANIC && allow_fatal < 2)
		return "it panics the kernel on success: needs allow_fatal=2 (one probe per boot)";
	if (!allow_fatal)
		return "fatal probes need allow_fatal=1";
	panics = hp_sysctl_set("/proc/sys/kernel/panic_on_oops") ||
		 hp_sysctl_set("/proc/sys/kernel/panic_on_warn");
	if (panics && allow_fatal < 2)
		return "panic_on_oops/panic_on_warn set: a catch would panic; needs allow_fatal=2";
	panics = hp_limit_near("/proc/sys/kernel/oops_limit", "/sys/kernel/oops_count") ||
		 hp_limit_near("/proc/sys/kernel/warn_limit", "/sys/kernel/warn_count");
	if (panics && allow_fatal < 2)
		return "oops_limit/warn_limit is one oops or warning away: a catch would panic; "
		       "needs allow_fatal=2";
	return NULL;
}

/* Fire a fatal probe; returns only if the kernel did not stop it. */
static int hp_run_fatal(const struct hp_probe *p, int slot)
{
	struct hp_fatal_state *st = &hp_fatal[slot];
	struct hp_result r = {};
	const char *why;
	u64 seq, t0;

	why = hp_fatal_refusal(p);
	if (why) {
		pr_notice_ratelimited("refused %s: %s\n", p->name, why);
		return -EPERM;
	}
	mutex_lock(&hp_lock);
	seq = ++hp_seq;
	st->seq = seq;
	st->in_flight = true;
	mutex_unlock(&hp_lock);

	pr_info("begin %s [%llu]\n", p->name, seq);
	t0 = ktime_get_ns();
	p->run(&r);
	r.ns = ktime_get_ns() - t0;

	mutex_lock(&hp_lock);
	if (st->seq == seq) {
		st->res = r;
		st->in_flight = false;
	}
	mutex_unlock(&hp_lock);
	pr_info("result %s %s%s: %s\n", p->name, hp_outcome_name(r.outcome),
		r.known_gap ? " known_gap" : "", r.evidence);
	return 0;
}

/* The recorded state of a fatal probe, judged from the log if it never returned. */
static void hp_fatal_result(const struct hp_probe *p, int slot,
			    struct hp_result *r)
{
	struct hp_fatal_state st;
	char marker[HP_NAME_MAX + 32];

	mutex_lock(&hp_lock);
	st = hp_fatal[slot];
	mutex_unlock(&hp_lock);

	memset(r, 0, sizeof(*r));
	if (!st.seq) {
		hp_set(r, HP_NOT_RUN, "%s probe not run: %s", hp_kind_name(p->kind),
		       p->kind == HP_PANIC ? "needs allow_fatal=2, one per boot" :
		       "needs allow_fatal=1 and a write to run");
		return;
	}
	if (!st.in_flight) {
		*r = st.res;
		return;
	}
	snprintf(marker, sizeof(marker), "begin %s [%llu]", p->name, st.seq);
	if (hp_log_find(marker, p->signature, r->evidence, sizeof(r->evidence)))
		r->outcome = HP_PROTECTED;
	else
		hp_set(r, HP_ERROR,
		       "not returned, and no '%s' after its marker: still running, or its task died of something else",
		       p->signature);
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

	out = hp_out_alloc(&s);
	if (!out)
		return -ENOMEM;
	run = hp_run_all();
	if (!run) {
		kvfree(out);
		return -ENOMEM;
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

/* Run a probe, or every probe of a feature, by name; records hp_last. */
static int hp_run_name(const char *name)
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
		if (p->kind != HP_SAFE) {
			err = hp_run_fatal(p, i);
			if (err)
				return err;
			hp_fatal_result(p, i, &r);
		} else {
			hp_run_safe(p, &r);
			pr_info("result %s %s%s: %s\n", p->name,
				hp_outcome_name(r.outcome),
				r.known_gap ? " known_gap" : "", r.evidence);
		}
		mutex_lock(&hp_lock);
		snprintf(hp_last, sizeof(hp_last), "%s %s %s\n", p->name,
			 hp_outcome_name(r.outcome), r.evidence);
		mutex_unlock(&hp_lock);
		ret = 0;
	}
	return ret;
}

static ssize_t hp_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char name[HP_NAME_MAX];
	int err;

	if (count == 0 || count >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	name[count] = '\0';
	if (count && name[count - 1] == '\n')
		name[count - 1] = '\0';
	err = hp_run_name(name);
	return err ? err : count;
}

static ssize_t hp_run_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	char buf[sizeof(hp_last)];

	mutex_lock(&hp_lock);
	strscpy(buf, hp_last, sizeof(buf));
	mutex_unlock(&hp_lock);
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

static int __init hardprobe_init(void)
{
	if (run_at_load && !hp_valid_name(run_at_load)) {
		pr_err("run=%s: not a probe or feature name\n", run_at_load);
		return -EINVAL;
	}
	if (hp_build_tables()) {
		hp_free_tables();
		return -ENOMEM;
	}

	hp_dir = debugfs_create_dir("hardprobe", NULL);
	debugfs_create_file("probes", 0400, hp_dir, NULL, &hp_probes_fops);
	debugfs_create_file("report", 0400, hp_dir, hp_render_text, &hp_render_fops);
	debugfs_create_file("ktap", 0400, hp_dir, hp_render_ktap, &hp_render_fops);
	debugfs_create_file("json", 0400, hp_dir, hp_render_json, &hp_render_fops);
	debugfs_create_file("run", 0600, hp_dir, NULL, &hp_run_fops);
	debugfs_create_file("bench", 0400, hp_dir, NULL, &hp_bench_fops);
	debugfs_create_file("kstack", 0400, hp_dir, NULL, &hp_kstack_fops);
	pr_info("loaded: %u probes of %u features (target %s)\n", hp_nr_probes,
		hp_nr_features, target);

	if (run_at_load) {
		int err = hp_run_name(run_at_load);

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
