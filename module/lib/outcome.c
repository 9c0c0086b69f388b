// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe outcomes: their names, their ranking and the expectation rule
 * that maps an outcome onto a KTAP verdict. This is the one copy of both
 * rules in the module; the JSON report exports them ("rules") for the
 * programs that must apply them too.
 */
#include <linux/kernel.h>
#include <linux/module.h>

#include "../hardprobe.h"

static const char *const hp_outcome_names[HP_OUTCOME_MAX] = {
	[HP_NOT_RUN] = "not_run",
	[HP_PROTECTED] = "protected",
	[HP_VULNERABLE] = "vulnerable",
	[HP_UNSUPPORTED] = "unsupported",
	[HP_INCONCLUSIVE] = "inconclusive",
	[HP_ERROR] = "error",
};

const char *hp_outcome_name(enum hp_outcome o)
{
	return o < HP_OUTCOME_MAX ? hp_outcome_names[o] : "error";
}
EXPORT_SYMBOL_GPL(hp_outcome_name);

const char *hp_kind_name(enum hp_kind k)
{
	switch (k) {
	case HP_SAFE:
		return "safe";
	case HP_FATAL:
		return "fatal";
	case HP_PANIC:
		return "panic";
	}
	return "?";
}
EXPORT_SYMBOL_GPL(hp_kind_name);

/* A feature's outcome is the highest-ranked outcome of its probes. */
static const u8 hp_outcome_ranks[HP_OUTCOME_MAX] = {
	[HP_NOT_RUN] = 0, [HP_UNSUPPORTED] = 1, [HP_PROTECTED] = 2,
	[HP_INCONCLUSIVE] = 3, [HP_VULNERABLE] = 4, [HP_ERROR] = 5,
};

unsigned int hp_outcome_rank(enum hp_outcome o)
{
	return o < HP_OUTCOME_MAX ? hp_outcome_ranks[o] : hp_outcome_ranks[HP_ERROR];
}

/**
 * hp_expect() - compare an outcome with what the configuration promises
 * @o: the observed outcome
 * @known_gap: the outcome is a documented hole of the feature
 * @configured: the kernel's configuration asks for the feature
 *
 * Return: the KTAP verdict of the design's expectation table.
 */
enum hp_ktap hp_expect(enum hp_outcome o, bool known_gap, bool configured)
{
	switch (o) {
	case HP_PROTECTED:
		return HP_KTAP_OK;
	case HP_VULNERABLE:
		if (known_gap || !configured)
			return HP_KTAP_SKIP;
		return HP_KTAP_NOT_OK;
	case HP_ERROR:
		return HP_KTAP_ERROR;
	default:
		return HP_KTAP_SKIP;
	}
}
EXPORT_SYMBOL_GPL(hp_expect);
