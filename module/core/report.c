// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe renderers: one result model (struct hp_run), three views (text,
 * KTAP version 1, JSON). No renderer computes an outcome; hp_expect() maps
 * an outcome and the configuration onto the KTAP verdict for all of them.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/utsname.h>

#include "../hardprobe.h"

static const char *const hp_ktap_names[] = {
	[HP_KTAP_OK] = "ok",
	[HP_KTAP_NOT_OK] = "not ok",
	[HP_KTAP_SKIP] = "skip",
	[HP_KTAP_ERROR] = "error",
};

/* Why a verdict is what it is, for KTAP directives and the text report. */
static void hp_why(char *buf, size_t len, enum hp_outcome o, bool known_gap,
		   const struct hp_feature *f, const struct hp_layers *l,
		   const char *unavailable, const char *evidence)
{
	if (o == HP_VULNERABLE && known_gap)
		snprintf(buf, len, "known gap: %s", evidence);
	else if (o == HP_VULNERABLE && !l->configured)
		snprintf(buf, len, "not configured: %s%s%s%s", l->configured_txt,
			 unavailable ? " (" : "", unavailable ?: "",
			 unavailable ? ")" : "");
	else if (o == HP_VULNERABLE)
		snprintf(buf, len, "configured (%s) but vulnerable", f->symbol);
	else if (o == HP_INCONCLUSIVE)
		snprintf(buf, len, "inconclusive: %s", evidence);
	else
		snprintf(buf, len, "%s", evidence);
}

/* Print @str with the characters KTAP and lines cannot carry replaced. */
static void hp_put_clean(struct seq_buf *s, const char *str)
{
	for (; *str; str++)
		hp_seq_buf_putc(s, (*str == '#' || *str == '\n') ? ' ' : *str);
}

/*
 * The evidence of the first probe whose outcome decided the feature, after
 * a count of the outcomes when the feature has several probes.
 */
static const char *hp_feature_evidence(const struct hp_run *run,
				       const struct hp_feature_result *fr,
				       char *buf, size_t len)
{
	unsigned int n[HP_OUTCOME_MAX] = {}, gaps = 0, sep = 0, i, o;
	const char *ev = fr->count ? run->probes[fr->first].res.evidence : "no probes";
	struct seq_buf s;

	for (i = fr->first; i < fr->first + fr->count; i++) {
		const struct hp_result *r = &run->probes[i].res;

		if (r->outcome < HP_OUTCOME_MAX)
			n[r->outcome]++;
		gaps += r->known_gap && r->outcome == HP_VULNERABLE;
	}
	for (i = fr->first + fr->count; i-- > fr->first;)
		if (run->probes[i].res.outcome == fr->outcome &&
		    !run->probes[i].res.known_gap)
			ev = run->probes[i].res.evidence;
	if (fr->count < 2)
		return ev;
	seq_buf_init(&s, buf, len);
	seq_buf_printf(&s, "%u probes:", fr->count);
	for (o = 0; o < HP_OUTCOME_MAX; o++)
		if (n[o])
			seq_buf_printf(&s, "%s %u %s%s", sep++ ? "," : "", n[o],
				       hp_outcome_name(o),
				       o == HP_VULNERABLE && gaps ? " (known gap)" : "");
	seq_buf_printf(&s, "; %s", ev);
	seq_buf_str(&s);
	return buf;
}

#define HP_WHY_LEN (HP_EVIDENCE_LEN + 64)

void hp_render_text(struct seq_buf *s, const struct hp_run *run)
{
	unsigned int fi, i;
	char *why = kmalloc(HP_WHY_LEN, GFP_KERNEL);
	char *sum = kmalloc(HP_WHY_LEN, GFP_KERNEL);

	if (!why || !sum)
		goto out;
	seq_buf_printf(s, "hardprobe report: target %s, kernel %s %s, built by %s\n\n",
		       run->target, utsname()->release, utsname()->machine,
		       CONFIG_CC_VERSION_TEXT);
	seq_buf_printf(s, "%-18s %-13s %-7s %s\n", "FEATURE", "OUTCOME", "KTAP",
		       "WHY");
	for (fi = 0; fi < run->nr_features; fi++) {
		const struct hp_feature_result *fr = &run->features[fi];
		enum hp_ktap k = hp_expect(fr->outcome, false, fr->layers.configured);

		hp_why(why, HP_WHY_LEN, fr->outcome, false, fr->feature,
		       &fr->layers, fr->unavailable, hp_feature_evidence(run, fr, sum, HP_WHY_LEN));
		seq_buf_printf(s, "%-18s %-13s %-7s %s\n", fr->feature->id,
			       hp_outcome_name(fr->outcome), hp_ktap_names[k], why);
	}
	{
		unsigned int nsafe = 0;
		u64 ns = 0;

		for (i = 0; i < run->nr_probes; i++) {
			if (run->probes[i].probe->kind != HP_SAFE)
				continue;
			nsafe++;
			ns += run->probes[i].res.ns;
		}
		seq_buf_printf(s, "\nsafe probes: %u in %llu.%03llu ms\n", nsafe,
			       div_u64(ns, 1000000), div_u64(ns, 1000) % 1000);
	}
	hp_seq_buf_puts(s, "\nDETAIL\n");
	for (fi = 0; fi < run->nr_features; fi++) {
		const struct hp_feature_result *fr = &run->features[fi];

		seq_buf_printf(s, "\n%s: %s\n", fr->feature->id,
			       hp_outcome_name(fr->outcome));
		seq_buf_printf(s, "  configured: %s\n", fr->layers.configured_txt);
		seq_buf_printf(s, "  built:      %s\n", fr->layers.built);
		seq_buf_printf(s, "  active:     %s\n", fr->layers.active);
		for (i = fr->first; i < fr->first + fr->count; i++) {
			const struct hp_probe_result *pr = &run->probes[i];

			seq_buf_printf(s, "  %-32s %-5s %-12s %8llu ns  %s\n",
				       pr->probe->name, hp_kind_name(pr->probe->kind),
				       hp_outcome_name(pr->res.outcome), pr->res.ns,
				       pr->res.evidence);
		}
	}
out:
	kfree(why);
	kfree(sum);
}

/*
 * A result line. Its name and directive never change from run to run: CI
 * parsers (Linaro's kselftest parser, as KernelCI and LKFT use it) append a
 * SKIP's reason to the test name, so the reason, which holds evidence
 * (counts, addresses, pids), goes on a diagnostic line before it.
 */
static void hp_ktap_line(struct seq_buf *s, const char *indent, unsigned int n,
			 const char *name, enum hp_ktap k, const char *why)
{
	if (k == HP_KTAP_SKIP || k == HP_KTAP_ERROR) {
		seq_buf_printf(s, "%s# %s: %s: ", indent, name,
			       k == HP_KTAP_SKIP ? "skip" : "error");
		hp_put_clean(s, why);
		hp_seq_buf_putc(s, '\n');
	}
	seq_buf_printf(s, "%s%s %u %s", indent,
		       k == HP_KTAP_OK || k == HP_KTAP_SKIP ? "ok" : "not ok",
		       n, name);
	if (k == HP_KTAP_SKIP)
		hp_seq_buf_puts(s, " # SKIP");
	else if (k == HP_KTAP_ERROR)
		hp_seq_buf_puts(s, " # ERROR");
	hp_seq_buf_putc(s, '\n');
}

void hp_render_ktap(struct seq_buf *s, const struct hp_run *run)
{
	unsigned int fi, i;
	char *why = kmalloc(HP_WHY_LEN, GFP_KERNEL);
	char *sum = kmalloc(HP_WHY_LEN, GFP_KERNEL);

	if (!why || !sum)
		goto out;
	seq_buf_printf(s, "KTAP version 1\n1..%u\n", run->nr_features);
	for (fi = 0; fi < run->nr_features; fi++) {
		const struct hp_feature_result *fr = &run->features[fi];
		const struct hp_layers *l = &fr->layers;
		enum hp_ktap k;

		seq_buf_printf(s, "  KTAP version 1\n  # Subtest: %s\n  1..%u\n",
			       fr->feature->id, fr->count);
		for (i = fr->first; i < fr->first + fr->count; i++) {
			const struct hp_probe_result *pr = &run->probes[i];
			const struct hp_result *r = &pr->res;

			seq_buf_printf(s, "  # %s: %s: ", pr->probe->name,
				       hp_outcome_name(r->outcome));
			hp_put_clean(s, r->evidence);
			hp_seq_buf_putc(s, '\n');
			k = hp_expect(r->outcome, r->known_gap, l->configured);
			hp_why(why, HP_WHY_LEN, r->outcome, r->known_gap,
			       fr->feature, l, fr->unavailable, r->evidence);
			hp_ktap_line(s, "  ", i - fr->first + 1, pr->probe->name, k, why);
		}
		seq_buf_printf(s, "# %s: %s; configured: %s; built: %s; active: %s\n",
			       fr->feature->id, hp_outcome_name(fr->outcome),
			       l->configured_txt, l->built, l->active);
		k = hp_expect(fr->outcome, false, l->configured);
		hp_why(why, HP_WHY_LEN, fr->outcome, false, fr->feature, l,
		       fr->unavailable, hp_feature_evidence(run, fr, sum, HP_WHY_LEN));
		hp_ktap_line(s, "", fi + 1, fr->feature->id, k, why);
	}
out:
	kfree(why);
	kfree(sum);
}

static void hp_json_str(struct seq_buf *s, const char *str)
{
	hp_seq_buf_putc(s, '"');
	for (; str && *str; str++) {
		unsigned char c = *str;

		if (c == '"' || c == '\\')
			seq_buf_printf(s, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			seq_buf_printf(s, "\\u%04x", c);
		else
			hp_seq_buf_putc(s, c);
	}
	hp_seq_buf_putc(s, '"');
}

static void hp_json_kv(struct seq_buf *s, const char *key, const char *val,
		       bool comma)
{
	hp_json_str(s, key);
	hp_seq_buf_putc(s, ':');
	hp_json_str(s, val);
	if (comma)
		hp_seq_buf_putc(s, ',');
}

/* "key":["a","b"], of a NULL-ended list (NULL: an empty one), and a comma */
static void hp_json_list(struct seq_buf *s, const char *key, const char *const *list)
{
	unsigned int i;

	hp_json_str(s, key);
	hp_seq_buf_puts(s, ":[");
	for (i = 0; list && list[i]; i++) {
		if (i)
			hp_seq_buf_putc(s, ',');
		hp_json_str(s, list[i]);
	}
	hp_seq_buf_puts(s, "],");
}

/*
 * The module's outcome rules, for the programs that judge its results: the
 * ranking (a feature's outcome is its probes' highest, gaps aside) and
 * hp_expect() for every outcome, known gap and configuration.
 */
static void hp_json_rules(struct seq_buf *s, const char *const *ktap)
{
	unsigned int o, r, gap, conf, sep = 0;

	hp_seq_buf_puts(s, "\"rules\":{\"rank\":[");
	for (r = 0; r < HP_OUTCOME_MAX; r++)
		for (o = 0; o < HP_OUTCOME_MAX; o++)
			if (hp_outcome_rank(o) == r)
				seq_buf_printf(s, "%s\"%s\"", sep++ ? "," : "", hp_outcome_name(o));
	hp_seq_buf_puts(s, "],\n\"ktap\":[");
	sep = 0;
	for (o = 0; o < HP_OUTCOME_MAX; o++)
		for (gap = 0; gap < 2; gap++)
			for (conf = 0; conf < 2; conf++) {
				seq_buf_printf(s, "%s{\"outcome\":\"%s\",", sep++ ? ",\n " : "",
					       hp_outcome_name(o));
				seq_buf_printf(s, "\"known_gap\":%s,\"configured\":%s,",
					       gap ? "true" : "false", conf ? "true" : "false");
				seq_buf_printf(s, "\"ktap\":\"%s\"}",
					       ktap[hp_expect(o, gap, conf)]);
			}
	hp_seq_buf_puts(s, "]},\n");
}

void hp_render_json(struct seq_buf *s, const struct hp_run *run)
{
	static const char *const ktap_json[] = {
		[HP_KTAP_OK] = "ok", [HP_KTAP_NOT_OK] = "not ok",
		[HP_KTAP_SKIP] = "skip", [HP_KTAP_ERROR] = "error",
	};
	unsigned int fi, i;
	char *cmdline = kzalloc(1024, GFP_KERNEL);
	char *why = kmalloc(HP_WHY_LEN, GFP_KERNEL);
	char *sum = kmalloc(HP_WHY_LEN, GFP_KERNEL);

	if (!cmdline || !why || !sum)
		goto out;
	hp_read_file("/proc/cmdline", cmdline, 1024);
	hp_seq_buf_puts(s, "{\"schema\":1,");
	hp_json_kv(s, "target", run->target, true);
	hp_seq_buf_puts(s, "\"kernel\":{");
	hp_json_kv(s, "release", utsname()->release, true);
	hp_json_kv(s, "version", utsname()->version, true);
	hp_json_kv(s, "arch", utsname()->machine, true);
	hp_json_kv(s, "compiler", CONFIG_CC_VERSION_TEXT, true);
	hp_json_kv(s, "cmdline", cmdline, false);
	hp_seq_buf_puts(s, "},\n");
	hp_json_rules(s, ktap_json);
	hp_seq_buf_puts(s, "\"features\":[\n");
	for (fi = 0; fi < run->nr_features; fi++) {
		const struct hp_feature_result *fr = &run->features[fi];
		enum hp_ktap k = hp_expect(fr->outcome, false, fr->layers.configured);

		hp_why(why, HP_WHY_LEN, fr->outcome, false, fr->feature,
		       &fr->layers, fr->unavailable, hp_feature_evidence(run, fr, sum, HP_WHY_LEN));
		hp_seq_buf_putc(s, '{');
		hp_json_kv(s, "feature", fr->feature->id, true);
		hp_json_kv(s, "title", fr->feature->title, true);
		hp_json_kv(s, "group", fr->feature->group, true);
		hp_json_kv(s, "family", fr->feature->family, true);
		hp_json_kv(s, "outcome", hp_outcome_name(fr->outcome), true);
		seq_buf_printf(s, "\"configured_bool\":%s,",
			       fr->layers.configured ? "true" : "false");
		hp_json_kv(s, "symbol", fr->feature->symbol, true);
		hp_json_kv(s, "khc", fr->feature->impl->khc ?: "", true);
		hp_json_list(s, "lkdtm", fr->feature->impl->lkdtm);
		hp_json_list(s, "off", fr->feature->impl->off);
		hp_json_list(s, "on", fr->feature->impl->on);
		hp_json_kv(s, "configured", fr->layers.configured_txt, true);
		hp_json_kv(s, "built", fr->layers.built, true);
		hp_json_kv(s, "active", fr->layers.active, true);
		hp_json_kv(s, "ktap", ktap_json[k], true);
		hp_json_kv(s, "why", why, true);
		hp_seq_buf_puts(s, "\"probes\":[\n");
		for (i = fr->first; i < fr->first + fr->count; i++) {
			const struct hp_probe_result *pr = &run->probes[i];

			hp_seq_buf_puts(s, " {");
			hp_json_kv(s, "probe", pr->probe->name, true);
			hp_json_kv(s, "kind", hp_kind_name(pr->probe->kind), true);
			hp_json_kv(s, "outcome", hp_outcome_name(pr->res.outcome), true);
			seq_buf_printf(s, "\"known_gap\":%s,",
				       pr->res.known_gap ? "true" : "false");
			seq_buf_printf(s, "\"chance\":%s,",
				       pr->res.chance ? "true" : "false");
			/* a protected probe's catch stopped the bug, or only reported it */
			if (pr->res.outcome == HP_PROTECTED)
				seq_buf_printf(s, "\"stopped\":%s,",
					       pr->res.went_on ? "false" : "true");
			hp_json_kv(s, "evidence", pr->res.evidence, true);
			/*
			 * WARN-class reports raised, the most it may raise, and
			 * other tasks' WARNs meanwhile, not counted in "warns"
			 */
			seq_buf_printf(s, "\"warns\":%u,\"warns_max\":%u,\"warns_foreign\":%u,",
				       pr->res.warns, pr->probe->warns, pr->res.warns_foreign);
			/* what a log checker must not count as a finding */
			hp_json_kv(s, "reports", pr->probe->reports ?: "", true);
			hp_json_list(s, "lkdtm", pr->probe->lkdtm);
			seq_buf_printf(s, "\"ns\":%llu}%s\n", pr->res.ns,
				       i + 1 < fr->first + fr->count ? "," : "");
		}
		seq_buf_printf(s, "]}%s\n", fi + 1 < run->nr_features ? "," : "");
	}
	hp_seq_buf_puts(s, "]}\n");
out:
	kfree(cmdline);
	kfree(why);
	kfree(sum);
}
