// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe umh: the usermode helper, the kernel's way to run a program as
 * root (modprobe_path for a missing module, core_pattern's pipe for a core
 * dump, ...). An attacker who can overwrite one of those paths gets any
 * program of theirs run as root. CONFIG_STATIC_USERMODEHELPER makes
 * call_usermodehelper_setup() ignore the path it is given and run
 * CONFIG_STATIC_USERMODEHELPER_PATH instead (a helper that checks what it is
 * asked to run); an empty path turns usermode helpers off:
 * call_usermodehelper_exec() returns 0 and runs nothing (kernel/umh.c, the
 * same in 6.1 and 6.12).
 *
 * static_usermodehelper.exec asks the kernel to run "/bin/sh -c 'exit 42'",
 * a harmless program, as root, looks at the path the kernel kept in the
 * subprocess_info, and waits for the program (UMH_WAIT_PROC): an exit status
 * of 42 (42 << 8, as the kernel returns it) is /bin/sh run as asked. The
 * control is the same status: with the path unchanged, anything else (no
 * /bin/sh, -ENOENT) means the bug could not be shown.
 */
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/string.h>
#include <linux/umh.h>

#include "../hardprobe.h"

#define HP_UMH_PATH	"/bin/sh"
#define HP_UMH_EXIT	42

#ifdef CONFIG_STATIC_USERMODEHELPER
#define HP_UMH_STATIC	CONFIG_STATIC_USERMODEHELPER_PATH
#else
#define HP_UMH_STATIC	""
#endif
/* the wait status of a program that exited with HP_UMH_EXIT */
#define HP_UMH_STATUS	(HP_UMH_EXIT << 8)

/* what the kernel is asked to run (its API takes them writable) */
static char *hp_umh_argv[] = { HP_UMH_PATH, "-c", "exit 42", NULL };
static char *hp_umh_envp[] = { "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };

static const char hp_umh_enoent[] =
	" (-ENOENT: the kernel was asked to run a program that is not there)";

static void hp_static_usermodehelper_exec(struct hp_result *r)
{
	struct subprocess_info *info;
	char path[64];
	bool replaced;
	int ret;

	info = call_usermodehelper_setup(HP_UMH_PATH, hp_umh_argv, hp_umh_envp, GFP_KERNEL,
					 NULL, NULL, NULL);
	if (!info) {
		hp_set(r, HP_ERROR, "call_usermodehelper_setup() failed");
		return;
	}
	/* the kernel's own choice: our path, or the static helper's */
	replaced = !info->path || strcmp(info->path, HP_UMH_PATH);
	strscpy(path, info->path ? info->path : "(null)", sizeof(path));
	/* runs the program, waits for it and frees info */
	ret = call_usermodehelper_exec(info, UMH_WAIT_PROC);

	if (ret == -EBUSY) {
		hp_set(r, HP_INCONCLUSIVE,
		       "usermode helpers are disabled right now (-EBUSY: suspend, hibernation or shutdown); the kernel kept the path \"%s\"",
		       path);
	} else if (!replaced && ret == HP_UMH_STATUS) {
		hp_set(r, HP_VULNERABLE,
		       "the kernel ran %s -c 'exit 42' as root (exit status 42): any path an attacker writes (modprobe_path, core_pattern) would run",
		       HP_UMH_PATH);
	} else if (!replaced) {
		hp_set(r, HP_INCONCLUSIVE,
		       "no control: the kernel kept the path %s, but running it gave %d, not exit status 42%s",
		       HP_UMH_PATH, ret, ret == -ENOENT ? hp_umh_enoent : "");
	} else if (ret == HP_UMH_STATUS) {
		hp_set(r, HP_VULNERABLE,
		       "the kernel ran the static helper \"%s\" instead of %s, and it ran our command (exit status 42): the helper passes any program on",
		       path, HP_UMH_PATH);
	} else if (!path[0]) {
		hp_set(r, HP_PROTECTED,
		       "the kernel replaced %s with the static helper \"\" (usermode helpers off): call_usermodehelper_exec() returned %d and ran nothing",
		       HP_UMH_PATH, ret);
	} else {
		hp_set(r, HP_PROTECTED,
		       "the kernel replaced %s with the static helper \"%s\", which returned %d: our program did not run (exit status 42)",
		       HP_UMH_PATH, path, ret);
	}
}

static void hp_static_usermodehelper_layers(struct hp_layers *l)
{
	l->configured = IS_ENABLED(CONFIG_STATIC_USERMODEHELPER);
	if (l->configured)
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "CONFIG_STATIC_USERMODEHELPER=y CONFIG_STATIC_USERMODEHELPER_PATH=\"%s\"%s",
			 HP_UMH_STATIC, HP_UMH_STATIC[0] ? "" : " (no helper at all)");
	else
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "CONFIG_STATIC_USERMODEHELPER=n");
	hp_layer(l->built, sizeof(l->built), "%s",
		 l->configured ? "call_usermodehelper_setup() ignores the path it is given" :
		 "call_usermodehelper_setup() keeps the path it is given");
	hp_layer(l->active, sizeof(l->active), "%s",
		 l->configured ? "always (no boot switch)" : "off");
}

static const struct hp_probe hp_probes_static_usermodehelper[] = {
	HP_PROBE(static_usermodehelper, exec, HP_SAFE, .blocks = true),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: /bin/sh run through the
 * usermode helper (exit status 42), the path the kernel kept read back.
 */
HP_FEATURE(static_usermodehelper, .layers = hp_static_usermodehelper_layers,
	   .khc = "CONFIG_STATIC_USERMODEHELPER",
	   .on = HP_LIST("CONFIG_STATIC_USERMODEHELPER=y",
			 "CONFIG_STATIC_USERMODEHELPER_PATH=\"\""));
