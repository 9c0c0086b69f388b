// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe cr4_pinning: the sensitive control-register bits that x86_64
 * pins after boot (arch/x86/kernel/cpu/common.c, the cr_pinning static key):
 * CR4.SMEP/SMAP/UMIP/FSGSBASE/CET and CR0.WP. native_write_cr4() and
 * native_write_cr0() write the register, see a pinned bit changed, set it
 * back and warn once ("pinned CR4 bits changed", "CR0 WP bit went
 * missing!?"). Nothing here writes a control register itself: an asm
 * write would bypass the pinning and really turn the protection off.
 *
 * cr4_pinning.smep: LKDTM's UNSET_SMEP. native_write_cr4() is exported
 * only to an LKDTM module (IS_MODULE(CONFIG_LKDTM)), so out of tree it is
 * looked up at run time and is missing on most kernels: unsupported then.
 * Built into the kernel (make intree, CONFIG_HARDPROBE=y) it is called.
 *
 * cr4_pinning.wp: the same pinning through native_write_cr0(), exported to
 * every module: CR0.WP cleared, read back.
 *
 * Both run with interrupts off, control first: an unpinned bit (CR4.TSD,
 * CR0.AM: they act at CPL 3 only) toggled through the same writer must
 * read back toggled, and is set back. A pinned bit that stays cleared is
 * written back at once: the probe never leaves it off.
 */
#include <linux/irqflags.h>
#include <linux/module.h>
#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/processor-flags.h>
#include <asm/special_insns.h>
#endif

#include "../hardprobe.h"

#ifdef CONFIG_X86_64
typedef void (*hp_cr_write_t)(unsigned long val);

/* native_write_cr4(), where this code may call it */
static hp_cr_write_t hp_cr4_writer(void)
{
#ifdef MODULE
	return symbol_get(native_write_cr4);
#else
	return native_write_cr4;
#endif
}

static void hp_cr4_writer_put(void)
{
#ifdef MODULE
	symbol_put(native_write_cr4);
#endif
}

/*
 * Write the register's value with @pinned cleared through @wr and read it
 * back with @rd into @after; a pinned bit left cleared is set back. The
 * control first toggles @free: *@ctl holds the bits of @free that changed.
 */
static void hp_cr_try(hp_cr_write_t wr, unsigned long (*rd)(void),
		      unsigned long pinned, unsigned long free,
		      unsigned long *ctl, unsigned long *after)
{
	unsigned long flags, val;

	local_irq_save(flags);
	val = rd();
	wr(val ^ free);
	*ctl = (rd() ^ val) & free;
	wr(val);
	wr(val & ~pinned);
	*after = rd();
	if (!(*after & pinned))
		wr(val);
	local_irq_restore(flags);
}

static unsigned long hp_rd_cr4(void)
{
	return native_read_cr4();
}

static unsigned long hp_rd_cr0(void)
{
	return native_read_cr0();
}

static void hp_cr_judge(struct hp_result *r, const char *how, const char *reg,
			const char *bit, unsigned long pinned, const char *free_name,
			unsigned long ctl, unsigned long after)
{
	if (!ctl) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: %s.%s toggled through %s read back unchanged: the writer did not write",
		       reg, free_name, how);
		return;
	}
	if (after & pinned)
		hp_set(r, HP_PROTECTED,
		       "%s.%s cleared through %s: read back set (%s %#lx), the pinning restored it; control: %s.%s toggled and read back toggled",
		       reg, bit, how, reg, after, reg, free_name);
	else
		hp_set(r, HP_VULNERABLE,
		       "%s.%s cleared through %s: read back cleared (%s %#lx), not pinned (written back at once)",
		       reg, bit, how, reg, after);
}

static void hp_cr4_pinning_smep(struct hp_result *r)
{
	unsigned long ctl, after;
	hp_cr_write_t wr;

	if (!boot_cpu_has(X86_FEATURE_SMEP) || !(native_read_cr4() & X86_CR4_SMEP)) {
		hp_set(r, HP_UNSUPPORTED,
		       "the kernel does not use SMEP (no CPU support, or clearcpuid=smep): no pinned CR4.SMEP to clear");
		return;
	}
	wr = hp_cr4_writer();
	if (!wr) {
		hp_set(r, HP_UNSUPPORTED,
		       "native_write_cr4() is not exported (only to an LKDTM module): run in-tree (make intree, CONFIG_HARDPROBE=y)");
		return;
	}
	hp_cr_try(wr, hp_rd_cr4, X86_CR4_SMEP, X86_CR4_TSD, &ctl, &after);
	hp_cr4_writer_put();
	hp_cr_judge(r, "native_write_cr4()", "CR4", "SMEP", X86_CR4_SMEP, "TSD",
		    ctl, after);
}

static void hp_cr4_pinning_wp(struct hp_result *r)
{
	unsigned long ctl, after;

	if (!(native_read_cr0() & X86_CR0_WP)) {
		hp_set(r, HP_UNSUPPORTED, "CR0.WP is clear: nothing pinned to clear");
		return;
	}
	hp_cr_try(native_write_cr0, hp_rd_cr0, X86_CR0_WP, X86_CR0_AM, &ctl, &after);
	hp_cr_judge(r, "native_write_cr0()", "CR0", "WP", X86_CR0_WP, "AM",
		    ctl, after);
}

static void hp_cr4_pinning_layers(struct hp_layers *l)
{
	unsigned long cr4 = native_read_cr4();

	l->configured = true;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "no switch: x86_64 always pins CR4 SMEP/SMAP/UMIP/FSGSBASE/CET and CR0.WP after boot");
	hp_layer(l->built, sizeof(l->built), "CPU state: nothing to build");
	hp_layer(l->active, sizeof(l->active), "CR4 %#lx: SMEP=%d SMAP=%d UMIP=%d; CR0.WP=%d",
		 cr4, !!(cr4 & X86_CR4_SMEP), !!(cr4 & X86_CR4_SMAP),
		 !!(cr4 & X86_CR4_UMIP), !!(native_read_cr0() & X86_CR0_WP));
}

#else
static void hp_cr4_pinning_smep(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "x86_64 only");
}

static void hp_cr4_pinning_wp(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "x86_64 only");
}

static void hp_cr4_pinning_layers(struct hp_layers *l)
{
	hp_layers_unavailable(l, "CR4 pinning", "x86_64 only");
}

#endif

static const char *hp_cr4_pinning_unavailable(void)
{
	return IS_ENABLED(CONFIG_X86_64) ? NULL : "x86_64 only";
}

static const struct hp_probe hp_probes_cr4_pinning[] = {
	HP_PROBE(cr4_pinning, smep, HP_SAFE, .warns = 1, .reports = "pinned CR4 bits changed"),
	HP_PROBE(cr4_pinning, wp, HP_SAFE, .warns = 1, .reports = "CR0 WP bit went missing"),
};

/*
 * no kernel-hardening-checker check (.khc): the cr_pinning key: no k-h-c check
 * names it (it has no switch)
 */
HP_FEATURE(cr4_pinning, .layers = hp_cr4_pinning_layers, .unavailable = hp_cr4_pinning_unavailable);
