// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe refcount: refcount_t overflow, underflow, addition on zero and
 * saturation. The kernel (always, since v5.5) saturates the counter at
 * REFCOUNT_SATURATED instead of wrapping it, and warns once per kind of
 * event (WARN_ONCE in refcount_warn_saturate()). The probes judge by the
 * counter value, not by the log, since the warning appears only the first
 * time in a boot; the line found, if any, is added to the evidence. The
 * positive control does the same arithmetic on a plain atomic_t, which
 * wraps. Counters are local: nothing is freed on their account.
 *
 * inc_overflow: refcount_inc() at REFCOUNT_MAX; dec_underflow:
 * refcount_dec_and_test() at 0; dec_to_zero: refcount_dec() at 1;
 * add_on_zero: refcount_add(2) at 0; saturated: four rounds of dec_and_test,
 * inc, dec on a saturated counter, which must stay put and never report the
 * last reference. Protected: the counter reads REFCOUNT_SATURATED
 * (0xc0000000) after the bug; the control's atomic_t must wrap (0x80000000,
 * 0xffffffff, 0, 2, saturated - 4), else inconclusive. The warnings are
 * "refcount_t: saturated; leaking memory.", "underflow; use-after-free.",
 * "decrement hit 0; leaking memory." and "addition on 0; use-after-free.";
 * a later run says "warned earlier in this boot" without scanning the log
 * again. saturated passes three of those sites and declares three warnings,
 * the others one. Under panic_on_warn the probes say unsupported; a first
 * run taints the kernel with W.
 */
#include <linux/atomic.h>
#include <linux/limits.h>
#include <linux/printk.h>
#include <linux/refcount.h>
#include <linux/string.h>

#include "../hardprobe.h"

static atomic_t hp_rc_seq = ATOMIC_INIT(0);
/* each kind of event warns once per boot: seen its line yet? */
static bool hp_rc_warned_ovf, hp_rc_warned_uaf, hp_rc_warned_leak, hp_rc_warned_add;

/* A WARN with panic_on_warn set would panic the kernel: do not provoke one. */
static bool hp_rc_refuse(struct hp_result *r)
{
	if (hp_warn_panics()) {
		hp_set(r, HP_UNSUPPORTED,
		       "panic_on_warn is set: the refcount warning would panic the kernel");
		return true;
	}
	return false;
}

/*
 * The verdict: @val is the refcount after the bad operation, @ctl the
 * atomic_t after the same arithmetic; @want_ctl what wrapping gives.
 */
static void hp_rc_judge(struct hp_result *r, const char *marker, const char *op,
			unsigned int val, int ctl, int want_ctl, const char *needle,
			bool *warned)
{
	char line[128];
	bool logged = false;

	if (ctl != want_ctl) {
		hp_set(r, HP_INCONCLUSIVE, "control: atomic_t %s gave %d, not %d",
		       op, ctl, want_ctl);
		return;
	}
	/* WARN_ONCE: after the first line in this boot, do not scan the log again */
	if (!*warned) {
		logged = hp_log_find(marker, needle, line, sizeof(line));
		*warned = logged;
	}
	hp_set(r, val == (unsigned int)REFCOUNT_SATURATED ? HP_PROTECTED : HP_VULNERABLE,
	       "%s: refcount 0x%08x (%s), atomic_t control 0x%08x; log: %s",
	       op, val, val == (unsigned int)REFCOUNT_SATURATED ? "saturated" : "not saturated",
	       (unsigned int)ctl,
	       logged ? line : *warned ? "warned earlier in this boot (WARN_ONCE)" :
	       "no new line (WARN_ONCE: warned before hardprobe ran?)");
}

/* Print a marker so that only warnings after it are counted. */
static void hp_rc_mark(char *marker, size_t len, const char *what)
{
	snprintf(marker, len, "refcount %s [%d]", what, atomic_inc_return(&hp_rc_seq));
	pr_info("%s\n", marker);
}

static void hp_refcount_inc_overflow(struct hp_result *r)
{
	refcount_t rc = REFCOUNT_INIT(REFCOUNT_MAX);
	atomic_t ctl = ATOMIC_INIT(INT_MAX);
	char marker[48];

	if (hp_rc_refuse(r))
		return;
	atomic_inc(&ctl);
	hp_rc_mark(marker, sizeof(marker), "inc overflow");
	refcount_inc(&rc);
	hp_rc_judge(r, marker, "inc from REFCOUNT_MAX", refcount_read(&rc),
		    atomic_read(&ctl), INT_MIN, "refcount_t: saturated; leaking memory",
		    &hp_rc_warned_ovf);
}

static void hp_refcount_dec_underflow(struct hp_result *r)
{
	refcount_t rc = REFCOUNT_INIT(0);
	atomic_t ctl = ATOMIC_INIT(0);
	char marker[48];
	bool hit;

	if (hp_rc_refuse(r))
		return;
	atomic_dec(&ctl);
	hp_rc_mark(marker, sizeof(marker), "dec_and_test underflow");
	hit = refcount_dec_and_test(&rc);
	hp_rc_judge(r, marker, hit ? "dec_and_test on 0 (returned true)" :
		    "dec_and_test on 0", refcount_read(&rc), atomic_read(&ctl), -1,
		    "refcount_t: underflow; use-after-free", &hp_rc_warned_uaf);
}

static void hp_refcount_dec_to_zero(struct hp_result *r)
{
	refcount_t rc = REFCOUNT_INIT(1);
	atomic_t ctl = ATOMIC_INIT(1);
	char marker[48];

	if (hp_rc_refuse(r))
		return;
	atomic_dec(&ctl);
	hp_rc_mark(marker, sizeof(marker), "dec to 0");
	/* refcount_dec() must never drop the last reference */
	refcount_dec(&rc);
	hp_rc_judge(r, marker, "dec from 1", refcount_read(&rc), atomic_read(&ctl), 0,
		    "refcount_t: decrement hit 0; leaking memory", &hp_rc_warned_leak);
}

static void hp_refcount_add_on_zero(struct hp_result *r)
{
	refcount_t rc = REFCOUNT_INIT(0);
	atomic_t ctl = ATOMIC_INIT(0);
	char marker[48];

	if (hp_rc_refuse(r))
		return;
	atomic_add(2, &ctl);
	hp_rc_mark(marker, sizeof(marker), "add on 0");
	refcount_add(2, &rc);
	hp_rc_judge(r, marker, "add 2 on 0", refcount_read(&rc), atomic_read(&ctl), 2,
		    "refcount_t: addition on 0; use-after-free", &hp_rc_warned_add);
}

/*
 * Once saturated, a counter must stay there: decrements cannot free it.
 * Each operation on the saturated (negative) counter goes through
 * refcount_warn_saturate() again, at three WARN_ONCE sites: dec_and_test
 * "underflow; use-after-free", inc "saturated; leaking memory" (the
 * REFCOUNT_ADD_OVF one), dec "decrement hit 0; leaking memory": up to
 * three warnings (.warns) when those sites are armed (clear_warn_once).
 */
static void hp_refcount_saturated(struct hp_result *r)
{
	refcount_t rc = REFCOUNT_INIT(REFCOUNT_SATURATED);
	atomic_t ctl = ATOMIC_INIT(REFCOUNT_SATURATED);
	unsigned int i, freed = 0;

	if (hp_rc_refuse(r))
		return;
	for (i = 0; i < 4; i++) {
		freed += refcount_dec_and_test(&rc);
		refcount_inc(&rc);
		refcount_dec(&rc);
		/* the same round on a plain atomic_t: one step down */
		atomic_dec(&ctl);
		atomic_inc(&ctl);
		atomic_dec(&ctl);
	}
	if (atomic_read(&ctl) != REFCOUNT_SATURATED - 4) {
		hp_set(r, HP_INCONCLUSIVE, "control: atomic_t went to 0x%08x, not 0x%08x",
		       (unsigned int)atomic_read(&ctl), (unsigned int)(REFCOUNT_SATURATED - 4));
		return;
	}
	hp_set(r, refcount_read(&rc) == (unsigned int)REFCOUNT_SATURATED && !freed ?
	       HP_PROTECTED : HP_VULNERABLE,
	       "4 rounds of dec_and_test, inc, dec at REFCOUNT_SATURATED: refcount 0x%08x, dec_and_test true %u times; atomic_t control 0x%08x",
	       refcount_read(&rc), freed, (unsigned int)atomic_read(&ctl));
}

static void hp_rc_layers(struct hp_layers *l)
{
	l->configured = true;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "always on since v5.5 (no Kconfig symbol)");
	hp_layer(l->built, sizeof(l->built),
		 "inline checks in <linux/refcount.h>, refcount_warn_saturate()");
	hp_layer(l->active, sizeof(l->active), "saturates at 0x%08x",
		 (unsigned int)REFCOUNT_SATURATED);
}

static const struct hp_probe hp_probes_refcount[] = {
	/*
	 * LKDTM: refcount_t saturation, by the event refcount_warn_saturate()
	 * reports: one call per event here (refcount_inc,
	 * refcount_dec_and_test, refcount_dec, refcount_add, and a saturated
	 * counter), each refcount_*() variant there. REFCOUNT_TIMING (and
	 * ATOMIC_TIMING) only time the operations.
	 */
	HP_PROBE(refcount, inc_overflow, HP_SAFE, .warns = 1, .reports = "refcount_t:",
		 .lkdtm = HP_LIST("REFCOUNT_INC_OVERFLOW", "REFCOUNT_ADD_OVERFLOW",
				   "REFCOUNT_INC_NOT_ZERO_OVERFLOW",
				   "REFCOUNT_ADD_NOT_ZERO_OVERFLOW")),
	HP_PROBE(refcount, dec_underflow, HP_SAFE, .warns = 1, .reports = "refcount_t:",
		 .lkdtm = HP_LIST("REFCOUNT_DEC_NEGATIVE", "REFCOUNT_DEC_AND_TEST_NEGATIVE",
				   "REFCOUNT_SUB_AND_TEST_NEGATIVE", "REFCOUNT_SUB_AND_TEST_ZERO")),
	HP_PROBE(refcount, dec_to_zero, HP_SAFE, .warns = 1, .reports = "refcount_t:",
		 .lkdtm = HP_LIST("REFCOUNT_DEC_ZERO")),
	HP_PROBE(refcount, add_on_zero, HP_SAFE, .warns = 1, .reports = "refcount_t:",
		 .lkdtm = HP_LIST("REFCOUNT_INC_ZERO", "REFCOUNT_ADD_ZERO")),
	HP_PROBE(refcount, saturated, HP_SAFE, .warns = 3, .reports = "refcount_t:",
		 .lkdtm = HP_LIST("REFCOUNT_INC_SATURATED", "REFCOUNT_DEC_SATURATED",
				   "REFCOUNT_ADD_SATURATED", "REFCOUNT_INC_NOT_ZERO_SATURATED",
				   "REFCOUNT_ADD_NOT_ZERO_SATURATED",
				   "REFCOUNT_DEC_AND_TEST_SATURATED",
				   "REFCOUNT_SUB_AND_TEST_SATURATED")),
};

HP_FEATURE(refcount, .layers = hp_rc_layers, .khc = "CONFIG_REFCOUNT_FULL");
