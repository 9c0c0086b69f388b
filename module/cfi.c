// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kcfi: an indirect call through a pointer whose prototype does
 * not match its target. kCFI traps it ("CFI failure at ..."), which oopses
 * the caller unless CONFIG_CFI_PERMISSIVE turns the trap into a warning.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/printk.h>

#include "cfi.h"
#include "hardprobe.h"

#define HP_CFI_SIG "CFI failure at"
#define HP_CFI_KIND (IS_ENABLED(CONFIG_CFI_PERMISSIVE) ? HP_SAFE : HP_FATAL)

static noinline int hp_cfi_int_target(int x)
{
	return x + 1;
}

/* the wrong prototype: long (*)(long, long) */
static noinline long hp_cfi_long_target(long a, long b)
{
	return 0x5a00 + (a & 0xff);
}

static hp_cfi_int_fn hp_cfi_ptr;

static void hp_cfi_mismatch(struct hp_result *r)
{
	static unsigned int seq;
	char marker[48];
	int ret, ctl;

	/* legal call first: the checks must let a matching prototype through */
	WRITE_ONCE(hp_cfi_ptr, hp_cfi_int_target);
	ret = READ_ONCE(hp_cfi_ptr)(41);
	if (ret != 42) {
		hp_set(r, HP_ERROR, "matched-prototype call returned %d, not 42", ret);
		return;
	}
	/* positive control: the same mismatched call without CFI checks */
	WRITE_ONCE(hp_cfi_ptr, (hp_cfi_int_fn)(void *)hp_cfi_long_target);
	ctl = hp_cfi_call_unchecked(READ_ONCE(hp_cfi_ptr), 0x11);
	if (ctl != 0x5a11) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: unchecked mismatched call returned 0x%x, not 0x5a11", ctl);
		return;
	}
	snprintf(marker, sizeof(marker), "kcfi.mismatch call [%u]", ++seq);
	pr_info("%s: int (*)(int) -> long (*)(long, long)\n", marker);
	ret = READ_ONCE(hp_cfi_ptr)(0x11);

	/* still here: permissive mode warned, or nothing checked the call */
	if (hp_log_find(marker, HP_CFI_SIG, r->evidence, sizeof(r->evidence))) {
		r->outcome = IS_ENABLED(CONFIG_CFI_PERMISSIVE) ? HP_PROTECTED :
			     HP_ERROR;
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "call through int (*)(int) reached long (*)(long, long) (returned 0x%x); matched call ok; control reached it too",
	       ret);
}

static const char *hp_cfi_unavailable(void)
{
	if (IS_ENABLED(CONFIG_CC_IS_GCC))
		return "GCC has no kCFI";
	if (!IS_ENABLED(CONFIG_ARCH_SUPPORTS_CFI_CLANG))
		return "the architecture has no kCFI";
	return NULL;
}

static void hp_cfi_layers(struct hp_layers *l)
{
	char line[HP_LAYER_LEN];

	l->configured = IS_ENABLED(CONFIG_CFI_CLANG);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_CFI_CLANG=%s%s", l->configured ? "y" : "n",
		 IS_ENABLED(CONFIG_CFI_PERMISSIVE) ? ", CONFIG_CFI_PERMISSIVE=y" : "");
	hp_layer(l->built, sizeof(l->built), "module flags: %s",
		 HP_FLAG_CFI[0] ? HP_FLAG_CFI : "no -fsanitize=kcfi");
	if (!l->configured)
		hp_layer(l->active, sizeof(l->active), "off (not built)");
	else if (IS_ENABLED(CONFIG_ARM64))
		hp_layer(l->active, sizeof(l->active), "kCFI (the only arm64 mode)");
	else if (hp_log_find(NULL, "Using kCFI", line, sizeof(line)) ||
		 hp_log_find(NULL, "Using FineIBT CFI", line, sizeof(line)) ||
		 hp_log_find(NULL, "Disabling CFI", line, sizeof(line)))
		hp_layer(l->active, sizeof(l->active), "boot log: %s", line);
	else
		hp_layer(l->active, sizeof(l->active),
			 "unknown: no CFI mode line left in the log");
}

static const struct hp_feature hp_cfi_features[] = {
	{
		.id = "kcfi",
		.symbol = "CONFIG_CFI_CLANG",
		.unavailable = hp_cfi_unavailable,
		.layers = hp_cfi_layers,
	},
};

static const struct hp_probe hp_cfi_probes[] = {
	{ "kcfi.mismatch", "kcfi", HP_CFI_KIND, HP_CFI_SIG, hp_cfi_mismatch },
};

HP_FAMILY(cfi);
