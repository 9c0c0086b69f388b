// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe probe helpers: what a probe calls to record its outcome and its
 * feature's evidence layers. A leaf: it uses nothing else of the module.
 */
#include <linux/kallsyms.h>
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
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

/* Every probe, feature by feature: set by the registry at load. */
static const struct hp_probe *const *hp_probe_tab;
static unsigned int hp_nr_probes;

void hp_probes_set(const struct hp_probe *const *tab, unsigned int n)
{
	hp_probe_tab = tab;
	hp_nr_probes = n;
}

unsigned int hardprobe_probe_count(void)
{
	return hp_nr_probes;
}
EXPORT_SYMBOL_GPL(hardprobe_probe_count);

const struct hp_probe *hardprobe_probe_at(unsigned int i)
{
	return i < hp_nr_probes ? hp_probe_tab[i] : NULL;
}
EXPORT_SYMBOL_GPL(hardprobe_probe_at);

/*
 * A private cache stays in sysfs when a probe dies before destroying it (a
 * caught fatal probe): names carry the load they were made in (the boot
 * clock at that load, unique across reloads) and a count within it, so that
 * no later load or call asks SLUB for a name it already has.
 */
static u64 hp_load_id;
static atomic_t hp_cache_seq = ATOMIC_INIT(0);

void hp_cache_names_init(void)
{
	hp_load_id = ktime_get_boottime_ns() >> 10;
}

/* the load's part of a private cache's name: the boot clock at load, in us */
u64 hp_cache_load_id(void)
{
	return hp_load_id;
}

/**
 * hp_cache_name() - a name for a private kmem_cache no other cache has
 * @buf: where it goes
 * @len: size of @buf
 * @base: what the name starts with ("hp_slab_debug_rz"): log checkers and
 *	slub_debug=<flags>,<base>* match the start
 *
 * Return: @buf, "<base>-<load>-<n>".
 */
const char *hp_cache_name(char *buf, size_t len, const char *base)
{
	snprintf(buf, len, "%s-%llx-%d", base, hp_load_id,
		 atomic_inc_return(&hp_cache_seq));
	return buf;
}
