# SPDX-License-Identifier: GPL-2.0
"""The outcome rules, as the module exports them in its JSON report ("rules").

The module holds the rules (the ranking of outcomes and the expectation -> KTAP table);
report.json carries them:
  "rules": {"rank": ["not_run", "unsupported", "protected", "inconclusive", "vulnerable", "error"],
            "ktap": [{"outcome": ..., "known_gap": bool, "configured": bool, "ktap": "ok"|"not ok"|"skip"|"error"}, ...]}
This is the one copy on the host: hptool collect, hptool judge and hptool matrix-render look them up here,
never in a table of their own. A report without rules (an older module) is an error.
"""

OUTCOMES = ("not_run", "unsupported", "protected", "inconclusive", "vulnerable", "error")
KTAP = ("ok", "not ok", "skip", "error")


class RulesError(ValueError):
    pass


def rules_of(report, where="report.json"):
    """the "rules" of a report, checked: every outcome ranked once, a KTAP verdict for
    every (outcome, known_gap, configured)."""
    rules = (report or {}).get("rules") if isinstance(report, dict) else None
    if not isinstance(rules, dict):
        raise RulesError(f"{where} has no \"rules\": it was written by an older hardprobe module "
                         "(before the outcome rules were exported); run the target again")
    rank, table = rules.get("rank"), rules.get("ktap")
    if not isinstance(rank, list) or sorted(rank) != sorted(OUTCOMES):
        raise RulesError(f"{where}: rules.rank is not a ranking of {', '.join(OUTCOMES)}: {rank!r}")
    seen = set()
    for r in table if isinstance(table, list) else [None]:
        if (not isinstance(r, dict) or r.get("outcome") not in OUTCOMES or r.get("ktap") not in KTAP
                or not isinstance(r.get("known_gap"), bool) or not isinstance(r.get("configured"), bool)):
            raise RulesError(f"{where}: bad rules.ktap record {r!r}")
        seen.add((r["outcome"], r["known_gap"], r["configured"]))
    missing = [(o, g, c) for o in OUTCOMES for g in (False, True) for c in (False, True)
               if (o, g, c) not in seen]
    if missing:
        raise RulesError(f"{where}: rules.ktap lacks {missing[0]} ({len(missing)} missing)")
    return rules


def rank(rules, outcome):
    """the rank of an outcome (an unknown one ranks as error)."""
    r = rules["rank"]
    return r.index(outcome) if outcome in r else r.index("error")


def ktap_of(rules, outcome, known_gap, configured):
    """the KTAP verdict of an outcome: "ok", "not ok", "skip" or "error"."""
    for r in rules["ktap"]:
        if (r["outcome"], r["known_gap"], r["configured"]) == (outcome, bool(known_gap), bool(configured)):
            return r["ktap"]
    raise RulesError(f"no KTAP rule for outcome {outcome!r} (known_gap {known_gap}, configured {configured})")


def counts(probe):
    """a probe counts toward its feature's outcome unless it got through a known gap."""
    return not (probe.get("outcome") == "vulnerable" and probe.get("known_gap"))


def feature_outcome(rules, probes):
    """a feature's outcome: the highest-ranked outcome of its probes that count
    (not_run when none does)."""
    worst = rules["rank"][0]
    for p in probes:
        if counts(p) and rank(rules, p.get("outcome")) > rank(rules, worst):
            worst = p["outcome"] if p.get("outcome") in rules["rank"] else "error"
    return worst


def known_gaps(probes):
    """the probes that got through a documented hole (left out of the outcome)."""
    return [p for p in probes or [] if not counts(p)]


def by_chance(outcome, probes):
    """an inconclusive outcome a random draw of its boot explains: every inconclusive
    probe among @probes says "chance": true (KASLR's first slot, a PAC that happened
    to be valid). Another boot decides it: a host comparing runs or judging an
    expectation skips it, never passes it."""
    inc = [p for p in probes or [] if p.get("outcome") == "inconclusive"]
    return outcome == "inconclusive" and bool(inc) and all(p.get("chance") is True for p in inc)
