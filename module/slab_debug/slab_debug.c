// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe slab_debug: SLUB's own debugging, red zones and poisoning
 * (CONFIG_SLUB_DEBUG=y, switched on for every cache by slub_debug= on the
 * command line or by CONFIG_SLUB_DEBUG_ON). With red zones SLUB keeps a
 * known byte pattern after each object; with poisoning it fills a freed
 * object with one; a check of the cache (on allocation and free with the
 * consistency checks, or on demand through /sys/kernel/slab/<cache>/validate)
 * reports any byte that changed ("Right Redzone overwritten", "Poison
 * overwritten") and writes the pattern back. LKDTM's SLAB_LINEAR_OVERFLOW and
 * WRITE_AFTER_FREE provoke the same reports on kmalloc objects.
 *
 * The probes do it safely on private caches, which nothing else allocates
 * from and which are never merged: 20-byte objects aligned to 8, so that
 * without debugging the byte after an object is its own slot's padding.
 * redzone writes that byte past a live object; poison writes byte 18 of a
 * freed object (not its free pointer: with SLAB_POISON the free pointer lives
 * after the object, without it in bytes 8-15; and not KASAN's free metadata,
 * bytes 0-15 of a freed object of a generic KASAN kernel). Then each writes
 * "1" to the cache's validate file and looks for SLUB's report after its
 * marker. validate_store() runs the check only for a cache with debug flags
 * and refuses (-EINVAL) one without: the write stayed, nothing reported,
 * vulnerable. The control is the write itself, read back before the check.
 *
 * A report taints the kernel (TAINT_BAD_PAGE); from 6.12 it also warns
 * (object_err()'s WARN_ON): the probes declare one warning (.warns), so the
 * core refuses them under panic_on_warn or near warn_limit, and their report
 * (.reports, the "BUG <cache>" headline, the cache's name ours) so that log
 * checkers do not count it. The object file is not KASAN-instrumented: only
 * SLUB may see the writes.
 */
#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"

#define HP_SD_SIZE	20
#define HP_SD_ALIGN	8
/* the byte of a freed object the poison probe writes */
#define HP_SD_POISON_AT	(HP_SD_SIZE - 2)
#define HP_SD_OBJS	16
/* every cache of ours starts so; SLUB's report headline is "BUG <cache> (" */
#define HP_SD_CACHE	"hp_slab_debug"
#define HP_SD_REPORT	"BUG " HP_SD_CACHE
#define HP_SD_RZ	"Redzone overwritten"
#define HP_SD_POISON	"Poison overwritten"
#define HP_SD_SYSFS	"/sys/kernel/slab/"

/* the debug flags of slub_debug=, as parse_slub_debug_flags() reads them */
#define HP_SD_F		BIT(0)
#define HP_SD_Z		BIT(1)
#define HP_SD_P		BIT(2)
#define HP_SD_U		BIT(3)
#define HP_SD_DEFAULT	(HP_SD_F | HP_SD_Z | HP_SD_P | HP_SD_U)

/* the debug flags a cache got, as its sysfs files show them */
struct hp_sd_flags {
	int err;
	unsigned long red_zone, poison, sanity_checks, store_user;
};

static void hp_sd_read_flags(const char *cache, struct hp_sd_flags *fl)
{
	static const char *const names[] = {
		"red_zone", "poison", "sanity_checks", "store_user",
	};
	unsigned long *val[] = {
		&fl->red_zone, &fl->poison, &fl->sanity_checks, &fl->store_user,
	};
	char path[96];
	unsigned int i;

	memset(fl, 0, sizeof(*fl));
	for (i = 0; i < ARRAY_SIZE(names) && !fl->err; i++) {
		snprintf(path, sizeof(path), HP_SD_SYSFS "%s/%s", cache, names[i]);
		fl->err = hp_setting(path, val[i]);
	}
}

static void hp_sd_flags_txt(const struct hp_sd_flags *fl, char *buf, size_t len)
{
	if (fl->err == -ENOENT)
		snprintf(buf, len, "no %s<cache>/red_zone: %s", HP_SD_SYSFS,
			 IS_ENABLED(CONFIG_SLUB_DEBUG) ? "no slab sysfs" : "CONFIG_SLUB_DEBUG=n");
	else if (fl->err)
		snprintf(buf, len, "cannot read the cache's flags in sysfs (%d)", fl->err);
	else
		snprintf(buf, len, "red_zone=%lu poison=%lu sanity_checks=%lu store_user=%lu",
			 fl->red_zone, fl->poison, fl->sanity_checks, fl->store_user);
}

/* have SLUB check @cache: what its validate file's write returned */
static ssize_t hp_sd_validate(const char *cache)
{
	char path[96];

	snprintf(path, sizeof(path), HP_SD_SYSFS "%s/validate", cache);
	return hp_write_file(path, "1", 1);
}

static void hp_sd_ctor(void *obj)
{
}

/*
 * Write @v at @p, check the cache, look for @needle after a marker. The
 * byte is read back before the check (the control: the write landed) and
 * after it (SLUB writes its pattern back over what it reports).
 */
struct hp_sd_try {
	u8 old, landed, after;
	ssize_t validated;
	bool found;
	char line[120];
};

static void hp_sd_write_check(const char *probe, const char *cache, u8 *p,
			      const char *needle, struct hp_sd_try *t)
{
	static unsigned int seq;
	char marker[64];

	t->old = READ_ONCE(*p);
	OPTIMIZER_HIDE_VAR(p);
	WRITE_ONCE(*p, (u8)~t->old);
	t->landed = READ_ONCE(*p);
	snprintf(marker, sizeof(marker), "hardprobe: slab_debug.%s validate [%u]", probe, ++seq);
	pr_info("%s\n", marker);
	t->validated = hp_sd_validate(cache);
	t->found = hp_log_find(marker, needle, t->line, sizeof(t->line));
	if (t->found)
		strim(t->line);
	t->after = READ_ONCE(*p);
	/* not reported: put the byte back (the next check must not find it) */
	if (t->after == (u8)~t->old)
		WRITE_ONCE(*p, t->old);
}

/* The outcome of one write and check; @what names the write. */
static void hp_sd_judge(struct hp_result *r, const struct hp_sd_try *t,
			const struct hp_sd_flags *fl, bool flag, const char *flag_name,
			const char *what)
{
	char flags[96];

	if (fl->err)
		hp_sd_flags_txt(fl, flags, sizeof(flags));
	else
		snprintf(flags, sizeof(flags), "cache red_zone=%lu poison=%lu", fl->red_zone,
			 fl->poison);
	if (t->landed != (u8)~t->old) {
		hp_set(r, HP_INCONCLUSIVE, "control: %s did not land (0x%02x, wrote 0x%02x)",
		       what, t->landed, (u8)~t->old);
	} else if (t->found) {
		/* found at the next check, after the write landed: caught and went on */
		r->went_on = true;
		hp_set(r, HP_PROTECTED,
		       "detected, not stopped: \"%s\": SLUB reported %s (0x%02x over 0x%02x) and wrote back 0x%02x; %s",
		       t->line, what, t->landed, t->old, t->after, flags);
	} else if (t->validated == -EINVAL) {
		hp_set(r, HP_VULNERABLE,
		       "%s (0x%02x over 0x%02x) stayed, unreported: the cache has no debug flags (validate refused, -EINVAL; %s)",
		       what, t->landed, t->old, flags);
	} else if (t->validated == -ENOENT) {
		if (IS_ENABLED(CONFIG_SLUB_DEBUG))
			hp_set(r, HP_INCONCLUSIVE,
			       "%s landed, but there is no validate file to have SLUB check the cache (no slab sysfs)",
			       what);
		else
			hp_set(r, HP_VULNERABLE,
			       "%s (0x%02x over 0x%02x) stayed, unreported: CONFIG_SLUB_DEBUG=n (no red zones, no poisoning, no checks)",
			       what, t->landed, t->old);
	} else if (t->validated < 0) {
		hp_set(r, HP_ERROR, "writing the cache's validate file failed (%zd)", t->validated);
	} else if (!flag) {
		hp_set(r, HP_VULNERABLE,
		       "%s (0x%02x over 0x%02x) stayed, unreported by SLUB's check: the cache's debug flags have no %s (%s)",
		       what, t->landed, t->old, flag_name, flags);
	} else {
		hp_set(r, HP_VULNERABLE,
		       "%s (0x%02x over 0x%02x) stayed, unreported by SLUB's check although the cache has %s (%s)",
		       what, t->landed, t->old, flag_name, flags);
	}
}

/* allocate from @c until an object is not KFENCE's; those are freed */
static void *hp_sd_alloc(struct kmem_cache *c)
{
	void *kf[HP_SD_OBJS], *p = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < HP_SD_OBJS && !p; i++) {
		p = kmem_cache_alloc(c, GFP_KERNEL);
		if (p && is_kfence_address(p)) {
			kf[n++] = p;
			p = NULL;
		}
	}
	while (n)
		kmem_cache_free(c, kf[--n]);
	return p;
}

static void hp_slab_debug_redzone(struct hp_result *r)
{
	char cache[HP_CACHE_NAME_LEN];
	struct hp_sd_flags fl;
	struct hp_sd_try t;
	struct kmem_cache *c;
	u8 *obj;

	/* the constructor keeps it out of every merge */
	hp_cache_name(cache, sizeof(cache), HP_SD_CACHE "_rz");
	c = kmem_cache_create(cache, HP_SD_SIZE, HP_SD_ALIGN, 0, hp_sd_ctor);
	if (!c) {
		hp_set(r, HP_ERROR, "kmem_cache_create() failed");
		return;
	}
	obj = hp_sd_alloc(c);
	if (!obj) {
		hp_set(r, HP_ERROR, "no object of a private cache outside KFENCE's pool");
		goto out;
	}
	hp_sd_read_flags(cache, &fl);
	/* through a match-all tag: SLUB's check is the test, not a tag fault */
	hp_sd_write_check("redzone", cache, (u8 *)kasan_reset_tag(obj) + HP_SD_SIZE, HP_SD_RZ,
			  &t);
	hp_sd_judge(r, &t, &fl, fl.red_zone, "red zone",
		    "the byte written past a live 20-byte object");
	kmem_cache_free(c, obj);
out:
	kmem_cache_destroy(c);
}

static void hp_slab_debug_poison(struct hp_result *r)
{
	char cache[HP_CACHE_NAME_LEN];
	void *objs[HP_SD_OBJS] = { };
	struct hp_sd_flags fl;
	struct hp_sd_try t;
	struct kmem_cache *c;
	unsigned int i, j;
	u8 *a = NULL;

	/* no constructor: SLUB poisons only objects of caches without one */
	hp_cache_name(cache, sizeof(cache), HP_SD_CACHE "_poison");
	c = kmem_cache_create(cache, HP_SD_SIZE, HP_SD_ALIGN, HP_SLAB_NO_MERGE, NULL);
	if (!c) {
		hp_set(r, HP_ERROR, "kmem_cache_create() failed");
		return;
	}
	for (i = 0; i < HP_SD_OBJS; i++)
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
	/* an object with another live one in its slab: the slab stays when it is freed */
	for (i = 0; i < HP_SD_OBJS && !a; i++) {
		for (j = 0; j < HP_SD_OBJS && objs[i] && !is_kfence_address(objs[i]); j++) {
			if (j == i || !objs[j] || is_kfence_address(objs[j]) ||
			    virt_to_folio(objs[i]) != virt_to_folio(objs[j]))
				continue;
			a = objs[i];
			objs[i] = NULL;
			break;
		}
	}
	if (!a) {
		hp_set(r, HP_ERROR, "no two objects of one slab in %u allocations", HP_SD_OBJS);
		goto out;
	}
	hp_sd_read_flags(cache, &fl);
	kmem_cache_free(c, a);
	/* generic KASAN holds freed objects in quarantine: hand them back to SLUB */
	kmem_cache_shrink(c);
	hp_sd_write_check("poison", cache, (u8 *)kasan_reset_tag(a) + HP_SD_POISON_AT,
			  HP_SD_POISON, &t);
	hp_sd_judge(r, &t, &fl, fl.poison, "poisoning",
		    "byte 18 written in a freed 20-byte object");
out:
	for (i = 0; i < HP_SD_OBJS; i++)
		if (objs[i])
			kmem_cache_free(c, objs[i]);
	kmem_cache_destroy(c);
}

/*
 * One block of slub_debug's value, as parse_slub_debug_flags() reads it:
 * its flags, whether it names caches (a list after ","); the next block or
 * NULL.
 */
static const char *hp_sd_block(const char *s, unsigned int *flags, bool *list)
{
	while (*s == ';')
		s++;
	*flags = 0;
	if (*s == ',')
		*flags = HP_SD_DEFAULT;
	for (; *s && *s != ',' && *s != ';'; s++) {
		switch (tolower(*s)) {
		case '-':
			*flags = 0;
			break;
		case 'f':
			*flags |= HP_SD_F;
			break;
		case 'z':
			*flags |= HP_SD_Z;
			break;
		case 'p':
			*flags |= HP_SD_P;
			break;
		case 'u':
			*flags |= HP_SD_U;
			break;
		}
	}
	*list = *s == ',';
	while (*s && *s != ';')
		s++;
	while (*s == ';')
		s++;
	return *s ? s : NULL;
}

/*
 * The debug flags every cache gets, as setup_slub_debug() computes them
 * from one slub_debug word's value @v ("": the bare word) and the flags
 * before it @prev: a block without a list of caches sets them, a list alone
 * leaves them.
 */
static unsigned int hp_sd_setup(const char *v, unsigned int prev)
{
	unsigned int global = HP_SD_DEFAULT, flags;
	bool list, changed = false, listed = false;

	if (!*v)
		return HP_SD_DEFAULT;
	while (v) {
		v = hp_sd_block(v, &flags, &list);
		if (list) {
			listed = true;
		} else {
			global = flags;
			changed = true;
		}
	}
	return listed && !changed ? prev : global;
}

/* the global debug flags so far, and the last slub_debug word */
struct hp_sd_asked {
	unsigned int flags;
	char *word;
	size_t len;
};

static bool hp_sd_asked_one(const char *word, const void *arg)
{
	struct hp_sd_asked *a = (struct hp_sd_asked *)arg;
	const char *v = hp_slub_debug_value(word);

	if (!v)
		return false;
	a->flags = hp_sd_setup(v, a->flags);
	strscpy(a->word, word, a->len);
	return true;
}

/*
 * The global debug flags the configuration and the command line ask for;
 * @word gets the last slub_debug word (empty if none).
 */
static unsigned int hp_sd_asked(char *word, size_t len)
{
	struct hp_sd_asked a = {
		IS_ENABLED(CONFIG_SLUB_DEBUG_ON) ? HP_SD_DEFAULT : 0, word, len,
	};

	word[0] = '\0';
	hp_cmdline_each(hp_sd_asked_one, &a);
	return a.flags;
}

static void hp_slab_debug_layers(struct hp_layers *l)
{
	char word[64], flags[96], cache[HP_CACHE_NAME_LEN];
	struct hp_sd_flags fl;
	struct kmem_cache *c;
	unsigned int asked = hp_sd_asked(word, sizeof(word));

	l->configured = IS_ENABLED(CONFIG_SLUB_DEBUG) &&
			(asked & (HP_SD_Z | HP_SD_P)) == (HP_SD_Z | HP_SD_P);
	if (!IS_ENABLED(CONFIG_SLUB_DEBUG))
		hp_layer(l->configured_txt, sizeof(l->configured_txt), "CONFIG_SLUB_DEBUG=n");
	else
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "CONFIG_SLUB_DEBUG=y CONFIG_SLUB_DEBUG_ON=%s%s%s%s: red zones %s, poisoning %s",
			 IS_ENABLED(CONFIG_SLUB_DEBUG_ON) ? "y" : "n",
			 word[0] ? ", " : "", word, word[0] ? " on the command line" : "",
			 asked & HP_SD_Z ? "on" : "off", asked & HP_SD_P ? "on" : "off");
	hp_layer(l->built, sizeof(l->built), "%s",
		 IS_ENABLED(CONFIG_SLUB_DEBUG) ? "SLUB's debugging code (CONFIG_SLUB_DEBUG=y)" :
		 "no SLUB debugging code (CONFIG_SLUB_DEBUG=n)");
	/* layers are read without the probe lock: a name of its own per call */
	hp_cache_name(cache, sizeof(cache), HP_SD_CACHE "_flags");
	c = kmem_cache_create(cache, HP_SD_SIZE, HP_SD_ALIGN, HP_SLAB_NO_MERGE, NULL);
	if (!c) {
		hp_layer(l->active, sizeof(l->active), "cannot create a cache to look at");
		return;
	}
	hp_sd_read_flags(cache, &fl);
	kmem_cache_destroy(c);
	/* slub_debug=ZP,<caches>: on for the caches it names, hardprobe's among them */
	if (!l->configured && IS_ENABLED(CONFIG_SLUB_DEBUG) && word[0] && !fl.err &&
	    fl.red_zone && fl.poison) {
		l->configured = true;
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "CONFIG_SLUB_DEBUG=y, %s on the command line: red zones and poisoning for the caches it names, hardprobe's among them",
			 word);
	}
	hp_sd_flags_txt(&fl, flags, sizeof(flags));
	hp_layer(l->active, sizeof(l->active), "a new cache gets %s", flags);
}

static const struct hp_probe hp_probes_slab_debug[] = {
	/*
	 * LKDTM: SLUB's red zone (slub_debug=Z) catches SLAB_LINEAR_OVERFLOW
	 * too, when LKDTM frees the object: redzone writes past a live object
	 * of its own cache, checked by SLUB the same way.
	 */
	HP_PROBE(slab_debug, redzone, HP_SAFE, .warns = 1, .reports = HP_SD_REPORT,
		 .lkdtm = HP_LIST("SLAB_LINEAR_OVERFLOW")),
	/* KASAN's hardware tags: the store into the freed object is a tag fault too */
	HP_PROBE(slab_debug, poison, HP_SAFE, .warns = 1 + IS_ENABLED(CONFIG_KASAN_HW_TAGS),
		 .reports = HP_SD_REPORT),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: red zones and poisoning
 * of a private cache, checked through its validate file.
 */
HP_FEATURE(slab_debug, .layers = hp_slab_debug_layers, .khc = "CONFIG_SLUB_DEBUG",
	   .on = HP_LIST("slub_debug=ZP,hp_slab_debug*"));
