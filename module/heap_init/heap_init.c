// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe heap_init_alloc, heap_init_free: stale data in slab objects and
 * pages. Slab objects live in private caches, so that nothing else races on
 * them; the positive control is a cache with a constructor: the kernel never
 * auto-initializes those, so the fill must survive there. Pages come from
 * the page allocator; their control is reading the live page back.
 *
 * Neither feature is credited with another mechanism's work. init_on_free
 * clears an object before init_on_alloc could: with both on, the slab probe
 * of init_on_alloc writes the fill into the free object again after
 * init_on_free has cleared it, so only the allocation can remove it. The
 * page allocator skips init_on_alloc while init_on_free is on
 * (post_alloc_hook()): there is nothing of init_on_alloc to show on pages
 * then. A fill replaced by slub_debug's or page poisoning's pattern, or
 * removed while the feature's own switch (want_init_on_alloc(),
 * want_init_on_free()) is off, is inconclusive, never protected.
 */
#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/gfp.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"

#define HP_HEAP_SIZE	192
#define HP_HEAP_FILL	0xa5
#define HP_HEAP_FILL_WORD 0xa5a5a5a5a5a5a5a5ULL
#define HP_HEAP_WORDS	(HP_HEAP_SIZE / sizeof(u64))
/* slub_debug's free poison, and page poisoning's (linux/poison.h) */
#define HP_HEAP_SLUB_POISON 0x6b6b6b6b6b6b6b6bULL
#define HP_HEAP_PAGE_POISON 0xaaaaaaaaaaaaaaaaULL

/*
 * What an object or page held when it was read: whole words still holding
 * the fill, and the words another mechanism left there (zeros, or one of
 * the debug poisons), so that a fill that is gone can be put down to the
 * mechanism that removed it.
 */
struct hp_heap_seen {
	int kept;		/* fill words; < 0: see hp_heap_cycle() */
	size_t words, zero, slub_poison, page_poison;
	int sheaves;		/* the cache's sheaf_capacity (< 0: unknown) */
};

static void hp_heap_ctor(void *obj)
{
}

/*
 * Count whole words still holding the fill: the allocator keeps its
 * (hardened, random-looking) free pointer inside a free object, and a
 * stray 0xa5 byte of that pointer must not count as a leak.
 */
static void hp_heap_count(const u64 *p, size_t words, struct hp_heap_seen *s)
{
	size_t i;

	s->kept = 0;
	s->words = words;
	s->zero = 0;
	s->slub_poison = 0;
	s->page_poison = 0;
	for (i = 0; i < words; i++) {
		s->kept += p[i] == HP_HEAP_FILL_WORD;
		s->zero += p[i] == 0;
		s->slub_poison += p[i] == HP_HEAP_SLUB_POISON;
		s->page_poison += p[i] == HP_HEAP_PAGE_POISON;
	}
}

enum hp_heap_mode {
	HP_HEAP_REALLOC,	/* fill, free, allocate again, read */
	HP_HEAP_FREED,		/* fill, free, read the free object */
	/*
	 * fill, free, fill the free object again, allocate, read: the fill
	 * is there when the object is handed out even if init_on_free
	 * cleared it, so only init_on_alloc can remove it
	 */
	HP_HEAP_REFILL,
};

/*
 * The refill of a free object that init_on_free cleared: every word is 0
 * but the allocator's free pointer (SLUB writes it after the clearing), so
 * exactly one word is not 0, and it is left alone. Every word 0 is a free
 * that went into a per-CPU sheaf (7.x), which writes nothing into the
 * object, only where nothing else can be meant: the cache has sheaves and
 * a free pointer would not be 0 (SLAB_FREELIST_HARDENED stores it XORed
 * with a random value, NULL included). Anything else (a debug poison, a
 * plain free pointer that may be NULL) is not written to.
 */
static bool hp_heap_refill(u64 *p, struct hp_heap_seen *s)
{
	size_t i;

	hp_heap_count(p, HP_HEAP_WORDS, s);
	if (s->zero == HP_HEAP_WORDS &&
	    !(s->sheaves > 0 && IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED)))
		return false;
	if (s->zero < HP_HEAP_WORDS - 1)
		return false;
	for (i = 0; i < HP_HEAP_WORDS; i++)
		if (!p[i])
			p[i] = HP_HEAP_FILL_WORD;
	return true;
}

/*
 * One cycle of @mode on a private cache (@ctl: one with a constructor,
 * which the kernel never auto-initializes). s->kept: the fill words seen;
 * -1 the object was not handed back, -2 no cache, -3 the free object could
 * not be refilled (s describes what it held).
 */
static void hp_heap_cycle(bool ctl, enum hp_heap_mode mode, struct hp_heap_seen *s)
{
	char name[HP_CACHE_NAME_LEN];
	struct kmem_cache *c;
	u8 *a, *b;

	memset(s, 0, sizeof(*s));
	s->kept = -2;
	s->sheaves = -ENOENT;
	hp_cache_name(name, sizeof(name), ctl ? "hardprobe_heap_ctl" : "hardprobe_heap");
	c = kmem_cache_create(name,
			      HP_HEAP_SIZE, 0, HP_SLAB_NO_MERGE,
			      ctl ? hp_heap_ctor : NULL);
	if (!c)
		return;
	s->kept = -1;
	if (mode == HP_HEAP_REFILL)
		s->sheaves = hp_slab_sheaf_capacity(name);
	a = kmem_cache_alloc(c, GFP_KERNEL);
	if (!a)
		goto out;
	if (is_kfence_address(a)) {
		/* KFENCE protects its freed objects' pages and never hands them back at once */
		kmem_cache_free(c, a);
		goto out;
	}
	memset(a, HP_HEAP_FILL, HP_HEAP_SIZE);
	if (mode == HP_HEAP_FREED) {
		kmem_cache_free(c, a);
		/*
		 * a deliberate read of a free object of our own cache, through
		 * a match-all tag: no tag fault on KASAN's hardware tags (in
		 * sync mode one turns tag checking off for the mte probes)
		 */
		kasan_disable_current();
		hp_heap_count((const u64 *)kasan_reset_tag(a), HP_HEAP_WORDS, s);
		kasan_enable_current();
		goto out;
	}
	/* this CPU's free list, from the free to the allocation */
	preempt_disable();
	kmem_cache_free(c, a);
	if (mode == HP_HEAP_REFILL) {
		if (!hp_heap_refill((u64 *)a, s)) {
			preempt_enable();
			s->kept = -3;
			goto out;
		}
		s->kept = -1;
	}
	b = kmem_cache_alloc(c, GFP_NOWAIT);
	preempt_enable();
	if (b == a)
		hp_heap_count((const u64 *)b, HP_HEAP_WORDS, s);
	if (b)
		kmem_cache_free(c, b);
out:
	kmem_cache_destroy(c);
}

/* What replaced the fill, for the evidence: "zeros", "slub_debug's 0x6b poison", ... */
static const char *hp_heap_what(const struct hp_heap_seen *s)
{
	if (s->slub_poison)
		return "slub_debug's 0x6b free poison";
	if (s->page_poison)
		return "page poisoning's 0xaa";
	if (s->zero + 1 >= s->words)
		return "zeros";
	return "other data";
}

/*
 * Was a fill that is gone removed by the feature itself? @own: the
 * feature's own active state; @off_txt says it is off, @zeroer names what
 * else clears memory on this path. Writes the other mechanism that
 * explains the result into @buf and returns true, or returns false if
 * nothing but the feature can explain it.
 */
static bool hp_heap_other(const struct hp_heap_seen *s, bool own, const char *off_txt,
			  const char *zeroer, char *buf, size_t len)
{
	if (s->slub_poison)
		snprintf(buf, len,
			 "slub_debug poisons this cache, and SLUB skips init_on_alloc/init_on_free there");
	else if (s->page_poison)
		snprintf(buf, len,
			 "page poisoning did it (it turns init_on_alloc/init_on_free off)");
	else if (!own)
		snprintf(buf, len, "%s: %s", off_txt, zeroer);
	else
		return false;
	return true;
}

static void hp_heap_verdict(struct hp_result *r, const char *what, bool own,
			    const char *off_txt, const char *zeroer,
			    const struct hp_heap_seen *s, const char *ctl_txt)
{
	char other[112];

	if (s->kept) {
		hp_set(r, HP_VULNERABLE, "%s kept %d of %zu words of the 0x%02x fill; %s",
		       what, s->kept, s->words, HP_HEAP_FILL, ctl_txt);
		return;
	}
	if (hp_heap_other(s, own, off_txt, zeroer, other, sizeof(other))) {
		hp_set(r, HP_INCONCLUSIVE, "%s kept 0 of %zu fill words (%s), but %s; %s",
		       what, s->words, hp_heap_what(s), other, ctl_txt);
		return;
	}
	hp_set(r, HP_PROTECTED, "%s kept 0 of %zu words of the 0x%02x fill (%s); %s",
	       what, s->words, HP_HEAP_FILL, hp_heap_what(s), ctl_txt);
}

/* what cleared a reallocated object or page if init_on_alloc did not */
static const char *hp_heap_alloc_zeroer(void)
{
	return want_init_on_free() ? "init_on_free cleared it when it was freed" :
	       "something else cleared it";
}

/* The private-cache checks common to both features; false if @r is set. */
static bool hp_heap_usable(struct hp_result *r, const struct hp_heap_seen *ctl,
			   const struct hp_heap_seen *s)
{
	if (ctl->kept == -2 || s->kept == -2) {
		hp_set(r, HP_ERROR, "cannot create a private kmem_cache");
		return false;
	}
	if (ctl->kept == -1 || s->kept == -1) {
		hp_set(r, HP_INCONCLUSIVE, "the allocator did not hand back the same object");
		return false;
	}
	if (ctl->kept == 0) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control (cache with a constructor) kept 0 of %zu fill words",
		       HP_HEAP_WORDS);
		return false;
	}
	return true;
}

/*
 * heap_init_alloc.slab. With init_on_free on too, the object is already
 * clear when it is handed out again, whatever init_on_alloc does: the
 * probe then fills the free object again (after init_on_free) and looks
 * at what the allocation hands out.
 */
static void hp_heap_init_alloc_slab(struct hp_result *r)
{
	bool own = want_init_on_alloc(GFP_KERNEL), freeing = want_init_on_free();
	struct hp_heap_seen ctl, s;
	char ctl_txt[96];
	enum hp_heap_mode mode = HP_HEAP_REALLOC;
	const char *what;

	/* KASAN keeps its own records in freed objects: nothing is written there */
	if (freeing && !IS_ENABLED(CONFIG_KASAN))
		mode = HP_HEAP_REFILL;
	hp_heap_cycle(true, HP_HEAP_REALLOC, &ctl);
	hp_heap_cycle(false, mode, &s);
	if (!hp_heap_usable(r, &ctl, &s))
		return;
	snprintf(ctl_txt, sizeof(ctl_txt), "control kept %d", ctl.kept);
	if (s.kept == -3) {
		hp_set(r, HP_INCONCLUSIVE,
		       "init_on_free is on and the freed object could not be filled again (%zu of %zu words 0, %s; sheaf_capacity %d): init_on_alloc not shown",
		       s.zero, s.words, hp_heap_what(&s), s.sheaves);
		return;
	}
	if (freeing && mode == HP_HEAP_REALLOC && !s.kept) {
		hp_set(r, HP_INCONCLUSIVE,
		       "the reallocated object kept 0 of %zu fill words, but init_on_free is on and cleared it first (not refilled after the free: KASAN tracks freed objects): init_on_alloc not shown",
		       s.words);
		return;
	}
	if (mode != HP_HEAP_REFILL)
		what = "the reallocated object";
	else if (s.sheaves > 0)
		what = "the reallocated object, filled again in its CPU sheaf after init_on_free,";
	else
		what = "the reallocated object, filled again after init_on_free cleared it,";
	hp_heap_verdict(r, what, own, "want_init_on_alloc(GFP_KERNEL)=0",
			hp_heap_alloc_zeroer(), &s, ctl_txt);
}

static void hp_heap_init_free_slab(struct hp_result *r)
{
	struct hp_heap_seen ctl, s;
	char ctl_txt[96];

	hp_heap_cycle(true, HP_HEAP_FREED, &ctl);
	hp_heap_cycle(false, HP_HEAP_FREED, &s);
	if (!hp_heap_usable(r, &ctl, &s))
		return;
	snprintf(ctl_txt, sizeof(ctl_txt), "control kept %d", ctl.kept);
	hp_heap_verdict(r, "the freed object", want_init_on_free(),
			"want_init_on_free()=0", "something else cleared it", &s, ctl_txt);
}

/*
 * The page allocator: fill a page and free it; then read it while it is free
 * (@after_free, through copy_from_kernel_nofault(): with DEBUG_PAGEALLOC a free
 * page is unmapped) or allocate again and read the new page if it is the same
 * one (the per-CPU free list hands back the page just freed). s->kept: the
 * words still holding the fill, -1 if the page was not reused or could not be
 * read, -2 if the reading method failed on the live page (the control), -3
 * if no page or buffer.
 */
static void hp_page_cycle(bool after_free, struct hp_heap_seen *s)
{
	size_t words = PAGE_SIZE / sizeof(u64);
	struct page *a, *b;
	u64 *buf;
	int kept = -1;

	memset(s, 0, sizeof(*s));
	s->words = words;
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	a = alloc_page(GFP_KERNEL);
	if (!buf || !a) {
		kfree(buf);
		if (a)
			__free_page(a);
		s->kept = -3;
		return;
	}
	memset(page_address(a), HP_HEAP_FILL, PAGE_SIZE);
	/* control: the same read of the live page sees the fill */
	if (copy_from_kernel_nofault(buf, page_address(a), PAGE_SIZE) ||
	    buf[words - 1] != HP_HEAP_FILL_WORD) {
		__free_page(a);
		kfree(buf);
		s->kept = -2;
		return;
	}
	preempt_disable();	/* keep the page on this CPU's free list */
	__free_page(a);
	if (after_free) {
		/* a deliberate read of a page we just freed */
		kasan_disable_current();
		if (!copy_from_kernel_nofault(buf, page_address(a), PAGE_SIZE))
			kept = 0;
		kasan_enable_current();
		preempt_enable();
	} else {
		preempt_enable();
		b = alloc_page(GFP_KERNEL);
		if (b == a)
			kept = copy_from_kernel_nofault(buf, page_address(b), PAGE_SIZE) ? -1 : 0;
		if (b)
			__free_page(b);
	}
	if (kept >= 0)
		hp_heap_count(buf, words, s);
	else
		s->kept = kept;
	kfree(buf);
}

static void hp_page_run(struct hp_result *r, bool after_free)
{
	const char *ctl_txt = "control: the live page read back whole";
	struct hp_heap_seen s;

	hp_page_cycle(after_free, &s);
	if (s.kept == -3) {
		hp_set(r, HP_ERROR, "cannot allocate a page");
	} else if (s.kept == -2) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the fill of the live page could not be read back");
	} else if (s.kept < 0) {
		hp_set(r, HP_INCONCLUSIVE, after_free ?
		       "the freed page could not be read (unmapped: DEBUG_PAGEALLOC?)" :
		       "the page allocator did not hand back the same page");
	} else if (after_free) {
		hp_heap_verdict(r, "the freed page", want_init_on_free(),
				"want_init_on_free()=0", "something else cleared it", &s, ctl_txt);
	} else if (!s.kept && want_init_on_alloc(GFP_KERNEL) && want_init_on_free()) {
		/*
		 * post_alloc_hook() does not clear a page while init_on_free
		 * is on (every free page was cleared when it was freed): on
		 * pages, init_on_alloc is not in use on this kernel.
		 */
		hp_set(r, HP_UNSUPPORTED,
		       "the reallocated page kept 0 of %zu fill words, cleared by init_on_free: the page allocator skips init_on_alloc while init_on_free is on, so init_on_alloc cannot be shown on pages here (the slab probe shows it)",
		       s.words);
	} else {
		hp_heap_verdict(r, "the reallocated page", want_init_on_alloc(GFP_KERNEL),
				"want_init_on_alloc(GFP_KERNEL)=0", hp_heap_alloc_zeroer(), &s,
				ctl_txt);
	}
}

static void hp_heap_init_alloc_page(struct hp_result *r)
{
	hp_page_run(r, false);
}

static void hp_heap_init_free_page(struct hp_result *r)
{
	hp_page_run(r, true);
}

/* Kconfig default, overridden by the boot parameter when it is given */
static void hp_heap_configured(struct hp_layers *l, const char *param,
			       const char *sym, bool def)
{
	bool on;

	l->configured = def;
	if (hp_cmdline_bool(param, &on)) {
		l->configured = on;
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "%s=%s, %s=%d on the command line", sym, def ? "y" : "n",
			 param, on);
	} else {
		hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s=%s",
			 sym, def ? "y" : "n");
	}
	hp_layer(l->built, sizeof(l->built), "allocator feature: nothing to build");
}

static void hp_heap_layers_alloc(struct hp_layers *l)
{
	hp_heap_configured(l, "init_on_alloc", "CONFIG_INIT_ON_ALLOC_DEFAULT_ON",
			   IS_ENABLED(CONFIG_INIT_ON_ALLOC_DEFAULT_ON));
	hp_layer(l->active, sizeof(l->active), "want_init_on_alloc(GFP_KERNEL)=%d",
		 want_init_on_alloc(GFP_KERNEL));
}

static void hp_heap_layers_free(struct hp_layers *l)
{
	hp_heap_configured(l, "init_on_free", "CONFIG_INIT_ON_FREE_DEFAULT_ON",
			   IS_ENABLED(CONFIG_INIT_ON_FREE_DEFAULT_ON));
	/*
	 * The slab allocator skips init_on_free for caches it poisons
	 * (slab_want_init_on_free(): SLAB_POISON), and generic KASAN holds
	 * freed objects in a quarantine before the allocator sees them: on
	 * such a kernel the feature is not in effect for slab objects.
	 */
	if (l->configured &&
	    (IS_ENABLED(CONFIG_SLUB_DEBUG_ON) || IS_ENABLED(CONFIG_KASAN_GENERIC))) {
		l->configured = false;
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "CONFIG_INIT_ON_FREE_DEFAULT_ON=y, not in effect for slab objects:%s%s",
			 IS_ENABLED(CONFIG_SLUB_DEBUG_ON) ?
			 " slub_debug poisoning replaces it" : "",
			 IS_ENABLED(CONFIG_KASAN_GENERIC) ?
			 (IS_ENABLED(CONFIG_SLUB_DEBUG_ON) ? "; KASAN quarantines freed objects" :
			  " KASAN quarantines freed objects") : "");
	}
	hp_layer(l->active, sizeof(l->active), "want_init_on_free()=%d",
		 want_init_on_free());
}

static const struct hp_probe hp_probes_heap_init_alloc[] = {
	/*
	 * LKDTM: init_on_alloc and init_on_free, slab and page allocator. With
	 * both on (the reference kernels), the page freed before the
	 * re-allocation was already cleared by init_on_free:
	 * heap_init_alloc.page says so (unsupported), LKDTM cannot tell and
	 * says caught.
	 */
	HP_PROBE(heap_init_alloc, slab, HP_SAFE,
		 .lkdtm = HP_LIST("SLAB_INIT_ON_ALLOC")),
	HP_PROBE(heap_init_alloc, page, HP_SAFE,
		 .lkdtm = HP_LIST("BUDDY_INIT_ON_ALLOC")),
};

HP_FEATURE(heap_init_alloc, .layers = hp_heap_layers_alloc,
	   .khc = "CONFIG_INIT_ON_ALLOC_DEFAULT_ON init_on_alloc",
	   .off = HP_LIST("init_on_alloc=0"));

/*
 * The read of a freed object: kasan_disable_current() keeps generic and
 * software-tag KASAN quiet, but hardware tags have no such switch (the
 * object's memory is retagged on free), so the read is a tag fault and a
 * KASAN report there. The freed page is read by copy_from_kernel_nofault(),
 * whose fault is fixed up before a tag fault is reported: no warning.
 */
static const struct hp_probe hp_probes_heap_init_free[] = {
	HP_PROBE(heap_init_free, slab, HP_SAFE, .warns = IS_ENABLED(CONFIG_KASAN_HW_TAGS),
		 .lkdtm = HP_LIST("READ_AFTER_FREE")),
	HP_PROBE(heap_init_free, page, HP_SAFE,
		 .lkdtm = HP_LIST("READ_BUDDY_AFTER_FREE")),
};

HP_FEATURE(heap_init_free, .layers = hp_heap_layers_free,
	   .khc = "CONFIG_INIT_ON_FREE_DEFAULT_ON init_on_free",
	   .off = HP_LIST("init_on_free=0"));
