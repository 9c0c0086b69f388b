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
#include <linux/panic.h>
#include <linux/sched/signal.h>
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
 * hp_read_bytes() - read raw bytes of a file (a sysfs binary attribute)
 * @path: an absolute path; /proc/... and /sys/... are read on hardprobe's
 *	own instances, whatever the caller's root and mount namespace show
 * @buf: where the bytes go, as they are
 * @len: how many to read
 * @off: from where in the file
 *
 * Return: the number read (short at the end of the file), or -errno.
 */
ssize_t hp_read_bytes(const char *path, void *buf, size_t len, loff_t off)
{
	struct file *f;
	ssize_t n;

	f = hp_open_setting(path, O_RDONLY);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, len, &off);
	filp_close(f, NULL);
	return n;
}

/**
 * hp_read_file() - read a small text file (procfs, sysfs) into @buf
 * @path: an absolute path, read as hp_read_bytes() reads it
 * @buf: where the text goes, NUL-terminated and trimmed
 * @len: size of @buf
 *
 * Return: its length, or -errno.
 */
ssize_t hp_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n = hp_read_bytes(path, buf, len - 1, 0);

	if (n < 0)
		return n;
	buf[n] = '\0';
	strim(buf);
	return n;
}

/**
 * hp_slab_attr() - a number from a slab cache's SLUB sysfs directory
 * @cache: the cache's name (its directory in /sys/kernel/slab)
 * @attr: the file, e.g. "sheaf_capacity" or "sanity_checks"
 *
 * Return: the value, or -errno where the file cannot be read (a kernel
 * without that attribute, no SLUB sysfs).
 */
int hp_slab_attr(const char *cache, const char *attr)
{
	char path[HP_CACHE_NAME_LEN + 48], buf[16];
	unsigned int n;
	ssize_t len;

	if (snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, attr) >= sizeof(path))
		return -ENAMETOOLONG;
	len = hp_read_file(path, buf, sizeof(buf));
	if (len < 0)
		return len;
	if (kstrtouint(buf, 10, &n) || n > INT_MAX)
		return -EINVAL;
	return n;
}

/**
 * hp_slab_sheaf_capacity() - how many freed objects a slab cache's per-CPU
 * sheaf holds
 * @cache: the cache's name (its directory in /sys/kernel/slab)
 *
 * 7.x SLUB puts a freed object into a per-CPU array of objects (a sheaf)
 * first: nothing is written into the object, and set_freepointer() (the
 * free pointer's encoding, the naive double-free check) does not run.
 *
 * Return: the capacity (0: the cache has no sheaves), or -errno where the
 * file cannot be read (a kernel before sheaves, no SLUB sysfs).
 */
int hp_slab_sheaf_capacity(const char *cache)
{
	return hp_slab_attr(cache, "sheaf_capacity");
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
 * The kernel command line, read whole and cut as the kernel cuts it.
 * /proc/cmdline (saved_command_line) may outgrow COMMAND_LINE_SIZE (2048 on
 * x86 and arm64, 6.1 and 6.12) by bootconfig's words: a read that fills the
 * buffer may have been cut short, and counts as unreadable.
 */
#define HP_CMDLINE_MAX	4096

/**
 * hardprobe_cmdline_parse() - split a command line as the kernel's parse_args() does
 * @buf: what was read, split in place
 * @n: how many bytes were read into @buf, or -errno
 * @size: how many the read asked for (@buf holds @size + 1): a read that
 *	returned all @size may have been cut
 * @fn: called with each parameter and its value (NULL without '='), in order
 * @arg: passed to @fn
 *
 * Words as next_arg() cuts them: a double-quoted stretch keeps its spaces
 * (``param="a b"``), the quotes around a value or a word are dropped, and a
 * bare "--" ends the kernel's parameters (what follows is init's).
 * Exported for hardprobe_kunit's test on fixed strings.
 *
 * Return: 0, @n if negative, or -E2BIG when the read may have been cut;
 * @fn is then never called (a caller deciding safety must refuse).
 */
int hardprobe_cmdline_parse(char *buf, ssize_t n, size_t size, hp_cmdline_fn fn, void *arg)
{
	char *param, *val, *args;

	if (n < 0)
		return n;
	if ((size_t)n >= size)
		return -E2BIG;
	buf[n] = '\0';
	args = skip_spaces(buf);
	while (*args) {
		args = next_arg(args, &param, &val);
		if (!val && !strcmp(param, "--"))
			break;
		fn(param, val, arg);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(hardprobe_cmdline_parse);

/**
 * hp_cmdline_walk() - each parameter of the running kernel's command line
 * @fn: called with each parameter and its value (NULL without '='), in order
 * @arg: passed to @fn
 *
 * Return: 0, or -errno when /proc/cmdline cannot be read whole (-E2BIG: it
 * fills the buffer); @fn is then never called.
 */
int hp_cmdline_walk(hp_cmdline_fn fn, void *arg)
{
	char *buf = kmalloc(HP_CMDLINE_MAX + 1, GFP_KERNEL);
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int err;

	if (!buf)
		return -ENOMEM;
	f = hp_open_setting("/proc/cmdline", O_RDONLY);
	if (IS_ERR(f)) {
		kfree(buf);
		return PTR_ERR(f);
	}
	n = kernel_read(f, buf, HP_CMDLINE_MAX, &pos);
	filp_close(f, NULL);
	/* the line ends in '\n' */
	if (n > 0 && n < HP_CMDLINE_MAX && buf[n - 1] == '\n')
		buf[--n] = '\0';
	err = hardprobe_cmdline_parse(buf, n, HP_CMDLINE_MAX, fn, arg);
	kfree(buf);
	return err;
}

static char hp_dash2underscore(char c)
{
	return c == '-' ? '_' : c;
}

/* kernel/params.c's parameqn() (not exported): '-' and '_' are one */
static bool hp_parameqn(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (hp_dash2underscore(a[i]) != hp_dash2underscore(b[i]))
			return false;
	return true;
}

/**
 * hp_param_eq() - is @param the parameter @name, as early_param() and module parameters match?
 * @param: a parameter from hp_cmdline_walk()
 * @name: e.g. "init_on_alloc", "kfence.sample_interval"
 *
 * parameq(): the whole name, '-' as '_'.
 */
bool hp_param_eq(const char *param, const char *name)
{
	return hp_parameqn(param, name, strlen(name) + 1);
}
EXPORT_SYMBOL_GPL(hp_param_eq);

/*
 * "param=val" (the quotes around val dropped) joined again in place, as
 * init/main.c's repair_env_string() does before the __setup() match.
 */
static char *hp_cmdline_join(char *param, char *val)
{
	size_t n = strlen(param);

	if (val == param + n + 1) {
		val[-1] = '=';
	} else if (val == param + n + 2) {
		val[-2] = '=';
		memmove(val - 1, val, strlen(val) + 1);
	}
	return param;
}

/**
 * hp_setup_rest() - does the word match __setup(@name)?
 * @word: a word joined again ("param=val"), as hp_cmdline_each() gives it
 * @name: the __setup() string, e.g. "slab_nomerge" or "hardened_usercopy="
 *
 * obsolete_checksetup() matches the name as a prefix of the word, '-' as
 * '_' (parameqn()): "slab_nomerge" takes "slab_nomerge=0" too.
 *
 * Return: the rest of the word after @name (what the setup function gets),
 * or NULL.
 */
const char *hp_setup_rest(const char *word, const char *name)
{
	size_t n = strlen(name);

	return hp_parameqn(word, name, n) ? word + n : NULL;
}
EXPORT_SYMBOL_GPL(hp_setup_rest);

struct hp_cmdline_words {
	bool (*fn)(const char *word, const void *arg);
	const void *arg;
	bool found;
};

static void hp_cmdline_each_one(char *param, char *val, void *arg)
{
	struct hp_cmdline_words *w = arg;

	w->found |= w->fn(hp_cmdline_join(param, val), w->arg);
}

/*
 * Each word of the kernel command line, "param=val" joined again as
 * __setup() sees it, to @fn(@word, @arg), in order; true if @fn said true
 * for any of them. An unreadable command line has no words.
 */
bool hp_cmdline_each(bool (*fn)(const char *word, const void *arg), const void *arg)
{
	struct hp_cmdline_words w = { fn, arg, false };

	return !hp_cmdline_walk(hp_cmdline_each_one, &w) && w.found;
}

struct hp_cmdline_param {
	const char *param;
	void *val;
	bool found;
};

/* kstrtobool() of the value, as early_param()s (init_on_alloc=) and "<param>=" setups parse it */
static void hp_cmdline_bool_one(char *param, char *val, void *arg)
{
	struct hp_cmdline_param *c = arg;

	if (hp_param_eq(param, c->param) && val && !kstrtobool(val, c->val))
		c->found = true;
}

/**
 * hp_cmdline_bool() - a boolean boot parameter as the command line gives it
 * @param: parameter name, e.g. "init_on_alloc" (an early_param(), or a __setup()
 *	of "<param>=")
 * @val: set to its value when present (the last one that parses: a value
 *	kstrtobool() rejects leaves the kernel's as it was)
 *
 * Return: true if "@param=<bool>" is on the kernel command line.
 */
bool hp_cmdline_bool(const char *param, bool *val)
{
	struct hp_cmdline_param c = { param, val };

	return !hp_cmdline_walk(hp_cmdline_bool_one, &c) && c.found;
}

static void hp_cmdline_ulong_one(char *param, char *val, void *arg)
{
	struct hp_cmdline_param *c = arg;

	if (hp_param_eq(param, c->param) && val && !kstrtoul(val, 0, c->val))
		c->found = true;
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

	return !hp_cmdline_walk(hp_cmdline_ulong_one, &c) && c.found;
}

static void hp_cmdline_rodata_one(char *param, char *val, void *arg)
{
	struct hp_cmdline_param *c = arg;

	if (!hp_param_eq(param, "rodata") || !val)
		return;
	/* set_debug_rodata(): on, off, and arm64's full; anything else is ignored */
	if (!strcmp(val, "on") || !strcmp(val, "off") ||
	    (IS_ENABLED(CONFIG_ARM64) && !strcmp(val, "full"))) {
		*(bool *)c->val = strcmp(val, "off") != 0;
		c->found = true;
	}
}

/**
 * hp_cmdline_rodata() - rodata= as set_debug_rodata() takes it
 * @on: set to false for rodata=off, true for on (or arm64's full), when given
 *
 * Return: true if a rodata= word the kernel accepts is on the command line.
 */
bool hp_cmdline_rodata(bool *on)
{
	struct hp_cmdline_param c = { "rodata", on };

	return !hp_cmdline_walk(hp_cmdline_rodata_one, &c) && c.found;
}

/**
 * hp_slub_debug_value() - the value of a command-line word that sets SLUB debugging
 * @word: one word of the kernel command line, "param=val" joined
 *
 * The __setup() of "slub_debug" (and "slab_debug", 6.8 on) is a prefix
 * match, '-' as '_'; setup_slub_debug() takes what follows '=', and anything else
 * ("slub_debug", "slub_debugX", "slub_debug=") as full debugging.
 *
 * Return: the options after "slub_debug=", "" for full debugging, NULL for
 * any other word.
 */
const char *hp_slub_debug_value(const char *word)
{
	static const char *const names[] = { "slub_debug", "slab_debug" };
	unsigned int i;

	for (i = 0; i < (HP_HAVE_SLAB_DEBUG_PARAM ? 2 : 1); i++) {
		const char *v = hp_setup_rest(word, names[i]);

		if (v)
			return *v == '=' ? v + 1 : "";
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

static bool hp_cmdline_word_one(const char *word, const void *arg)
{
	return hp_param_eq(word, arg);
}

/**
 * hp_cmdline_word() - is the flag @word on the kernel command line?
 * @word: e.g. "nopti", "arm64.nopauth"
 *
 * The word alone, '-' as '_' (parameq(); arm64's idreg-override aliases
 * likewise), before any "--".
 */
bool hp_cmdline_word(const char *word)
{
	return hp_cmdline_each(hp_cmdline_word_one, word);
}
EXPORT_SYMBOL_GPL(hp_cmdline_word);

static void hp_cmdline_early_one(char *param, char *val, void *arg)
{
	struct hp_cmdline_param *c = arg;

	c->found |= hp_param_eq(param, c->param);
}

/**
 * hp_cmdline_early() - is the early_param() flag @name on the command line?
 * @name: e.g. "nopti", "no_hash_pointers": do_early_param() matches the
 *	name (parameq()), and these setup functions ignore any value
 */
bool hp_cmdline_early(const char *name)
{
	struct hp_cmdline_param c = { name };

	return !hp_cmdline_walk(hp_cmdline_early_one, &c) && c.found;
}

static bool hp_cmdline_setup_one(const char *word, const void *arg)
{
	return hp_setup_rest(word, arg);
}

/**
 * hp_cmdline_setup() - does a word of the command line match __setup(@name)?
 * @name: e.g. "slab_nomerge", "kasan_multi_shot" (flags whose setup
 *	function ignores what follows the name)
 */
bool hp_cmdline_setup(const char *name)
{
	return hp_cmdline_each(hp_cmdline_setup_one, name);
}
EXPORT_SYMBOL_GPL(hp_cmdline_setup);

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

/* True when a WARN would panic the kernel (the one-warning case). */
bool hp_warn_panics(void)
{
	char why[8];

	return hp_warn_refusal(1, why, sizeof(why));
}

static bool hp_slab_nomerge_one(const char *word, const void *arg)
{
	static const char *const names[] = { "slab_nomerge", "slub_nomerge", "slab_merge",
					     "slub_merge" };
	bool *nomerge = (bool *)arg;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (hp_setup_rest(word, names[i])) {
			*nomerge = i < 2;
			return true;
		}
	}
	return false;
}

/**
 * hp_cmdline_slab_nomerge() - does the command line turn slab merging off?
 * @nomerge: set to what the last of slab_nomerge and slab_merge (or slub_)
 *	says: mm/slab_common.c's __setup()s each set slab_nomerge
 *
 * Return: true if one of them is there.
 */
bool hp_cmdline_slab_nomerge(bool *nomerge)
{
	return hp_cmdline_each(hp_slab_nomerge_one, nomerge);
}
EXPORT_SYMBOL_GPL(hp_cmdline_slab_nomerge);

/* what a report does under kasan.fault= (kasan_arg_fault) and kfence.fault= */
enum hp_fault { HP_FAULT_REPORT, HP_FAULT_OOPS, HP_FAULT_PANIC, HP_FAULT_PANIC_ON_WRITE };

static const char *const hp_fault_names[] = {
	[HP_FAULT_REPORT] = "report", [HP_FAULT_OOPS] = "oops",
	[HP_FAULT_PANIC] = "panic", [HP_FAULT_PANIC_ON_WRITE] = "panic_on_write",
};

/* the command line's settings that turn a report into a panic, as the kernel took them */
struct hp_boot_panics {
	unsigned long taint;	/* panic_on_taint's mask */
	enum hp_fault kasan, kfence;
};

/* the last of @val's accepted words @ok (a bit per enum hp_fault) into @f */
static void hp_fault_set(const char *val, unsigned int ok, enum hp_fault *f)
{
	int i = val ? match_string(hp_fault_names, ARRAY_SIZE(hp_fault_names), val) : -EINVAL;

	if (i >= 0 && (ok & BIT(i)))
		*f = i;
}

static void hp_boot_panics_one(char *param, char *val, void *arg)
{
	struct hp_boot_panics *b = arg;
	unsigned long mask;
	char *taint;

	if (hp_param_eq(param, "panic_on_taint") && val) {
		/*
		 * panic_on_taint_setup(): a mask kstrtoul() rejects leaves the
		 * old one; one that is 0 once unknown flags are dropped is
		 * refused, but stored first
		 */
		taint = strsep(&val, ",");
		if (!kstrtoul(taint, 16, &mask))
			b->taint = mask & TAINT_FLAGS_MAX;
	} else if (hp_param_eq(param, "kasan.fault")) {
		/* early_kasan_fault(): anything else leaves it as it was */
		hp_fault_set(val, BIT(HP_FAULT_REPORT) | BIT(HP_FAULT_PANIC) |
			     (HP_HAVE_KASAN_PANIC_ON_WRITE ? BIT(HP_FAULT_PANIC_ON_WRITE) : 0),
			     &b->kasan);
	} else if (HP_HAVE_KFENCE_FAULT && hp_param_eq(param, "kfence.fault")) {
		hp_fault_set(val, BIT(HP_FAULT_REPORT) | BIT(HP_FAULT_OOPS) | BIT(HP_FAULT_PANIC),
			     &b->kfence);
	}
}

/* panic_on_taint=, kasan.fault=, kfence.fault= as the kernel took them; -errno if unreadable */
static int hp_boot_panics(struct hp_boot_panics *b)
{
	memset(b, 0, sizeof(*b));
	return hp_cmdline_walk(hp_boot_panics_one, b);
}

/**
 * hardprobe_cmdline_panics() - panic_on_taint= and kasan.fault= as @line sets them
 * @line: a command line, split in place
 * @taint: panic_on_taint's mask
 * @kasan_panics: kasan.fault=panic (or panic_on_write)
 *
 * For hardprobe_kunit's test on fixed strings. Return: as hardprobe_cmdline_parse().
 */
int hardprobe_cmdline_panics(char *line, unsigned long *taint, bool *kasan_panics)
{
	struct hp_boot_panics b = { };
	size_t n = strlen(line);
	int err = hardprobe_cmdline_parse(line, n, n + 1, hp_boot_panics_one, &b);

	*taint = b.taint;
	*kasan_panics = b.kasan == HP_FAULT_PANIC || b.kasan == HP_FAULT_PANIC_ON_WRITE;
	return err;
}
EXPORT_SYMBOL_GPL(hardprobe_cmdline_panics);

/* what sets each taint flag a probe may set */
static const struct {
	unsigned int bit;
	char letter;
	const char *name, *by;
} hp_taints[] = {
	{ TAINT_DIE, 'D', "TAINT_DIE", "an oops" },
	{ TAINT_WARN, 'W', "TAINT_WARN", "a warning" },
	{ TAINT_BAD_PAGE, 'B', "TAINT_BAD_PAGE", "a SLUB, KFENCE or KASAN report" },
};

/**
 * hp_taint_refusal() - would setting one of @taints panic (panic_on_taint=)?
 * @taints: the taint flags (BIT(TAINT_*)) the probe may set
 * @b: the command line's settings (hp_boot_panics())
 * @err: hp_boot_panics()'s error: the command line could not be read
 * @why: the reason, when it would
 * @len: size of @why
 *
 * add_taint() panics when the taint mask meets panic_on_taint's: at a new
 * flag in it, or at any flag once the kernel already holds one (an early
 * taint, before the parameter was parsed).
 */
static bool hp_taint_refusal(unsigned long taints, const struct hp_boot_panics *b,
			     int err, char *why, size_t len)
{
	unsigned long tainted;
	unsigned int i;

	if (err) {
		scnprintf(why, len,
			  "cannot read the command line (%d): panic_on_taint counted as set", err);
		return true;
	}
	if (!b->taint)
		return false;
	for (i = 0; i < ARRAY_SIZE(hp_taints); i++) {
		if (!(taints & BIT(hp_taints[i].bit) & b->taint))
			continue;
		scnprintf(why, len, "panic_on_taint=0x%lx: %s taints %c (%s, bit %u)",
			  b->taint, hp_taints[i].by, hp_taints[i].letter, hp_taints[i].name,
			  hp_taints[i].bit);
		return true;
	}
	err = hp_setting(HP_SYSCTL "tainted", &tainted);
	if (err || (tainted & b->taint)) {
		if (err)
			scnprintf(why, len,
				  "panic_on_taint=0x%lx and cannot read kernel.tainted (%d): counted as met",
				  b->taint, err);
		else
			scnprintf(why, len,
				  "panic_on_taint=0x%lx, kernel.tainted=0x%lx: any new taint panics",
				  b->taint, tainted);
		return true;
	}
	return false;
}

/* kasan.fault=panic (or panic_on_write) in @b (@err: unreadable): a KASAN report panics */
static bool hp_kasan_refusal(const struct hp_boot_panics *b, int err, char *why, size_t len)
{
	bool panics = b->kasan == HP_FAULT_PANIC || b->kasan == HP_FAULT_PANIC_ON_WRITE;

	if (!IS_ENABLED(CONFIG_KASAN))
		return false;
	if (err)
		scnprintf(why, len,
			  "cannot read the command line (%d): kasan.fault=panic counted as set",
			  err);
	else if (panics)
		scnprintf(why, len, "kasan.fault=%s: a KASAN report panics",
			  hp_fault_names[b->kasan]);
	return err || panics;
}

/**
 * hp_kfence_fault_refusal() - does a KFENCE report oops or panic (kfence.fault=)?
 * @why: the reason, when it does
 * @len: size of @why
 */
bool hp_kfence_fault_refusal(char *why, size_t len)
{
	struct hp_boot_panics b;
	int err;

	if (!HP_HAVE_KFENCE_FAULT)
		return false;
	err = hp_boot_panics(&b);
	if (err)
		scnprintf(why, len,
			  "cannot read the command line (%d): kfence.fault=panic counted as set",
			  err);
	else if (b.kfence != HP_FAULT_REPORT)
		scnprintf(why, len, "kfence.fault=%s: a KFENCE report would %s",
			  hp_fault_names[b.kfence], hp_fault_names[b.kfence]);
	return err || b.kfence != HP_FAULT_REPORT;
}

/* hung_task_panic, softlockup_panic: a probe that blocks or runs long may meet them */
static bool hp_block_refusal(char *why, size_t len)
{
	static const struct {
		bool on;
		const char *sysctl, *what;
	} d[] = {
		{ IS_ENABLED(CONFIG_DETECT_HUNG_TASK), "hung_task_panic",
		  "a task blocked past hung_task_timeout_secs panics" },
		{ IS_ENABLED(CONFIG_SOFTLOCKUP_DETECTOR), "softlockup_panic",
		  "a CPU held past twice watchdog_thresh panics" },
	};
	unsigned long v;
	unsigned int i;
	char path[48];
	int err;

	for (i = 0; i < ARRAY_SIZE(d); i++) {
		if (!d[i].on)
			continue;
		snprintf(path, sizeof(path), HP_SYSCTL "%s", d[i].sysctl);
		err = hp_setting(path, &v);
		if (!err && !v)
			continue;
		if (err)
			scnprintf(why, len, "cannot read kernel.%s (%d): counted as set; %s",
				  d[i].sysctl, err, d[i].what);
		else
			scnprintf(why, len, "kernel.%s=%lu: %s", d[i].sysctl, v, d[i].what);
		return true;
	}
	return false;
}

/**
 * hp_probe_refusal() - would running @p now panic the kernel?
 * @p: the probe
 * @why: the reason, when it would
 * @len: size of @why
 *
 * Every way a catch becomes a panic, each failing closed: an oops
 * (panic_on_oops, oops_limit; "Attempted to kill init" when the writer is
 * PID 1), its warnings (panic_on_warn, warn_limit), the taint flags it sets
 * (panic_on_taint), a KASAN report (kasan.fault=panic), and a probe that
 * blocks (hung_task_panic, softlockup_panic). A fatal probe may oops, warn
 * and (with .reports) report; a safe one warns up to .warns times and
 * reports what .reports names (under KASAN its warnings may be KASAN
 * reports).
 */
bool hp_probe_refusal(const struct hp_probe *p, char *why, size_t len)
{
	bool fatal = p->kind != HP_SAFE;
	unsigned int warns = fatal ? max(p->warns, 1U) : p->warns;
	unsigned long taints = 0;
	struct hp_boot_panics b;
	char s[128];
	int err;

	if (fatal && is_global_init(current)) {
		scnprintf(why, len,
			  "the writer is PID 1 (init): a caught oops kills it and the kernel panics (\"Attempted to kill init\")");
		return true;
	}
	if (fatal && hardprobe_would_panic(HP_SYSCTL "panic_on_oops", HP_SYSCTL "oops_limit",
					   "/sys/kernel/oops_count", 1, s, sizeof(s))) {
		scnprintf(why, len, "%s: its oops would panic", s);
		return true;
	}
	if (warns && hp_warn_refusal(warns, s, sizeof(s))) {
		scnprintf(why, len, "%s: its %u warning%s would panic", s, warns,
			  warns == 1 ? "" : "s");
		return true;
	}
	if (fatal)
		taints |= BIT(TAINT_DIE);
	if (warns)
		taints |= BIT(TAINT_WARN);
	if (p->reports || (warns && IS_ENABLED(CONFIG_KASAN)))
		taints |= BIT(TAINT_BAD_PAGE);
	/* a probe that taints nothing raises no report either: no command line to read */
	if (taints) {
		err = hp_boot_panics(&b);
		if (hp_taint_refusal(taints, &b, err, why, len) ||
		    hp_kasan_refusal(&b, err, why, len))
			return true;
	}
	return p->blocks && hp_block_refusal(why, len);
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
