// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe: re-arm our own UBSAN sites. lib/ubsan.c reports a site once: it
 * sets bit 31 of the site's source location, which lives in the module's
 * data. The families that judge a sanitizer from its report (array_bounds,
 * signed_overflow, unsigned_overflow, truncation) clear that bit on their
 * own sites before each run, so every run gets its report.
 */
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "compat.h"
#include "ubsan_sites.h"

#ifdef MODULE
/*
 * The NUL-terminated string at @f in the module's data, or NULL. @f is any
 * word found by the scan below, so this reads memory that is not ours to
 * read by the compiler's rules (KASAN redzones between globals): not
 * instrumented, plain byte loads, no string library calls.
 */
static __no_sanitize_address const char *hp_ubsan_modstr(unsigned long f, size_t *len)
{
	static const enum hp_mod_region regions[] = {
		HP_MOD_RODATA, HP_MOD_DATA, HP_MOD_RO_AFTER_INIT,
	};
	unsigned long base, size, lim;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(regions); i++) {
		hp_mod_region(regions[i], &base, &size);
		if (f < base || f >= base + size)
			continue;
		lim = min(base + size - f, 256UL);
		for (*len = 0; *len < lim && ((const char *)f)[*len]; (*len)++)
			;
		return *len < lim ? (const char *)f : NULL;
	}
	return NULL;
}

/* true if the @n-byte string @s ends with @tail (uninstrumented, as above) */
static __no_sanitize_address bool hp_ubsan_ends_with(const char *s, size_t n,
						     const char *tail, size_t tn)
{
	size_t i;

	if (n < tn)
		return false;
	for (i = 0; i < tn; i++)
		if (s[n - tn + i] != tail[i])
			return false;
	return true;
}
#endif

/**
 * hp_ubsan_rearm() - clear lib/ubsan.c's "reported" bit on our sites
 * @path: the tail of the source path of the checked code, e.g.
 *	"array_bounds.h"
 * @suppressed: set to how many of those sites had already reported
 *
 * Scans the module's data, word by word (across globals and their KASAN
 * redzones: not instrumented), for UBSAN source locations whose file name
 * ends with @path.
 *
 * Return: the number of such sites found, -1 where we cannot look (built in).
 */
__no_sanitize_address int hp_ubsan_rearm(const char *path, int *suppressed)
{
#ifdef MODULE
	unsigned long base, size, end, p;
	size_t flen = strlen(path);
	int found = 0;

	hp_mod_region(HP_MOD_DATA, &base, &size);
	end = base + size;
	p = ALIGN(base, sizeof(long));
	*suppressed = 0;
	for (; p + sizeof(struct hp_ubsan_loc) <= end; p += sizeof(long)) {
		struct hp_ubsan_loc *loc = (struct hp_ubsan_loc *)p;
		const char *name;
		size_t n;

		name = hp_ubsan_modstr((unsigned long)READ_ONCE(loc->file_name), &n);
		if (!name || !hp_ubsan_ends_with(name, n, path, flen))
			continue;
		found++;
		if (test_and_clear_bit(HP_UBSAN_REPORTED_BIT, &loc->reported))
			(*suppressed)++;
	}
	return found;
#else
	*suppressed = 0;
	return -1;
#endif
}

/**
 * hp_ubsan_hide_kunit() - keep a UBSAN report off the running KUnit case
 *
 * lib/ubsan.c fails the running KUnit case on every report
 * (kunit_fail_current_test); around a provoked report, where the report is
 * the evidence, the probe hides the case and puts it back afterwards.
 *
 * Return: what hp_ubsan_restore_kunit() puts back.
 */
void *hp_ubsan_hide_kunit(void)
{
#if IS_ENABLED(CONFIG_KUNIT)
	void *kt = current->kunit_test;

	current->kunit_test = NULL;
	return kt;
#else
	return NULL;
#endif
}

/**
 * hp_ubsan_restore_kunit() - undo hp_ubsan_hide_kunit()
 * @kt: its return value
 */
void hp_ubsan_restore_kunit(void *kt)
{
#if IS_ENABLED(CONFIG_KUNIT)
	current->kunit_test = kt;
#endif
}
