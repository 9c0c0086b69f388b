// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kfence: KFENCE, the sampling heap error detector. Once per
 * sample interval (kfence.sample_interval, in ms; 0 turns it off) KFENCE
 * hands the next slab allocation a page of its own pool, between two guard
 * pages, and protects the page again when the object is freed: a read past
 * the object or of the freed object faults, and KFENCE reports it ("BUG:
 * KFENCE: ...") and lets the read go on.
 *
 * Each probe allocates kmalloc(32) objects, freeing each one that is not
 * from KFENCE's pool (is_kfence_address()), until KFENCE samples one or a
 * time bound passes, then reads past that object (oob_read) or reads it
 * after freeing it (uaf_read), and looks for KFENCE's report after its
 * marker. The same read of an ordinary kmalloc(32) object is the control:
 * the bug is real and goes unreported without KFENCE. The control reads stay
 * in slab memory (the next slot of the same page, or the freed object, with
 * another object of that page live), so they are harmless without KFENCE;
 * this object is not KASAN-instrumented, so only KFENCE can see a read.
 *
 * With KFENCE off (not built, or a sample interval of 0) no allocation comes
 * from its pool: the probe says so from what it saw, a short burst of
 * allocations none of which was KFENCE's, and the control read unreported.
 *
 * A report counts as a warning (check_panic_on_warn("KFENCE")): the probes
 * declare one (.warns), so the core refuses them under panic_on_warn or near
 * warn_limit. kfence.fault=oops|panic (newer kernels) would oops or panic on
 * the report: the probes refuse to run then.
 */
#include <linux/jiffies.h>
#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"

#define HP_KF_SIZE	32
#define HP_KF_REPORT	"BUG: KFENCE: "
#define HP_KF_OOB	"BUG: KFENCE: out-of-bounds read"
#define HP_KF_UAF	"BUG: KFENCE: use-after-free read"
#define HP_KF_PARAM	"/sys/module/kfence/parameters/sample_interval"
/* how long to watch the allocations when KFENCE says it is off */
#define HP_KF_IDLE_MS	100
/* objects allocated at once to find two of one page for the control */
#define HP_KF_POOL	16

/* a read the compiler can neither drop nor move */
static noinline u8 hp_kf_read(const u8 *p)
{
	return READ_ONCE(*p);
}

/*
 * The sample interval KFENCE runs with, as its parameter reads in sysfs:
 * 0 while KFENCE is off (param_get_sample_interval()); -ENOENT when the
 * kernel has no KFENCE.
 */
static int hp_kf_interval(unsigned long *ms)
{
	return hp_setting(HP_KF_PARAM, ms);
}

/* The KFENCE object a hunt found, and what it took. */
struct hp_kf_hunt {
	u8 *obj;
	unsigned int tries;
	unsigned int ms;
};

/*
 * Allocate kmalloc(HP_KF_SIZE) objects until one comes from KFENCE's pool,
 * for at most @budget_ms. KFENCE opens its allocation gate once per sample
 * interval and the first allocation after that, anyone's, gets the object:
 * the loop allocates without sleeping (yielding to the gate's timer), as
 * KFENCE's own test and LKDTM's KFENCE_READ_AFTER_FREE do.
 */
static void hp_kf_hunt(unsigned long budget_ms, struct hp_kf_hunt *h)
{
	u64 t0 = ktime_get_ns(), end = t0 + budget_ms * NSEC_PER_MSEC;
	u8 *p;

	h->obj = NULL;
	h->tries = 0;
	do {
		p = kmalloc(HP_KF_SIZE, GFP_KERNEL);
		if (!p)
			break;
		h->tries++;
		if (is_kfence_address(p)) {
			h->obj = p;
			break;
		}
		kfree(p);
		cond_resched();
	} while (ktime_get_ns() < end);
	h->ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
}

/*
 * Two live ordinary kmalloc(HP_KF_SIZE) objects of one page, *a with its
 * next HP_KF_SIZE bytes in that page: a read past *a, or of *a once freed
 * while *b is live, stays in slab memory.
 */
static bool hp_kf_pair(u8 **a, u8 **b)
{
	u8 *objs[HP_KF_POOL] = { };
	unsigned int i, j, ia = HP_KF_POOL, ib = HP_KF_POOL;

	for (i = 0; i < HP_KF_POOL; i++)
		objs[i] = kmalloc(HP_KF_SIZE, GFP_KERNEL);
	for (i = 0; i < HP_KF_POOL && ia == HP_KF_POOL; i++) {
		if (!objs[i] || is_kfence_address(objs[i]) ||
		    offset_in_page(objs[i]) + 2 * HP_KF_SIZE > PAGE_SIZE)
			continue;
		for (j = 0; j < HP_KF_POOL; j++) {
			if (j == i || !objs[j] || is_kfence_address(objs[j]) ||
			    ((unsigned long)objs[i] & PAGE_MASK) !=
			    ((unsigned long)objs[j] & PAGE_MASK))
				continue;
			ia = i;
			ib = j;
			break;
		}
	}
	for (i = 0; i < HP_KF_POOL; i++)
		if (i != ia && i != ib)
			kfree(objs[i]);
	if (ia == HP_KF_POOL)
		return false;
	*a = objs[ia];
	*b = objs[ib];
	return true;
}

/*
 * Read @p after a marker line; true if the log shows @needle after it (the
 * line in @line). The pointer's tag (arm64 KASAN tag modes) is reset: the
 * read must be seen by KFENCE or by nothing.
 */
static bool hp_kf_try(const char *probe, const char *what, const u8 *p,
		      const char *needle, char *line, size_t len)
{
	static unsigned int seq;
	char marker[64];

	snprintf(marker, sizeof(marker), "hardprobe: kfence.%s %s [%u]", probe, what, ++seq);
	pr_info("%s\n", marker);
	p = kasan_reset_tag(p);
	OPTIMIZER_HIDE_VAR(p);
	hp_kf_read(p);
	if (!hp_log_find(marker, needle, line, len))
		return false;
	/* KFENCE ends the line with "\n\n": the record holds the next (empty) line too */
	line[strcspn(line, "\n")] = '\0';
	return true;
}

/* the refusals the core's warning count does not cover; true if @r is set */
static bool hp_kf_refuse(struct hp_result *r)
{
	char why[128];

	if (!hp_kfence_fault_refusal(why, sizeof(why)))
		return false;
	hp_set(r, HP_UNSUPPORTED, "refused: %s", why);
	return true;
}

/*
 * The control: @uaf: free the first object of a pair, then read it; else
 * read the byte after it. True if the read was silent; @r is set if not.
 */
static bool hp_kf_control(struct hp_result *r, const char *probe, bool uaf)
{
	char line[160];
	u8 *a, *b;
	bool hit;

	if (!hp_kf_pair(&a, &b)) {
		hp_set(r, HP_ERROR,
		       "no two ordinary kmalloc(%d) objects in one page for the control",
		       HP_KF_SIZE);
		return false;
	}
	memset(a, 0x5a, HP_KF_SIZE);
	if (uaf)
		kfree(a);
	hit = hp_kf_try(probe, "control", uaf ? a + 8 : a + HP_KF_SIZE, HP_KF_REPORT,
			line, sizeof(line));
	if (!uaf)
		kfree(a);
	kfree(b);
	if (hit) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the same read of an ordinary kmalloc(%d) object was reported too (\"%s\")",
		       HP_KF_SIZE, strim(line));
		return false;
	}
	return true;
}

/*
 * No KFENCE object came: vulnerable if KFENCE is off (its parameter reads 0,
 * or the kernel has none), inconclusive if it is on.
 */
static void hp_kf_none(struct hp_result *r, int err, unsigned long ms,
		       const struct hp_kf_hunt *h, const char *bug)
{
	if (!err && ms) {
		hp_set(r, HP_INCONCLUSIVE,
		       "KFENCE is on (kfence.sample_interval=%lu ms) but none of %u kmalloc(%d) objects in %u ms came from its pool (other allocations took the samples, or the pool is full)",
		       ms, h->tries, HP_KF_SIZE, h->ms);
		return;
	}
	if (err && err != -ENOENT) {
		hp_set(r, HP_INCONCLUSIVE,
		       "cannot read %s (%d), and none of %u kmalloc(%d) objects in %u ms came from a KFENCE pool",
		       HP_KF_PARAM, err, h->tries, HP_KF_SIZE, h->ms);
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "%s: none of %u kmalloc(%d) objects in %u ms came from a KFENCE pool, and %s went unreported (control)",
	       err ? "no KFENCE in this kernel (no " HP_KF_PARAM ")" :
	       "KFENCE off (kfence.sample_interval reads 0)",
	       h->tries, HP_KF_SIZE, h->ms, bug);
}

/*
 * One probe: the control, the hunt for a KFENCE object, the bad read of it.
 * @uaf: free the object and read it; else read the first byte of the guard
 * page next to it (KFENCE puts an object at the start or the end of its
 * page at random; the bytes between the object and the page's other end are
 * a redzone KFENCE checks for writes when the object is freed, not reads).
 */
static void hp_kf_run(struct hp_result *r, const char *probe, bool uaf)
{
	const char *bug = uaf ? "a read of a freed ordinary kmalloc(32) object" :
			  "a read past an ordinary kmalloc(32) object";
	unsigned long ms = 0, budget;
	struct hp_kf_hunt h;
	char line[160], where[96];
	const u8 *q;
	int err;
	bool hit;

	if (hp_kf_refuse(r))
		return;
	if (!hp_kf_control(r, probe, uaf))
		return;
	err = hp_kf_interval(&ms);
	if (err == -ENOENT || (!err && !ms))
		budget = HP_KF_IDLE_MS;
	else
		budget = err ? 2000 : clamp(ms * 20, 500UL, 5000UL);
	hp_kf_hunt(budget, &h);
	if (!h.obj) {
		hp_kf_none(r, err, ms, &h, bug);
		return;
	}
	memset(h.obj, 0x5a, HP_KF_SIZE);
	if (uaf) {
		kfree(h.obj);
		q = h.obj + 8;
		snprintf(where, sizeof(where), "byte 8 after kfree()");
	} else if (!offset_in_page(h.obj)) {
		q = h.obj - 1;
		snprintf(where, sizeof(where), "the byte before its page (its start)");
	} else {
		q = (const u8 *)PAGE_ALIGN((unsigned long)h.obj + HP_KF_SIZE);
		snprintf(where, sizeof(where), "the byte after its page (%ld past its end)",
			 (long)(q - (h.obj + HP_KF_SIZE)));
	}
	hit = hp_kf_try(probe, "kfence", q, uaf ? HP_KF_UAF : HP_KF_OOB, line, sizeof(line));
	if (!uaf)
		kfree(h.obj);
	/* KFENCE reports the access and lets it complete: caught and went on */
	r->went_on = hit;
	if (hit)
		hp_set(r, HP_PROTECTED,
		       "detected, not stopped: \"%s\": %s, KFENCE kmalloc(%d) object (allocation %u, %u ms; interval %lu ms); control on an ordinary object unreported",
		       strim(line), where, HP_KF_SIZE, h.tries, h.ms, ms);
	else
		hp_set(r, HP_VULNERABLE,
		       "no KFENCE report for a read of %s, KFENCE kmalloc(%d) object (allocation %u, %u ms; interval %lu ms)",
		       where, HP_KF_SIZE, h.tries, h.ms, ms);
}

static void hp_kfence_oob_read(struct hp_result *r)
{
	hp_kf_run(r, "oob_read", false);
}

static void hp_kfence_uaf_read(struct hp_result *r)
{
	hp_kf_run(r, "uaf_read", true);
}

static void hp_kf_layers(struct hp_layers *l)
{
	unsigned long cfg = 0, cmd = 0, ms;
	bool given = hp_cmdline_ulong("kfence.sample_interval", &cmd);
	int err;

#ifdef CONFIG_KFENCE
	cfg = CONFIG_KFENCE_SAMPLE_INTERVAL;
#endif
	l->configured = IS_ENABLED(CONFIG_KFENCE) && (given ? cmd : cfg);
	if (!IS_ENABLED(CONFIG_KFENCE))
		hp_layer(l->configured_txt, sizeof(l->configured_txt), "CONFIG_KFENCE=n");
	else if (given)
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "CONFIG_KFENCE=y CONFIG_KFENCE_SAMPLE_INTERVAL=%lu, kfence.sample_interval=%lu on the command line",
			 cfg, cmd);
	else
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "CONFIG_KFENCE=y CONFIG_KFENCE_SAMPLE_INTERVAL=%lu%s", cfg,
			 cfg ? "" : " (off unless kfence.sample_interval is given)");
	hp_layer(l->built, sizeof(l->built),
		 "allocator feature: nothing to build (KFENCE's pool and page faults)");
	err = hp_kf_interval(&ms);
	if (err == -ENOENT)
		hp_layer(l->active, sizeof(l->active), "no %s: no KFENCE in this kernel",
			 HP_KF_PARAM);
	else if (err)
		hp_layer(l->active, sizeof(l->active), "cannot read %s (%d)", HP_KF_PARAM, err);
	else
		hp_layer(l->active, sizeof(l->active), "kfence.sample_interval=%lu ms (sysfs)%s",
			 ms, ms ? "" : ": KFENCE off");
}

static const struct hp_probe hp_probes_kfence[] = {
	HP_PROBE(kfence, oob_read, HP_SAFE, .warns = 1, .reports = HP_KF_REPORT),
	HP_PROBE(kfence, uaf_read, HP_SAFE, .warns = 1, .reports = HP_KF_REPORT),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: a KFENCE object read
 * out of bounds and after free. Not CONFIG_KFENCE_SAMPLE_INTERVAL nor
 * kfence.sample_interval: k-h-c asks for the value 100, which no probe
 * observes (checks.txt).
 */
HP_FEATURE(kfence, .layers = hp_kf_layers, .khc = "CONFIG_KFENCE",
	   .on = HP_LIST("kfence.sample_interval=10"));
