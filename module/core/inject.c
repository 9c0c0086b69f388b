// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe test hook: the oops a reader dies of inside a safe probe
 * (inject_oops=, for hardprobe_trust). Trigger code: it crashes on purpose.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/printk.h>

#include "core.h"

void __noreturn hp_inject_oops(const char *name)
{
	pr_info("inject_oops: %s dies holding the probe lock\n", name);
	BUG();
}
