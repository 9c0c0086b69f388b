// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe probe helpers: what a probe calls to record its outcome and its
 * feature's evidence layers. A leaf: it uses nothing else of the module.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "../hardprobe.h"

void hp_set(struct hp_result *r, enum hp_outcome o, const char *fmt, ...)
{
	va_list ap;

	r->outcome = o;
	va_start(ap, fmt);
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
	va_end(ap);
}

void hp_layer(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/**
 * hp_layers_unavailable() - the layers of a feature this kernel cannot have
 * @l: the layers to fill
 * @sym: its Kconfig symbol
 * @why: e.g. "arm64 only"
 */
void hp_layers_unavailable(struct hp_layers *l, const char *sym, const char *why)
{
	l->configured = false;
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s: %s", sym, why);
	hp_layer(l->built, sizeof(l->built), "n/a (%s)", why);
	hp_layer(l->active, sizeof(l->active), "n/a (%s)", why);
}

/* The "built" layer of a compile-time feature: the flags the module got. */
void hp_built_flags(struct hp_layers *l, const char *flags, const char *none)
{
	hp_layer(l->built, sizeof(l->built), "module flags: %s",
		 flags[0] ? flags : none);
}

/**
 * hp_fn_size() - the size of a function of ours, from kallsyms
 * @fn: its address
 *
 * "name+0x0/0x40 [hardprobe]": the size runs to the next symbol, so it
 * includes the assembler's padding.
 *
 * Return: the size in bytes, or 0 if unknown or over 4 KiB.
 */
unsigned long hp_fn_size(const void *fn)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long size;
	char *slash;

	sprint_symbol(sym, (unsigned long)fn);
	slash = strchr(sym, '/');
	if (!slash)
		return 0;
	*strchrnul(slash, ' ') = '\0';
	if (kstrtoul(slash + 1, 16, &size) || size > 4096)
		return 0;
	return size;
}
