// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe rodata, ro_after_init: write to read-only kernel and module
 * data, and to the first byte of a function in kernel and module text,
 * through an exception-table protected store (the *_nofault way), so a
 * protected kernel answers -EFAULT instead of oopsing. The positive
 * control is the same store into writable data, which must succeed. Text
 * is stored the byte it already holds: a store that goes through changes
 * no instruction (LKDTM's WRITE_KERN writes plainly into its own module's
 * text and oopses).
 *
 * The targets: the kernel's .rodata (hex_asc), the module's .rodata, the
 * module's __ro_after_init data, the first byte of vm_mmap() (kernel text,
 * rodata.kernel_text) and of a module function never called
 * (rodata.module_text). Each must fail with -EFAULT and leave the bytes
 * unchanged. A store that goes through into our own data is undone at once.
 * rodata=off on the command line counts as not configured; it leaves module
 * text read-only, so rodata.module_text stays protected there and the other
 * probes do not.
 */
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "../hardprobe.h"

static const u8 hp_ro_data[64] = { 0x5a, 0xa5, 0x5a };
static u8 hp_ro_after_init[64] __ro_after_init = { 0x5a, 0xa5, 0x5a };
static u8 hp_rw_data[64] = { 0x5a, 0xa5, 0x5a };

/* Store @val at @dst, or return -EFAULT if the page refuses the write. */
static long hp_store_nofault(void *dst, u8 val)
{
	pagefault_disable();
	__put_kernel_nofault(dst, &val, u8, efault);
	pagefault_enable();
	return 0;
efault:
	pagefault_enable();
	return -EFAULT;
}

/*
 * Try to change one byte of @target (restoring it if the write went
 * through); @same_value stores the byte it already holds, for memory that
 * is not ours.
 */
static void hp_ro_try(struct hp_result *r, const char *what, u8 *target,
		      bool same_value)
{
	u8 old = READ_ONCE(*target), ctl_old = READ_ONCE(hp_rw_data[0]);
	u8 val = same_value ? old : (u8)~old;
	long err, ctl;

	ctl = hp_store_nofault(&hp_rw_data[0], (u8)~ctl_old);
	hp_store_nofault(&hp_rw_data[0], ctl_old);
	if (ctl) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the store into writable data failed (%ld)", ctl);
		return;
	}
	err = hp_store_nofault(target, val);
	if (!err) {
		bool changed = READ_ONCE(*target) != old;

		if (changed)
			hp_store_nofault(target, old);
		hp_set(r, HP_VULNERABLE, "a store into %s went through%s; control store ok",
		       what, changed ? " (byte changed, restored)" : "");
		return;
	}
	hp_set(r, READ_ONCE(*target) == old ? HP_PROTECTED : HP_ERROR,
	       "store into %s refused with %ld, bytes unchanged; control store into writable data ok",
	       what, err);
}

static void hp_rodata_module(struct hp_result *r)
{
	hp_ro_try(r, "module .rodata", (u8 *)&hp_ro_data[1], false);
}

static void hp_rodata_kernel(struct hp_result *r)
{
	/* hex_asc: an exported const array of the kernel image */
	hp_ro_try(r, "kernel .rodata (hex_asc)", (u8 *)&hex_asc[0], true);
}

/* A function of the module's own text that the probe never calls. */
static noinline void hp_ro_text_target(void)
{
	barrier();
}

static void hp_rodata_kernel_text(struct hp_result *r)
{
	/* vm_mmap(): an exported function of the kernel image */
	hp_ro_try(r, "the first byte of kernel text (vm_mmap)",
		  (u8 *)dereference_symbol_descriptor((void *)vm_mmap), true);
}

/*
 * Module text is made read-only by STRICT_MODULE_RWX alone: 6.12's
 * module_enable_text_rox() does not look at rodata=, so this store is
 * refused under rodata=off too (the feature is then not configured and
 * vulnerable by its other probes).
 */
static void hp_rodata_module_text(struct hp_result *r)
{
	hp_ro_try(r, "the first byte of module text (hp_ro_text_target)",
		  (u8 *)dereference_symbol_descriptor((void *)hp_ro_text_target), true);
}

static void hp_ro_after_init_module(struct hp_result *r)
{
#ifdef MODULE
	bool sealed = THIS_MODULE->state == MODULE_STATE_LIVE;
#else
	bool sealed = system_state >= SYSTEM_RUNNING;
#endif

	if (!sealed) {
		hp_set(r, HP_NOT_RUN,
		       "still initializing: __ro_after_init data is sealed after init");
		return;
	}
	hp_ro_try(r, "module __ro_after_init data", &hp_ro_after_init[1], false);
}

static void hp_rodata_configured(struct hp_layers *l, const char *sym, bool on)
{
	bool rodata = true;

	/* rodata=off on the command line (set_debug_rodata(): on, off, arm64 full) */
	if (hp_cmdline_rodata(&rodata) && !rodata)
		on = false;
	l->configured = on;
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s=%s%s", sym,
		 on || !rodata ? "y" : "n", rodata ? "" : ", rodata=off on the command line");
	hp_layer(l->built, sizeof(l->built), "page permissions: nothing to build");
	hp_layer(l->active, sizeof(l->active), "%s",
		 rodata ? "rodata protection not disabled at boot" : "rodata=off");
}

static void hp_rodata_layers(struct hp_layers *l)
{
	hp_rodata_configured(l, "CONFIG_STRICT_KERNEL_RWX",
			     IS_ENABLED(CONFIG_STRICT_KERNEL_RWX) &&
			     IS_ENABLED(CONFIG_STRICT_MODULE_RWX));
}

static void hp_roai_layers(struct hp_layers *l)
{
	hp_rodata_configured(l, "CONFIG_STRICT_MODULE_RWX",
			     IS_ENABLED(CONFIG_STRICT_MODULE_RWX));
}

static const struct hp_probe hp_probes_rodata[] = {
	HP_PROBE(rodata, kernel, HP_SAFE),
	/*
	 * LKDTM is a module here: its rodata and ro_after_init variables are
	 * module data, and WRITE_KERN writes (plainly, an oops on a catch) to a
	 * function of its own module text; module_text stores into the first
	 * byte of one of hardprobe's (nofault, -EFAULT on a catch). The same
	 * page permission, both in module text.
	 */
	HP_PROBE(rodata, module, HP_SAFE,
		 .lkdtm = HP_LIST("WRITE_RO")),
	HP_PROBE(rodata, kernel_text, HP_SAFE),
	HP_PROBE(rodata, module_text, HP_SAFE,
		 .lkdtm = HP_LIST("WRITE_KERN")),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: stores into kernel and
 * module rodata, and into kernel and module text.
 * CONFIG_RODATA_FULL_DEFAULT_ENABLED is not listed: no probe stores through
 * rodata's linear-map alias.
 */
HP_FEATURE(rodata, .layers = hp_rodata_layers,
	   .khc = "CONFIG_STRICT_KERNEL_RWX CONFIG_STRICT_MODULE_RWX rodata",
	   .off = HP_LIST("rodata=off"));

static const struct hp_probe hp_probes_ro_after_init[] = {
	HP_PROBE(ro_after_init, module, HP_SAFE,
		 .lkdtm = HP_LIST("WRITE_RO_AFTER_INIT")),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: a store into the
 * module's __ro_after_init data.
 */
HP_FEATURE(ro_after_init, .layers = hp_roai_layers, .khc = "CONFIG_STRICT_MODULE_RWX",
	   .off = HP_LIST("rodata=off"));
