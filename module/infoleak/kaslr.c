// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kaslr: where the kernel was put at this boot. With
 * CONFIG_RANDOMIZE_BASE the kernel's text does not sit at its link address;
 * on x86_64 CONFIG_RANDOMIZE_MEMORY also moves the direct map, vmalloc and
 * vmemmap regions off their fixed bases. "nokaslr" turns both off.
 *
 * kaslr.text finds where the kernel's text starts, from the address of a
 * kernel function the module links to (_printk) and kallsyms (sprint_symbol():
 * the lowest 64 KiB boundary below it that still falls within the kernel's
 * symbols is _stext, a fixed distance above _text), and compares it with the
 * link address. Its control: kallsyms
 * names _printk's own address. kaslr.regions (x86_64) compares the exported region bases
 * with their fixed defaults. One boot shows whether the kernel moved, not how
 * far it could have: the entropy is a property of many boots.
 *
 * x86_64 draws the text's place among 1 + (1 GiB - 16 MiB - image) / 2 MiB
 * slots (find_random_virt_addr()), the first of which is the link address:
 * about one boot in 490 puts a randomized kernel where an unrandomized one
 * sits. The decompressor marks a boot it randomized with KASLR_FLAG in
 * boot_params.hdr.loadflags, which /sys/kernel/boot_params/data shows: the
 * text at its link address is inconclusive under that flag (one boot cannot
 * tell a draw of the first slot from no draw) and vulnerable without it.
 * arm64 never draws offset 0 (kaslr_early_init() sets bit VA_BITS_MIN - 3).
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/sizes.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <asm/page.h>
#include <asm/pgtable.h>
#ifdef CONFIG_X86_64
#include <asm/bootparam.h>
#endif

#include "../hardprobe.h"

/*
 * The link address of _text, and how far _stext is above it: x86_64 starts
 * its text at _text; arm64's vmlinux.lds.S puts _stext at the first 64 KiB
 * (SEGMENT_ALIGN) boundary after the image header
 */
#ifdef CONFIG_X86_64
#define HP_KASLR_LINK	((unsigned long)__START_KERNEL)
#define HP_KASLR_HEAD	0UL
#else
#define HP_KASLR_LINK	((unsigned long)KIMAGE_VADDR)
#define HP_KASLR_HEAD	((unsigned long)SZ_64K)
#endif

/*
 * whether kallsyms puts a kernel symbol at @addr, or just past one; a
 * module's ("name+0x10/0x40 [mod]": modules may sit right below the kernel,
 * as on arm64) does not count
 */
static bool hp_kaslr_sym(unsigned long addr, bool *starts)
{
	char name[KSYM_SYMBOL_LEN];

	sprint_symbol(name, addr);
	*starts = !!strstr(name, "+0x0/");
	return strchr(name, '+') && !strchr(name, '[');
}

/*
 * The start of the kernel's text, _stext: the lowest 64 KiB boundary below a
 * kernel function that kallsyms still places among the kernel's symbols
 * (those from _stext on). Walked in 2 MiB steps while they stay inside,
 * then in 64 KiB steps below the last one.
 */
static unsigned long hp_kaslr_find_stext(unsigned long fn, bool *starts)
{
	unsigned long a = ALIGN_DOWN(fn, SZ_2M), found = ALIGN_DOWN(fn, SZ_64K);
	unsigned int i;
	bool s;

	*starts = false;
	for (i = 0; i < SZ_1G / SZ_2M && a >= SZ_2M && hp_kaslr_sym(a, &s); i++, a -= SZ_2M)
		found = a;
	for (a = found - SZ_64K, i = 0; i < SZ_2M / SZ_64K && hp_kaslr_sym(a, &s); i++, a -= SZ_64K)
		found = a;
	return hp_kaslr_sym(found, starts) ? found : 0;
}

#ifdef CONFIG_X86_64
#define HP_BOOT_PARAMS	"/sys/kernel/boot_params/data"

/*
 * whether the decompressor randomized this boot: KASLR_FLAG in the loadflags of
 * /sys/kernel/boot_params/data; -1 where it cannot be read
 */
static int hp_kaslr_drawn(void)
{
	u8 flags;

	if (hp_read_bytes(HP_BOOT_PARAMS, &flags, 1,
			  offsetof(struct boot_params, hdr.loadflags)) != 1)
		return -1;
	return !!(flags & KASLR_FLAG);
}
#else
static int hp_kaslr_drawn(void)
{
	return 0;	/* a randomized arm64 kernel is never at offset 0 */
}
#endif

static void hp_kaslr_text(struct hp_result *r)
{
	unsigned long fn = (unsigned long)_printk, text, off;
	bool fn_starts, text_starts;
	int drawn;

	/* control: kallsyms names the module's own pointer to a kernel function */
	if (!hp_kaslr_sym(fn, &fn_starts) || !fn_starts) {
		hp_set(r, IS_ENABLED(CONFIG_KALLSYMS) ? HP_INCONCLUSIVE : HP_UNSUPPORTED,
		       "control: kallsyms does not name _printk's address (CONFIG_KALLSYMS=%s)",
		       IS_ENABLED(CONFIG_KALLSYMS) ? "y" : "n");
		return;
	}
	text = hp_kaslr_find_stext(fn, &text_starts);
	if (!text || !text_starts) {
		hp_set(r, HP_INCONCLUSIVE,
		       "no 64 KiB boundary below _printk starts the kernel's symbols: cannot place _text");
		return;
	}
	/* _text, where the kernel is linked and moved to, is _stext less the head */
	text -= HP_KASLR_HEAD;
	off = text - HP_KASLR_LINK;
	if (off) {
		hp_set(r, HP_PROTECTED,
		       "the kernel's text starts %ld MiB off its link address; control: kallsyms names _printk",
		       (long)off >> 20);
		return;
	}
	drawn = hp_kaslr_drawn();
	if (drawn == 1) {
		hp_set(r, HP_INCONCLUSIVE,
		       "the kernel's text starts at its link address %#lx (offset 0), yet the decompressor randomized this boot (KASLR_FLAG in boot_params): it drew the first 2 MiB slot (about 1 boot in 490), which one boot cannot tell from no draw",
		       text);
		r->chance = true;
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "the kernel's text starts at its link address %#lx (offset 0)%s", text,
	       IS_ENABLED(CONFIG_X86_64) ?
	       (drawn ? "; boot_params unreadable" :
		"; boot_params: not randomized at this boot (no KASLR_FLAG)") : "");
}

#ifdef CONFIG_X86_64
static void hp_kaslr_regions(struct hp_result *r)
{
	static const char *const name[3] = { "direct map", "vmalloc", "vmemmap" };
	unsigned long base[3] = { page_offset_base, vmalloc_base, vmemmap_base };
	const unsigned long l4[3] = {
		__PAGE_OFFSET_BASE_L4, __VMALLOC_BASE_L4, __VMEMMAP_BASE_L4
	};
	const unsigned long l5[3] = {
		__PAGE_OFFSET_BASE_L5, __VMALLOC_BASE_L5, __VMEMMAP_BASE_L5
	};
	const unsigned long *fixed = pgtable_l5_enabled() ? l5 : l4;
	unsigned int i, moved = 0;

	for (i = 0; i < 3; i++)
		moved += base[i] != fixed[i];
	/*
	 * x86 moves the regions only with RANDOMIZE_MEMORY, and never under
	 * KASAN (arch/x86/mm/kaslr.c, kaslr_memory_enabled()): its shadow is
	 * laid out for the fixed bases. A known gap of those kernels, not a
	 * failure of the text's KASLR (kaslr.text judges that).
	 */
	if (!moved && (IS_ENABLED(CONFIG_KASAN) || !IS_ENABLED(CONFIG_RANDOMIZE_MEMORY))) {
		hp_set(r, HP_VULNERABLE,
		       "direct map, vmalloc and vmemmap at their fixed bases: known gap: %s",
		       IS_ENABLED(CONFIG_KASAN) ?
		       "x86 does not randomize them under KASAN (kaslr_memory_enabled())" :
		       "CONFIG_RANDOMIZE_MEMORY=n");
		r->known_gap = true;
		return;
	}
	if (moved == 3)
		hp_set(r, HP_PROTECTED,
		       "direct map, vmalloc and vmemmap off their fixed bases (by %+ld, %+ld, %+ld GiB)",
		       (long)(base[0] - fixed[0]) >> 30, (long)(base[1] - fixed[1]) >> 30,
		       (long)(base[2] - fixed[2]) >> 30);
	else if (!moved)
		hp_set(r, HP_VULNERABLE,
		       "direct map, vmalloc and vmemmap at their fixed bases");
	else
		for (i = 0; i < 3; i++)
			if (base[i] == fixed[i]) {
				hp_set(r, HP_VULNERABLE,
				       "%u of 3 regions moved; the %s region is at its fixed base",
				       moved, name[i]);
				break;
			}
}
#else
static void hp_kaslr_regions(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED,
	       "x86_64 only (RANDOMIZE_MEMORY): arm64's linear map moves with memstart_addr");
}
#endif

static void hp_kaslr_layers(struct hp_layers *l)
{
	bool off = hp_cmdline_word("nokaslr");

	l->configured = IS_ENABLED(CONFIG_RANDOMIZE_BASE) && !off;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_RANDOMIZE_BASE=%s, CONFIG_RANDOMIZE_MEMORY=%s%s",
		 IS_ENABLED(CONFIG_RANDOMIZE_BASE) ? "y" : "n",
		 IS_ENABLED(CONFIG_RANDOMIZE_MEMORY) ? "y" : "n",
		 off ? ", command line: nokaslr" : "");
	hp_layer(l->built, sizeof(l->built), "%s", IS_ENABLED(CONFIG_RELOCATABLE) ?
		 "relocatable kernel" : "not relocatable: fixed address");
	hp_layer(l->active, sizeof(l->active), "%s",
		 off ? "off: nokaslr on the command line" :
		 IS_ENABLED(CONFIG_RANDOMIZE_BASE) ? "on unless the boot found no seed" : "off");
}

static const struct hp_probe hp_probes_kaslr[] = {
	HP_PROBE(kaslr, text, HP_SAFE),
	HP_PROBE(kaslr, regions, HP_SAFE),
};

HP_FEATURE(kaslr, .layers = hp_kaslr_layers,
	   .khc = "CONFIG_RANDOMIZE_BASE CONFIG_RANDOMIZE_MEMORY@x86_64 nokaslr",
	   .off = HP_LIST("nokaslr"));
