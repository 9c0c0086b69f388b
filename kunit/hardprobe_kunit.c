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
	const struct hp_feature *f = hardprobe_feature(feature);
	const struct hp_probe *p;

	if (!f || !f->impl->nr_probes)
		return NULL;
	p = prev ? (const struct hp_probe *)prev + 1 : f->impl->probes;
	if (p >= f->impl->probes + f->impl->nr_probes)
		return NULL;
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
	return p;
}

/* slab_nomerge's switch, as mm/slab_common.c reads the command line */
static bool hp_kunit_nomerge(void)
{
	bool nomerge;

	return hp_cmdline_slab_nomerge(&nomerge) ? nomerge : !IS_ENABLED(CONFIG_SLAB_MERGE_DEFAULT);
}

/*
 * A feature's own switch, where a module can read it. With the switch off
 * a catch is another mechanism's work: the probe must not say protected.
 * Returns the switch's state as text if it is off, else NULL.
 */
static const char *hp_kunit_switch_off(const char *feature)
{
	unsigned long ms;

	if (!strcmp(feature, "heap_init_alloc") && !want_init_on_alloc(GFP_KERNEL))
		return "want_init_on_alloc(GFP_KERNEL)=0";
	if (!strcmp(feature, "heap_init_free") && !want_init_on_free())
		return "want_init_on_free()=0";
	if (!strcmp(feature, "stack_guard") && !is_vmalloc_addr(task_stack_page(current)))
		return "the task stack is not in vmalloc space";
	if (!strcmp(feature, "slab_free") && !IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		return "CONFIG_SLAB_FREELIST_HARDENED=n";
	/* the boot check's "passed" line is printed only by a kernel built with it */
	if (!strcmp(feature, "debug_wx") && !IS_ENABLED(CONFIG_DEBUG_WX))
		return "CONFIG_DEBUG_WX=n";
	if (!strcmp(feature, "mte") && !kasan_hw_tags_enabled())
		return "KASAN hardware tags off";
	if (!strcmp(feature, "kfence") &&
	    (hp_setting("/sys/module/kfence/parameters/sample_interval", &ms) || !ms))
		return "KFENCE off (no kfence.sample_interval in sysfs, or it reads 0)";
	if (!strcmp(feature, "slab_debug") && !IS_ENABLED(CONFIG_SLUB_DEBUG))
		return "CONFIG_SLUB_DEBUG=n";
	if (!strcmp(feature, "static_usermodehelper") &&
	    !IS_ENABLED(CONFIG_STATIC_USERMODEHELPER))
		return "CONFIG_STATIC_USERMODEHELPER=n";
	/* slub_debug's flags keep caches apart too: that is not slab_nomerge's work */
	if (!strcmp(feature, "slab_nomerge") && !hp_kunit_nomerge())
		return "merging on (CONFIG_SLAB_MERGE_DEFAULT=y or slab_merge, no slab_nomerge)";
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

	/* the verdict is the module's own rule, hp_expect(); only the words are here */
	switch (hp_expect(r.outcome, r.known_gap, l.configured)) {
	case HP_KTAP_OK:
		hp_kunit_own_work(test, p, &r);
		return;
	case HP_KTAP_NOT_OK:
		KUNIT_FAIL(test, "%s is configured but the probe got through: %s",
			   f->symbol, r.evidence);
		return;
	case HP_KTAP_ERROR:
		KUNIT_FAIL(test, "probe error: %s", r.evidence);
		return;
	case HP_KTAP_SKIP:
		break;
	}
	/*
	 * The skip carries no reason: CI parsers append it to the test name,
	 * which must not change from run to run, nor with the outcome (a
	 * feature turned off at boot is the same test). The evidence is on
	 * the info line above, the outcome's class on the one below.
	 */
	if (r.outcome == HP_VULNERABLE && r.known_gap)
		kunit_info(test, "%s: skip: known gap (observed vulnerable)\n", p->name);
	else if (r.outcome == HP_VULNERABLE && strstr(l.configured_txt, "command line"))
		/*
		 * a boot switch (arm64.nopauth, cfi=off, init_on_free=0, ...)
		 * that turned off what the kernel's config enables: say so, it
		 * is the difference between this boot and the config
		 */
		kunit_info(test, "%s: skip: turned off at boot, against the config: %s\n",
			   p->name, l.configured_txt);
	else if (r.outcome == HP_VULNERABLE)
		kunit_info(test, "%s: skip: not configured: %s\n", p->name,
			   l.configured_txt[0] ? l.configured_txt : f->symbol);
	else
		kunit_info(test, "%s: skip: %s\n", p->name, hp_outcome_name(r.outcome));
	kunit_skip(test, "%s", "");
}

/*
 * One suite per feature of the registry, one case per probe, each suite
 * registered where it is defined (the registry's order).
 */
#define HP_REGISTRY(id_, ...)						\
static const void *hp_kunit_gen_##id_##_test(struct kunit *test,	\
					     const void *prev,		\
					     char *desc);		\
static const void * __maybe_unused					\
hp_kunit_gen_##id_(const void *prev, char *desc)			\
{									\
	return hp_kunit_next(#id_, prev, desc);				\
}									\
static struct kunit_case hp_kunit_cases_##id_[] = {			\
	KUNIT_CASE_PARAM(probe_matches_config,				\
			 HP_KUNIT_GEN(hp_kunit_gen_##id_)),		\
	{}								\
};									\
static struct kunit_suite hp_kunit_suite_##id_ = {			\
	.name = "hardprobe_" #id_,					\
	.test_cases = hp_kunit_cases_##id_,				\
};									\
kunit_test_suite(hp_kunit_suite_##id_);					\
static const void * __maybe_unused					\
hp_kunit_gen_##id_##_test(struct kunit *test, const void *prev,		\
			  char *desc)					\
{									\
	return hp_kunit_next(#id_, prev, desc);				\
}

#include "../module/registry.h"
#undef HP_REGISTRY

#define HP_K "/proc/sys/kernel/"

/* A setting that cannot be read is the one that panics: fatal probes fail closed. */
static void unreadable_setting_would_panic(struct kunit *test)
{
	char why[160] = "";
	unsigned long on;

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
	/* under panic_on_warn=1 that alone answers, before the limit is read */
	if (!hp_setting(HP_K "panic_on_warn", &on) && !on)
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
	if (on || lim) {
		kunit_info(test, "panic_on_warn=%lu, warn_limit=%lu here\n", on, lim);
		kunit_skip(test, "panic_on_warn or warn_limit set here");
	}
	KUNIT_EXPECT_FALSE_MSG(test, hardprobe_would_panic(HP_K "panic_on_warn", HP_K "warn_limit",
							   "/sys/kernel/warn_count", 1, why,
							   sizeof(why)), "%s", why);
}

/* the parameters hardprobe_cmdline_parse() gave, "param=val|param|..." */
struct hp_kunit_params {
	char log[160];
	unsigned int n;
	char last[32];
};

static void hp_kunit_param(char *param, char *val, void *arg)
{
	struct hp_kunit_params *c = arg;
	size_t used = strlen(c->log);

	snprintf(c->log + used, sizeof(c->log) - used, "%s%s%s|", param, val ? "=" : "",
		 val ?: "");
	scnprintf(c->last, sizeof(c->last), "%s%s%s", param, val ? "=" : "", val ?: "");
	c->n++;
}

static int hp_kunit_parse(char *line, struct hp_kunit_params *c)
{
	size_t n = strlen(line);

	memset(c, 0, sizeof(*c));
	return hardprobe_cmdline_parse(line, n, n + 1, hp_kunit_param, c);
}

/* The command line cut into words as the kernel's next_arg() and parse_args() cut it. */
static void cmdline_parsed_as_the_kernel_does(struct kunit *test)
{
	char quoted[] = "  a=1  b=\"x y\" \"c=d e\"\tf --x -- panic_on_warn=1 g";
	char tail[] = "a --";
	struct hp_kunit_params c;
	const size_t big = 2000;
	char *line;
	size_t i;

	KUNIT_EXPECT_EQ(test, hp_kunit_parse(quoted, &c), 0);
	/* quotes keep spaces and are dropped; nothing after "--" is the kernel's */
	KUNIT_EXPECT_STREQ(test, c.log, "a=1|b=x y|c=d e|f|--x|");
	KUNIT_EXPECT_EQ(test, hp_kunit_parse(tail, &c), 0);
	KUNIT_EXPECT_STREQ(test, c.log, "a|");

	/* '-' and '_' are one in a parameter's name (parameq()) ... */
	KUNIT_EXPECT_TRUE(test, hp_param_eq("panic-on-taint", "panic_on_taint"));
	KUNIT_EXPECT_TRUE(test, hp_param_eq("kasan.fault", "kasan.fault"));
	KUNIT_EXPECT_FALSE(test, hp_param_eq("panic_on_taint_x", "panic_on_taint"));
	KUNIT_EXPECT_FALSE(test, hp_param_eq("panic_on", "panic_on_taint"));
	/* ... and __setup() names are prefixes of the whole word */
	KUNIT_EXPECT_STREQ(test, hp_setup_rest("slab-nomerge=0", "slab_nomerge") ?: "-", "=0");
	KUNIT_EXPECT_STREQ(test, hp_setup_rest("slub_debugX", "slub_debug") ?: "-", "X");
	KUNIT_EXPECT_NULL(test, hp_setup_rest("slab_merge", "slab_nomerge"));

	/* a 2000-byte line is read and parsed whole: its last word counts */
	line = kunit_kzalloc(test, big + 32, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, line);
	for (i = 0; i + 16 < big; i += 16)
		memcpy(line + i, "hp_pad=xxxxxxxx ", 16);
	strscpy(line + i, "panic_on_warn=1", 32);
	KUNIT_EXPECT_GT(test, strlen(line), big - 16);
	KUNIT_EXPECT_EQ(test, hp_kunit_parse(line, &c), 0);
	KUNIT_EXPECT_EQ(test, c.n, (unsigned int)(i / 16 + 1));
	KUNIT_EXPECT_STREQ(test, c.last, "panic_on_warn=1");

	/* a read that filled the buffer may be cut: refused, no word given */
	memset(&c, 0, sizeof(c));
	i = strlen(line);
	KUNIT_EXPECT_EQ(test, hardprobe_cmdline_parse(line, i, i, hp_kunit_param, &c), -E2BIG);
	KUNIT_EXPECT_EQ(test, hardprobe_cmdline_parse(line, -EIO, i + 1, hp_kunit_param, &c),
			-EIO);
	KUNIT_EXPECT_EQ(test, c.n, 0U);
}

/* panic_on_taint= and kasan.fault= as the kernel takes them: the last valid word wins. */
static void cmdline_panic_settings(struct kunit *test)
{
	static const struct {
		const char *line;
		unsigned long taint;
		bool kasan;
	} t[] = {
		{ "panic_on_taint=0x80", 0x80, false },
		{ "panic-on-taint=200,nousertaint", 0x200, false },
		/* rejected by kstrtoul(): the old mask stays */
		{ "panic_on_taint=0x80 panic_on_taint=zz panic_on_taint", 0x80, false },
		/* 0 once unknown flags are dropped: refused, but stored */
		{ "panic_on_taint=0x80 panic_on_taint=0x80000000", 0, false },
		{ "panic_on_taint=0x80 -- panic_on_taint=0x200", 0x80, false },
		{ "\"panic_on_taint=0x20\"", 0x20, false },
		{ "kasan.fault=panic", 0, true },
		{ "kasan.fault=panic kasan.fault=report", 0, false },
		/* an unknown value leaves it as it was */
		{ "kasan.fault=panic kasan.fault=foo", 0, true },
	};
	unsigned long taint;
	char line[80];
	unsigned int i;
	bool kasan;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		strscpy(line, t[i].line, sizeof(line));
		KUNIT_EXPECT_EQ(test, hardprobe_cmdline_panics(line, &taint, &kasan), 0);
		KUNIT_EXPECT_EQ_MSG(test, taint, t[i].taint, "%s", t[i].line);
		KUNIT_EXPECT_EQ_MSG(test, kasan, t[i].kasan, "%s", t[i].line);
	}
}

static struct kunit_case hp_kunit_cases_settings[] = {
	KUNIT_CASE(unreadable_setting_would_panic),
	KUNIT_CASE(readable_settings_answer),
	KUNIT_CASE(cmdline_parsed_as_the_kernel_does),
	KUNIT_CASE(cmdline_panic_settings),
	{}
};

static struct kunit_suite hp_kunit_suite_settings = {
	.name = "hardprobe_settings",
	.test_cases = hp_kunit_cases_settings,
};

kunit_test_suite(hp_kunit_suite_settings);

/*
 * The VERW features' judgement (speculation/entry.c) on return paths and sysfs
 * lines a virtual CPU never shows: a verw that runs, 6.1's jmp over it.
 */
#ifdef CONFIG_X86_64
/* the bytes between swapgs and sysretq, as the boot leaves them */
static const u8 hp_k_nops612[] = { 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 };
static const u8 hp_k_verw612[] = { 0x0f, 0x00, 0x2d, 0x10, 0x20, 0x30, 0x00 };
static const u8 hp_k_skip61[] = { 0xeb, 0x07, 0x0f, 0x00, 0x2d, 0x10, 0x20, 0x30, 0x00 };
static const u8 hp_k_run61[] = { 0x66, 0x90, 0x0f, 0x00, 0x2d, 0x10, 0x20, 0x30, 0x00 };
static const u8 hp_k_other[] = { 0x48, 0x89, 0xc7, 0x0f, 0x1f, 0x00 };

static void verw_return_path_decoded(struct kunit *test)
{
	char txt[96];

	KUNIT_EXPECT_EQ(test, hardprobe_verw_decode(hp_k_nops612, sizeof(hp_k_nops612), txt,
						    sizeof(txt)), 1);
	KUNIT_EXPECT_STREQ(test, txt, "swapgs; nops; sysretq");
	KUNIT_EXPECT_EQ(test, hardprobe_verw_decode(hp_k_verw612, sizeof(hp_k_verw612), txt,
						    sizeof(txt)), 0);
	KUNIT_EXPECT_STREQ(test, txt, "swapgs; verw; sysretq");
	KUNIT_EXPECT_EQ(test, hardprobe_verw_decode(hp_k_skip61, sizeof(hp_k_skip61), txt,
						    sizeof(txt)), 1);
	KUNIT_EXPECT_STREQ(test, txt, "swapgs; jmp over the verw; sysretq");
	KUNIT_EXPECT_EQ(test, hardprobe_verw_decode(hp_k_run61, sizeof(hp_k_run61), txt,
						    sizeof(txt)), 0);
	KUNIT_EXPECT_EQ(test, hardprobe_verw_decode(hp_k_other, sizeof(hp_k_other), txt,
						    sizeof(txt)), 2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(txt, "not understood"));
	/* a jmp that lands short of the sysretq is not understood either */
	KUNIT_EXPECT_EQ(test, hardprobe_verw_decode(hp_k_skip61, sizeof(hp_k_skip61) - 1, txt,
						    sizeof(txt)), 2);
}

static void verw_outcome_follows_the_return_path(struct kunit *test)
{
	static const struct {
		const char *entry, *line;
		int v;
		enum hp_outcome want;
	} c[] = {
		{ "mds", "Mitigation: Clear CPU buffers; SMT vulnerable", 0, HP_PROTECTED },
		{ "mds", "Mitigation: Clear CPU buffers; SMT vulnerable", 1, HP_VULNERABLE },
		{ "mds", "Mitigation: Clear CPU buffers; SMT vulnerable", 2, HP_INCONCLUSIVE },
		{ "mds", "Vulnerable: Clear CPU buffers attempted, no microcode", 0,
		  HP_VULNERABLE },
		{ "mds", "Vulnerable; SMT vulnerable", 1, HP_VULNERABLE },
		{ "mds", "Not affected", 1, HP_UNSUPPORTED },
		{ "tsx_async_abort", "Mitigation: TSX disabled", 1, HP_INCONCLUSIVE },
		{ "tsx_async_abort", "Mitigation: Clear CPU buffers; SMT vulnerable", 0,
		  HP_PROTECTED },
		{ "mmio_stale_data", "Mitigation: Clear CPU buffers; SMT Host state unknown", 1,
		  HP_INCONCLUSIVE },
		{ "mmio_stale_data", "Mitigation: Clear CPU buffers; SMT Host state unknown", 0,
		  HP_PROTECTED },
		{ "reg_file_data_sampling", "Mitigation: Clear Register File", 0, HP_PROTECTED },
		{ "reg_file_data_sampling", "Mitigation: Clear Register File", 1, HP_VULNERABLE },
		{ "tsa", "Mitigation: Clear CPU buffers: user/kernel boundary", 0, HP_PROTECTED },
		{ "tsa", "Mitigation: Clear CPU buffers: VM", 0, HP_INCONCLUSIVE },
		{ "tsa", "Mitigation: Clear CPU buffers", 1, HP_VULNERABLE },
		{ "no_such_entry", "Mitigation: Clear CPU buffers", 0, HP_ERROR },
	};
	struct hp_result *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		memset(r, 0, sizeof(*r));
		hardprobe_verw_verdict(c[i].entry, c[i].line, c[i].v, "words", r);
		KUNIT_EXPECT_EQ_MSG(test, r->outcome, c[i].want, "%s: %s, %d: %s", c[i].entry,
				    c[i].line, c[i].v, r->evidence);
	}
}
#else
static void verw_return_path_decoded(struct kunit *test)
{
	kunit_skip(test, "x86_64 only");
}

static void verw_outcome_follows_the_return_path(struct kunit *test)
{
	kunit_skip(test, "x86_64 only");
}
#endif

static struct kunit_case hp_kunit_cases_entry_code[] = {
	KUNIT_CASE(verw_return_path_decoded),
	KUNIT_CASE(verw_outcome_follows_the_return_path),
	{}
};

static struct kunit_suite hp_kunit_suite_entry_code = {
	.name = "hardprobe_entry_code",
	.test_cases = hp_kunit_cases_entry_code,
};

kunit_test_suite(hp_kunit_suite_entry_code);

MODULE_DESCRIPTION("KUnit suites for hardprobe: probe outcomes against the kernel configuration");
MODULE_LICENSE("GPL");
