// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe module: its parameters, its debugfs files, load and unload. The
 * probes run in run.c; the features come from registry.c.
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
#include "core.h"
#include "../bench/bench.h"

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

static struct dentry *hp_dir;

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
 * Opening runs nothing: a task that dies inside ->open() (an oops in a
 * probe) leaves a file that was never installed and is never released, and
 * the module it pins can never be unloaded. The run happens at the first
 * read, where a death closes the file like any other.
 */
static int hp_render_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	return hp_may_use();
}

/*
 * Render one fresh run into a private buffer: probes and layer callbacks
 * read files (/proc/cmdline, sysfs), which must not happen under a seq_file
 * lock (lockdep: the same lock class, "possible recursive locking").
 */
static int hp_render(struct file *file)
{
	void (*render)(struct seq_buf *s, const struct hp_run *run) =
		file_inode(file)->i_private;
	struct hp_run *run;
	struct hp_out *out;
	struct seq_buf s;

	out = hp_out_alloc(&s);
	if (!out)
		return -ENOMEM;
	run = hp_run_all(target);
	if (!run || fatal_signal_pending(current)) {
		hp_run_free(run);
		kvfree(out);
		return run ? -EINTR : -ENOMEM;
	}
	render(&s, run);
	hp_run_free(run);
	if (seq_buf_has_overflowed(&s)) {
		kvfree(out);
		return -EOVERFLOW;
	}
	out->len = seq_buf_used(&s);
	/* two readers of one open file: the first rendering stays */
	if (cmpxchg(&file->private_data, NULL, out))
		kvfree(out);
	return 0;
}

static ssize_t hp_render_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct hp_out *out;
	int err;

	if (!READ_ONCE(file->private_data)) {
		err = hp_render(file);
		if (err)
			return err;
	}
	out = READ_ONCE(file->private_data);
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
	int err;

	err = hp_may_use();
	if (err)
		return err;
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

static ssize_t hp_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char name[HP_NAME_MAX];
	int err;

	err = hp_may_use();
	if (err)
		return err;
	if (count == 0 || count >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	name[count] = '\0';
	if (name[count - 1] == '\n')
		name[count - 1] = '\0';
	err = hp_run_name(name, false, READ_ONCE(allow_fatal));
	return err ? err : count;
}

/*
 * The last probe's line; after a fatal probe that never returned (its
 * writer was killed by the catch), that probe's verdict as of now.
 */
static ssize_t hp_run_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	char buf[HP_LAST_LEN];
	int err;

	err = hp_may_use();
	if (err)
		return err;
	err = hp_run_last(buf, sizeof(buf));
	if (err)
		return err;
	return simple_read_from_buffer(ubuf, count, ppos, buf, strlen(buf));
}

/*
 * No position lock: write() of a file with FMODE_ATOMIC_POS takes the
 * file's position lock when the writer's file table is shared (threads); a
 * writer killed by a catch would hold it for good, and any other thread of
 * its process would wait on it forever. The position is still kept (reads
 * from two threads at once only race on where each ends).
 */
static int hp_run_open(struct inode *inode, struct file *file)
{
	int err = hp_may_use();

	if (err)
		return err;
	file->f_mode &= ~FMODE_ATOMIC_POS;
	return 0;
}

static const struct file_operations hp_run_fops = {
	.owner = THIS_MODULE,
	.open = hp_run_open,
	.read = hp_run_read,
	.write = hp_run_write,
	.llseek = default_llseek,
};

/* autorun: KTAP to the kernel log, one line per printk */
static void hp_autorun(void)
{
	struct hp_run *run = hp_run_all(target);
	struct seq_buf s;
	char *buf, *line, *next;
	unsigned int i;

	buf = kvmalloc(HP_OUT_SIZE, GFP_KERNEL);
	if (!buf || !run) {
		pr_err("autorun: out of memory\n");
		goto out;
	}
	/*
	 * the kernel log may be read by more than root (dmesg_restrict=0):
	 * evidence can hold addresses and the KASLR offset, and stays in the
	 * root-only files
	 */
	for (i = 0; i < run->nr_probes; i++)
		strscpy(run->probes[i].res.evidence,
			"evidence withheld from the kernel log (debugfs hardprobe/json)",
			sizeof(run->probes[i].res.evidence));
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
	if (hp_run_init()) {
		hp_run_exit();
		hp_registry_exit();
		return -ENOMEM;
	}
	hp_settings_init();
	hp_cache_names_init();
	hp_create_files();
	pr_info("loaded: %u probes of %u features (target %s)\n", hardprobe_probe_count(),
		hp_feature_count(), target);

	if (run_at_load) {
		int err = hp_run_name(run_at_load, true, READ_ONCE(allow_fatal));

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
	hp_run_exit();
	hp_registry_exit();
}

module_init(hardprobe_init);
module_exit(hardprobe_exit);

MODULE_DESCRIPTION("hardprobe: prove at run time which hardening features protect this kernel");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
