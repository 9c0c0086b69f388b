// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe registry: the feature table expanded from registry.h, and the
 * flat probe table built from it at load. Feature order is the registry's;
 * probe order is feature by feature, each in its HP_PROBE() order.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"
#include "../registry.h"

#define HP_IMPL_DECLARE(id_, fam_, grp_, title_, sym_)			\
	extern const struct hp_feature_impl hp_impl_##id_;
HP_FEATURES(HP_IMPL_DECLARE)

#define HP_FEATURE_ROW(id_, fam_, grp_, title_, sym_)			\
	{ .id = #id_, .family = #fam_, .group = grp_, .title = title_,	\
	  .symbol = sym_, .impl = &hp_impl_##id_ },

static const struct hp_feature hp_features[] = {
	HP_FEATURES(HP_FEATURE_ROW)
};

static const struct hp_probe **hp_probe_tab;
static unsigned int hp_nr_probes;

int hp_registry_init(void)
{
	unsigned int f, i, n = 0;

	for (f = 0; f < ARRAY_SIZE(hp_features); f++)
		n += hp_features[f].impl->nr_probes;
	hp_probe_tab = kcalloc(n, sizeof(*hp_probe_tab), GFP_KERNEL);
	if (!hp_probe_tab)
		return -ENOMEM;
	for (f = 0; f < ARRAY_SIZE(hp_features); f++)
		for (i = 0; i < hp_features[f].impl->nr_probes; i++)
			hp_probe_tab[hp_nr_probes++] = &hp_features[f].impl->probes[i];
	return 0;
}

void hp_registry_exit(void)
{
	kfree(hp_probe_tab);
	hp_probe_tab = NULL;
	hp_nr_probes = 0;
}

unsigned int hp_feature_count(void)
{
	return ARRAY_SIZE(hp_features);
}

const struct hp_feature *hp_feature_at(unsigned int i)
{
	return i < ARRAY_SIZE(hp_features) ? &hp_features[i] : NULL;
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

const struct hp_feature *hardprobe_feature(const char *id)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hp_features); i++)
		if (!strcmp(hp_features[i].id, id))
			return &hp_features[i];
	return NULL;
}
EXPORT_SYMBOL_GPL(hardprobe_feature);

void hardprobe_feature_layers(const struct hp_feature *f, struct hp_layers *l)
{
	memset(l, 0, sizeof(*l));
	f->impl->layers(l);
}
EXPORT_SYMBOL_GPL(hardprobe_feature_layers);
