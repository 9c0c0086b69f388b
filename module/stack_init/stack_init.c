// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe stack_init: read uninitialized stack variables after filling
 * their slots, in code built with the kernel's flags, against a control
 * built without auto-initialization.
 *
 * The cases are HP_SI_CASES (stack_init_leaves.h): u8, u16, u32, u64 and
 * pointers (none, by reference); char and int arrays (none, one element
 * assigned later, by reference); a struct with padding (members and padding
 * counted separately) and a union (none, a partial designated initializer,
 * one member assigned later, by reference); a packed struct (none, assigned,
 * by reference); and switch_u64, a u64 declared in a switch before its first
 * case.
 *
 * Control: the same leaves built with -ftrivial-auto-var-init=uninitialized
 * (stack_init_uninitialized.c) must keep the 0xa5 fill, else inconclusive.
 * Where the control keeps nothing of a variable that has an initializer, the
 * compiler initializes those bytes by itself: unsupported (no bug to catch).
 * No compiler initializes the switch-scoped variable (KSPP #125): switch_u64
 * is vulnerable with known_gap set, reported, and left out of the feature's
 * outcome. The evidence tells zero from pattern initialization ("zeroed",
 * "pattern-initialized", "fill kept").
 */
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "../hardprobe.h"
#include "stack_init_leaves.h"

HP_SI_CASES(HP_SI_DEFINE_KRN)
HP_SI_SWITCH_LEAF(hp_si_krn)

struct hp_si_case {
	hp_si_leaf krn, ctl;
	size_t size;
	bool padded;	/* struct hp_si_padded: count padding separately */
	bool known_gap;	/* no compiler covers it: reported, not failed */
	bool initializer; /* declared with an initializer */
};

/* Fill pass then read pass, from one frame so both see the same slot. */
static noinline bool hp_si_sample(hp_si_leaf leaf, u8 *out)
{
	u8 scratch[HP_LEAF_MAX];
	void *fill_at, *read_at;

	leaf(true, scratch, &fill_at);
	leaf(false, out, &read_at);
	return fill_at == read_at;
}

static bool hp_si_is_padding(size_t i)
{
	return !(i < offsetofend(struct hp_si_padded, a) ||
		 (i >= offsetof(struct hp_si_padded, b) &&
		  i < offsetofend(struct hp_si_padded, b)) ||
		 (i >= offsetof(struct hp_si_padded, c) &&
		  i < offsetofend(struct hp_si_padded, c)));
}

static const char *hp_si_how(const u8 *b, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (b[i] != b[0])
			return "mixed contents";
	if (b[0] == 0)
		return "zeroed";
	return b[0] == HP_FILL ? "fill kept" : "pattern-initialized";
}

static void hp_si_run(const struct hp_si_case *c, struct hp_result *r)
{
	u8 out[HP_LEAF_MAX], ctl[HP_LEAF_MAX];
	size_t i, kept, kept_ctl, kept_pad, npad;
	int attempt;

	/*
	 * An interrupt or a first-time code path between the fill and the read
	 * pass can overwrite the slot; the control then sees nothing. Try a few
	 * times before calling the control failed.
	 */
	for (attempt = 0; attempt < 3; attempt++) {
		if (!hp_si_sample(c->ctl, ctl) || !hp_si_sample(c->krn, out)) {
			hp_set(r, HP_INCONCLUSIVE,
			       "the variable moved between the fill and the read pass");
			return;
		}
		kept = 0;
		kept_ctl = 0;
		kept_pad = 0;
		npad = 0;
		for (i = 0; i < c->size; i++) {
			bool pad = c->padded && hp_si_is_padding(i);

			kept_ctl += ctl[i] == HP_FILL;
			npad += pad;
			if (out[i] == HP_FILL) {
				kept += !pad;
				kept_pad += pad;
			}
		}
		if (kept_ctl || c->initializer)
			break;
	}
	r->known_gap = c->known_gap;
	if (kept_ctl == 0 && c->initializer) {
		hp_set(r, HP_UNSUPPORTED,
		       "no bug to catch: this compiler initializes all %zu bytes for this initializer even without auto-init (control kept 0)",
		       c->size);
		return;
	}
	if (kept_ctl == 0) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control (auto-init off) kept 0 of %zu fill bytes: the read does not see the slot",
		       c->size);
		return;
	}
	if (c->padded)
		hp_set(r, kept + kept_pad ? HP_VULNERABLE : HP_PROTECTED,
		       "%zu of %zu member bytes and %zu of %zu padding bytes kept the 0x%02x fill (%s); control kept %zu of %zu",
		       kept, c->size - npad, kept_pad, npad, HP_FILL,
		       hp_si_how(out, c->size), kept_ctl, c->size);
	else
		hp_set(r, kept ? HP_VULNERABLE : HP_PROTECTED,
		       "%zu of %zu bytes kept the 0x%02x fill (%s); control kept %zu of %zu",
		       kept, c->size, HP_FILL, hp_si_how(out, c->size),
		       kept_ctl, c->size);
}

#define HP_SI_PROBE(name, type, init, use, pad)				\
static void hp_stack_init_##name(struct hp_result *r)			\
{									\
	static const struct hp_si_case c = {				\
		hp_si_krn_##name, hp_si_ctl_##name, sizeof(type), pad,	\
		false, sizeof(#init) > 1				\
	};								\
	BUILD_BUG_ON(sizeof(type) > HP_LEAF_MAX);			\
	hp_si_run(&c, r);						\
}

HP_SI_CASES(HP_SI_PROBE)

static void hp_stack_init_switch_u64(struct hp_result *r)
{
	static const struct hp_si_case c = {
		hp_si_krn_switch_u64, hp_si_ctl_switch_u64, sizeof(u64), false,
		true, false
	};

	hp_si_run(&c, r);
	if (r->outcome == HP_VULNERABLE)
		strlcat(r->evidence, " [known gap: switch-scoped variables, KSPP #125]",
			sizeof(r->evidence));
}

static void hp_si_layers(struct hp_layers *l)
{
	const char *mode = "CONFIG_INIT_STACK_NONE=y";

	if (IS_ENABLED(CONFIG_INIT_STACK_ALL_ZERO))
		mode = "CONFIG_INIT_STACK_ALL_ZERO=y";
	else if (IS_ENABLED(CONFIG_INIT_STACK_ALL_PATTERN))
		mode = "CONFIG_INIT_STACK_ALL_PATTERN=y";
	l->configured = IS_ENABLED(CONFIG_INIT_STACK_ALL_ZERO) ||
			IS_ENABLED(CONFIG_INIT_STACK_ALL_PATTERN);
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s", mode);
	hp_built_flags(l, HP_FLAG_AUTOVAR, "no -ftrivial-auto-var-init");
	hp_layer(l->active, sizeof(l->active),
		 "compile-time feature: always on where built");
}

#define HP_SI_ENTRY(name, type, init, use, pad)				\
	HP_PROBE(stack_init, name, HP_SAFE),

static const struct hp_probe hp_probes_stack_init[] = {
	HP_SI_CASES(HP_SI_ENTRY)
	HP_PROBE(stack_init, switch_u64, HP_SAFE),
};

HP_FEATURE(stack_init, .layers = hp_si_layers, .khc = "CONFIG_INIT_STACK_ALL_ZERO",
	   .off = HP_LIST("CONFIG_INIT_STACK_NONE=y", "CONFIG_INIT_STACK_ALL_ZERO=n"));
