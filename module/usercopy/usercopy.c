// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe usercopy: copy_to_user()/copy_from_user() of kernel memory that
 * no legal copy would touch: past the end of a slab object, outside a
 * cache's usercopy whitelist, from a dead stack frame, across the end of the
 * task stack, from kernel text, past the end of a vmalloc area (its vmap
 * area: the page and its guard page) and past the end of a multi-page
 * (compound) page allocation. CONFIG_HARDENED_USERCOPY checks the kernel
 * side of every copy with a non-constant size and calls usercopy_abort(),
 * which BUG()s: a catch oopses the calling task. Before each bad copy, the
 * legal copy of the same object (within its size, within the whitelist,
 * from the live frame, from rodata, up to the end of the allocation) must
 * succeed; if it does not, the result is inconclusive.
 *
 * The user buffer is an anonymous mapping made in the calling process with
 * vm_mmap() and unmapped afterwards. A catch kills the task in the copy:
 * the probe's object and private cache (a fresh name per run) are then
 * left behind, never destroyed with an object in them.
 *
 * slab_size_to, slab_size_from: 232 bytes to or from a 200-byte object of a
 * private cache hardprobe-uc-size-<n> whitelisted whole (legal copy: the 200
 * bytes). whitelist_to, whitelist_from: [63, 127) of a 256-byte object of
 * hardprobe-uc-wl-<n> whose whitelist is [64, 128) (legal copy: [64, 128)).
 * stack_frame: 32 bytes of a dead callee frame; stack_beyond: 32 bytes
 * starting 8 bytes before the end of the task stack (legal copy: the live
 * frame). kernel_text: a page of vm_mmap()'s code; kernel_text_linear: the
 * same page through its linear-map alias (legal copy: module rodata).
 * vmalloc: see hp_usercopy_vmalloc() (LKDTM's USERCOPY_VMALLOC ends its copy
 * in the guard page, which passes the check and faults there); without the
 * check the copy is short on x86 (vulnerable) and an oops that is not
 * usercopy's on arm64 (error). folio: 32 bytes past the end of an order-1
 * compound page, from the middle of its last page, as LKDTM's
 * USERCOPY_FOLIO. The signatures are usercopy_abort()'s lines
 * (mm/usercopy.c), e.g. "Kernel memory exposure attempt detected from SLUB
 * object 'hardprobe-uc-size-" ("overwrite attempt detected to" for the _from
 * probes), "... from process stack", "... from kernel text", "... from
 * linear kernel text", "... from vmalloc (", "... from page alloc (". A
 * probe that returns is vulnerable, with the bytes copied. configured is off
 * with hardened_usercopy=0 on the command line (the kernel's bypass key is
 * not exported).
 */
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "../hardprobe.h"

/* usercopy_abort(): "Kernel memory %s attempt detected %s %s%s%s%s (offset %lu, size %lu)!" */
#define HP_UC_SIG_SIZE_TO	"Kernel memory exposure attempt detected from SLUB object 'hardprobe-uc-size-"
#define HP_UC_SIG_SIZE_FROM	"Kernel memory overwrite attempt detected to SLUB object 'hardprobe-uc-size-"
#define HP_UC_SIG_WL_TO		"Kernel memory exposure attempt detected from SLUB object 'hardprobe-uc-wl-"
#define HP_UC_SIG_WL_FROM	"Kernel memory overwrite attempt detected to SLUB object 'hardprobe-uc-wl-"
#define HP_UC_SIG_STACK		"Kernel memory exposure attempt detected from process stack"
#define HP_UC_SIG_TEXT		"Kernel memory exposure attempt detected from kernel text"
#define HP_UC_SIG_LINEAR	"Kernel memory exposure attempt detected from linear kernel text"
#define HP_UC_SIG_VMALLOC	"Kernel memory exposure attempt detected from vmalloc ("
#define HP_UC_SIG_FOLIO		"Kernel memory exposure attempt detected from page alloc ("

/*
 * The size cache: a 200-byte object aligned to 64, so each slot is 256
 * bytes and the 32 bytes past the object are slot padding: a copy that
 * gets through writes nothing that belongs to another object.
 */
#define HP_UC_OBJ	200
#define HP_UC_ALIGN	64
#define HP_UC_OVER	32
/* The whitelist cache: 256-byte objects, only [64, 128) may be copied. */
#define HP_UC_WL_OBJ	256
#define HP_UC_WL_OFF	64
#define HP_UC_WL_LEN	64
#define HP_UC_STACK	32

static const char hp_uc_rodata[64] = "hardprobe usercopy: legal copy from rodata";

struct hp_uc {
	unsigned long uaddr;
	unsigned long ulen;	/* the user buffer's size: PAGE_SIZE unless set */
	struct kmem_cache *cache;
	u8 *obj;
	char name[HP_CACHE_NAME_LEN];
};

static bool hp_uc_map(struct hp_result *r, struct hp_uc *u)
{
	if (!current->mm) {
		hp_set(r, HP_ERROR, "no user address space in this task (%s)",
		       current->comm);
		return false;
	}
	if (!u->ulen)
		u->ulen = PAGE_SIZE;
	u->uaddr = vm_mmap(NULL, 0, u->ulen, PROT_READ | PROT_WRITE,
			   MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(u->uaddr)) {
		hp_set(r, HP_ERROR, "vm_mmap of a user page failed: %ld", (long)u->uaddr);
		return false;
	}
	return true;
}

static bool hp_uc_cache(struct hp_result *r, struct hp_uc *u, const char *kind,
			unsigned int size, unsigned int align,
			unsigned int useroffset, unsigned int usersize)
{
	char base[24];

	snprintf(base, sizeof(base), "hardprobe-uc-%s", kind);
	hp_cache_name(u->name, sizeof(u->name), base);
	u->cache = kmem_cache_create_usercopy(u->name, size, align, 0,
					      useroffset, usersize, NULL);
	if (!u->cache) {
		hp_set(r, HP_ERROR, "cannot create the private cache %s", u->name);
		return false;
	}
	u->obj = kmem_cache_alloc(u->cache, GFP_KERNEL);
	if (!u->obj) {
		hp_set(r, HP_ERROR, "cannot allocate from %s", u->name);
		return false;
	}
	memset(u->obj, 0x5a, size);
	return hp_uc_map(r, u);
}

/* Only reached when the bad copy returned (or the probe failed before it). */
static void hp_uc_done(struct hp_uc *u)
{
	if (u->uaddr && !IS_ERR_VALUE(u->uaddr))
		vm_munmap(u->uaddr, u->ulen);
	if (u->obj)
		kmem_cache_free(u->cache, u->obj);
	kmem_cache_destroy(u->cache);
}

/*
 * copy_{to,from}_user with a size the compiler cannot see: hardened
 * usercopy leaves constant sizes to compile-time checks.
 */
static noinline unsigned long hp_uc_copy(bool to_user, void __user *uptr,
					 void *kptr, size_t n)
{
	OPTIMIZER_HIDE_VAR(n);
	OPTIMIZER_HIDE_VAR(kptr);
	if (to_user)
		return copy_to_user(uptr, kptr, n);
	return copy_from_user(kptr, uptr, n);
}

static void hp_uc_survived(struct hp_result *r, const char *what,
			   unsigned long left, size_t n)
{
	hp_set(r, HP_VULNERABLE,
	       "survived: %s: %zu of %zu bytes copied; the legal copy passed first",
	       what, n - left, n);
}

static void hp_uc_slab_size(struct hp_result *r, bool to_user)
{
	struct hp_uc u = {};
	void __user *up;
	unsigned long left;
	char what[128];

	if (!hp_uc_cache(r, &u, "size", HP_UC_OBJ, HP_UC_ALIGN, 0, HP_UC_OBJ))
		goto out;
	up = (void __user *)u.uaddr;
	if (hp_uc_copy(to_user, up, u.obj, HP_UC_OBJ)) {
		hp_set(r, HP_INCONCLUSIVE,
		       "the legal copy of the whole %u-byte object of %s failed",
		       HP_UC_OBJ, u.name);
		goto out;
	}
	pr_info("usercopy: %s %u bytes at %p, a %u-byte object of %s\n",
		to_user ? "reading" : "writing", HP_UC_OBJ + HP_UC_OVER, u.obj,
		HP_UC_OBJ, u.name);
	left = hp_uc_copy(to_user, up, u.obj, HP_UC_OBJ + HP_UC_OVER);
	snprintf(what, sizeof(what), "%s %u-byte object of %s", to_user ?
		 "copy_to_user from a" : "copy_from_user into a", HP_UC_OBJ, u.name);
	hp_uc_survived(r, what, left, HP_UC_OBJ + HP_UC_OVER);
out:
	hp_uc_done(&u);
}

static void hp_uc_whitelist(struct hp_result *r, bool to_user)
{
	struct hp_uc u = {};
	void __user *up;
	unsigned long left;
	char what[128];

	if (!hp_uc_cache(r, &u, "wl", HP_UC_WL_OBJ, 0, HP_UC_WL_OFF, HP_UC_WL_LEN))
		goto out;
	up = (void __user *)u.uaddr;
	if (hp_uc_copy(to_user, up, u.obj + HP_UC_WL_OFF, HP_UC_WL_LEN)) {
		hp_set(r, HP_INCONCLUSIVE, "the legal copy of the whitelist [%u, %u) of %s failed",
		       HP_UC_WL_OFF, HP_UC_WL_OFF + HP_UC_WL_LEN, u.name);
		goto out;
	}
	/* one byte before the whitelist, inside the object */
	pr_info("usercopy: %s [%u, %u) of an object of %s, whitelist [%u, %u)\n",
		to_user ? "reading" : "writing", HP_UC_WL_OFF - 1,
		HP_UC_WL_OFF - 1 + HP_UC_WL_LEN, u.name, HP_UC_WL_OFF,
		HP_UC_WL_OFF + HP_UC_WL_LEN);
	left = hp_uc_copy(to_user, up, u.obj + HP_UC_WL_OFF - 1, HP_UC_WL_LEN);
	snprintf(what, sizeof(what), "%s bytes [%u, %u) of %s outside its whitelist",
		 to_user ? "copy_to_user from" : "copy_from_user into",
		 HP_UC_WL_OFF - 1, HP_UC_WL_OFF - 1 + HP_UC_WL_LEN, u.name);
	hp_uc_survived(r, what, left, HP_UC_WL_LEN);
out:
	hp_uc_done(&u);
}

static void hp_usercopy_slab_size_to(struct hp_result *r)
{
	hp_uc_slab_size(r, true);
}

static void hp_usercopy_slab_size_from(struct hp_result *r)
{
	hp_uc_slab_size(r, false);
}

static void hp_usercopy_whitelist_to(struct hp_result *r)
{
	hp_uc_whitelist(r, true);
}

static void hp_usercopy_whitelist_from(struct hp_result *r)
{
	hp_uc_whitelist(r, false);
}

/*
 * A pointer into this function's frame, returned after the frame is dead.
 * The pointer is passed through OPTIMIZER_HIDE_VAR so that the compiler
 * neither warns about returning a local address nor drops the buffer.
 */
static noinline u8 *hp_uc_dead_frame(int fill)
{
	u8 buf[128];
	u8 *p = &buf[32];

	memset(buf, fill, sizeof(buf));
	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static void hp_uc_stack(struct hp_result *r, bool beyond)
{
	u8 good[HP_UC_STACK];
	struct hp_uc u = {};
	unsigned long left;
	u8 *bad;

	memset(good, 0x3c, sizeof(good));
	if (beyond)
		bad = (u8 *)task_stack_page(current) + THREAD_SIZE - sizeof(long);
	else
		bad = hp_uc_dead_frame(0xc3);
	if (!hp_uc_map(r, &u))
		goto out;
	if (hp_uc_copy(true, (void __user *)u.uaddr, good, sizeof(good))) {
		hp_set(r, HP_INCONCLUSIVE, "the legal copy of %zu bytes of the live frame failed",
		       sizeof(good));
		goto out;
	}
	pr_info("usercopy: reading %d bytes at stack+0x%lx (%s), live frame at stack+0x%lx, stack size 0x%lx\n",
		HP_UC_STACK, (unsigned long)(bad - (u8 *)task_stack_page(current)),
		beyond ? "across the stack end" : "a dead frame",
		(unsigned long)(good - (u8 *)task_stack_page(current)), THREAD_SIZE);
	left = hp_uc_copy(true, (void __user *)u.uaddr, bad, HP_UC_STACK);
	hp_uc_survived(r, beyond ? "copy_to_user across the end of the task stack" :
		       "copy_to_user from a dead stack frame", left, HP_UC_STACK);
	/*
	 * Only x86 walks the frames (HAVE_ARCH_WITHIN_STACK_FRAMES); elsewhere
	 * a dead frame is refused only if it lies below the stack pointer at
	 * the check, which depends on the compiler's frame layout: a hole of
	 * the feature on this architecture, reported as a known gap.
	 */
	if (!beyond && !IS_ENABLED(CONFIG_HAVE_ARCH_WITHIN_STACK_FRAMES)) {
		r->known_gap = true;
		strlcat(r->evidence, " (known gap: no frame walk on this architecture)",
			sizeof(r->evidence));
	}
out:
	hp_uc_done(&u);
}

static void hp_usercopy_stack_frame(struct hp_result *r)
{
	hp_uc_stack(r, false);
}

static void hp_usercopy_stack_beyond(struct hp_result *r)
{
	hp_uc_stack(r, true);
}

static void hp_uc_text(struct hp_result *r, bool linear)
{
	struct hp_uc u = {};
	unsigned long left;
	void *text = (void *)vm_mmap;

	if (linear)
		text = lm_alias(text);
	if (!hp_uc_map(r, &u))
		goto out;
	if (hp_uc_copy(true, (void __user *)u.uaddr, (void *)hp_uc_rodata,
		       sizeof(hp_uc_rodata))) {
		hp_set(r, HP_INCONCLUSIVE, "the legal copy of %zu bytes of module rodata failed",
		       sizeof(hp_uc_rodata));
		goto out;
	}
	pr_info("usercopy: reading %lu bytes of kernel text at %pS%s\n",
		PAGE_SIZE, vm_mmap, linear ? " through its linear map alias" : "");
	left = hp_uc_copy(true, (void __user *)u.uaddr, text, PAGE_SIZE);
	hp_uc_survived(r, linear ? "copy_to_user from the linear alias of kernel text (vm_mmap)" :
		       "copy_to_user from kernel text (vm_mmap)", left, PAGE_SIZE);
out:
	hp_uc_done(&u);
}

static void hp_usercopy_kernel_text(struct hp_result *r)
{
	hp_uc_text(r, false);
}

static void hp_usercopy_kernel_text_linear(struct hp_result *r)
{
	hp_uc_text(r, true);
}

/*
 * vmalloc: check_heap_object() refuses a copy that runs past the end of the
 * vmap area holding it, and that area is the allocation and its guard page
 * (mm/vmalloc.c adds the guard to the area). The copy starts in the middle
 * of a one-page vmalloc() allocation: the legal copy runs to the end of the
 * page, the bad one past the page, its guard page and HP_UC_OVER bytes
 * beyond. Without the check, the copy stops at the guard page (x86 returns
 * a short copy; arm64's copy_to_user() has no fixup for a fault on the
 * kernel side and oopses there, which is not usercopy's report).
 */
static void hp_usercopy_vmalloc(struct hp_result *r)
{
	struct hp_uc u = { .ulen = 2 * PAGE_SIZE + HP_UC_OVER };
	size_t half = PAGE_SIZE / 2, n = half + PAGE_SIZE + HP_UC_OVER;
	unsigned long left;
	u8 *v;

	v = vmalloc(PAGE_SIZE);
	if (!v) {
		hp_set(r, HP_ERROR, "vmalloc(%lu) failed", PAGE_SIZE);
		return;
	}
	memset(v, 0x5a, PAGE_SIZE);
	if (!hp_uc_map(r, &u))
		goto out;
	if (hp_uc_copy(true, (void __user *)u.uaddr, v + half, half)) {
		hp_set(r, HP_INCONCLUSIVE,
		       "the legal copy of the last %zu bytes of a one-page vmalloc() area failed",
		       half);
		goto out;
	}
	pr_info("usercopy: reading %zu bytes at vmalloc area %p + %zu: past its page, its guard page and %u bytes beyond\n",
		n, v, half, HP_UC_OVER);
	left = hp_uc_copy(true, (void __user *)u.uaddr, v + half, n);
	hp_set(r, HP_VULNERABLE,
	       "survived: copy_to_user of %zu bytes from the middle of a one-page vmalloc() area, past its vmap area: %zu copied%s; the legal copy passed first",
	       n, n - left, left ? " (stopped by the guard page, not by usercopy)" : "");
out:
	hp_uc_done(&u);
	vfree(v);
}

/*
 * A multi-page page allocation (a compound page: a large folio): the check
 * refuses a copy that runs past the folio's end. As LKDTM's USERCOPY_FOLIO,
 * the copy starts in the middle of the second (last) page of an order-1
 * allocation; the bad one reads HP_UC_OVER bytes of the next page of the
 * linear map (read into the probe's own user page, which is unmapped).
 */
static void hp_usercopy_folio(struct hp_result *r)
{
	struct hp_uc u = {};
	size_t half = PAGE_SIZE / 2, n = half + HP_UC_OVER;
	unsigned long left;
	struct page *pg;
	u8 *p;

	pg = alloc_pages(GFP_KERNEL | __GFP_COMP | __GFP_ZERO, 1);
	if (!pg) {
		hp_set(r, HP_ERROR, "cannot allocate an order-1 compound page");
		return;
	}
	p = (u8 *)page_address(pg) + PAGE_SIZE + half;
	if (!hp_uc_map(r, &u))
		goto out;
	if (hp_uc_copy(true, (void __user *)u.uaddr, p, half)) {
		hp_set(r, HP_INCONCLUSIVE,
		       "the legal copy of the last %zu bytes of an order-1 compound page failed",
		       half);
		goto out;
	}
	pr_info("usercopy: reading %zu bytes at %p, %zu bytes before the end of an order-1 compound page\n",
		n, p, half);
	left = hp_uc_copy(true, (void __user *)u.uaddr, p, n);
	hp_uc_survived(r, "copy_to_user past the end of an order-1 compound page", left, n);
out:
	hp_uc_done(&u);
	__free_pages(pg, 1);
}

static void hp_uc_layers(struct hp_layers *l)
{
	bool on = true, given;

	given = hp_cmdline_bool("hardened_usercopy", &on);
	l->configured = IS_ENABLED(CONFIG_HARDENED_USERCOPY) && on;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_HARDENED_USERCOPY=%s%s",
		 IS_ENABLED(CONFIG_HARDENED_USERCOPY) ? "y" : "n",
		 given ? (on ? ", hardened_usercopy=1 on the command line" :
			  ", hardened_usercopy=0 on the command line") : "");
	hp_layer(l->built, sizeof(l->built), "%s",
		 IS_ENABLED(CONFIG_HARDENED_USERCOPY) ?
		 "module copy_*_user with non-constant sizes call __check_object_size()" :
		 "no __check_object_size() in copy_*_user");
	hp_layer(l->active, sizeof(l->active), "%s",
		 !IS_ENABLED(CONFIG_HARDENED_USERCOPY) ? "off (not built)" :
		 given ? (on ? "on (hardened_usercopy=1)" : "off (hardened_usercopy=0)") :
		 "on unless the bypass key is set (not exported; no hardened_usercopy= given)");
}

/*
 * A copy that leaves its allocation (not a whitelist's, inside the object,
 * nor text's) is a KASAN report when usercopy lets it through
 * (hardened_usercopy=0): one warning.
 */
#define HP_UC_KASAN	IS_ENABLED(CONFIG_KASAN)

static const struct hp_probe hp_probes_usercopy[] = {
	HP_PROBE(usercopy, slab_size_to, HP_FATAL, .signature = HP_UC_SIG_SIZE_TO,
		 .warns = HP_UC_KASAN,
		 .lkdtm = HP_LIST("USERCOPY_SLAB_SIZE_TO")),
	HP_PROBE(usercopy, slab_size_from, HP_FATAL, .signature = HP_UC_SIG_SIZE_FROM,
		 .warns = HP_UC_KASAN,
		 .lkdtm = HP_LIST("USERCOPY_SLAB_SIZE_FROM")),
	HP_PROBE(usercopy, whitelist_to, HP_FATAL, .signature = HP_UC_SIG_WL_TO,
		 .lkdtm = HP_LIST("USERCOPY_SLAB_WHITELIST_TO")),
	HP_PROBE(usercopy, whitelist_from, HP_FATAL, .signature = HP_UC_SIG_WL_FROM,
		 .lkdtm = HP_LIST("USERCOPY_SLAB_WHITELIST_FROM")),
	/*
	 * LKDTM: stack_frame reads a dead frame (copy_to_user); the check
	 * (check_stack_object()) is the same in both directions.
	 * USERCOPY_VMALLOC and USERCOPY_FOLIO are not in tests.txt
	 * (scripts/lkdtm/unlisted: judged by usercopy_abort()'s own line, not
	 * by any oops).
	 */
	HP_PROBE(usercopy, stack_frame, HP_FATAL, .signature = HP_UC_SIG_STACK,
		 .warns = HP_UC_KASAN,
		 .lkdtm = HP_LIST("USERCOPY_STACK_FRAME_TO", "USERCOPY_STACK_FRAME_FROM")),
	HP_PROBE(usercopy, stack_beyond, HP_FATAL, .signature = HP_UC_SIG_STACK,
		 .warns = HP_UC_KASAN,
		 .lkdtm = HP_LIST("USERCOPY_STACK_BEYOND")),
	HP_PROBE(usercopy, kernel_text, HP_FATAL, .signature = HP_UC_SIG_TEXT,
		 .lkdtm = HP_LIST("USERCOPY_KERNEL")),
	HP_PROBE(usercopy, kernel_text_linear, HP_FATAL, .signature = HP_UC_SIG_LINEAR),
	/*
	 * LKDTM's USERCOPY_VMALLOC (shown, not compared) copies PAGE_SIZE bytes
	 * from the middle of a one-page vmalloc() area, which ends inside the
	 * area's guard page; check_heap_object() bounds a vmalloc copy by the
	 * vmap area, and 6.12's area includes that guard page
	 * (__get_vm_area_node() adds it), so the check passes it and the copy
	 * faults on the guard: x86 returns a short copy ("Good, copy_to_user()
	 * failed, but lacked Oops(?!)": not caught). This probe copies past the
	 * whole vmap area, the span the check refuses.
	 */
	HP_PROBE(usercopy, vmalloc, HP_FATAL, .signature = HP_UC_SIG_VMALLOC,
		 .warns = HP_UC_KASAN,
		 .lkdtm = HP_LIST("?USERCOPY_VMALLOC")),
	HP_PROBE(usercopy, folio, HP_FATAL, .signature = HP_UC_SIG_FOLIO, .warns = HP_UC_KASAN,
		 .lkdtm = HP_LIST("USERCOPY_FOLIO")),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: slab size and whitelist
 * violations (what HARDENED_USERCOPY_FALLBACK let through), stack, text, past
 * a vmalloc area and past a multi-page allocation.
 */
HP_FEATURE(usercopy, .layers = hp_uc_layers,
	   .khc = "CONFIG_HARDENED_USERCOPY hardened_usercopy CONFIG_HARDENED_USERCOPY_FALLBACK",
	   .off = HP_LIST("CONFIG_HARDENED_USERCOPY=n"));
