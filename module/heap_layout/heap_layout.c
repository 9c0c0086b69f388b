// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe heap_layout: where the slab allocator puts objects, and what it
 * stores in free ones. Each feature is one mechanism with its own switch, so
 * that none is credited with another's work.
 *
 * kmalloc_random (CONFIG_RANDOM_KMALLOC_CACHES, 6.6): kmalloc() picks one
 * of 16 copies of each size class from a hash of its caller's address. The
 * probe allocates from 16 call sites and asks the kernel (kmem_dump_obj())
 * which cache each object is in; the control is 4 objects from one site,
 * which must all be in one cache.
 *
 * slab_buckets (CONFIG_SLAB_BUCKETS, 6.11): an allocation whose size user
 * space picks (memdup_user(), msg_msg, xattrs) comes from a set of caches of
 * its own ("memdup_user-96", never merged), not from the kmalloc-* caches
 * the kernel's own objects of that size share, so that a user-sized object
 * cannot be placed beside them. The probe copies 96 bytes from a page of the
 * caller's address space with memdup_user() and asks the kernel which cache
 * the copy is in; the control is a kmalloc(96) of the module's own, which
 * must be named in a kmalloc cache. A random kmalloc copy (kmalloc-rnd-*) is
 * still a kmalloc cache: kmalloc_random's work, not this feature's.
 *
 * slab_nomerge (the slab_nomerge boot switch, or !CONFIG_SLAB_MERGE_DEFAULT):
 * two caches of the same geometry are kept apart; merged, the second
 * kmem_cache_create() returns the first. slub_debug's flags (red zones,
 * poisoning, ...) forbid merging too (SLAB_NEVER_MERGE): the probe's caches
 * are created without them (SLAB_NO_USER_FLAGS), and caches that have them
 * anyway (their sysfs files say so) are not slab_nomerge's work.
 *
 * freelist_random (CONFIG_SLAB_FREELIST_RANDOM): the objects of a fresh slab
 * are handed out in a shuffled order, not in address order.
 *
 * freelist_hardened (CONFIG_SLAB_FREELIST_HARDENED): the free pointer a free
 * object holds is the next free object's address XOR a per-cache secret and
 * its own location, not the raw address. The probe frees A, then B, and
 * looks at what changed in B's slot (the object and the word the allocator
 * keeps after it: the cache has a constructor, so the free pointer lives
 * outside the object and the object itself is left alone).
 *
 * The freelist probes use private caches with a constructor: nothing else
 * allocates from them and they are never merged. slub_debug's red zones and
 * poison would rewrite the words they compare: the caches are created
 * without them (SLAB_NO_USER_FLAGS). They read their own freed objects; the
 * object file is not instrumented by KASAN, and KFENCE objects (which live in
 * their own pool) are left out.
 */
#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../hardprobe.h"

#define HP_HL_SITES	16
#define HP_HL_CONTROL	4
#define HP_HL_SIZE	96
#define HP_HL_NAME	48

#define HP_FL_SIZE	256
#define HP_FL_OBJS	64
/* the object, its free pointer and some slack, in words */
#define HP_FL_WORDS	(HP_FL_SIZE / sizeof(unsigned long) + 4)

static unsigned int hp_hl_seq;

/*
 * kmalloc() of a size the compiler cannot see: the out-of-line
 * __kmalloc() takes its caller, this site, for the cache choice. The
 * result goes through OPTIMIZER_HIDE_VAR() so that the call is not a tail
 * call (which would make the site's own caller the caller).
 */
#define HP_HL_SITE(n)							\
static noinline void *hp_hl_site##n(size_t size)			\
{									\
	void *p;							\
									\
	OPTIMIZER_HIDE_VAR(size);					\
	p = kmalloc(size, GFP_KERNEL);					\
	OPTIMIZER_HIDE_VAR(p);						\
	return p;							\
}

HP_HL_SITE(0) HP_HL_SITE(1) HP_HL_SITE(2) HP_HL_SITE(3)
HP_HL_SITE(4) HP_HL_SITE(5) HP_HL_SITE(6) HP_HL_SITE(7)
HP_HL_SITE(8) HP_HL_SITE(9) HP_HL_SITE(10) HP_HL_SITE(11)
HP_HL_SITE(12) HP_HL_SITE(13) HP_HL_SITE(14) HP_HL_SITE(15)

static void *(*const hp_hl_sites[HP_HL_SITES])(size_t) = {
	hp_hl_site0, hp_hl_site1, hp_hl_site2, hp_hl_site3,
	hp_hl_site4, hp_hl_site5, hp_hl_site6, hp_hl_site7,
	hp_hl_site8, hp_hl_site9, hp_hl_site10, hp_hl_site11,
	hp_hl_site12, hp_hl_site13, hp_hl_site14, hp_hl_site15,
};

/*
 * The name of the cache @obj is in, as kmem_dump_obj() prints it on the
 * line after our own "hp_obj <n>:" prefix: "... slab kmalloc-rnd-05-96 ...".
 */
static bool hp_hl_cache_of_once(void *obj, char *name, size_t len)
{
	char marker[32], needle[32], line[160];
	unsigned int n = ++hp_hl_seq;
	const char *s;
	size_t i;

	snprintf(marker, sizeof(marker), "heap_layout obj [%u]", n);
	pr_info("%s\n", marker);
	snprintf(needle, sizeof(needle), "hp_obj %u:", n);
	pr_info("%s", needle);
	/* nothing printed: the open line ends at the next record */
	if (!kmem_dump_obj(obj))
		return false;
	if (!hp_log_find_printed(marker, needle, line, sizeof(line)))
		return false;
	s = strstr(line, " slab ");
	if (!s)
		return false;
	s += strlen(" slab ");
	for (i = 0; i + 1 < len && s[i] && s[i] != ' '; i++)
		name[i] = s[i];
	name[i] = '\0';
	return i > 0;
}

/*
 * The same, tried three times: kmem_dump_obj() continues our line
 * (pr_cont()), and a message another CPU prints in between (a WARN of a
 * kernel that warns on its own) ends it early, so the name is not on it.
 */
static bool hp_hl_cache_of(void *obj, char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (hp_hl_cache_of_once(obj, name, len))
			return true;
	return false;
}

static void hp_kmalloc_random_sites(struct hp_result *r)
{
	char names[HP_HL_SITES][HP_HL_NAME], ctl[HP_HL_NAME];
	void *objs[HP_HL_SITES] = { };
	unsigned int i, j, distinct = 0, rnd = 0;
	bool ok = true;

	if (!IS_ENABLED(CONFIG_PRINTK)) {
		hp_set(r, HP_UNSUPPORTED, "no printk: kmem_dump_obj() cannot name the cache");
		return;
	}
	/* control: objects from one call site are all in one cache */
	for (i = 0; i < HP_HL_CONTROL && ok; i++) {
		objs[i] = hp_hl_site0(HP_HL_SIZE);
		ok = objs[i] && hp_hl_cache_of(objs[i], i ? names[0] : ctl, HP_HL_NAME);
		if (ok && i && strcmp(names[0], ctl))
			ok = false;
	}
	for (i = 0; i < HP_HL_CONTROL; i++) {
		kfree(objs[i]);
		objs[i] = NULL;
	}
	if (!ok) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: %u objects from one call site not named in one cache (%s, %s)",
		       HP_HL_CONTROL, ctl, names[0]);
		return;
	}

	for (i = 0; i < HP_HL_SITES && ok; i++) {
		objs[i] = hp_hl_sites[i](HP_HL_SIZE);
		ok = objs[i] && hp_hl_cache_of(objs[i], names[i], HP_HL_NAME);
	}
	for (i = 0; i < HP_HL_SITES; i++)
		kfree(objs[i]);
	if (!ok) {
		hp_set(r, HP_ERROR, "kmem_dump_obj() did not name the cache of object %u",
		       i - 1);
		return;
	}
	for (i = 0; i < HP_HL_SITES; i++) {
		for (j = 0; j < i && strcmp(names[i], names[j]); j++)
			;
		distinct += j == i;
		rnd += !!strstr(names[i], "-rnd-");
	}
	if (distinct > 1)
		hp_set(r, HP_PROTECTED,
		       "%u call sites of kmalloc(%u) landed in %u caches (%u kmalloc-rnd-*; e.g. %s, %s); control: one site, one cache (%s)",
		       HP_HL_SITES, HP_HL_SIZE, distinct, rnd, names[0], names[1], ctl);
	else
		hp_set(r, HP_VULNERABLE,
		       "all %u call sites of kmalloc(%u) share one cache, %s", HP_HL_SITES,
		       HP_HL_SIZE, names[0]);
}

static void hp_slab_buckets_memdup_user(struct hp_result *r)
{
	char ctl[HP_HL_NAME] = "", name[HP_HL_NAME] = "";
	unsigned long uaddr;
	void *obj;
	bool ok;

	if (!IS_ENABLED(CONFIG_PRINTK)) {
		hp_set(r, HP_UNSUPPORTED, "no printk: kmem_dump_obj() cannot name the cache");
		return;
	}
	if (!current->mm) {
		hp_set(r, HP_UNSUPPORTED,
		       "no user address space in this task: memdup_user() copies from one");
		return;
	}
	/* control: the module's own kmalloc(96) is named in a kmalloc cache */
	obj = hp_hl_site0(HP_HL_SIZE);
	ok = obj && hp_hl_cache_of(obj, ctl, sizeof(ctl));
	kfree(obj);
	if (!ok || strncmp(ctl, "kmalloc-", 8)) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: a kmalloc(%u) object not named in a kmalloc cache (%s)",
		       HP_HL_SIZE, ok ? ctl : "no name");
		return;
	}
	uaddr = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(uaddr) || uaddr >= TASK_SIZE) {
		hp_set(r, HP_ERROR, "vm_mmap of a user page failed (%ld)", (long)uaddr);
		return;
	}
	obj = memdup_user((const void __user *)uaddr, HP_HL_SIZE);
	vm_munmap(uaddr, PAGE_SIZE);
	if (IS_ERR(obj)) {
		hp_set(r, HP_ERROR, "memdup_user() of %u bytes failed (%ld)", HP_HL_SIZE,
		       PTR_ERR(obj));
		return;
	}
	ok = hp_hl_cache_of(obj, name, sizeof(name));
	kfree(obj);
	if (!ok)
		hp_set(r, HP_ERROR, "kmem_dump_obj() did not name the cache of the copy");
	else if (!strncmp(name, "kmalloc-", 8))
		hp_set(r, HP_VULNERABLE,
		       "memdup_user(%u) landed in %s, a kmalloc cache the kernel's own objects of that size share (control: kmalloc(%u) in %s)",
		       HP_HL_SIZE, name, HP_HL_SIZE, ctl);
	else
		hp_set(r, HP_PROTECTED,
		       "memdup_user(%u) landed in %s, apart from the kmalloc caches (control: kmalloc(%u) in %s)",
		       HP_HL_SIZE, name, HP_HL_SIZE, ctl);
}

/* the merge switches on the command line, and whether they keep caches apart */
struct hp_merge_switches {
	bool nomerge, merge;
};

static bool hp_slab_nomerge_asked(struct hp_merge_switches *sw)
{
	bool nomerge, given = hp_cmdline_slab_nomerge(&nomerge);

	/* the last of the two words decides */
	sw->nomerge = given && nomerge;
	sw->merge = given && !nomerge;
	return given ? nomerge : !IS_ENABLED(CONFIG_SLAB_MERGE_DEFAULT);
}

/*
 * The slub_debug flags of a cache that forbid merging (SLAB_NEVER_MERGE),
 * as its sysfs files show them, into @buf ("" if none; a cache of a kernel
 * without SLUB_DEBUG or slab sysfs has none to show).
 */
static void hp_slab_debug_flags(const char *cache, char *buf, size_t len)
{
	static const char *const names[] = {
		"red_zone", "poison", "store_user", "trace",
	};
	char path[80];
	unsigned long v;
	unsigned int i;
	size_t n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, names[i]);
		if (!hp_setting(path, &v) && v)
			n += scnprintf(buf + n, len - n, "%s%s=1", n ? " " : "", names[i]);
	}
}

static void hp_slab_nomerge_same_geometry(struct hp_result *r)
{
	struct hp_merge_switches sw;
	struct kmem_cache *a, *b;
	char dbg[64] = "", na[HP_CACHE_NAME_LEN], nb[HP_CACHE_NAME_LEN];

	/* no slub_debug flags: they would keep the caches apart themselves */
	a = kmem_cache_create(hp_cache_name(na, sizeof(na), "hp_merge_a"), 200, 0,
			      HP_SLAB_NO_DEBUG, NULL);
	b = kmem_cache_create(hp_cache_name(nb, sizeof(nb), "hp_merge_b"), 200, 0,
			      HP_SLAB_NO_DEBUG, NULL);
	if (a && b && a != b)
		hp_slab_debug_flags(nb, dbg, sizeof(dbg));
	if (!a || !b)
		hp_set(r, HP_ERROR, "kmem_cache_create() failed");
	else if (a == b)
		hp_set(r, HP_VULNERABLE,
		       "two caches of 200-byte objects were merged: the second kmem_cache_create() returned the first");
	else if (dbg[0])
		hp_set(r, HP_INCONCLUSIVE,
		       "two caches of 200-byte objects kept apart, but by slub_debug's flags (%s: SLAB_NEVER_MERGE), not by slab_nomerge: the merge decision was not observed",
		       dbg);
	else if (!hp_slab_nomerge_asked(&sw))
		hp_set(r, HP_INCONCLUSIVE,
		       "two caches of 200-byte objects kept apart although merging is on, and neither has slub_debug flags");
	else
		hp_set(r, HP_PROTECTED,
		       "two caches of 200-byte objects kept apart (two kmem_cache_create(), two caches)");
	/* merged, b is a for a second time: each create takes a reference */
	kmem_cache_destroy(b);
	kmem_cache_destroy(a);
}

static void hp_fl_ctor(void *obj)
{
}

/*
 * A private cache: the constructor keeps it out of every merge, and it has
 * no slub_debug red zones or poison to change the words the probes compare.
 */
/* @name: the cache's name goes there (HP_CACHE_NAME_LEN), or NULL */
static struct kmem_cache *hp_fl_cache(const char *base, char *name)
{
	char own[HP_CACHE_NAME_LEN];

	name = name ?: own;
	return kmem_cache_create(hp_cache_name(name, HP_CACHE_NAME_LEN, base), HP_FL_SIZE, 0,
				 HP_SLAB_NO_DEBUG, hp_fl_ctor);
}

static int hp_fl_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static void hp_freelist_random_fresh_slab(struct hp_result *r)
{
	unsigned long addr[HP_FL_OBJS], sorted[HP_FL_OBJS];
	void *objs[HP_FL_OBJS] = { };
	struct kmem_cache *c = hp_fl_cache("hp_freelist_order", NULL);
	struct folio *first = NULL;
	unsigned int i, n = 0, up = 0;

	if (!c) {
		hp_set(r, HP_ERROR, "kmem_cache_create() failed");
		return;
	}
	for (i = 0; i < HP_FL_OBJS; i++) {
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
		if (!objs[i] || is_kfence_address(objs[i]))
			continue;
		/* the first slab of the cache: the objects of its folio, in allocation order */
		if (!first)
			first = virt_to_folio(objs[i]);
		if (virt_to_folio(objs[i]) == first)
			addr[n++] = (unsigned long)objs[i];
	}
	for (i = 0; i < HP_FL_OBJS; i++)
		if (objs[i])
			kmem_cache_free(c, objs[i]);
	kmem_cache_destroy(c);

	for (i = 1; i < n; i++)
		up += addr[i] > addr[i - 1];
	memcpy(sorted, addr, n * sizeof(addr[0]));
	sort(sorted, n, sizeof(sorted[0]), hp_fl_cmp, NULL);
	if (n < 8)
		hp_set(r, HP_INCONCLUSIVE, "only %u objects of the first slab were handed out", n);
	else if (up == n - 1)
		hp_set(r, HP_VULNERABLE,
		       "the %u objects of a fresh slab were handed out in address order", n);
	else
		hp_set(r, HP_PROTECTED,
		       "the %u objects of a fresh slab were handed out shuffled (%u of %u steps upwards; the lowest object came %s)",
		       n, up, n - 1, addr[0] == sorted[0] ? "first" : "later");
}

/* @p's first @len bytes lie in @f (one slab), and @p is not KFENCE's */
static bool hp_fl_in(const void *p, const struct folio *f, size_t len)
{
	return p && !is_kfence_address(p) && virt_to_folio(p) == f &&
	       virt_to_folio((const char *)p + len - 1) == f;
}

/* the words of @slot that differ from @before, and those that hold @next */
static void hp_fl_diff(const unsigned long *slot, const unsigned long *before,
		       const void *next, unsigned int *changed, unsigned int *raw)
{
	unsigned long w;
	unsigned int i;

	*changed = 0;
	*raw = 0;
	for (i = 0; i < HP_FL_WORDS; i++) {
		/* a match-all tag: the slot is free (no tag fault on KASAN hardware tags) */
		w = READ_ONCE(((const unsigned long *)kasan_reset_tag(slot))[i]);
		*changed += w != before[i];
		*raw += w == (unsigned long)next;
	}
}

/*
 * What B's slot holds while B is allocated and after A, then B, were freed:
 * B's free pointer now leads to A. A cache with per-CPU sheaves (7.x) keeps
 * both frees in an array and writes nothing into them: kmem_cache_shrink()
 * then flushes the sheaf to the slab, which links A to B
 * (build_detached_freelist() takes the array from its end), while a third
 * object K of the slab stays allocated, so that the slab is not given back.
 */
static void hp_freelist_hardened_stored_pointer(struct hp_result *r)
{
	unsigned long before_a[HP_FL_WORDS], before_b[HP_FL_WORDS];
	char name[HP_CACHE_NAME_LEN];
	struct kmem_cache *c = hp_fl_cache("hp_freelist_ptr", name);
	void *objs[HP_FL_OBJS] = { };
	unsigned int i, j, m, changed, raw;
	unsigned long *a = NULL, *b = NULL;
	const struct folio *f;
	int sheaves = 0;

	if (!c) {
		hp_set(r, HP_ERROR, "kmem_cache_create() failed");
		return;
	}
	for (i = 0; i < HP_FL_OBJS; i++)
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
	/* A, B and K of one slab, none from KFENCE, A's and B's words within it */
	for (i = 0; i < HP_FL_OBJS && !b; i++) {
		if (!objs[i] || is_kfence_address(objs[i]))
			continue;
		f = virt_to_folio(objs[i]);
		if (!hp_fl_in(objs[i], f, sizeof(before_a)))
			continue;
		for (j = i + 1; j < HP_FL_OBJS && !b; j++) {
			if (!hp_fl_in(objs[j], f, sizeof(before_b)))
				continue;
			for (m = 0; m < HP_FL_OBJS && !b; m++)
				if (m != i && m != j && hp_fl_in(objs[m], f, 1)) {
					a = objs[i];
					b = objs[j];
				}
		}
	}
	if (!b) {
		hp_set(r, HP_INCONCLUSIVE, "no three objects of one slab in %u allocations",
		       HP_FL_OBJS);
		goto out;
	}
	for (i = 0; i < HP_FL_WORDS; i++) {
		before_a[i] = READ_ONCE(a[i]);
		before_b[i] = READ_ONCE(b[i]);
	}
	preempt_disable();
	kmem_cache_free(c, a);
	kmem_cache_free(c, b);
	preempt_enable();
	for (i = 0; i < HP_FL_OBJS; i++)
		if (objs[i] == a || objs[i] == b)
			objs[i] = NULL;

	hp_fl_diff(b, before_b, a, &changed, &raw);
	if (!changed && !raw) {
		sheaves = hp_slab_sheaf_capacity(name);
		if (sheaves > 0) {
			/* the sheaf to the slab: A's free pointer now leads to B */
			kmem_cache_shrink(c);
			hp_fl_diff(a, before_a, b, &changed, &raw);
		}
	}
	if (raw)
		hp_set(r, HP_VULNERABLE,
		       "the freed object holds the raw address of the next free object (%u of %u words changed on free%s)",
		       changed, (unsigned int)HP_FL_WORDS,
		       sheaves > 0 ? ", once kmem_cache_shrink() flushed the per-CPU sheaf" : "");
	else if (changed == 1)
		hp_set(r, HP_PROTECTED,
		       "one word of the freed object's slot changed on free%s, and it is not the next free object's address (encoded free pointer)",
		       sheaves > 0 ? " (once kmem_cache_shrink() flushed the per-CPU sheaf)" : "");
	else if (sheaves > 0)
		hp_set(r, HP_INCONCLUSIVE,
		       "%u words of the freed object's slot changed once kmem_cache_shrink() flushed the per-CPU sheaf (sheaf_capacity %d), none the next free object's address: no single free pointer to judge",
		       changed, sheaves);
	else
		hp_set(r, HP_INCONCLUSIVE,
		       "%u words of the freed object's slot changed on free, none the next free object's address: no single free pointer to judge (slub_debug?)",
		       changed);
out:
	for (i = 0; i < HP_FL_OBJS; i++)
		if (objs[i])
			kmem_cache_free(c, objs[i]);
	kmem_cache_destroy(c);
}

/* a feature that is its Kconfig option alone: no boot switch */
static void hp_hl_config_layers(struct hp_layers *l, bool on, const char *sym,
				const char *built_on, const char *built_off)
{
	l->configured = on;
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s=%s", sym, on ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "%s", on ? built_on : built_off);
	hp_layer(l->active, sizeof(l->active), "%s", on ? "always (no boot switch)" : "off");
}

static void hp_kmalloc_random_layers(struct hp_layers *l)
{
	hp_hl_config_layers(l, IS_ENABLED(CONFIG_RANDOM_KMALLOC_CACHES),
			    "CONFIG_RANDOM_KMALLOC_CACHES",
			    "kmalloc caches: 16 copies per size, chosen by the caller's address",
			    "one kmalloc cache per size");
}

static void hp_slab_buckets_layers(struct hp_layers *l)
{
	if (!HP_HAVE_SLAB_BUCKETS) {
		l->configured = false;
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "CONFIG_SLAB_BUCKETS: not in this kernel (6.11)");
		hp_layer(l->built, sizeof(l->built), "user-sized objects in the kmalloc caches");
		hp_layer(l->active, sizeof(l->active), "off");
		return;
	}
	hp_hl_config_layers(l, IS_ENABLED(CONFIG_SLAB_BUCKETS), "CONFIG_SLAB_BUCKETS",
			    "memdup_user() and other user-sized allocations in caches of their own",
			    "user-sized allocations in the kmalloc caches");
}

static void hp_slab_nomerge_layers(struct hp_layers *l)
{
	struct hp_merge_switches sw;
	bool on = hp_slab_nomerge_asked(&sw);

	l->configured = on;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_SLAB_MERGE_DEFAULT=%s%s%s",
		 IS_ENABLED(CONFIG_SLAB_MERGE_DEFAULT) ? "y" : "n",
		 sw.nomerge ? ", command line: slab_nomerge" : "",
		 sw.merge ? ", command line: slab_merge" : "");
	hp_layer(l->built, sizeof(l->built), "cache merging in mm/slab_common.c (always built)");
	hp_layer(l->active, sizeof(l->active), "%s",
		 on ? "caches are not merged" : "caches of the same geometry are merged");
}

static void hp_freelist_random_layers(struct hp_layers *l)
{
	hp_hl_config_layers(l, IS_ENABLED(CONFIG_SLAB_FREELIST_RANDOM),
			    "CONFIG_SLAB_FREELIST_RANDOM", "a new slab's freelist is shuffled",
			    "a new slab's freelist is in address order");
}

static void hp_freelist_hardened_layers(struct hp_layers *l)
{
	hp_hl_config_layers(l, IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED),
			    "CONFIG_SLAB_FREELIST_HARDENED",
			    "free pointers stored XOR a per-cache secret and their location",
			    "free pointers stored raw");
}

static const struct hp_probe hp_probes_kmalloc_random[] = {
	HP_PROBE(kmalloc_random, sites, HP_SAFE),
};

static const struct hp_probe hp_probes_slab_buckets[] = {
	HP_PROBE(slab_buckets, memdup_user, HP_SAFE),
};

static const struct hp_probe hp_probes_slab_nomerge[] = {
	HP_PROBE(slab_nomerge, same_geometry, HP_SAFE),
};

static const struct hp_probe hp_probes_freelist_random[] = {
	HP_PROBE(freelist_random, fresh_slab, HP_SAFE),
};

/*
 * It reads B's slot past the object and after the free: no compiler
 * instrumentation sees that, but KASAN's hardware tags do (a tag fault, a
 * KASAN report).
 */
static const struct hp_probe hp_probes_freelist_hardened[] = {
	HP_PROBE(freelist_hardened, stored_pointer, HP_SAFE,
		 .warns = IS_ENABLED(CONFIG_KASAN_HW_TAGS)),
};

HP_FEATURE(kmalloc_random, .layers = hp_kmalloc_random_layers,
	   .khc = "CONFIG_RANDOM_KMALLOC_CACHES",
	   .off = HP_LIST("CONFIG_RANDOM_KMALLOC_CACHES=n"));
/*
 * no kernel-hardening-checker check (.khc): k-h-c master (0b9aebf) checks
 * CONFIG_SLAB_BUCKETS; v0.6.17.1, whose lists the join reads, does not
 */
HP_FEATURE(slab_buckets, .layers = hp_slab_buckets_layers,
	   .off = HP_LIST("CONFIG_SLAB_BUCKETS=n"));
HP_FEATURE(slab_nomerge, .layers = hp_slab_nomerge_layers,
	   .khc = "CONFIG_SLAB_MERGE_DEFAULT slab_nomerge slab_merge",
	   .on = HP_LIST("slab_nomerge"));
HP_FEATURE(freelist_random, .layers = hp_freelist_random_layers,
	   .khc = "CONFIG_SLAB_FREELIST_RANDOM",
	   .off = HP_LIST("CONFIG_SLAB_FREELIST_RANDOM=n"));
HP_FEATURE(freelist_hardened, .layers = hp_freelist_hardened_layers,
	   .khc = "CONFIG_SLAB_FREELIST_HARDENED",
	   .off = HP_LIST("CONFIG_SLAB_FREELIST_HARDENED=n"));
