// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe array_bounds: UBSAN bounds checks on a fixed-size array, on a
 * trailing array (checked only if the compiler treats it as fixed:
 * -fstrict-flex-arrays=3, or GCC's -fsanitize=bounds-strict) and on a
 * flexible array member annotated __counted_by and on a pointer member
 * annotated __counted_by_ptr (7.0).
 *
 * In warn mode (CONFIG_UBSAN_TRAP=n) the report is printed and the access
 * goes on, so the probes are safe: each prints a unique marker, makes the
 * out-of-bounds write (into a guard byte of our own arena) and looks for
 * "UBSAN: array-index-out-of-bounds" after the marker. The positive
 * control makes the same write from an object built without UBSAN. With
 * CONFIG_UBSAN_TRAP=y a catch oopses the caller: the same probes are then
 * fatal and judged by the trap's message.
 *
 * array_bounds.fixed writes a u8 data[8] followed by another member;
 * .trailing a u8 tail[8] that is the struct's last member, which a compiler
 * takes as a flexible array (and does not check) unless
 * -fstrict-flex-arrays=3 (Clang 16, GCC 13; the kernel adds it by cc-option)
 * or GCC's -fsanitize=bounds-strict makes it fixed; .counted_by a
 * u8 data[] __counted_by(count) with count 8 (CONFIG_CC_HAS_COUNTED_BY:
 * Clang 19.1.3, GCC 15); .counted_by_ptr a u8 *buf __counted_by_ptr(len)
 * with len 8 (Linux 7.0, CONFIG_CC_HAS_COUNTED_BY_PTR: Clang 22.1, GCC 16),
 * LKDTM's PTR_BOUNDS counterpart. Each first writes index 7 (legal), then 8.
 * Protected: the report "UBSAN: array-index-out-of-bounds in
 * .../array_bounds.h:<line>" after the marker, followed by "index 8 is out of
 * range for type". Where the compiler cannot check a case (counted_by on
 * GCC 12; counted_by_ptr before 7.0 or on GCC 12 and Clang 19; trailing
 * without strict flex arrays or bounds-strict) an unreported write is
 * vulnerable with known_gap set, the evidence naming the missing support,
 * and the feature is not failed for it.
 *
 * lib/ubsan.c reports a site once per boot: before each run the probe clears
 * the "reported" bit of our array_bounds.h sites (hp_ubsan_rearm(),
 * lib/ubsan_sites.c), so a second run cannot turn vulnerable through
 * suppression (the evidence says so when a site was re-armed). Built into
 * the kernel, where it cannot look, a later run quotes the first report.
 * The report would fail the running KUnit case: the probe hides the case
 * around the access, because here the report is the evidence. With
 * panic_on_warn set (UBSAN then panics) the probes say unsupported.
 * make check does not exercise trap mode; a GCC trap kernel would report
 * the probes as not caught by the Clang trap's signature.
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "array_bounds.h"
#include "../hardprobe.h"
#include "../lib/ubsan_sites.h"

#define HP_AB_KIND (IS_ENABLED(CONFIG_UBSAN_TRAP) ? HP_FATAL : HP_SAFE)
/*
 * Trap mode (untested on the reference kernels, which warn): Clang's trap
 * carries the check type and the kernel names it; GCC's
 * -fsanitize-undefined-trap-on-error is a plain trap without a type.
 */
#define HP_AB_SIG (IS_ENABLED(CONFIG_UBSAN_TRAP) ?			\
		   "UBSAN: array index out of bounds" : NULL)
#define HP_AB_REPORT	"UBSAN: array-index-out-of-bounds in "
#define HP_AB_FILE	"array_bounds.h"	/* where the checked accesses are */
#define HP_AB_PATH	"module/array_bounds/array_bounds.h"

#ifndef HP_FLAG_FLEX
#define HP_FLAG_FLEX ""
#endif
#ifndef HP_FLAG_UBSAN
#define HP_FLAG_UBSAN ""
#endif

#if defined(CONFIG_CC_HAS_COUNTED_BY) && __has_attribute(__counted_by__)
#define HP_AB_COUNTED_BY 1
#else
#define HP_AB_COUNTED_BY 0
#endif

#ifdef CONFIG_CC_HAS_COUNTED_BY_PTR
#define HP_AB_COUNTED_BY_PTR 1
#else
#define HP_AB_COUNTED_BY_PTR 0
#endif

#ifdef CONFIG_CC_IS_CLANG
#define HP_AB_CC "clang", CONFIG_CLANG_VERSION
#else
#define HP_AB_CC "gcc", CONFIG_GCC_VERSION
#endif

static noinline void hp_ab_checked(enum hp_ab_case c, struct hp_ab_arena *a,
				   size_t idx)
{
	hp_ab_do(c, a, idx);
}

struct hp_ab_probe {
	enum hp_ab_case c;
	const char *tag;
	const char *what;
	bool supported;		/* the compiler can check this access */
	const char *gap;	/* why not, if it cannot */
};

static void hp_ab_run(struct hp_result *r, const struct hp_ab_probe *pb)
{
	static char first[HP_AB_CASES][HP_EVIDENCE_LEN];
	static unsigned int seq;
	struct hp_ab_arena a;
	char marker[48], line[160], index[80];
	int sites, suppressed;
	bool hit, ctl;
	void *kt;

	if (!IS_ENABLED(CONFIG_UBSAN_TRAP) && hp_warn_panics()) {
		hp_set(r, HP_UNSUPPORTED, "panic_on_warn is set: a UBSAN report would panic");
		return;
	}
	/* positive control: unchecked, index 8 lands on our guard byte */
	memset(a.b, HP_AB_FILL, sizeof(a.b));
	hp_ab_unchecked(pb->c, &a, HP_AB_N);
	ctl = a.b[HP_AB_HIT] == HP_AB_VAL;
	if (!ctl) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control (no UBSAN): index %d of %s did not reach arena byte %d",
		       HP_AB_N, pb->what, HP_AB_HIT);
		return;
	}
	/* index 7 (legal) then 8; the report must name 8 */
	sites = hp_ubsan_rearm(HP_AB_PATH, &suppressed);
	snprintf(marker, sizeof(marker), "hardprobe: array_bounds.%s [%u]",
		 pb->tag, ++seq);
	pr_info("%s: write index %d of %d\n", marker, HP_AB_N, HP_AB_N);
	memset(a.b, HP_AB_FILL, sizeof(a.b));
	/* the report fails the running KUnit case: here it is the evidence */
	kt = hp_ubsan_hide_kunit();
	hp_ab_checked(pb->c, &a, HP_AB_N - 1);
	hp_ab_checked(pb->c, &a, HP_AB_N);
	hp_ubsan_restore_kunit(kt);
	hit = a.b[HP_AB_HIT] == HP_AB_VAL;

	if (hp_log_find(marker, HP_AB_REPORT, line, sizeof(line))) {
		char *file = strstr(line, HP_AB_FILE), *at = strrchr(line, '/');

		if (!file) {
			hp_set(r, HP_ERROR, "a report for another site after the marker: %s",
			       line);
			return;
		}
		/* the next report line names the index: 8, not the legal 7 */
		if (!hp_log_find(marker, "index 8 is out of range for type", index,
				 sizeof(index)))
			strscpy(index, "(no 'index 8' line)", sizeof(index));
		else if (strstr(index, " (aka "))
			*strstr(index, " (aka ") = '\0';	/* clang's spelled-out type */
		snprintf(first[pb->c], sizeof(first[pb->c]),
			 "\"UBSAN: array-index-out-of-bounds in %s: %s\"",
			 at && at < file ? at + 1 : file, index);
		r->went_on = true;
		hp_set(r, HP_PROTECTED,
		       "detected, not stopped: %s; warn mode: the write went on%s%s; control (no UBSAN) wrote the guard byte unreported",
		       first[pb->c], hit ? "" : ", yet missed the guard",
		       suppressed ? "; our sites that had reported before re-armed" : "");
		return;
	}
	if (sites <= 0 && first[pb->c][0]) {
		/* could not re-arm the site: its one report was earlier */
		r->went_on = true;
		hp_set(r, HP_PROTECTED,
		       "detected, not stopped: reported once per site (lib/ubsan.c), earlier: %s",
		       first[pb->c]);
		return;
	}
	if (!hit) {
		hp_set(r, HP_ERROR,
		       "no report, and the write to index %d of %s did not land either",
		       HP_AB_N, pb->what);
		return;
	}
	r->known_gap = !pb->supported;
	hp_set(r, HP_VULNERABLE,
	       "index %d of %s written unreported (guard byte changed, %d UBSAN sites of ours found)%s%s",
	       HP_AB_N, pb->what, sites, pb->supported ? "" : "; known gap: ",
	       pb->supported ? "" : pb->gap);
}

static void hp_array_bounds_fixed(struct hp_result *r)
{
	const struct hp_ab_probe pb = {
		HP_AB_FIXED, "fixed", "a fixed u8 data[8] (not last)", true, NULL,
	};

	hp_ab_run(r, &pb);
}

static void hp_array_bounds_trailing(struct hp_result *r)
{
	const struct hp_ab_probe pb = {
		HP_AB_TRAILING, "trailing", "a trailing u8 tail[8]",
		HP_FLAG_FLEX[0] || strstr(HP_FLAG_UBSAN, "bounds-strict"),
		"this compiler has no -fstrict-flex-arrays (GCC 13, Clang 16) and no -fsanitize=bounds-strict: a trailing array is taken as flexible",
	};

	hp_ab_run(r, &pb);
}

static void hp_array_bounds_counted_by(struct hp_result *r)
{
	const struct hp_ab_probe pb = {
		HP_AB_COUNTED, "counted_by", "a u8 data[] __counted_by(count), count 8",
		HP_AB_COUNTED_BY,
		"no __counted_by for this compiler (GCC 15, Clang 19.1.3 for the kernel): the flexible array has no bound to check",
	};

	hp_ab_run(r, &pb);
}

static void hp_array_bounds_counted_by_ptr(struct hp_result *r)
{
	const struct hp_ab_probe pb = {
		HP_AB_COUNTED_PTR, "counted_by_ptr", "a u8 *buf __counted_by_ptr(len), len 8",
		HP_AB_COUNTED_BY_PTR,
		"no __counted_by_ptr here (Linux 7.0 with Clang 22.1 or GCC 16): the pointer has no bound to check",
	};

	hp_ab_run(r, &pb);
}

static void hp_ab_layers(struct hp_layers *l)
{
	l->configured = IS_ENABLED(CONFIG_UBSAN_BOUNDS);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_UBSAN_BOUNDS=%s%s%s, CONFIG_UBSAN_TRAP=%s, CONFIG_CC_HAS_COUNTED_BY=%s, CONFIG_CC_HAS_COUNTED_BY_PTR=%s",
		 l->configured ? "y" : "n",
		 IS_ENABLED(CONFIG_UBSAN_BOUNDS_STRICT) ? " (BOUNDS_STRICT)" : "",
		 IS_ENABLED(CONFIG_UBSAN_ARRAY_BOUNDS) ? " (ARRAY_BOUNDS)" : "",
		 IS_ENABLED(CONFIG_UBSAN_TRAP) ? "y" : "n",
		 IS_ENABLED(CONFIG_CC_HAS_COUNTED_BY) ? "y" : "n",
		 HP_AB_COUNTED_BY_PTR ? "y" : "n");
	hp_layer(l->built, sizeof(l->built),
		 "module flags: %s; %s; __counted_by %s, __counted_by_ptr %s (%s %d)",
		 HP_FLAG_UBSAN[0] ? HP_FLAG_UBSAN : "no -fsanitize",
		 HP_FLAG_FLEX[0] ? HP_FLAG_FLEX : "no -fstrict-flex-arrays",
		 HP_AB_COUNTED_BY ? "honoured" : "not available",
		 HP_AB_COUNTED_BY_PTR ? "honoured" : "not available", HP_AB_CC);
	hp_layer(l->active, sizeof(l->active), "%s",
		 IS_ENABLED(CONFIG_UBSAN_TRAP) ? "trap mode: a catch oopses" :
		 "warn mode: reported once per site, the access goes on");
}

static const struct hp_probe hp_probes_array_bounds[] = {
	HP_PROBE(array_bounds, fixed, HP_AB_KIND, .signature = HP_AB_SIG, .warns = 1,
		 .reports = "UBSAN:",
		 .lkdtm = HP_LIST("ARRAY_BOUNDS")),
	HP_PROBE(array_bounds, trailing, HP_AB_KIND, .signature = HP_AB_SIG, .warns = 1,
		 .reports = "UBSAN:"),
	HP_PROBE(array_bounds, counted_by, HP_AB_KIND, .signature = HP_AB_SIG, .warns = 1,
		 .reports = "UBSAN:",
		 .lkdtm = HP_LIST("FAM_BOUNDS")),
	/*
	 * LKDTM's PTR_BOUNDS (from 7.0): a pointer member read past its
	 * __counted_by_ptr count.
	 */
	HP_PROBE(array_bounds, counted_by_ptr, HP_AB_KIND, .signature = HP_AB_SIG, .warns = 1,
		 .reports = "UBSAN:",
		 .lkdtm = HP_LIST("PTR_BOUNDS@7.0")),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: fixed arrays, trailing
 * arrays, __counted_by (no local-array probe: UBSAN_LOCAL_BOUNDS not listed).
 * CONFIG_UBSAN_TRAP is not listed: the probes do not provoke what it adds (a
 * trap instead of a report).
 */
HP_FEATURE(array_bounds, .layers = hp_ab_layers, .khc = "CONFIG_UBSAN_BOUNDS",
	   .off = HP_LIST("CONFIG_UBSAN_BOUNDS=n"));
