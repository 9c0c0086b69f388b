// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe mte: arm64 memory tagging of the kernel's own heap, which Linux
 * does through KASAN's hardware-tag mode (CONFIG_KASAN_HW_TAGS on an MTE CPU;
 * CONFIG_ARM64_MTE alone tags user memory only).
 *
 * Each probe reads a byte of ours that the allocator's tags forbid: the
 * 16-byte granule after a 48-byte kmalloc object (the rest of its 64-byte
 * slot, which KASAN tags invalid) and a freed object. The positive control
 * first reads the same byte through the same pointer with the match-all tag
 * (0xff): the read is fine as far as the MMU is concerned, so only a tag
 * check can catch it. A catch is KASAN's report ("BUG: KASAN: ..."), found
 * in the log after the probe's marker; in sync mode the kernel then turns
 * tag checking off on this CPU (do_tag_recovery()), and the probe turns it
 * back on the way it found it. The reads stay inside our own slab slot (or
 * our just-freed object), so a kernel without tagging reads stale bytes of
 * its own and goes on: the probes are safe, with and without MTE.
 *
 * mte.slab_oob reads byte 48 of a 48-byte kmalloc object (the fourth granule
 * of its 64-byte slot); mte.slab_uaf reads byte 8 of a 64-byte object just
 * freed (retagged on free). KASAN prints only the first report of a boot
 * unless kasan_multi_shot: without it a later silent probe with tag checking
 * on is inconclusive (the bench adds kasan_multi_shot, and QEMU's
 * -M virt,mte=on, for a kernel with KASAN_HW_TAGS). A report while hardware
 * tags are off is software KASAN's: inconclusive. active gives the CPU's MTE
 * (ID_AA64PFR1_EL1), system_supports_mte(), whether KASAN hardware tags are
 * on and SCTLR_EL1.TCF (none, sync, async, asymm). Under panic_on_warn the
 * probes say unsupported; under kasan.fault=panic the core refuses them.
 * ARM64_MTE without KASAN_HW_TAGS is vulnerable and not configured; the
 * target arm64-gcc-mte (configs/mte.config) is the configured case.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#ifdef CONFIG_ARM64
#include <linux/kasan-enabled.h>
#include <asm/cpufeature.h>
#include <asm/sysreg.h>
#endif

#include "../hardprobe.h"
#include "../lib/ubsan_sites.h"

#define HP_MTE_SIZE	48	/* a kmalloc-64 object: granules 0-2 ours, 3 tagged invalid */
#define HP_MTE_REPORT	"BUG: KASAN: "

static const char *hp_mte_unavailable(void)
{
	return IS_ENABLED(CONFIG_ARM64) ? NULL : "arm64 only";
}

#ifdef CONFIG_ARM64
#define HP_MTE_MATCH_ALL	0xffUL

static bool hp_mte_cpu(void)
{
	return ((read_sysreg_s(SYS_ID_AA64PFR1_EL1) >> ID_AA64PFR1_EL1_MTE_SHIFT) & 0xf) >= 2;
}

/* SCTLR_EL1.TCF: how this CPU checks the kernel's tags right now */
static const char *hp_mte_tcf_name(u64 sctlr)
{
	static const char *const names[] = { "none", "sync", "async", "asymm" };

	return names[(sctlr & SCTLR_EL1_TCF_MASK) >> SCTLR_EL1_TCF_SHIFT];
}

static bool hp_mte_checking(void)
{
	return system_supports_mte() && kasan_hw_tags_enabled() &&
	       (read_sysreg(sctlr_el1) & SCTLR_EL1_TCF_MASK);
}

static const void *hp_mte_match_all(const void *p)
{
	return (const void *)(((unsigned long)p & ~GENMASK_ULL(63, 56)) |
			      (HP_MTE_MATCH_ALL << 56));
}

static unsigned int hp_mte_tag(const void *p)
{
	return (unsigned long)p >> 56;
}

/* a read the compiler cannot drop or merge */
static noinline u8 hp_mte_read(const void *p)
{
	return READ_ONCE(*(const u8 *)p);
}

/*
 * Read @p once through the match-all tag (the control) and once as tagged,
 * with a marker in between; returns true if KASAN reported the tagged read.
 * Puts the report's first line in @line. Tag checking is restored to what it
 * was if the catch turned it off.
 */
static bool hp_mte_try(const char *what, const void *p, char *line, size_t len,
		       u8 *ctl, u8 *val, bool *restored)
{
	static unsigned int seq;
	char marker[48];
	u64 before, after;
	void *kt;
	bool hit;

	*restored = false;
	snprintf(marker, sizeof(marker), "hardprobe: mte.%s [%u]", what, ++seq);
	/* one CPU's SCTLR_EL1 from the read to the restore */
	migrate_disable();
	before = read_sysreg(sctlr_el1);
	*ctl = hp_mte_read(hp_mte_match_all(p));
	pr_info("%s: read through tag 0x%02x\n", marker, hp_mte_tag(p));
	/* KASAN's report fails the running KUnit case too: here it is the evidence */
	kt = hp_ubsan_hide_kunit();
	*val = hp_mte_read(p);
	hp_ubsan_restore_kunit(kt);
	after = read_sysreg(sctlr_el1);
	if ((before ^ after) & SCTLR_EL1_TCF_MASK) {
		sysreg_clear_set(sctlr_el1, SCTLR_EL1_TCF_MASK, before & SCTLR_EL1_TCF_MASK);
		isb();
		*restored = true;
	}
	migrate_enable();
	hit = hp_log_find(marker, HP_MTE_REPORT, line, len);
	return hit;
}

static void hp_mte_judge(struct hp_result *r, const char *what, const char *where,
			 const void *p)
{
	char line[160];
	bool hit, restored;
	u8 ctl, val;

	hit = hp_mte_try(what, p, line, sizeof(line), &ctl, &val, &restored);
	if (hit && !(IS_ENABLED(CONFIG_KASAN_HW_TAGS) && kasan_hw_tags_enabled())) {
		/* generic or software-tag KASAN instruments the read itself */
		hp_set(r, HP_INCONCLUSIVE,
		       "\"%s\" for a read of %s, but KASAN hardware tags are off: software KASAN (%s) caught it, not MTE",
		       strim(line), where,
		       IS_ENABLED(CONFIG_KASAN_GENERIC) ? "generic" : "software tags");
		return;
	}
	if (hit) {
		/* KASAN's report mode: the read completed after the report */
		r->went_on = true;
		hp_set(r, HP_PROTECTED,
		       "detected, not stopped: \"%s\" for a read of %s (pointer tag 0x%02x)%s; control: the same byte read through the match-all tag unreported (0x%02x)",
		       strim(line), where, hp_mte_tag(p),
		       restored ? "; tag checking re-enabled after the catch" : "",
		       ctl);
		return;
	}
	if (hp_mte_checking() && !hp_cmdline_setup("kasan_multi_shot")) {
		hp_set(r, HP_INCONCLUSIVE,
		       "no KASAN report for a read of %s, but tag checking is on: KASAN prints only the first report of a boot without kasan_multi_shot",
		       where);
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "read %s unreported (pointer tag 0x%02x, value 0x%02x; control read 0x%02x): %s",
	       where, hp_mte_tag(p), val, ctl,
	       !hp_mte_cpu() ? "the CPU has no MTE (QEMU: -M virt,mte=on)" :
	       !IS_ENABLED(CONFIG_KASAN_HW_TAGS) ? "the kernel has no KASAN_HW_TAGS" :
	       "tag checking is off");
}

static bool hp_mte_refuse(struct hp_result *r)
{
	if (hp_warn_panics()) {
		hp_set(r, HP_UNSUPPORTED, "panic_on_warn is set: a KASAN report would panic");
		return true;
	}
	/* kasan.fault=panic: refused by the core (hp_probe_refusal()), these declare .reports */
	return false;
}

/* the granule right after a 48-byte object, inside its own 64-byte slot */
static void hp_mte_slab_oob(struct hp_result *r)
{
	u8 *p;

	if (hp_mte_refuse(r))
		return;
	p = kmalloc(HP_MTE_SIZE, GFP_KERNEL);
	if (!p) {
		hp_set(r, HP_ERROR, "kmalloc(%d) failed", HP_MTE_SIZE);
		return;
	}
	if (ksize(p) < HP_MTE_SIZE + 16) {
		hp_set(r, HP_ERROR, "kmalloc(%d) gave a %zu-byte slot: no granule of ours after it",
		       HP_MTE_SIZE, ksize(p));
		kfree(p);
		return;
	}
	memset(p, 0x5a, HP_MTE_SIZE);
	OPTIMIZER_HIDE_VAR(p);
	hp_mte_judge(r, "slab_oob", "byte 48 of a 48-byte kmalloc object (its slot's tail)",
		     p + HP_MTE_SIZE);
	kfree(p);
}

/* byte 8 of an object just freed (KASAN retags it on free) */
static void hp_mte_slab_uaf(struct hp_result *r)
{
	u8 *p;

	if (hp_mte_refuse(r))
		return;
	p = kmalloc(64, GFP_KERNEL);
	if (!p) {
		hp_set(r, HP_ERROR, "kmalloc(64) failed");
		return;
	}
	memset(p, 0x5a, 64);
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	hp_mte_judge(r, "slab_uaf", "byte 8 of a freed 64-byte kmalloc object", p + 8);
}

static void hp_mte_layers(struct hp_layers *l)
{
	u64 sctlr = read_sysreg(sctlr_el1);

	l->configured = IS_ENABLED(CONFIG_ARM64_MTE) && IS_ENABLED(CONFIG_KASAN_HW_TAGS);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_ARM64_MTE=%s CONFIG_KASAN_HW_TAGS=%s",
		 IS_ENABLED(CONFIG_ARM64_MTE) ? "y" : "n",
		 IS_ENABLED(CONFIG_KASAN_HW_TAGS) ? "y" : "n");
	hp_layer(l->built, sizeof(l->built),
		 "no compiler instrumentation: the allocator tags memory, the CPU checks loads and stores");
	hp_layer(l->active, sizeof(l->active),
		 "CPU MTE: %s; kernel MTE: %s; KASAN HW tags: %s; SCTLR_EL1.TCF: %s%s",
		 hp_mte_cpu() ? "yes" : "no (QEMU needs -M virt,mte=on)",
		 system_supports_mte() ? "yes" : "no",
		 kasan_hw_tags_enabled() ? "on" : "off", hp_mte_tcf_name(sctlr),
		 hp_cmdline_setup("kasan_multi_shot") ? "; kasan_multi_shot" : "");
}
#else
static void hp_mte_slab_oob(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "arm64 only");
}

static void hp_mte_slab_uaf(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "arm64 only");
}

static void hp_mte_layers(struct hp_layers *l)
{
	hp_layers_unavailable(l, "CONFIG_KASAN_HW_TAGS", "arm64 only");
}
#endif

static const struct hp_probe hp_probes_mte[] = {
	/*
	 * LKDTM: memory tagging (KASAN hardware tags) catches an out-of-bounds
	 * slab write (as slab_oob's read) and a write after free (as slab_uaf's
	 * read); so would SLUB_DEBUG's red zones or generic KASAN, which the
	 * reference kernels do not have. Where nothing catches it, LKDTM's
	 * write lands in the next 1 KiB slab object (hptool lkdtm runs it
	 * last). WRITE_AFTER_FREE is not paired: tests.txt marks it "Corrupts
	 * memory on failure".
	 */
	HP_PROBE(mte, slab_oob, HP_SAFE, .warns = 1, .reports = HP_MTE_REPORT,
		 .lkdtm = HP_LIST("SLAB_LINEAR_OVERFLOW")),
	HP_PROBE(mte, slab_uaf, HP_SAFE, .warns = 1, .reports = HP_MTE_REPORT),
};

HP_FEATURE(mte, .layers = hp_mte_layers, .unavailable = hp_mte_unavailable,
	   .khc = "CONFIG_KASAN_HW_TAGS CONFIG_ARM64_MTE arm64.nomte@arm64");
