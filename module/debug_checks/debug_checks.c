// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe debug_notifiers, debug_sg, debug_virtual, debug_wx: the
 * kernel's own consistency checks of its callers, each behind one Kconfig
 * switch, each provoked (or, for debug_wx, observed) on its own.
 *
 * debug_notifiers: a private raw notifier chain gets a notifier_block
 * whose notifier_call is kmalloc memory (a copy of a real notifier with
 * the bytes in front of it, so that a kCFI check of the call passes and
 * only the address is wrong). With CONFIG_DEBUG_NOTIFIERS,
 * notifier_call_chain() (kernel/notifier.c) refuses a callback outside
 * kernel and module text: it warns "Invalid notifier called!" and skips
 * it, and the probe returns. Without it the kernel calls into the data and
 * NX stops it with an oops: the bug went past the check, and the oops is
 * nx's catch, not this feature's (.escape: vulnerable). The control calls
 * the same chain with the notifier at its text address.
 *
 * debug_sg: sg_init_one() (lib/scatterlist.c) of a vmalloc() buffer, the
 * classic DMA-from-vmalloc bug. With CONFIG_DEBUG_SG, sg_set_buf()
 * (include/linux/scatterlist.h) BUG()s on an address that is not in the
 * linear map (!virt_addr_valid()). Without it the entry is built silently
 * (it is never used), or, where the memory map has no struct page for the
 * meaningless pfn (x86_64 SPARSEMEM without VMEMMAP, as on the reference
 * kernel), the entry's virt_to_page() faults on a NULL section; on x86
 * with CONFIG_DEBUG_VIRTUAL alone, that virt_to_page() BUG()s in
 * arch/x86/mm/physaddr.c instead, debug_virtual's catch. Either oops is
 * past this check (.escape: vulnerable), never debug_sg's catch. The
 * control builds an entry for a kmalloc() buffer and maps it back.
 *
 * debug_virtual: virt_to_phys() of a vmalloc() address. With
 * CONFIG_DEBUG_VIRTUAL, x86_64's __phys_addr() (arch/x86/mm/physaddr.c)
 * BUG()s on an address whose offset from PAGE_OFFSET lies beyond the CPU's
 * physical address bits, which every vmalloc address does on CPUs with
 * fewer than 46 of them (QEMU TCG's -cpu max has 40); arm64's
 * __virt_to_phys() (arch/arm64/mm/physaddr.c) warns "virt_to_phys used for
 * non-linear address" and goes on. Without it the translation is plain
 * arithmetic and returns a meaningless address (never used). The control
 * translates a kmalloc() address and back.
 *
 * debug_wx: with CONFIG_DEBUG_WX the kernel walks its own page tables once
 * at boot, right after making its text read-only (mark_readonly(), only
 * when rodata is on), and prints "Checked W+X mappings: passed, no W+X
 * pages found" or "... FAILED, <n> W+X pages found". A module cannot make
 * the kernel check again (ptdump_check_wx() is not exported, and the
 * reference kernels have no PTDUMP_DEBUGFS): the probe is an observation
 * of the kernel's own boot check in the kernel log, not a provoked bug. A
 * "passed" line is protected; a "FAILED" line, or no line while the log
 * still holds the boot from its banner (the kernel never checked), is
 * vulnerable; no line in a log that no longer reaches back to the boot is
 * inconclusive. The log is read from its start to "Run /init as init
 * process" (hp_log_find_boot(): lines that begin with the kernel's text).
 *
 * The three fatal probes declare one warning each (.warns): a fatal probe
 * that may warn is refused under panic_on_warn or near warn_limit like one
 * that oopses. configured is the Kconfig option of each; no boot parameter
 * turns any of the four off (rodata=off skips the W+X check, which active
 * says).
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include <linux/printk.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/cacheflush.h>
#include <asm/io.h>
#ifdef CONFIG_X86_64
#include <asm/processor.h>
#endif

#include "../hardprobe.h"
#include "../lib/oops.h"

/* what the notifier returns: no NOTIFY_STOP_MASK bit, the chain goes on */
#define HP_DN_MAGIC	0x5a5a
/* bytes copied from in front of the notifier: its kCFI type hash is there */
#define HP_DN_BEFORE	32
#define HP_DN_SIZE	(HP_DN_BEFORE + 32)
#define HP_DN_SIG	"Invalid notifier called!"
#define HP_DN_SITE	"kernel/notifier.c"
/*
 * a BUG()'s line is "kernel BUG at <file>:<line>!", the file as the build saw
 * it (a longer path from an out-of-tree kernel build): the signature is its
 * "<file>:" part, as slab_free's
 */
#define HP_SG_SIG	"include/linux/scatterlist.h:"
#define HP_SG_LEN	64

/*
 * The kernel's report of each catch; the page-fault lines of the oopses a
 * bug meets past a check (HP_NX_SIG, HP_NULL_SIG) are in lib/oops.h.
 */
#if defined(CONFIG_X86_64)
#define HP_DV_SIG	"arch/x86/mm/physaddr.c:"
#define HP_WX_PREFIX	"x86/mm: "
#elif defined(CONFIG_ARM64)
#define HP_DV_SIG	"virt_to_phys used for non-linear address"
#define HP_WX_PREFIX	""
#else
#define HP_DV_SIG	"-"
#define HP_WX_PREFIX	""
#endif
/* the kernel's own lines (arch/x86/mm/dump_pagetables.c, arch/arm64/mm/ptdump.c) */
#define HP_WX_PASSED	HP_WX_PREFIX "Checked W+X mappings: passed"
#define HP_WX_FAILED	HP_WX_PREFIX "Checked W+X mappings: FAILED"
/*
 * kernel_init() checks before it starts init ("Run /init as init process",
 * a record of its own): the log after that is not read
 */
#define HP_WX_STOP	"Run /"

/* debug_notifiers without the check: the call into kmalloc memory meets NX */
static const struct hp_escape hp_dn_escape[] = {
#ifdef HP_ARCH_OK
	{ HP_NX_SIG, "nx's catch (NX stopped the call into data, not DEBUG_NOTIFIERS)" },
#endif
	{}
};

/*
 * debug_sg without the check: sg_set_buf()'s virt_to_page() of the vmalloc
 * address. x86_64 with DEBUG_VIRTUAL: __phys_addr()'s BUG(); without it, a
 * memory map with no struct page for the meaningless pfn (SPARSEMEM without
 * VMEMMAP: __pfn_to_section() is NULL) faults. arm64 (always VMEMMAP):
 * plain arithmetic, and DEBUG_VIRTUAL only warns; sg_init_one() returns.
 */
static const struct hp_escape hp_sg_escape[] = {
#ifdef CONFIG_X86_64
	{ HP_DV_SIG, "debug_virtual's catch in virt_to_page(), not DEBUG_SG's" },
	{ HP_NULL_SIG,
	  "a fault in virt_to_page() (no memory map section for that pfn), not DEBUG_SG's catch" },
#endif
	{}
};

static atomic_t hp_dc_seq = ATOMIC_INIT(0);

/* A unique marker in the kernel log: only lines after it are this run's. */
static void hp_dc_mark(char *marker, size_t len, const char *what, const void *addr)
{
	snprintf(marker, len, "hardprobe: %s [%d]", what, atomic_inc_return(&hp_dc_seq));
	pr_info("%s at %p\n", marker, addr);
}

/* The notifier of the control, and the code copied into kmalloc memory. */
static noinline notrace int hp_dn_call(struct notifier_block *nb, unsigned long action,
				       void *data)
{
	return HP_DN_MAGIC;
}

/* The text address, hidden so that no copy is made at an offset into it. */
static const u8 *hp_dn_text(void)
{
	const void *p = hp_dn_call;

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static int hp_dn_fire(struct notifier_block *nb, notifier_fn_t fn)
{
	struct raw_notifier_head head;
	int ret;

	RAW_INIT_NOTIFIER_HEAD(&head);
	nb->notifier_call = fn;
	raw_notifier_chain_register(&head, nb);
	ret = raw_notifier_call_chain(&head, 0, NULL);
	raw_notifier_chain_unregister(&head, nb);
	return ret;
}

static void hp_debug_notifiers_data_call(struct hp_result *r)
{
	static const char * const needles[] = { HP_DN_SIG, HP_DN_SITE };
	struct notifier_block nb = {};
	char marker[80], line[128];
	bool found[2];
	u8 *buf;
	int ret;

	ret = hp_dn_fire(&nb, hp_dn_call);
	if (ret != HP_DN_MAGIC) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the chain with the notifier at its text address returned %#x, not %#x",
		       ret, HP_DN_MAGIC);
		return;
	}
	buf = kmalloc(HP_DN_SIZE, GFP_KERNEL);
	if (!buf) {
		hp_set(r, HP_ERROR, "kmalloc failed");
		return;
	}
	if (copy_from_kernel_nofault(buf, hp_dn_text() - HP_DN_BEFORE, HP_DN_SIZE)) {
		hp_set(r, HP_INCONCLUSIVE,
		       "cannot read the %d bytes in front of the notifier's text to copy them",
		       HP_DN_BEFORE);
		kfree(buf);
		return;
	}
	flush_icache_range((unsigned long)buf, (unsigned long)buf + HP_DN_SIZE);
	hp_dc_mark(marker, sizeof(marker), "debug_notifiers: a notifier_call in kmalloc memory",
		   buf + HP_DN_BEFORE);
	/* the bug: without the check the kernel calls into the data (a catch kills us here) */
	ret = hp_dn_fire(&nb, (notifier_fn_t)(buf + HP_DN_BEFORE));
	kfree(buf);
	hp_log_find_all(marker, needles, ARRAY_SIZE(needles), found, line, sizeof(line));
	if (ret == NOTIFY_DONE && found[0] && found[1])
		hp_set(r, HP_PROTECTED,
		       "the chain skipped a notifier_call in kmalloc memory and warned: %s (at %s); control: the notifier at its text address was called",
		       line, HP_DN_SITE);
	else if (ret == NOTIFY_DONE)
		hp_set(r, HP_INCONCLUSIVE,
		       "the chain did not call the notifier_call in kmalloc memory, but '%s' from %s is not in the log after the marker",
		       HP_DN_SIG, HP_DN_SITE);
	else if (ret == HP_DN_MAGIC)
		hp_set(r, HP_VULNERABLE,
		       "the chain called a notifier_call in kmalloc memory and the code there ran (returned %#x): no check, and no NX either",
		       ret);
	else
		hp_set(r, HP_ERROR, "the chain returned %#x, neither NOTIFY_DONE nor %#x",
		       ret, HP_DN_MAGIC);
}

/* The bug needs @vbuf outside the linear map; true if it is, else @r is set. */
static bool hp_dc_outside_linear(struct hp_result *r, const void *vbuf)
{
	if (is_vmalloc_addr(vbuf) && !virt_addr_valid(vbuf))
		return true;
	hp_set(r, HP_INCONCLUSIVE,
	       "vmalloc memory at %p passes virt_addr_valid() (or is not in vmalloc space): no bug to provoke",
	       vbuf);
	return false;
}

/* Control: a linear-map buffer's entry maps back to it; @vbuf is not one. */
static bool hp_sg_control(struct hp_result *r, void *kbuf, void *vbuf)
{
	struct scatterlist sg;

	sg_init_one(&sg, kbuf, HP_SG_LEN);
	if (sg_virt(&sg) != kbuf) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the entry for a kmalloc buffer at %p maps back to %p",
		       kbuf, sg_virt(&sg));
		return false;
	}
	return hp_dc_outside_linear(r, vbuf);
}

static void hp_debug_sg_vmalloc(struct hp_result *r)
{
	void *kbuf = kmalloc(HP_SG_LEN, GFP_KERNEL), *vbuf = vmalloc(PAGE_SIZE);
	struct scatterlist sg;
	char marker[80];

	if (!kbuf || !vbuf) {
		hp_set(r, HP_ERROR, "kmalloc or vmalloc failed");
		goto out;
	}
	if (!hp_sg_control(r, kbuf, vbuf))
		goto out;
	hp_dc_mark(marker, sizeof(marker), "debug_sg: sg_init_one() of vmalloc memory", vbuf);
	/* the bug: a scatterlist entry for memory outside the linear map (a catch BUG()s) */
	sg_init_one(&sg, vbuf, HP_SG_LEN);
	hp_set(r, HP_VULNERABLE,
	       "sg_init_one() built an entry for vmalloc memory at %p, outside the linear map (virt_addr_valid() false): nothing stopped it (the entry is never used); control: a kmalloc buffer's entry maps back to it",
	       vbuf);
out:
	kfree(kbuf);
	vfree(vbuf);
}

/* x86_64: whether the vmalloc address is one __phys_addr()'s check can see */
static void hp_dv_reach(char *buf, size_t len, const void *vbuf)
{
#ifdef CONFIG_X86_64
	unsigned long off = (unsigned long)vbuf - PAGE_OFFSET;
	unsigned int bits = boot_cpu_data.x86_phys_bits;

	snprintf(buf, len, "; %s %s the CPU's %u physical address bits%s",
		 "its offset from PAGE_OFFSET lies", off >> bits ? "beyond" : "within", bits,
		 off >> bits ? "" : ", where __phys_addr() cannot tell it from the linear map");
#else
	buf[0] = '\0';
#endif
}

static void hp_debug_virtual_vmalloc(struct hp_result *r)
{
	void *kbuf = kmalloc(HP_SG_LEN, GFP_KERNEL), *vbuf = vmalloc(PAGE_SIZE);
	char marker[80], line[160], reach[192];
	phys_addr_t pa;

	if (!kbuf || !vbuf) {
		hp_set(r, HP_ERROR, "kmalloc or vmalloc failed");
		goto out;
	}
	pa = virt_to_phys(kbuf);
	if (phys_to_virt(pa) != kbuf) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: virt_to_phys() of a kmalloc buffer at %p does not map back (%p)",
		       kbuf, phys_to_virt(pa));
		goto out;
	}
	if (!hp_dc_outside_linear(r, vbuf))
		goto out;
	hp_dv_reach(reach, sizeof(reach), vbuf);
	hp_dc_mark(marker, sizeof(marker), "debug_virtual: virt_to_phys() of vmalloc memory",
		   vbuf);
	/* the bug: a linear-map translation of a vmalloc address (x86_64 catch: BUG()) */
	pa = virt_to_phys(vbuf);
	OPTIMIZER_HIDE_VAR(pa);
	/* still here: the check warned (arm64) and virt_to_phys() returned */
	r->went_on = hp_log_find(marker, HP_DV_SIG, line, sizeof(line));
	if (r->went_on)
		hp_set(r, HP_PROTECTED,
		       "detected, not stopped: virt_to_phys() of vmalloc memory at %p was reported: %s; control: a kmalloc buffer translated and mapped back",
		       vbuf, line);
	else
		hp_set(r, HP_VULNERABLE,
		       "virt_to_phys() of vmalloc memory at %p returned without a word (the result is never used)%s; control: a kmalloc buffer translated and mapped back",
		       vbuf, reach);
out:
	kfree(kbuf);
	vfree(vbuf);
}

static void hp_debug_wx_boot_check(struct hp_result *r)
{
	static const char * const failed[] = { HP_WX_FAILED, HP_WX_PASSED };
	static const char * const passed[] = { HP_WX_PASSED };
	bool found[2], whole;
	char line[160];

	/* one pass unless the check passed: then a second for its line */
	hp_log_find_boot(failed, ARRAY_SIZE(failed), found, line, sizeof(line), HP_WX_STOP,
			 &whole);
	if (found[0])
		hp_set(r, HP_VULNERABLE,
		       "the kernel's boot check of its page tables found W+X mappings: %s", line);
	else if (found[1] && hp_log_find_boot(passed, 1, found, line, sizeof(line), HP_WX_STOP,
					      &whole))
		hp_set(r, HP_PROTECTED, "the kernel's boot check of its page tables: %s", line);
	else if (found[1])
		hp_set(r, HP_INCONCLUSIVE,
		       "the W+X check line left the kernel log between two reads");
	else if (whole)
		hp_set(r, HP_VULNERABLE,
		       "no W+X check line in a kernel log that holds this boot from its banner (Linux version): the kernel never checked its page tables for W+X mappings");
	else
		hp_set(r, HP_INCONCLUSIVE,
		       "no W+X check line, but the kernel log no longer reaches back to the boot's banner (wrapped or cleared: log_buf_len): cannot tell");
}

/* The layers of a check compiled in by its option; no boot switch turns it off. */
static void hp_dc_layers(struct hp_layers *l, const char *sym, bool on, const char *where)
{
	l->configured = on;
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s=%s", sym, on ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "%s", where);
	hp_layer(l->active, sizeof(l->active), "%s",
		 on ? "on with the option (no boot parameter turns it off)" : "off (not built)");
}

static void hp_dn_layers(struct hp_layers *l)
{
	hp_dc_layers(l, "CONFIG_DEBUG_NOTIFIERS", IS_ENABLED(CONFIG_DEBUG_NOTIFIERS),
		     "a check in notifier_call_chain() (kernel/notifier.c): nothing to build");
}

static void hp_sg_layers(struct hp_layers *l)
{
	hp_dc_layers(l, "CONFIG_DEBUG_SG", IS_ENABLED(CONFIG_DEBUG_SG),
		     "a BUG_ON() in sg_set_buf() (include/linux/scatterlist.h), inline in lib/scatterlist.c");
}

static void hp_dv_layers(struct hp_layers *l)
{
	hp_dc_layers(l, "CONFIG_DEBUG_VIRTUAL", IS_ENABLED(CONFIG_DEBUG_VIRTUAL),
		     IS_ENABLED(CONFIG_X86_64) ?
		     "a BUG_ON() in __phys_addr() (arch/x86/mm/physaddr.c)" :
		     "a WARN() in __virt_to_phys() (arch/arm64/mm/physaddr.c)");
#ifdef CONFIG_X86_64
	if (l->configured)
		hp_layer(l->active, sizeof(l->active),
			 "on with the option; the check sees addresses beyond the CPU's %u physical address bits from PAGE_OFFSET",
			 boot_cpu_data.x86_phys_bits);
#endif
}

static void hp_wx_layers(struct hp_layers *l)
{
	bool rodata = true;

	hp_cmdline_rodata(&rodata);
	l->configured = IS_ENABLED(CONFIG_DEBUG_WX);
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "CONFIG_DEBUG_WX=%s",
		 l->configured ? "y" : "n");
	hp_layer(l->built, sizeof(l->built),
		 "a page-table walk once at boot (ptdump_check_wx()): nothing to build");
	hp_layer(l->active, sizeof(l->active), "%s",
		 !l->configured ? "off (not built)" : rodata ?
		 "ran at boot after mark_rodata_ro(); a module cannot run it again" :
		 "rodata=off: mark_readonly() skips the check");
}

static const char *hp_dv_unavailable(void)
{
#ifdef HP_ARCH_OK
	return NULL;
#else
	return "no probe for this architecture";
#endif
}

static const struct hp_probe hp_probes_debug_notifiers[] = {
	HP_PROBE(debug_notifiers, data_call, HP_FATAL, .signature = HP_DN_SIG,
		 .escape = hp_dn_escape, .warns = 1, .reports = HP_DN_SIG),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: the kernel's own checks
 * of its callers, each provoked (debug_wx: its boot check observed).
 */
HP_FEATURE(debug_notifiers, .layers = hp_dn_layers, .khc = "CONFIG_DEBUG_NOTIFIERS",
	   .on = HP_LIST("CONFIG_DEBUG_NOTIFIERS=y"));

static const struct hp_probe hp_probes_debug_sg[] = {
	HP_PROBE(debug_sg, vmalloc, HP_FATAL, .signature = HP_SG_SIG,
		 .escape = hp_sg_escape, .warns = 1),
};

HP_FEATURE(debug_sg, .layers = hp_sg_layers, .khc = "CONFIG_DEBUG_SG",
	   .on = HP_LIST("CONFIG_DEBUG_SG=y"));

static const struct hp_probe hp_probes_debug_virtual[] = {
	HP_PROBE(debug_virtual, vmalloc, HP_FATAL, .signature = HP_DV_SIG, .warns = 1,
		 .reports = IS_ENABLED(CONFIG_ARM64) ? HP_DV_SIG : NULL),
};

HP_FEATURE(debug_virtual, .layers = hp_dv_layers, .unavailable = hp_dv_unavailable,
	   .khc = "CONFIG_DEBUG_VIRTUAL",
	   .on = HP_LIST("CONFIG_DEBUG_VIRTUAL=y"));

static const struct hp_probe hp_probes_debug_wx[] = {
	HP_PROBE(debug_wx, boot_check, HP_SAFE),
};

/*
 * no kernel-hardening-checker check (.khc): the kernel's boot check for W+X
 * mappings, observed in the log, never provoked: checks.txt rates
 * CONFIG_DEBUG_WX not runtime-observable (nothing can make the kernel check
 * again)
 */
HP_FEATURE(debug_wx, .layers = hp_wx_layers,
	   .on = HP_LIST("CONFIG_DEBUG_WX=y"));
