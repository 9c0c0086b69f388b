// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe slab_free: frees the SLUB allocator must refuse, in private
 * caches only.
 *
 * - double_free (fatal): an object freed twice in a row. With
 *   CONFIG_SLAB_FREELIST_HARDENED, set_freepointer() has
 *   BUG_ON(object == fp): "kernel BUG at mm/slub.c:<line>!" (550 in 6.12;
 *   an out-of-tree kernel build prints a longer path, so the signature is
 *   the "mm/slub.c:" part of the BUG line). On 7.x both frees go into the
 *   CPU's sheaf (an array of pointers, free_to_pcs()), set_freepointer() is
 *   never called and the object is handed out twice: vulnerable, and the
 *   evidence names the cache's sheaf_capacity.
 * - cross_cache (safe): kmem_cache_free() to the wrong cache. With the
 *   hardening cache_from_obj() WARNs "kmem_cache_free: Wrong slab cache.
 *   <a> but object is from <b>" (a WARN, not once) and frees the object to
 *   its real cache; without it the object goes to the slab it lives in
 *   through the wrong cache's geometry (the two caches are alike, so this
 *   does no harm here), and b hands it out again within a slab's worth of
 *   allocations (6.12: from the slab's own freelist), or a does (7.x: from
 *   a's sheaf). The probe looks for it in both, on the CPU of the free.
 *   7.1's kmem_cache_free() instead WARN_ONCEs "kmem_cache_free(<a>, <p>):
 *   object belongs to different cache <b>" and drops the free, leaking the
 *   object on purpose: where a's frees are checked (the hardening, or
 *   slub_debug's F on a) and neither cache hands the object out, the probe
 *   gives it back to b (destroying b with it would warn a second time), and
 *   after the first time in a boot, when the WARN_ONCE is silent, the leak is
 *   the evidence. Found nowhere with nothing checking (KASAN's quarantine
 *   may hold it): inconclusive, both caches left behind, as giving it back
 *   could free it twice.
 * - not_slab: kmem_cache_free() of a page that is no slab. virt_to_cache()
 *   WARN_ONCEs "virt_to_cache: Object is not a Slab page!" (7.1: "... object
 *   is not in a slab page") and the free is dropped. Without the hardening
 *   nothing checks the pointer and slab_free() works on a NULL slab (an
 *   oops at best, which says nothing of the hardening): the probe is not
 *   provoked there (unsupported).
 *
 * cache_from_obj() also checks for a cache that slub_debug's consistency
 * checks (F) are on for: on a kernel without SLAB_FREELIST_HARDENED such a
 * catch is slub_debug's, and inconclusive for this feature. The double free's
 * cache is created without slub_debug's flags (SLAB_NO_USER_FLAGS): with any
 * of them SLUB's debug free path refuses the second free on its own.
 *
 * On a KASAN kernel the second free never reaches the freelist: KASAN's
 * check in slab_free_hook() (kasan_slab_pre_free()) finds the object
 * already poisoned, reports "BUG: KASAN: double-free" and drops the free,
 * and the task goes on. The probe then tells from what happened: KASAN's
 * report after its own line, and whether the object is handed out twice.
 * KASAN's catch is not this feature's (its check was never reached):
 * inconclusive, with KASAN named.
 *
 * A caught double free kills the task inside kmem_cache_free(): the cache
 * (a fresh name per run) is left behind with its one slab. A vulnerable
 * double free is repaired where the freelist is known (see
 * hp_slab_df_repair()); otherwise the cache is left behind, never
 * destroyed, and the evidence says so.
 *
 * The caches (hp_slab_name(): <n> is the load's id and a sequence number):
 * hardprobe-slab-df-<n> (64 KiB objects, one per slab) for the
 * double free, hardprobe-slab-a-<n> and hardprobe-slab-b-<n> for
 * cross_cache, whose control frees an object of a to a, which must be the
 * next one a hands out, else inconclusive; the evidence says whether b hands
 * the wrongly freed object out again (it went home). not_slab frees a page
 * of __get_free_page() to a cache (hardprobe-slab-pg-<n>): protected when
 * the next allocation from the cache is not the page (the warning is added
 * to the evidence when it is new); a page handed out is vulnerable, and cache
 * and page are left behind. cross_cache and not_slab say unsupported under
 * panic_on_warn.
 */
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"

/* the BUG of set_freepointer()'s check (the cross-cache WARN also names mm/slub.c) */
#define HP_SLAB_SIG_DOUBLE	"kernel BUG at "
#define HP_SLAB_SIG_CROSS	"Wrong slab cache. hardprobe-slab-a-"
#define HP_SLAB_SIG_PAGE	"virt_to_cache: Object is not a Slab page!"
/*
 * 7.1's kmem_cache_free() (warn_free_bad_obj(), WARN_ONCE each): a free to the
 * wrong cache, or of no slab object, is dropped and the object leaked on purpose
 */
#define HP_SLAB_SIG_CROSS_LEAK	"): object belongs to different cache hardprobe-slab-b-"
#define HP_SLAB_SIG_PAGE_LEAK	"): object is not in a slab page"
/* KASAN's report of a double free (mm/kasan/report.c, 6.1 and 6.12) */
#define HP_SLAB_KASAN_DOUBLE	"BUG: KASAN: double-free"

/*
 * 64 KiB objects: larger than a slab of the highest default order (8 pages),
 * so every slab holds exactly one object and a double free cannot lose
 * other free objects of the slab.
 */
#define HP_SLAB_DF_SIZE		(64 * 1024)
#define HP_SLAB_SIZE		128
/*
 * how many objects cross_cache takes from b looking for the wrongly freed
 * one: more than a slab of 128-byte objects holds (32 per 4 KiB page, up
 * to order 3)
 */
#define HP_SLAB_SEARCH		512

static atomic_t hp_slab_seq = ATOMIC_INIT(0);
static bool hp_slab_page_warned;

/*
 * Who checked a free: cache_from_obj() looks the object's cache up when
 * SLAB_FREELIST_HARDENED is built, or for a cache with slub_debug's
 * consistency checks (F) on. Without the hardening a catch is slub_debug's
 * work, not this feature's.
 */
static enum hp_outcome hp_slab_catch(void)
{
	return IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ? HP_PROTECTED : HP_INCONCLUSIVE;
}

static const char *hp_slab_by(void)
{
	return IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ? "" :
	       " by slub_debug's consistency checks, not SLAB_FREELIST_HARDENED (not built)";
}

/* the load in the name: a caught probe's cache outlives its module */
static void hp_slab_name(char *buf, size_t len, const char *kind, int seq)
{
	snprintf(buf, len, "hardprobe-slab-%s-%llx-%d", kind, hp_cache_load_id(), seq);
}

static struct kmem_cache *hp_slab_cache(const char *name, unsigned int size,
					slab_flags_t flags)
{
	return kmem_cache_create(name, size, 0, HP_SLAB_NO_MERGE | flags, NULL);
}

/* Freeing twice in a row, with the same CPU's freelist both times. */
static noinline void hp_slab_free_twice(struct kmem_cache *c, void *obj)
{
	kmem_cache_free(c, obj);
	kmem_cache_free(c, obj);
}

/*
 * A double free got through: the freelist now points @obj at itself.
 * Allocate it twice (proof of the bug), clear its free pointer (stored
 * in the clear without the hardening), take it a third time and free it
 * once: the freelist is sound again. Returns what it saw; @twice: the
 * next two allocations returned one object.
 */
static bool hp_slab_df_repair(struct kmem_cache *c, void *obj, char *buf, size_t len,
			      bool *twice)
{
	void *a1, *a2, *a3;

	preempt_disable();
	a1 = kmem_cache_alloc(c, GFP_ATOMIC);
	a2 = kmem_cache_alloc(c, GFP_ATOMIC);
	*twice = a1 && a1 == a2;
	if (a1 != obj || a2 != obj || IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED)) {
		preempt_enable();
		snprintf(buf, len,
			 "the next allocations gave %p and %p, object %p; cache left behind",
			 a1, a2, obj);
		return false;
	}
	memset(obj, 0, HP_SLAB_DF_SIZE);
	a3 = kmem_cache_alloc(c, GFP_ATOMIC);
	if (a3 && a3 != obj)
		kmem_cache_free(c, a3);
	kmem_cache_free(c, obj);
	preempt_enable();
	snprintf(buf, len, "the next two allocations both returned %p; freelist repaired",
		 obj);
	return true;
}

/*
 * The task survived the double free and KASAN reported it after @marker:
 * KASAN dropped the second free. Unless the object still came out of the
 * freelist twice, the two allocations are sound objects: free them, destroy
 * the cache, and credit KASAN, not this feature.
 */
static bool hp_slab_df_kasan(struct hp_result *r, struct kmem_cache *c, void *obj,
			     const char *marker, const char *name)
{
	char line[128];
	void *a1, *a2;

	if (!IS_ENABLED(CONFIG_KASAN) ||
	    !hp_log_find(marker, HP_SLAB_KASAN_DOUBLE, line, sizeof(line)))
		return false;
	a1 = kmem_cache_alloc(c, GFP_KERNEL);
	a2 = kmem_cache_alloc(c, GFP_KERNEL);
	if (a1 && a1 == a2) {
		hp_set(r, HP_VULNERABLE,
		       "survived: double kmem_cache_free of %p in %s; KASAN reported it but the next two allocations both returned %p; cache left behind; log: %s",
		       obj, name, a1, line);
		return true;
	}
	if (a1)
		kmem_cache_free(c, a1);
	if (a2)
		kmem_cache_free(c, a2);
	kmem_cache_destroy(c);
	hp_set(r, HP_INCONCLUSIVE,
	       "KASAN caught the double free first and dropped the second free (the next allocations gave %p, %p: %p not handed out twice): SLAB_FREELIST_HARDENED's check not reached; log: %s",
	       a1, a2, obj, line);
	return true;
}

/*
 * 7.x SLUB frees into per-CPU arrays of objects first (sheaves; every cache
 * that is not a debug cache has them): free_to_pcs() stores the pointer and
 * never calls set_freepointer(), so its check never sees a double free
 * there. Say so when the cache's sysfs has a non-zero sheaf_capacity.
 */
static void hp_slab_sheaves(const char *name, char *buf, size_t len)
{
	int n;

	buf[0] = '\0';
	n = hp_slab_sheaf_capacity(name);
	if (n > 0)
		snprintf(buf, len,
			 "; per-CPU sheaves (capacity %d): both frees went into an array, past set_freepointer()'s check",
			 n);
}

static void hp_slab_free_double_free(struct hp_result *r)
{
	struct kmem_cache *c;
	char seen[128], marker[64], sheaves[160], name[HP_CACHE_NAME_LEN];
	bool repaired, twice;
	void *obj;
	int seq = atomic_inc_return(&hp_slab_seq);

	hp_slab_name(name, sizeof(name), "df", seq);

	/*
	 * without slub_debug's flags: its debug free path would refuse the
	 * second free itself ("Slab has 0 allocated objects but 1 are to be
	 * freed") before set_freepointer()'s check could see it
	 */
	c = hp_slab_cache(name, HP_SLAB_DF_SIZE, HP_SLAB_NO_DEBUG);
	if (!c) {
		hp_set(r, HP_ERROR, "cannot create a private cache");
		return;
	}
	obj = kmem_cache_alloc(c, GFP_KERNEL);
	if (!obj) {
		kmem_cache_destroy(c);
		hp_set(r, HP_ERROR, "cannot allocate a %u-byte object", HP_SLAB_DF_SIZE);
		return;
	}
	memset(obj, 0x5a, HP_SLAB_DF_SIZE);
	snprintf(marker, sizeof(marker), "slab: double free [%d]", seq);
	pr_info("%s: freeing %p of %s twice\n", marker, obj, name);
	preempt_disable();
	hp_slab_free_twice(c, obj);
	preempt_enable();
	if (hp_slab_df_kasan(r, c, obj, marker, name))
		return;
	hp_slab_sheaves(name, sheaves, sizeof(sheaves));
	repaired = hp_slab_df_repair(c, obj, seen, sizeof(seen), &twice);
	if (repaired)
		kmem_cache_destroy(c);
	if (repaired || twice) {
		hp_set(r, HP_VULNERABLE,
		       "survived: double free in %s; %s%s", name, seen, sheaves);
		return;
	}
	/* not handed out twice, and no report: nothing says what stopped it */
	hp_set(r, HP_INCONCLUSIVE,
	       "survived a double kmem_cache_free of %p in %s without a report, and no object was handed out twice: %s",
	       obj, name, seen);
}

/*
 * Does anything check a's frees? cache_from_obj() looks the object's cache up
 * only with SLAB_FREELIST_HARDENED or for a cache with slub_debug's
 * consistency checks (F) on; -errno (unreadable) counts as no check.
 */
static bool hp_slab_checked(const char *name)
{
	return IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ||
	       hp_slab_attr(name, "sanity_checks") == 1;
}

/*
 * Where did the object of b freed to a go? Allocate from b, on the CPU of the
 * free, until it comes back: a free that nothing checked went to b's slab
 * through a's free path (6.12: onto the slab's own freelist, which b reaches
 * when its CPU freelist runs dry, at most a slab's worth of objects later).
 * The objects are kept in @objs (*@n of them) for the caller to give back;
 * when @x came back it is the last of them.
 * Return: whether @x came back.
 */
static bool hp_slab_find(struct kmem_cache *b, void *x, void **objs, int *n)
{
	int i;

	for (i = 0; i < HP_SLAB_SEARCH; i++) {
		objs[i] = kmem_cache_alloc(b, GFP_ATOMIC | __GFP_NOWARN);
		if (!objs[i])
			break;
		if (objs[i] == x) {
			*n = i + 1;
			return true;
		}
	}
	*n = i;
	return false;
}

static void hp_slab_free_cross_cache(struct hp_result *r)
{
	struct kmem_cache *a, *b;
	void *x, *y, *z = NULL, **objs = NULL;
	char marker[48], line[160], na[HP_CACHE_NAME_LEN], nb[HP_CACHE_NAME_LEN];
	int seq, n = 0, i;
	bool found = false, logged, leaked;

	if (hp_warn_panics()) {
		hp_set(r, HP_UNSUPPORTED,
		       "panic_on_warn is set: the wrong-cache warning would panic the kernel");
		return;
	}
	seq = atomic_inc_return(&hp_slab_seq);
	hp_slab_name(na, sizeof(na), "a", seq);
	hp_slab_name(nb, sizeof(nb), "b", seq);
	a = hp_slab_cache(na, HP_SLAB_SIZE, 0);
	b = hp_slab_cache(nb, HP_SLAB_SIZE, 0);
	objs = kmalloc_array(HP_SLAB_SEARCH, sizeof(*objs), GFP_KERNEL);
	if (!a || !b || !objs) {
		hp_set(r, HP_ERROR, "cannot create two private caches and a search array");
		goto out;
	}
	/* control: the legal free of an object of a to a gives it back to a */
	x = kmem_cache_alloc(a, GFP_KERNEL);
	if (!x) {
		hp_set(r, HP_ERROR, "cannot allocate from %s", na);
		goto out;
	}
	kmem_cache_free(a, x);
	y = kmem_cache_alloc(a, GFP_KERNEL);
	if (y)
		kmem_cache_free(a, y);
	if (y != x) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: a did not hand out its freed object again (%p, then %p)", x, y);
		goto out;
	}
	snprintf(marker, sizeof(marker), "slab cross-cache [%d]", seq);

	/* one CPU for the allocation, the wrong free and the search that follows */
	preempt_disable();
	x = kmem_cache_alloc(b, GFP_ATOMIC);
	if (x) {
		pr_info("%s: freeing %p of %s to %s\n", marker, x, nb, na);
		kmem_cache_free(a, x);
		/* b hands its last freed object out first, else within a slab */
		found = hp_slab_find(b, x, objs, &n);
		/* and a, as its control showed (7.x: a's sheaf) */
		if (!found)
			z = kmem_cache_alloc(a, GFP_ATOMIC | __GFP_NOWARN);
	}
	preempt_enable();
	if (!x) {
		hp_set(r, HP_ERROR, "cannot allocate from %s", nb);
		goto out;
	}
	/* b handed them out (x among them, if found): all are b's again */
	for (i = 0; i < n; i++)
		kmem_cache_free(b, objs[i]);
	logged = hp_log_find(marker, HP_SLAB_SIG_CROSS, line, sizeof(line));
	leaked = !logged && hp_log_find(marker, HP_SLAB_SIG_CROSS_LEAK, line, sizeof(line));
	if (logged) {
		if (z)
			kmem_cache_free(a, z);
		hp_set(r, hp_slab_catch(),
		       "kmem_cache_free(a, object of b) warned%s; b %s; log: %s",
		       hp_slab_by(), found ? "handed the object out again" :
		       "did not hand the object out again", line);
		goto out;
	}
	if (found) {
		hp_set(r, HP_VULNERABLE,
		       "kmem_cache_free(a, object of b) accepted without a word: the object went to b's slab through a's free path, and b handed it out again %d allocation(s) later",
		       n);
		goto out;
	}
	if (z == x) {
		/* a hands out b's object: both caches stay, never destroyed */
		hp_set(r, HP_VULNERABLE,
		       "kmem_cache_free(a, object of b) accepted without a word: a handed the object of b out again; caches left behind");
		kfree(objs);
		return;
	}
	if (z)
		kmem_cache_free(a, z);
	if (!hp_slab_checked(na)) {
		/*
		 * nothing could have dropped the free, yet neither cache handed
		 * the object out: where it went is unknown (KASAN's quarantine?),
		 * and giving it back or destroying either cache could free it
		 * twice: both caches stay
		 */
		hp_set(r, HP_INCONCLUSIVE,
		       "kmem_cache_free(a, object of b) accepted without a word, and neither cache handed the object out again (%d allocations from b); caches left behind",
		       n);
		kfree(objs);
		return;
	}
	/*
	 * the free was checked and dropped, the object leaked on purpose (7.x),
	 * still b's: given back (else destroying b would report it); the
	 * WARN_ONCE is silent after its first time in a boot, when the leak is
	 * the evidence
	 */
	kmem_cache_free(b, x);
	hp_set(r, hp_slab_catch(),
	       "kmem_cache_free(a, object of b) dropped%s, the object leaked on purpose (neither cache handed it out, %d allocations from b; given back to b); log: %s",
	       hp_slab_by(), n, leaked ? line : "warned earlier in this boot (WARN_ONCE)");
out:
	kfree(objs);
	kmem_cache_destroy(a);
	kmem_cache_destroy(b);
}

static void hp_slab_free_not_slab(struct hp_result *r)
{
	struct kmem_cache *c;
	void *keep, *y = NULL, *p;
	char marker[48], line[160], name[HP_CACHE_NAME_LEN];
	unsigned long page;
	int seq;
	bool logged = false;

	/*
	 * without the hardening nothing looks at the page: slab_free() would
	 * work on its NULL slab, an oops that shows nothing of this feature
	 * (cross_cache shows the missing check, and goes on)
	 */
	if (!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED)) {
		hp_set(r, HP_UNSUPPORTED,
		       "not provoked: without SLAB_FREELIST_HARDENED kmem_cache_free() does not check the page and would oops on its NULL slab");
		return;
	}
	if (hp_warn_panics()) {
		hp_set(r, HP_UNSUPPORTED,
		       "panic_on_warn is set: the not-a-slab warning would panic the kernel");
		return;
	}
	seq = atomic_inc_return(&hp_slab_seq);
	hp_slab_name(name, sizeof(name), "pg", seq);
	c = hp_slab_cache(name, HP_SLAB_SIZE, 0);
	page = __get_free_page(GFP_KERNEL | __GFP_ZERO);
	if (!c || !page) {
		hp_set(r, HP_ERROR, "cannot create a private cache or get a page");
		kmem_cache_destroy(c);
		free_page(page);
		return;
	}
	p = (void *)page;
	/* an object in use keeps the cache's CPU slab in place */
	keep = kmem_cache_alloc(c, GFP_KERNEL);
	snprintf(marker, sizeof(marker), "slab not-a-slab [%d]", seq);
	pr_info("%s: kmem_cache_free of page %p to %s\n", marker, p, name);
	preempt_disable();
	kmem_cache_free(c, p);
	/* if the page went onto the freelist, the next allocation returns it */
	y = kmem_cache_alloc(c, GFP_ATOMIC);
	preempt_enable();
	/* WARN_ONCE: after the first line in this boot, do not scan the log again */
	if (!hp_slab_page_warned) {
		logged = hp_log_find(marker, HP_SLAB_SIG_PAGE, line, sizeof(line)) ||
			 hp_log_find(marker, HP_SLAB_SIG_PAGE_LEAK, line, sizeof(line));
		hp_slab_page_warned = logged;
	}
	if (y == p) {
		/* the cache now believes in an object it does not own: leave both */
		hp_set(r, HP_VULNERABLE,
		       "the page %p was taken as a free object: the next allocation returned it; cache and page left behind",
		       p);
		return;
	}
	if (y)
		kmem_cache_free(c, y);
	if (keep)
		kmem_cache_free(c, keep);
	kmem_cache_destroy(c);
	free_page(page);
	hp_set(r, hp_slab_catch(),
	       "the free of page %p was dropped%s (the next allocation gave %p); log: %s",
	       p, hp_slab_by(), y, logged ? line : hp_slab_page_warned ?
	       "warned earlier in this boot (WARN_ONCE)" :
	       "no new line (WARN_ONCE: warned before hardprobe ran?)");
}

static void hp_slab_layers(struct hp_layers *l)
{
	l->configured = IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_SLAB_FREELIST_HARDENED=%s, SLAB_FREELIST_RANDOM=%s, %s=%s, SLAB_BUCKETS=%s",
		 IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ? "y" : "n",
		 IS_ENABLED(CONFIG_SLAB_FREELIST_RANDOM) ? "y" : "n", "RANDOM_KMALLOC_CACHES",
		 IS_ENABLED(CONFIG_RANDOM_KMALLOC_CACHES) ? "y" : "n",
		 IS_ENABLED(CONFIG_SLAB_BUCKETS) ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "allocator feature: nothing to build");
	hp_layer(l->active, sizeof(l->active), "%s",
		 IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ?
		 "encoded free pointers, BUG on a double free, cache checked on each free" :
		 "off (not built)");
}

static const struct hp_probe hp_probes_slab_free[] = {
	/* on a KASAN kernel, KASAN's report (a warning) comes first and the task goes on */
	HP_PROBE(slab_free, double_free, HP_FATAL, .signature = HP_SLAB_SIG_DOUBLE,
		 .warns = IS_ENABLED(CONFIG_KASAN),
		 .reports = IS_ENABLED(CONFIG_KASAN) ? HP_SLAB_KASAN_DOUBLE : NULL,
		 .lkdtm = HP_LIST("SLAB_FREE_DOUBLE")),
	HP_PROBE(slab_free, cross_cache, HP_SAFE, .signature = HP_SLAB_SIG_CROSS, .warns = 1,
		 .reports = "Wrong slab cache",
		 .lkdtm = HP_LIST("SLAB_FREE_CROSS")),
	HP_PROBE(slab_free, not_slab, HP_SAFE,
		 .signature = HP_SLAB_SIG_PAGE, .warns = 1, .reports = "Object is not a Slab page",
		 .lkdtm = HP_LIST("SLAB_FREE_PAGE")),
};

HP_FEATURE(slab_free, .layers = hp_slab_layers, .khc = "CONFIG_SLAB_FREELIST_HARDENED",
	   .off = HP_LIST("CONFIG_SLAB_FREELIST_HARDENED=n"));
