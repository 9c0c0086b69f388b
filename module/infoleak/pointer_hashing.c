// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe pointer_hashing: "%p" in a kernel format string prints a hash
 * of the pointer with a boot-time secret, not its value, so that log lines
 * and files do not hand out kernel addresses (4.15 on). The boot switch
 * no_hash_pointers turns it off and prints a notice.
 *
 * The probe formats the addresses of a stack variable, a heap object and a
 * function with "%p" and compares each with the same value printed in full
 * ("%px", the explicit opt-out, its positive control: it must print the raw
 * value). Until the secret is ready (early boot) "%p" prints
 * "(____ptrval____)": that hides the value too.
 *
 * A hash that differs from the value is not enough: with the boot switch
 * debug_boot_weak_hash, lib/vsprintf.c prints hash_long(ptr, 32), the same
 * unkeyed multiplication on every boot of every machine, which anyone can
 * compute (and search for a kernel address). The probe computes it for each
 * pointer and compares it with what "%p" printed, padded as "%p" pads it.
 *
 * pointer_hashing.percent_p prints a stack, a heap, a text and a data
 * address. "%p" printing an address is vulnerable (no_hash_pointers, or SLUB
 * debugging, which turns hashing off); all four printed as the unkeyed hash
 * is vulnerable ("unkeyed weak hash: debug_boot_weak_hash"), only some of
 * them inconclusive; otherwise (keyed siphash, or "(____ptrval____)") it is
 * protected.
 */
#include <linux/hash.h>
#include <linux/kstrtox.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"

#define HP_PH_NOTICE	"This system shows unhashed kernel memory addresses"
#define HP_PH_N		4

/* module .data: a fourth kind of address */
static int hp_ph_data = 1;

static noinline int hp_ph_fn(int x)
{
	return x + 1;
}

/*
 * "%p" of @p, and whether it is the raw value ("%px" of @p) or the unkeyed
 * hash of debug_boot_weak_hash (lib/vsprintf.c ptr_to_id(): hash_long(ptr,
 * 32) printed as a pointer, zero-padded to the pointer's width)
 */
static int hp_ph_one(const void *p, char *shown, size_t len, bool *raw, bool *weak)
{
	unsigned long v;
	char full[32], unkeyed[32];

	snprintf(shown, len, "%p", p);
	snprintf(full, sizeof(full), "%px", p);
	/* control: "%px" must print the address itself */
	if (strlen(full) != 2 * sizeof(void *) || kstrtoul(full, 16, &v) ||
	    v != (unsigned long)p)
		return -EINVAL;
	snprintf(unkeyed, sizeof(unkeyed), "%0*lx", (int)(2 * sizeof(void *)),
		 (unsigned long)hash_long((unsigned long)p, 32));
	*raw = !strcmp(shown, full);
	*weak = !strcmp(shown, unkeyed);
	return 0;
}

static void hp_pointer_hashing_percent_p(struct hp_result *r)
{
	const void *ptrs[HP_PH_N];
	static const char *const what[HP_PH_N] = { "stack", "heap", "text", "data" };
	char shown[HP_PH_N][32];
	unsigned int i, raw_n = 0, weak_n = 0;
	bool raw, weak;
	int local = 0;
	void *obj = kmalloc(32, GFP_KERNEL);

	if (!obj) {
		hp_set(r, HP_ERROR, "kmalloc() failed");
		return;
	}
	ptrs[0] = &local;
	ptrs[1] = obj;
	ptrs[2] = hp_ph_fn;
	ptrs[3] = &hp_ph_data;
	for (i = 0; i < HP_PH_N; i++) {
		if (hp_ph_one(ptrs[i], shown[i], sizeof(shown[i]), &raw, &weak)) {
			kfree(obj);
			hp_set(r, HP_INCONCLUSIVE,
			       "control: %%px of the %s address did not print the address",
			       what[i]);
			return;
		}
		raw_n += raw;
		weak_n += weak;
	}
	kfree(obj);
	if (raw_n)
		hp_set(r, HP_VULNERABLE,
		       "%%p printed %u of %u kernel addresses (stack, heap, text, data) raw; %%px control printed them too",
		       raw_n, HP_PH_N);
	else if (weak_n == HP_PH_N)
		hp_set(r, HP_VULNERABLE,
		       "unkeyed weak hash: debug_boot_weak_hash: %%p printed hash_long(ptr, 32) of all %u addresses (stack %s, heap %s, text %s, data %s), computable without a secret",
		       HP_PH_N, shown[0], shown[1], shown[2], shown[3]);
	else if (weak_n)
		hp_set(r, HP_INCONCLUSIVE,
		       "%%p printed hash_long(ptr, 32) for %u of %u addresses only (stack %s, heap %s, text %s, data %s)",
		       weak_n, HP_PH_N, shown[0], shown[1], shown[2], shown[3]);
	else if (strstr(shown[0], "ptrval"))
		hp_set(r, HP_PROTECTED,
		       "%%p printed %s: the hashing secret is not ready yet, no address is shown",
		       shown[0]);
	else
		hp_set(r, HP_PROTECTED,
		       "%%p printed keyed hashes (stack %s, heap %s, text %s, data %s), not the addresses %%px prints, nor their unkeyed hash_long()",
		       shown[0], shown[1], shown[2], shown[3]);
}

static void hp_pointer_hashing_layers(struct hp_layers *l)
{
	char line[128];
	bool off = hp_cmdline_early("no_hash_pointers");
	bool weak = hp_cmdline_early("debug_boot_weak_hash");
	bool slub = hp_slub_debug_on();

	/* mm/slub.c turns hashing off itself whenever SLUB debugging is on */
	l->configured = !off && !weak && !slub;
	if (off)
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "command line: no_hash_pointers");
	else if (weak)
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "command line: debug_boot_weak_hash (unkeyed hash_long())");
	else if (slub)
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "SLUB debugging on (slub_debug on the command line, or CONFIG_SLUB_DEBUG_ON): mm/slub.c turns hashing off");
	else
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "always built; no no_hash_pointers on the command line");
	hp_layer(l->built, sizeof(l->built), "lib/vsprintf.c hashes %%p (since 4.15)");
	if (hp_log_find(NULL, HP_PH_NOTICE, line, sizeof(line)))
		hp_layer(l->active, sizeof(l->active), "off: boot log: %s", line);
	else
		hp_layer(l->active, sizeof(l->active),
			 "on: no unhashed-addresses notice in the log");
}

static const struct hp_probe hp_probes_pointer_hashing[] = {
	HP_PROBE(pointer_hashing, percent_p, HP_SAFE),
};

HP_FEATURE(pointer_hashing, .layers = hp_pointer_hashing_layers, .khc = "no_hash_pointers",
	   .off = HP_LIST("no_hash_pointers"));
