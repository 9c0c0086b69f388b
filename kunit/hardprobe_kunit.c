// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites over the hardprobe probes: one suite per feature, one case
 * per probe; each case runs the probe and checks that what it observed
 * agrees with what the kernel's configuration promises.
 *
 * In a tree with the drop-in (make intree):
 *	./tools/testing/kunit/kunit.py run --kunitconfig=drivers/misc/hardprobe
 * On a kernel with KUnit: insmod hardprobe.ko; insmod hardprobe_kunit.ko
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/kasan-enabled.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>

#include "../module/hardprobe.h"

/* Next probe of @feature after @prev, for KUNIT_CASE_PARAM. */
static const void *hp_kunit_next(const char *feature, const void *prev,
				 char *desc)
{
	unsigned int i, n = hardprobe_probe_count();
	bool seen = !prev;

	for (i = 0; i < n; i++) {
		const struct hp_probe *p = hardprobe_probe_at(i);

		if (!seen) {
			seen = p == prev;
			continue;
		}
		if (strcmp(p->feature, feature))
			continue;
		strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
		return p;
	}
	return NULL;
}

/*
 * A feature's own switch, where a module can read it. With the switch off
 * a catch is another mechanism's work: the probe must not say protected.
 * Returns the switch's state as text if it is off, else NULL.
 */
static const char *hp_kunit_switch_off(const char *feature)
{
	if (!strcmp(feature, "heap_init_alloc") && !want_init_on_alloc(GFP_KERNEL))
		return "want_init_on_alloc(GFP_KERNEL)=0";
	if (!strcmp(feature, "heap_init_free") && !want_init_on_free())
		return "want_init_on_free()=0";
	if (!strcmp(feature, "stack_guard") && !is_vmalloc_addr(task_stack_page(current)))
		return "the task stack is not in vmalloc space";
	if (!strcmp(feature, "slab_free") && !IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		return "CONFIG_SLAB_FREELIST_HARDENED=n";
	if (!strcmp(feature, "mte") && !kasan_hw_tags_enabled())
		return "KASAN hardware tags off";
	return NULL;
}

/* A protected verdict must be the feature's own work, not another mechanism's. */
static void hp_kunit_own_work(struct kunit *test, const struct hp_probe *p,
			      const struct hp_result *r)
{
	const char *off = hp_kunit_switch_off(p->feature);

	if (off)
		KUNIT_FAIL(test, "%s: protected while %s: %s", p->name, off, r->evidence);
	/* init_on_free clears the object first: only the refilled object shows init_on_alloc */
	if (!strcmp(p->name, "heap_init_alloc.slab") && want_init_on_free() &&
	    !IS_ENABLED(CONFIG_KASAN))
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(r->evidence, "filled again"),
					  "init_on_free is on: protected without the refill: %s",
					  r->evidence);
	if (!strcmp(p->name, "heap_init_alloc.page"))
		KUNIT_EXPECT_FALSE_MSG(test, want_init_on_free(),
				       "the page allocator skips init_on_alloc while init_on_free is on: %s",
				       r->evidence);
}

static void probe_matches_config(struct kunit *test)
{
	const struct hp_probe *p = test->param_value;
	const struct hp_feature *f = hardprobe_feature(p->feature);
	struct hp_layers l;
	struct hp_result r;

	KUNIT_ASSERT_NOT_NULL(test, f);
	if (p->kind != HP_SAFE)
		kunit_skip(test, "%s probe: the selftests run it from a child process",
			   hp_kind_name(p->kind));
	KUNIT_ASSERT_EQ(test, hardprobe_run_probe(p, &r), 0);
	hardprobe_feature_layers(f, &l);
	kunit_info(test, "%s: %s: %s\n", p->name, hp_outcome_name(r.outcome),
		   r.evidence);

	switch (r.outcome) {
	case HP_PROTECTED:
		hp_kunit_own_work(test, p, &r);
		return;
	case HP_VULNERABLE:
		if (r.known_gap)
			kunit_skip(test, "XFAIL known gap: %s", r.evidence);
		/*
		 * a boot switch (arm64.nopauth, cfi=off, init_on_free=0, ...) that
		 * turned off what the kernel's config enables: say so, it is the
		 * difference between this boot and the config
		 */
		if (!l.configured && strstr(l.configured_txt, "command line"))
			kunit_skip(test, "%s: %s (observed vulnerable)",
				   "mismatch with the config, turned off at boot",
				   l.configured_txt);
		if (!l.configured)
			kunit_skip(test, "not configured: %s (observed vulnerable)",
				   l.configured_txt[0] ? l.configured_txt : f->symbol);
		KUNIT_FAIL(test, "%s is configured but the probe got through: %s",
			   f->symbol, r.evidence);
		return;
	case HP_INCONCLUSIVE:
		kunit_skip(test, "inconclusive: %s", r.evidence);
		return;
	case HP_UNSUPPORTED:
	case HP_NOT_RUN:
		kunit_skip(test, "%s: %s", hp_outcome_name(r.outcome), r.evidence);
		return;
	default:
		KUNIT_FAIL(test, "probe error: %s", r.evidence);
	}
}

#define HP_KUNIT_SUITE(feat)						\
static const void *hp_kunit_gen_##feat(const void *prev, char *desc)	\
{									\
	return hp_kunit_next(#feat, prev, desc);			\
}									\
static struct kunit_case hp_kunit_cases_##feat[] = {			\
	KUNIT_CASE_PARAM(probe_matches_config, hp_kunit_gen_##feat),		\
	{}								\
};									\
static struct kunit_suite hp_kunit_suite_##feat = {			\
	.name = "hardprobe_" #feat,					\
	.test_cases = hp_kunit_cases_##feat,				\
}

HP_KUNIT_SUITE(stack_init);
HP_KUNIT_SUITE(heap_init_alloc);
HP_KUNIT_SUITE(heap_init_free);
HP_KUNIT_SUITE(zero_call_regs);
HP_KUNIT_SUITE(stack_canary);
HP_KUNIT_SUITE(rodata);
HP_KUNIT_SUITE(ro_after_init);
HP_KUNIT_SUITE(kcfi);
HP_KUNIT_SUITE(nx);
HP_KUNIT_SUITE(stack_guard);
HP_KUNIT_SUITE(user_exec);
HP_KUNIT_SUITE(user_access);
HP_KUNIT_SUITE(fortify);
HP_KUNIT_SUITE(array_bounds);
HP_KUNIT_SUITE(usercopy);
HP_KUNIT_SUITE(refcount);
HP_KUNIT_SUITE(list_hardening);
HP_KUNIT_SUITE(slab_free);
HP_KUNIT_SUITE(ibt);
HP_KUNIT_SUITE(sls);
HP_KUNIT_SUITE(retpoline);
HP_KUNIT_SUITE(spectre_v1);
HP_KUNIT_SUITE(slh);
HP_KUNIT_SUITE(kstack_offset);
HP_KUNIT_SUITE(stack_erase);
HP_KUNIT_SUITE(shadow_call_stack);
HP_KUNIT_SUITE(pac_ret);
HP_KUNIT_SUITE(bti);
HP_KUNIT_SUITE(ret_overwrite);
HP_KUNIT_SUITE(mte);
HP_KUNIT_SUITE(signed_overflow);
HP_KUNIT_SUITE(unsigned_overflow);
HP_KUNIT_SUITE(truncation);
HP_KUNIT_SUITE(overflow_helpers);
HP_KUNIT_SUITE(randstruct);
HP_KUNIT_SUITE(function_sections);
HP_KUNIT_SUITE(lto);
HP_KUNIT_SUITE(fallthrough);
HP_KUNIT_SUITE(stack_clash);

/* has the module registered the suite "hardprobe_<@feature>"? */
static bool __maybe_unused hp_kunit_has_suite(struct kunit_suite **suites,
					      int n, const char *feature)
{
	static const char pfx[] = "hardprobe_";
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(suites[i]->name, pfx, sizeof(pfx) - 1) &&
		    !strcmp(suites[i]->name + sizeof(pfx) - 1, feature))
			return true;
	return false;
}

/*
 * The suite lists above are written by hand: a feature left out of them
 * would never run under KUnit. Every probe's feature must have a suite
 * among those this module registered.
 */
static void every_feature_has_a_suite(struct kunit *test)
{
#ifdef MODULE
	unsigned int i, n = hardprobe_probe_count();
	int nsuites = THIS_MODULE->num_kunit_suites;

	KUNIT_ASSERT_GT(test, n, 0);
	for (i = 0; i < n; i++) {
		const struct hp_probe *p = hardprobe_probe_at(i);

		if (!hp_kunit_has_suite(THIS_MODULE->kunit_suites, nsuites,
					p->feature))
			KUNIT_FAIL(test, "probe %s: no suite hardprobe_%s",
				   p->name, p->feature);
	}
	kunit_info(test, "%u probes, %d suites\n", n, nsuites);
#else
	kunit_skip(test, "built in: checked when hardprobe_kunit is a module");
#endif
}

static struct kunit_case hp_kunit_cases_suites[] = {
	KUNIT_CASE(every_feature_has_a_suite),
	{}
};

#define HP_K "/proc/sys/kernel/"

/* A setting that cannot be read is the one that panics: fatal probes fail closed. */
static void unreadable_setting_would_panic(struct kunit *test)
{
	char why[160] = "";

	if (!hardprobe_probe_count())
		kunit_skip(test, "hardprobe refused to load (lockdown?)");
	KUNIT_EXPECT_TRUE(test, hardprobe_would_panic(HP_K "hardprobe_no_such", HP_K "warn_limit",
						      "/sys/kernel/warn_count", 1, why,
						      sizeof(why)));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "cannot read"));
	KUNIT_EXPECT_TRUE(test, hardprobe_would_panic(HP_K "panic_on_warn",
						      HP_K "hardprobe_no_such",
						      "/sys/kernel/warn_count", 1, why,
						      sizeof(why)));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "cannot read"));
	/* a file that holds no number is no better */
	KUNIT_EXPECT_TRUE(test, hardprobe_would_panic("/proc/cmdline", HP_K "warn_limit",
						      "/sys/kernel/warn_count", 1, why,
						      sizeof(why)));
}

/* Control: the real settings of a kernel that does not panic on warnings. */
static void readable_settings_answer(struct kunit *test)
{
	unsigned long on, lim;
	char why[160] = "";

	if (!hardprobe_probe_count())
		kunit_skip(test, "hardprobe refused to load (lockdown?)");
	if (hp_setting(HP_K "panic_on_warn", &on) || hp_setting(HP_K "warn_limit", &lim))
		KUNIT_FAIL(test, "cannot read panic_on_warn/warn_limit on hardprobe's own procfs");
	if (on || lim)
		kunit_skip(test, "panic_on_warn=%lu, warn_limit=%lu here", on, lim);
	KUNIT_EXPECT_FALSE_MSG(test, hardprobe_would_panic(HP_K "panic_on_warn", HP_K "warn_limit",
							   "/sys/kernel/warn_count", 1, why,
							   sizeof(why)), "%s", why);
}

static struct kunit_case hp_kunit_cases_settings[] = {
	KUNIT_CASE(unreadable_setting_would_panic),
	KUNIT_CASE(readable_settings_answer),
	{}
};

static struct kunit_suite hp_kunit_suite_settings = {
	.name = "hardprobe_settings",
	.test_cases = hp_kunit_cases_settings,
};

static struct kunit_suite hp_kunit_suite_suites = {
	.name = "hardprobe_suites",
	.test_cases = hp_kunit_cases_suites,
};

kunit_test_suites(&hp_kunit_suite_suites, &hp_kunit_suite_settings,
		  &hp_kunit_suite_stack_init, &hp_kunit_suite_heap_init_alloc,
		  &hp_kunit_suite_heap_init_free, &hp_kunit_suite_zero_call_regs,
		  &hp_kunit_suite_stack_canary, &hp_kunit_suite_rodata,
		  &hp_kunit_suite_ro_after_init, &hp_kunit_suite_kcfi,
		  &hp_kunit_suite_nx, &hp_kunit_suite_stack_guard,
		  &hp_kunit_suite_user_exec, &hp_kunit_suite_user_access,
		  &hp_kunit_suite_fortify, &hp_kunit_suite_array_bounds,
		  &hp_kunit_suite_usercopy, &hp_kunit_suite_refcount,
		  &hp_kunit_suite_list_hardening, &hp_kunit_suite_slab_free,
		  &hp_kunit_suite_ibt, &hp_kunit_suite_sls, &hp_kunit_suite_retpoline,
		  &hp_kunit_suite_spectre_v1, &hp_kunit_suite_slh,
		  &hp_kunit_suite_kstack_offset, &hp_kunit_suite_stack_erase,
		  &hp_kunit_suite_shadow_call_stack, &hp_kunit_suite_pac_ret,
		  &hp_kunit_suite_bti, &hp_kunit_suite_ret_overwrite,
		  &hp_kunit_suite_mte,
		  &hp_kunit_suite_signed_overflow, &hp_kunit_suite_unsigned_overflow,
		  &hp_kunit_suite_truncation, &hp_kunit_suite_overflow_helpers,
		  &hp_kunit_suite_randstruct, &hp_kunit_suite_function_sections,
		  &hp_kunit_suite_lto, &hp_kunit_suite_fallthrough,
		  &hp_kunit_suite_stack_clash);

MODULE_DESCRIPTION("KUnit suites for hardprobe: probe outcomes against the kernel configuration");
MODULE_LICENSE("GPL");
