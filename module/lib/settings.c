// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe settings: the kernel command line, sysctls and counters as the
 * kernel holds them, and the refusals that depend on them.
 *
 * The writer's root and mount namespace cannot be trusted with this: a
 * chroot, a ProcSubset=pid mount or a bind mount over /proc/sys would hide
 * a setting or show another one, and a fatal probe would then fire on a
 * kernel that panics. hardprobe mounts its own procfs and sysfs instances at
 * load (kern_mount(): internal, in no mount namespace, never visible to user
 * space) and reads every /proc and /sys path there. A setting that still
 * cannot be read or parsed counts as the value that panics.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"

#define HP_SYSCTL	"/proc/sys/kernel/"

static struct vfsmount *hp_proc_mnt, *hp_sys_mnt;
static int hp_proc_err = -ENODEV, hp_sys_err = -ENODEV;

/* A private instance of a built-in filesystem (no module reference to drop). */
static struct vfsmount *hp_private_mount(const char *fs, int *err)
{
	struct file_system_type *type = get_fs_type(fs);
	struct vfsmount *mnt;

	if (!type) {
		*err = -ENODEV;
		return NULL;
	}
	mnt = kern_mount(type);
	if (IS_ERR(mnt)) {
		*err = PTR_ERR(mnt);
		return NULL;
	}
	*err = 0;
	return mnt;
}

void hp_settings_init(void)
{
	hp_proc_mnt = hp_private_mount("proc", &hp_proc_err);
	hp_sys_mnt = hp_private_mount("sysfs", &hp_sys_err);
	if (hp_proc_err || hp_sys_err)
		pr_warn("cannot mount private procfs/sysfs (%d/%d): fatal probes and probes that warn are refused\n",
			hp_proc_err, hp_sys_err);
}

void hp_settings_exit(void)
{
	if (hp_proc_mnt)
		kern_unmount(hp_proc_mnt);
	if (hp_sys_mnt)
		kern_unmount(hp_sys_mnt);
	hp_proc_mnt = NULL;
	hp_sys_mnt = NULL;
}

static struct file *hp_open_setting(const char *path, int flags)
{
	if (str_has_prefix(path, "/proc/"))
		return hp_proc_mnt ? file_open_root_mnt(hp_proc_mnt, path + 6, flags, 0) :
		       ERR_PTR(hp_proc_err);
	if (str_has_prefix(path, "/sys/"))
		return hp_sys_mnt ? file_open_root_mnt(hp_sys_mnt, path + 5, flags, 0) :
		       ERR_PTR(hp_sys_err);
	return filp_open(path, flags, 0);
}

/**
 * hp_read_file() - read a small text file (procfs, sysfs) into @buf
 * @path: an absolute path; /proc/... and /sys/... are read on hardprobe's
 *	own instances, whatever the caller's root and mount namespace show
 * @buf: where the text goes, NUL-terminated and trimmed
 * @len: size of @buf
 *
 * Return: its length, or -errno.
 */
ssize_t hp_read_file(const char *path, char *buf, size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = hp_open_setting(path, O_RDONLY);
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
 * hp_write_file() - write a small text to a file (sysfs, procfs)
 * @path: an absolute path; /proc/... and /sys/... are written on
 *	hardprobe's own instances, as hp_read_file() reads them
 * @buf: the text
 * @len: its length
 *
 * Return: what the file's write returned (the bytes taken, or -errno), or
 * the error of opening it.
 */
ssize_t hp_write_file(const char *path, const char *buf, size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = hp_open_setting(path, O_WRONLY);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, buf, len, &pos);
	filp_close(f, NULL);
	return n;
}

/*
 * Each word of the kernel command line to @fn(@word, @arg), in order;
 * true if @fn said true for any of them.
 */
bool hp_cmdline_each(bool (*fn)(const char *word, const void *arg), const void *arg)
{
	char *buf, *tok, *p;
	bool found = false;

	buf = kzalloc(1024, GFP_KERNEL);
	if (!buf || hp_read_file("/proc/cmdline", buf, 1024) < 0)
		goto out;
	p = buf;
	while ((tok = strsep(&p, " ")) != NULL)
		found |= fn(tok, arg);
out:
	kfree(buf);
	return found;
}

/* "@param=<value>": the value after the '=', or NULL */
static const char *hp_cmdline_value(const char *word, const char *param)
{
	size_t n = strlen(param);

	return !strncmp(word, param, n) && word[n] == '=' ? word + n + 1 : NULL;
}

struct hp_cmdline_param {
	const char *param;
	void *val;
};

static bool hp_cmdline_bool_one(const char *word, const void *arg)
{
	const struct hp_cmdline_param *c = arg;
	const char *v = hp_cmdline_value(word, c->param);

	return v && !kstrtobool(v, c->val);
}

/**
 * hp_cmdline_bool() - a boolean boot parameter as the command line gives it
 * @param: parameter name, e.g. "init_on_alloc"
 * @val: set to its value when present (the last one that parses)
 *
 * Return: true if "@param=<bool>" is on the kernel command line.
 */
bool hp_cmdline_bool(const char *param, bool *val)
{
	struct hp_cmdline_param c = { param, val };

	return hp_cmdline_each(hp_cmdline_bool_one, &c);
}

static bool hp_cmdline_ulong_one(const char *word, const void *arg)
{
	const struct hp_cmdline_param *c = arg;
	const char *v = hp_cmdline_value(word, c->param);

	return v && !kstrtoul(v, 0, c->val);
}

/**
 * hp_cmdline_ulong() - a numeric boot parameter as the command line gives it
 * @param: parameter name, e.g. "kfence.sample_interval"
 * @val: set to its value when present (the last one that parses)
 *
 * Return: true if "@param=<number>" is on the kernel command line.
 */
bool hp_cmdline_ulong(const char *param, unsigned long *val)
{
	struct hp_cmdline_param c = { param, val };

	return hp_cmdline_each(hp_cmdline_ulong_one, &c);
}

static bool hp_cmdline_word_one(const char *word, const void *arg)
{
	return !strcmp(word, arg);
}

/**
 * hp_slub_debug_value() - the value of a command-line word that sets SLUB debugging
 * @word: one word of the kernel command line
 *
 * Return: what follows "slub_debug=" (or "slab_debug=", 6.8 on), "" for the
 * bare word, NULL for any other word.
 */
const char *hp_slub_debug_value(const char *word)
{
	static const char *const names[] = { "slub_debug", "slab_debug" };
	unsigned int i;

	for (i = 0; i < (HP_HAVE_SLAB_DEBUG_PARAM ? 2 : 1); i++) {
		size_t n = strlen(names[i]);

		if (!strncmp(word, names[i], n) && (!word[n] || word[n] == '='))
			return word[n] ? word + n + 1 : "";
	}
	return NULL;
}

/* the last slub_debug (or slab_debug) word: its value, "" for the bare word */
struct hp_slub_word {
	bool seen;
	char val[64];
};

static bool hp_slub_debug_one(const char *word, const void *arg)
{
	struct hp_slub_word *last = (struct hp_slub_word *)arg;
	const char *v = hp_slub_debug_value(word);

	if (!v)
		return false;
	strscpy(last->val, v, sizeof(last->val));
	last->seen = true;
	return true;
}

/**
 * hp_slub_debug_on() - is SLUB debugging on (mm/slub.c's __slub_debug_enabled())?
 *
 * CONFIG_SLUB_DEBUG_ON, or any slub_debug word on the command line, the last
 * of which decides ("slub_debug=-" turns it off).
 */
bool hp_slub_debug_on(void)
{
	struct hp_slub_word last = { };

	if (!IS_ENABLED(CONFIG_SLUB_DEBUG))
		return false;
	hp_cmdline_each(hp_slub_debug_one, &last);
	if (!last.seen)
		return IS_ENABLED(CONFIG_SLUB_DEBUG_ON);
	return strcmp(last.val, "-") != 0;
}

/**
 * hp_cmdline_word() - is @word, exactly, one of the kernel command line's words?
 * @word: e.g. "arm64.nopauth" or "kasan.fault=panic"
 */
bool hp_cmdline_word(const char *word)
{
	return hp_cmdline_each(hp_cmdline_word_one, word);
}
EXPORT_SYMBOL_GPL(hp_cmdline_word);

/**
 * hp_setting() - a numeric sysctl or counter
 * @path: e.g. "/proc/sys/kernel/oops_limit"
 * @val: its value
 *
 * Return: 0, or -errno when it cannot be read or is not a number (a caller
 * deciding whether something panics must then assume that it does).
 */
int hp_setting(const char *path, unsigned long *val)
{
	char buf[24];
	ssize_t n = hp_read_file(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	if (!n)
		return -ENODATA;
	return kstrtoul(buf, 10, val);
}
EXPORT_SYMBOL_GPL(hp_setting);

/* "oops_limit" for /proc/sys/kernel/oops_limit, "oops_count" for /sys/kernel/...; else @path */
static const char *hp_setting_name(const char *path)
{
	static const char *const dirs[] = { HP_SYSCTL, "/sys/kernel/" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (str_has_prefix(path, dirs[i]))
			return path + strlen(dirs[i]);
	return path;
}

/**
 * hardprobe_would_panic() - would @n more oopses or warnings panic the kernel?
 * @panic_on: the sysctl that panics at the first one (panic_on_oops, _warn)
 * @limit: the sysctl that panics at the @limit-th one (0: none)
 * @count: the counter it compares with (/sys/kernel/oops_count, ...)
 * @n: how many more there may be
 * @why: the reason, when it would
 * @len: size of @why
 *
 * A setting that cannot be read or parsed counts as the one that panics.
 * Exported for hardprobe_kunit's test of that rule.
 */
bool hardprobe_would_panic(const char *panic_on, const char *limit,
			   const char *count, unsigned int n, char *why, size_t len)
{
	unsigned long on, lim, cnt;
	int err;

	err = hp_setting(panic_on, &on);
	if (err || on) {
		if (err)
			scnprintf(why, len, "cannot read kernel.%s (%d): counted as set",
				  hp_setting_name(panic_on), err);
		else
			scnprintf(why, len, "kernel.%s=%lu", hp_setting_name(panic_on), on);
		return true;
	}
	err = hp_setting(limit, &lim);
	if (err) {
		scnprintf(why, len, "cannot read kernel.%s (%d): counted as reached",
			  hp_setting_name(limit), err);
		return true;
	}
	if (!lim)
		return false;
	err = hp_setting(count, &cnt);
	if (err) {
		scnprintf(why, len, "kernel.%s=%lu and cannot read %s (%d): counted as reached",
			  hp_setting_name(limit), lim, count, err);
		return true;
	}
	if (cnt + n >= lim) {
		scnprintf(why, len, "kernel.%s=%lu, %s=%lu: %u more would reach it",
			  hp_setting_name(limit), lim, hp_setting_name(count), cnt, n);
		return true;
	}
	return false;
}
EXPORT_SYMBOL_GPL(hardprobe_would_panic);

/**
 * hp_warn_refusal() - would @n more warnings panic the kernel?
 * @n: how many WARN-class reports (WARN, UBSAN, KASAN, KFENCE) may follow
 * @why: the reason, when it would
 * @len: size of @why
 *
 * Each such report panics under panic_on_warn and counts towards
 * warn_limit (check_panic_on_warn()).
 */
bool hp_warn_refusal(unsigned int n, char *why, size_t len)
{
	return hardprobe_would_panic(HP_SYSCTL "panic_on_warn", HP_SYSCTL "warn_limit",
				     "/sys/kernel/warn_count", n, why, len);
}

/**
 * hp_oops_refusal() - would one oops (and one warning with it) panic the kernel?
 * @why: the reason, when it would
 * @len: size of @why
 */
bool hp_oops_refusal(char *why, size_t len)
{
	return hardprobe_would_panic(HP_SYSCTL "panic_on_oops", HP_SYSCTL "oops_limit",
				     "/sys/kernel/oops_count", 1, why, len) ||
	       hp_warn_refusal(1, why, len);
}

/* True when a WARN would panic the kernel (the one-warning case). */
bool hp_warn_panics(void)
{
	char why[8];

	return hp_warn_refusal(1, why, sizeof(why));
}

/**
 * hp_locked_down() - is the kernel locked down (lockdown=integrity or more)?
 *
 * hardprobe's probes store into .rodata, overwrite return addresses and
 * corrupt lists and slabs: what lockdown exists to forbid. Asked at every
 * entry point, as lockdown can be raised at any time.
 */
bool hp_locked_down(void)
{
	return security_locked_down(LOCKDOWN_DEBUGFS) != 0;
}

/**
 * hp_may_use() - may the caller use hardprobe's files and probes?
 *
 * Root by the files' modes, and CAP_SYS_ADMIN in the initial user namespace
 * besides: root in a container with debugfs bind-mounted in must not toggle
 * CR0.WP or ask the host to run a shell. Never under lockdown.
 *
 * Return: 0, or -EPERM.
 */
int hp_may_use(void)
{
	if (!capable(CAP_SYS_ADMIN) || hp_locked_down())
		return -EPERM;
	return 0;
}
