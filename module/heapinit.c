// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe heap_init_alloc, heap_init_free: stale data in slab objects and
 * pages. Slab objects live in private caches, so that nothing else races on
 * them; the positive control is a cache with a constructor: the kernel never
 * auto-initializes those, so the fill must survive there. Pages come from
 * the page allocator; their control is reading the live page back.
 */
#include <linux/kasan.h>
#include <linux/gfp.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "hardprobe.h"

#define HP_HEAP_SIZE	192
#define HP_HEAP_FILL	0xa5
#define HP_HEAP_FILL_WORD 0xa5a5a5a5a5a5a5a5ULL
#define HP_HEAP_WORDS	(HP_HEAP_SIZE / sizeof(u64))

static void hp_heap_ctor(void *obj)
{
}

/*
 * Count whole words still holding the fill: the allocator keeps its
 * (hardened, random-looking) free pointer inside a free object, and a
 * stray 0xa5 byte of that pointer must not count as a leak.
 */
static size_t hp_heap_kept(const u8 *p)
{
	size_t i, n = 0;

	for (i = 0; i < HP_HEAP_WORDS; i++)
		n += ((const u64 *)p)[i] == HP_HEAP_FILL_WORD;
	return n;
}

/*
 * Fill an object and free it; then either read it while it is free (@after_free)
 * or allocate again and read the new object if it is the same one.
 * Returns the number of fill bytes seen, or -1 if the object was not reused.
 */
static int hp_heap_cycle(bool ctl, bool after_free)
{
	struct kmem_cache *c;
	u8 *a, *b;
	int kept = -1;

	c = kmem_cache_create(ctl ? "hardprobe_heap_ctl" : "hardprobe_heap",
			      HP_HEAP_SIZE, 0, SLAB_NO_MERGE,
			      ctl ? hp_heap_ctor : NULL);
	if (!c)
		return -2;
	a = kmem_cache_alloc(c, GFP_KERNEL);
	if (!a)
		goto out;
	memset(a, HP_HEAP_FILL, HP_HEAP_SIZE);
	kmem_cache_free(c, a);
	if (after_free) {
		/* a deliberate read of a free object of our own cache */
		kasan_disable_current();
		kept = hp_heap_kept(a);
		kasan_enable_current();
		goto out;
	}
	b = kmem_cache_alloc(c, GFP_KERNEL);
	if (b == a)
		kept = hp_heap_kept(b);
	if (b)
		kmem_cache_free(c, b);
out:
	kmem_cache_destroy(c);
	return kept;
}

static void hp_heap_run(struct hp_result *r, bool after_free)
{
	const char *what = after_free ? "the freed object" : "the reallocated object";
	int kept, ctl;

	ctl = hp_heap_cycle(true, after_free);
	kept = hp_heap_cycle(false, after_free);
	if (ctl == -2 || kept == -2) {
		hp_set(r, HP_ERROR, "cannot create a private kmem_cache");
		return;
	}
	if (ctl < 0 || kept < 0) {
		hp_set(r, HP_INCONCLUSIVE, "the allocator did not hand back the same object");
		return;
	}
	if (ctl == 0) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control (cache with a constructor) kept 0 of %zu fill words",
		       HP_HEAP_WORDS);
		return;
	}
	hp_set(r, kept ? HP_VULNERABLE : HP_PROTECTED,
	       "%s kept %d of %zu words of the 0x%02x fill; control kept %d",
	       what, kept, HP_HEAP_WORDS, HP_HEAP_FILL, ctl);
}

static void hp_heap_alloc(struct hp_result *r)
{
	hp_heap_run(r, false);
	if (r->outcome == HP_PROTECTED && want_init_on_free())
		strlcat(r->evidence, " (init_on_free is on too: it cleared the object first)",
			sizeof(r->evidence));
}

static void hp_heap_free(struct hp_result *r)
{
	hp_heap_run(r, true);
}

/*
 * The page allocator: fill a page and free it; then read it while it is free
 * (@after_free, through copy_from_kernel_nofault(): with DEBUG_PAGEALLOC a free
 * page is unmapped) or allocate again and read the new page if it is the same
 * one (the per-CPU free list hands back the page just freed). Returns the
 * words still holding the fill, -1 if the page was not reused or could not be
 * read, -2 if the reading method failed on the live page (the control).
 */
static int hp_page_cycle(bool after_free, size_t *words)
{
	struct page *a, *b;
	u64 *buf;
	int kept = -1;
	size_t i;

	*words = PAGE_SIZE / sizeof(u64);
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	a = alloc_page(GFP_KERNEL);
	if (!buf || !a) {
		kfree(buf);
		if (a)
			__free_page(a);
		return -3;
	}
	memset(page_address(a), HP_HEAP_FILL, PAGE_SIZE);
	/* control: the same read of the live page sees the fill */
	if (copy_from_kernel_nofault(buf, page_address(a), PAGE_SIZE) ||
	    buf[*words - 1] != HP_HEAP_FILL_WORD) {
		__free_page(a);
		kfree(buf);
		return -2;
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
	for (i = 0; kept >= 0 && i < *words; i++)
		kept += buf[i] == HP_HEAP_FILL_WORD;
	kfree(buf);
	return kept;
}

static void hp_page_run(struct hp_result *r, bool after_free)
{
	size_t words;
	int kept = hp_page_cycle(after_free, &words);

	if (kept == -3) {
		hp_set(r, HP_ERROR, "cannot allocate a page");
	} else if (kept == -2) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the fill of the live page could not be read back");
	} else if (kept < 0) {
		hp_set(r, HP_INCONCLUSIVE, after_free ?
		       "the freed page could not be read (unmapped: DEBUG_PAGEALLOC?)" :
		       "the page allocator did not hand back the same page");
	} else {
		hp_set(r, kept ? HP_VULNERABLE : HP_PROTECTED,
		       "%s kept %d of %zu words of the 0x%02x fill; control: the live page read back whole",
		       after_free ? "the freed page" : "the reallocated page", kept, words,
		       HP_HEAP_FILL);
	}
}

static void hp_page_alloc(struct hp_result *r)
{
	hp_page_run(r, false);
	if (r->outcome == HP_PROTECTED && want_init_on_free())
		strlcat(r->evidence, " (init_on_free is on too: it cleared the page first)",
			sizeof(r->evidence));
}

static void hp_page_free(struct hp_result *r)
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

static const struct hp_feature hp_heapinit_features[] = {
	{
		.id = "heap_init_alloc",
		.symbol = "CONFIG_INIT_ON_ALLOC_DEFAULT_ON",
		.layers = hp_heap_layers_alloc,
	},
	{
		.id = "heap_init_free",
		.symbol = "CONFIG_INIT_ON_FREE_DEFAULT_ON",
		.layers = hp_heap_layers_free,
	},
};

static const struct hp_probe hp_heapinit_probes[] = {
	{ "heap_init_alloc.slab", "heap_init_alloc", HP_SAFE, NULL, hp_heap_alloc },
	{ "heap_init_alloc.page", "heap_init_alloc", HP_SAFE, NULL, hp_page_alloc },
	{ "heap_init_free.slab", "heap_init_free", HP_SAFE, NULL, hp_heap_free },
	{ "heap_init_free.page", "heap_init_free", HP_SAFE, NULL, hp_page_free },
};

HP_FAMILY(heapinit);
