// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe truncation: the module's own __ubsan_handle_implicit_conversion.
 * Clang's -fsanitize=implicit-conversion calls it, and lib/ubsan.c in 6.12
 * has none (the module would not load without one). Like lib/ubsan.c it
 * prints one report per site (bit 31 of the site's location) and goes on;
 * it also counts every call. Built without any sanitizer (Makefile).
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/printk.h>

#include "overflow.h"
#include "../lib/ubsan_sites.h"

/* compiler-rt's TypeDescriptor and ImplicitConversionData (Clang) */
struct hp_ovf_type {
	u16 kind;
	u16 info;	/* bit 0: signed; bits 1..: log2 of the width */
	char name[];
};

struct hp_ovf_conv {
	struct hp_ubsan_loc loc;
	const struct hp_ovf_type *from;
	const struct hp_ovf_type *to;
	unsigned char kind;
};

static const char *const hp_ovf_kinds[] = {
	"integer truncation", "unsigned integer truncation",
	"signed integer truncation", "integer sign change",
	"signed integer truncation or sign change",
};

static atomic_t hp_ovf_nconv = ATOMIC_INIT(0);

unsigned int hp_ovf_conversions(void)
{
	return atomic_read(&hp_ovf_nconv);
}

/* a value passed inline (at most a long wide), sign-extended if signed */
static long long hp_ovf_val(const struct hp_ovf_type *t, void *v)
{
	unsigned int bits = 1U << (t->info >> 1), sh;
	unsigned long x = (unsigned long)v;

	if (bits > BITS_PER_LONG)
		return 0;
	sh = BITS_PER_LONG - bits;
	if (t->info & 1)
		return (long)(x << sh) >> sh;
	return bits == BITS_PER_LONG ? x : x & (BIT(bits) - 1);
}

void __ubsan_handle_implicit_conversion(void *data, void *src, void *dst)
{
	struct hp_ovf_conv *c = data;

	atomic_inc(&hp_ovf_nconv);
	if (test_and_set_bit(HP_UBSAN_REPORTED_BIT, &c->loc.reported))
		return;
	pr_err("hardprobe: UBSAN: implicit-conversion in %s:%u:%u (the module's own handler)\n",
	       c->loc.file_name, c->loc.line & ~(1U << HP_UBSAN_REPORTED_BIT),
	       c->loc.column & ~(1U << HP_UBSAN_REPORTED_BIT));
	pr_err("hardprobe: %s: implicit conversion from type %s of value %lld (%u-bit, %ssigned) to type %s changed the value to %lld (%u-bit, %ssigned)\n",
	       c->kind < ARRAY_SIZE(hp_ovf_kinds) ? hp_ovf_kinds[c->kind] : "implicit conversion",
	       c->from->name, hp_ovf_val(c->from, src), 1U << (c->from->info >> 1),
	       c->from->info & 1 ? "" : "un", c->to->name, hp_ovf_val(c->to, dst),
	       1U << (c->to->info >> 1), c->to->info & 1 ? "" : "un");
}
