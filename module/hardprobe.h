/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe: prove at run time which hardening features protect this kernel.
 *
 * A feature is one protection (stack_init, kcfi, ...); a probe is one
 * experiment on it (stack_init.struct_padding). Every feature is one line of
 * registry.h; its probes are HP_PROBE() lines in its family's folder.
 */
#ifndef _HARDPROBE_H
#define _HARDPROBE_H

#include <linux/types.h>

#include "lib/compat.h"

#define HP_EVIDENCE_LEN	256
#define HP_LAYER_LEN	160

/* The outcome vocabulary, used by every renderer, test and script. */
enum hp_outcome {
	HP_NOT_RUN = 0,
	HP_PROTECTED,
	HP_VULNERABLE,
	HP_UNSUPPORTED,
	HP_INCONCLUSIVE,
	HP_ERROR,
	HP_OUTCOME_MAX,
};

enum hp_kind {
	HP_SAFE,	/* the kernel keeps running; the probe judges itself */
	HP_FATAL,	/* a catch oopses the caller: needs allow_fatal=1 */
	HP_PANIC,	/* a catch panics the kernel: one probe per boot */
};

/* What a probe observed. */
struct hp_result {
	enum hp_outcome outcome;
	bool known_gap;		/* a documented hole, reported but not failed */
	/*
	 * inconclusive by chance: a random draw of this boot (its odds in the
	 * evidence) hid what the probe looks for; another boot can decide.
	 * JSON "chance": true; a host comparing runs skips it, never passes it
	 */
	bool chance;
	/*
	 * protected by a catch that only detects: a report after which the
	 * bug went on (kCFI permissive, UBSAN or a WARN in warn mode, KFENCE);
	 * JSON "stopped": false, the evidence says "detected, not stopped"
	 */
	bool went_on;
	char evidence[HP_EVIDENCE_LEN];
	u64 ns;
	unsigned int warns;	/* WARN-class reports it raised (warn_count delta) */
	/* WARNs other tasks raised meanwhile, taken out of @warns (their headers) */
	unsigned int warns_foreign;
};

/* The evidence layers of a feature, filled from the running kernel. */
struct hp_layers {
	bool configured;
	char configured_txt[HP_LAYER_LEN];
	char built[HP_LAYER_LEN];
	char active[HP_LAYER_LEN];
};

/* What a family file gives for one feature (HP_FEATURE()). */
struct hp_feature_impl {
	/* why the feature cannot be configured on this kernel, if so */
	const char *(*unavailable)(void);
	void (*layers)(struct hp_layers *l);
	/*
	 * the kernel-hardening-checker checks the probes verify, as k-h-c's
	 * JSON names them (CONFIG_X, a boot parameter, a dotted sysctl), one
	 * space apart, "name@x86_64" or "name@arm64" where only there; NULL:
	 * none (JSON "khc"; hptool khc-join)
	 */
	const char *khc;
	/*
	 * the LKDTM tests (drivers/misc/lkdtm) that provoke the bug the
	 * feature as a whole stops, as for hp_probe.lkdtm; NULL: none
	 */
	const char *const *lkdtm;
	/*
	 * the switches that turn the feature off on this architecture, as
	 * make offcheck applies them (HP_LIST(); NULL: none): a boot
	 * parameter ("rodata=off"; one key twice is merged, "clearcpuid=a,b")
	 * or a Kconfig line ("CONFIG_FORTIFY_SOURCE=n": a kernel built with
	 * it). Each is one that a variant of scripts/off-variants applies,
	 * so that every switch here is shown to work (JSON "off")
	 */
	const char *const *off;
	/*
	 * the same for the switches that turn it on where the reference
	 * kernels leave it off, or force a CPU bug's mitigation on a CPU the
	 * kernel calls not affected (JSON "on")
	 */
	const char *const *on;
	const struct hp_probe *probes;
	unsigned int nr_probes;
};

/* One line of the registry (registry.h) and its family's part. */
struct hp_feature {
	const char *id;
	const char *family;	/* the folder module/<family>/ */
	const char *group;
	const char *title;
	/* the Kconfig symbol whose absence makes "vulnerable" expected */
	const char *symbol;
	const struct hp_feature_impl *impl;
};

/* An oops a bug meets once past a fatal probe's feature (hp_probe.escape). */
struct hp_escape {
	const char *text;	/* the kernel-log text of the oops */
	const char *by;		/* what it is: "nx's catch" */
	/*
	 * it stops the bug before the feature is tested (PTI's NX on the
	 * kernel's copy of user memory, before SMEP): inconclusive, not
	 * vulnerable
	 */
	bool first;
};

struct hp_probe {
	const char *name;
	const char *feature;
	enum hp_kind kind;
	/* kernel-log text that proves a catch, for fatal probes */
	const char *signature;
	/*
	 * fatal probes: what a bug that got past the feature dies of further
	 * on (a call into data meets NX), ended by an empty entry. A task
	 * that died of one is vulnerable (the feature let the bug through),
	 * never protected and never an error
	 */
	const struct hp_escape *escape;
	void (*run)(struct hp_result *r);
	/*
	 * at most how many WARN-class reports (WARN, UBSAN, KASAN, KFENCE) a
	 * safe probe raises: it is refused when that many more would reach
	 * warn_limit, and a run that raises more is an error
	 */
	unsigned int warns;
	/*
	 * the start of the kernel's report of a catch the probe provokes on
	 * purpose, in the log without a crash: what log checkers (the fuzz,
	 * make check-debug) must not count as a finding; JSON "reports"
	 */
	const char *reports;
	/*
	 * it waits uninterruptibly on something outside the module (a
	 * usermode helper's program) or runs long: refused under
	 * hung_task_panic and softlockup_panic
	 */
	bool blocks;
	/*
	 * the LKDTM tests that provoke the same bug against the same
	 * protection (HP_LIST()), in the order LKDTM's guest runs them
	 * (hptool lkdtm): "TEST", "TEST@7.0" where LKDTM has it from that
	 * kernel version on, "?TEST" shown beside the probe but not compared
	 * with it; NULL: none (JSON "lkdtm")
	 */
	const char *const *lkdtm;
};

/*
 * HP_PROBE(feature, probe, kind, ...) declares the probe "<feature>.<probe>",
 * run by the function hp_<feature>_<probe>(); the optional designated
 * initializers give .signature and .escape (fatal probes), .warns,
 * .reports, .blocks and .lkdtm.
 */
#define HP_PROBE(feat, probe, k, ...)					\
	{ .name = #feat "." #probe, .feature = #feat, .kind = (k),	\
	  .run = hp_##feat##_##probe, __VA_ARGS__ }

/* HP_LIST("a", "b", ...): a NULL-ended list of strings (.lkdtm, .off, .on) */
#define HP_LIST(...)	((const char *const []){ __VA_ARGS__, NULL })

/* @x on that architecture only, NULL elsewhere (an .off or .on switch) */
#define HP_X86_64(x)	(IS_ENABLED(CONFIG_X86_64) ? (x) : NULL)
#define HP_ARM64(x)	(IS_ENABLED(CONFIG_ARM64) ? (x) : NULL)

/*
 * HP_FEATURE(feature, ...) gives the registry's feature @feat its probes,
 * the table hp_probes_<feature>[], and its .layers (and .unavailable, .khc,
 * .lkdtm, .off, .on).
 */
#define HP_FEATURE(feat, ...)						\
const struct hp_feature_impl hp_impl_##feat = {			\
	.probes = hp_probes_##feat,					\
	.nr_probes = ARRAY_SIZE(hp_probes_##feat),			\
	__VA_ARGS__							\
}

/* debugfs "kstack": each read samples the syscall stack (kstack.c) */
extern const struct file_operations hp_kstack_fops;

/* settings.c: the kernel's settings read on hardprobe's own procfs/sysfs */
void hp_settings_init(void);
void hp_settings_exit(void);
int hp_setting(const char *path, unsigned long *val);
bool hp_warn_refusal(unsigned int n, char *why, size_t len);
bool hardprobe_would_panic(const char *panic_on, const char *limit,
			   const char *count, unsigned int n, char *why, size_t len);
bool hp_probe_refusal(const struct hp_probe *p, char *why, size_t len);
bool hp_kfence_fault_refusal(char *why, size_t len);
bool hp_locked_down(void);
int hp_may_use(void);

#ifdef CONFIG_X86_64
/* speculation/entry.c: the VERW features' decoder and rule, for KUnit */
int hardprobe_verw_decode(const u8 *code, size_t len, char *txt, size_t txtlen);
void hardprobe_verw_verdict(const char *entry, const char *line, int v, const char *code,
			    struct hp_result *r);
#endif

/* helpers for probes (lib/probe.c, lib/log.c, lib/settings.c) */
__printf(3, 4) void hp_set(struct hp_result *r, enum hp_outcome o,
			   const char *fmt, ...);
__printf(3, 4) void hp_layer(char *buf, size_t len, const char *fmt, ...);
void hp_built_flags(struct hp_layers *l, const char *flags, const char *none);
void hp_layers_unavailable(struct hp_layers *l, const char *sym, const char *why);
bool hp_log_find(const char *marker, const char *needle, char *line,
		 size_t len);
bool hp_log_find_printed(const char *marker, const char *needle, char *line, size_t len);
unsigned int hp_log_find_all(const char *marker, const char *const *needles,
			     unsigned int n, bool *found, char *line, size_t len);
unsigned int hp_log_find_boot(const char *const *needles, unsigned int n, bool *found,
			      char *line, size_t len, const char *stop, bool *whole);
u64 hp_log_seq(void);
void hp_log_settle(void);
unsigned int hp_log_foreign_warns(u64 from, u64 to, pid_t pid);
ssize_t hp_read_file(const char *path, char *buf, size_t len);
int hp_slab_attr(const char *cache, const char *attr);
int hp_slab_sheaf_capacity(const char *cache);
ssize_t hp_read_bytes(const char *path, void *buf, size_t len, loff_t off);
ssize_t hp_write_file(const char *path, const char *buf, size_t len);
unsigned long hp_fn_size(const void *fn);
void hp_cache_names_init(void);
u64 hp_cache_load_id(void);
const char *hp_cache_name(char *buf, size_t len, const char *base);
#define HP_CACHE_NAME_LEN	48
bool hp_cmdline_bool(const char *param, bool *val);
bool hp_cmdline_ulong(const char *param, unsigned long *val);
bool hp_cmdline_rodata(bool *on);
bool hp_cmdline_word(const char *word);
bool hp_cmdline_early(const char *name);
bool hp_cmdline_setup(const char *name);
bool hp_cmdline_slab_nomerge(bool *nomerge);
bool hp_cmdline_each(bool (*fn)(const char *word, const void *arg), const void *arg);
/* one parameter of the command line: its name and value (NULL without '=') */
typedef void (*hp_cmdline_fn)(char *param, char *val, void *arg);
int hp_cmdline_walk(hp_cmdline_fn fn, void *arg);
bool hp_param_eq(const char *param, const char *name);
const char *hp_setup_rest(const char *word, const char *name);
const char *hp_slub_debug_value(const char *word);
bool hp_slub_debug_on(void);
bool hp_warn_panics(void);

/* The result of one run of a feature and its probes. */
struct hp_feature_result {
	const struct hp_feature *feature;
	struct hp_layers layers;
	enum hp_outcome outcome;
	const char *unavailable;
	unsigned int first, count;	/* slice of hp_run.probes */
};

struct hp_probe_result {
	const struct hp_probe *probe;
	struct hp_result res;
};

struct hp_run {
	const char *target;	/* the bench target's name (module parameter) */
	unsigned int nr_features, nr_probes;
	struct hp_feature_result *features;
	struct hp_probe_result *probes;
};

/* KTAP line for one feature, per the expectation rules of the design */
enum hp_ktap { HP_KTAP_OK, HP_KTAP_NOT_OK, HP_KTAP_SKIP, HP_KTAP_ERROR };

enum hp_ktap hp_expect(enum hp_outcome o, bool known_gap, bool configured);
const char *hp_outcome_name(enum hp_outcome o);
const char *hp_kind_name(enum hp_kind k);

struct seq_buf;
void hp_render_text(struct seq_buf *s, const struct hp_run *run);
void hp_render_ktap(struct seq_buf *s, const struct hp_run *run);
void hp_render_json(struct seq_buf *s, const struct hp_run *run);

/* registry.c: the features in registry order, the probes feature by feature */
int hp_registry_init(void);
void hp_registry_exit(void);
unsigned int hp_feature_count(void);
const struct hp_feature *hp_feature_at(unsigned int i);
void hp_probes_set(const struct hp_probe *const *tab, unsigned int n);

/* outcome.c: the one ranking of outcomes (a feature's is its probes' highest) */
unsigned int hp_outcome_rank(enum hp_outcome o);

/* Exported to hardprobe_kunit.ko */
unsigned int hardprobe_probe_count(void);
const struct hp_probe *hardprobe_probe_at(unsigned int i);
const struct hp_feature *hardprobe_feature(const char *id);
int hardprobe_run_probe(const struct hp_probe *p, struct hp_result *r);
void hardprobe_feature_layers(const struct hp_feature *f, struct hp_layers *l);
int hardprobe_cmdline_parse(char *buf, ssize_t n, size_t size, hp_cmdline_fn fn, void *arg);
int hardprobe_cmdline_panics(char *line, unsigned long *taint, bool *kasan_panics);

#endif /* _HARDPROBE_H */
