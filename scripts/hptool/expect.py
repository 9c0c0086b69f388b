# SPDX-License-Identifier: GPL-2.0
"""The expectation table (scripts/expect.table): where a feature's outcome on a booted
target is not the one its configuration predicts, that outcome, with the reason as a
comment.

The prediction is the rule the outcome vocabulary states: configured -> protected, not
configured -> vulnerable, "configured" being the module's configured layer in report.json
("configured_bool"; hptool judge checks every Kconfig value that layer states against the
kernel's own .config). A feature with no row, or a "." cell, is expected as predicted.

Format: comment lines (#) before the header row document the table; among them a block
that begins with a tag line "# [t1 t2 ...]" is the preamble of those targets' view. The
header row is "feature" and the target names. Then one row per deviating feature: its name
and one cell per target, an outcome, "." (as the configuration predicts) or "-" (no
expectation on that target: the feature is not judged there). A row whose name
begins with "@" holds a directive (@kunit skip: the kernel has no KUnit, the KUnit part
must be one skip line). The comment lines above a row explain it; a block that begins
with a tag line holds for the targets named there only, an untagged block (first) for
every target with a cell in the row.
"""
import re

OUTCOMES = ("not_run", "unsupported", "protected", "inconclusive", "vulnerable", "error")
DIRECTIVES = {"@kunit": ("skip",)}
NONE = "-"
PREDICTED = "."


def predict(configured):
    """the outcome a feature's configuration predicts"""
    return "protected" if configured else "vulnerable"
TAG = re.compile(r"^#\s*\[([A-Za-z0-9_. -]+)\]\s*$")


class TableError(ValueError):
    pass


class Row:
    def __init__(self, name, cells, blocks, lineno):
        self.name, self.cells, self.blocks, self.lineno = name, cells, blocks, lineno


class Table:
    def __init__(self, targets, rows, preamble, doc):
        self.targets, self.rows, self.preamble, self.doc = targets, rows, preamble, doc

    def check_target(self, target):
        if target not in self.targets:
            raise TableError(f"no column for target '{target}' in the expectation table "
                             f"(columns: {' '.join(self.targets)})")

    def expectations(self, target):
        """[(feature, cell)] of a target, in row order: an outcome or "." (predicted)."""
        self.check_target(target)
        return [(r.name, r.cells[target]) for r in self.rows
                if not r.name.startswith("@") and r.cells[target] != NONE]

    def expected(self, target, features):
        """[(feature, outcome, from the table?)] of a target: every feature of the module's
        report (features: [{"feature", "configured_bool"}], report.json's) in its order,
        its cell or its prediction, then the table's rows the report lacks (a check of
        theirs must fail: "missing")."""
        cells = dict(self.expectations(target))
        nojudge = {r.name for r in self.rows if r.cells[target] == NONE}
        out, seen = [], set()
        for f in features:
            name = f.get("feature")
            seen.add(name)
            if name in nojudge:
                continue
            cell = cells.get(name, PREDICTED)
            if cell == PREDICTED:
                out.append((name, predict(f.get("configured_bool")), False))
            else:
                out.append((name, cell, True))
        out += [(n, "as-configured" if c == PREDICTED else c, True) for n, c in cells.items() if n not in seen]
        return out

    def directives(self, target):
        """{"@kunit": "skip", ...} of a target."""
        self.check_target(target)
        return {r.name: r.cells[target] for r in self.rows
                if r.name.startswith("@") and r.cells[target] != NONE}

    def comments(self, target, row):
        """the comment lines of a row that hold for a target."""
        out = []
        for tags, lines in row.blocks:
            cell = row.cells[target]
            if (tags is None and cell not in (NONE, PREDICTED)) or (tags and target in tags and cell != PREDICTED):
                out += lines
        return out

    def render(self, target):
        """the target's view in the per-target file format of before (scripts/expect/<t>):
        its preamble, then for each row with an outcome its comments and "feature outcome";
        a feature it does not name is expected as its configuration predicts, or not judged
        ("-")."""
        self.check_target(target)
        out = []
        for tags, lines in self.preamble:
            if target in tags:
                out += lines
        for r in self.rows:
            out += self.comments(target, r)
            if r.cells[target] not in (NONE, PREDICTED):
                out.append(f"{r.name} {r.cells[target]}")
        return "\n".join(out) + "\n"


def _blocks(lines, path, lineno, targets):
    """[(tags or None, [comment lines])] of a run of comment lines."""
    blocks = []
    for line in lines:
        m = TAG.match(line)
        if m:
            tags = m.group(1).split()
            bad = [t for t in tags if t not in targets]
            if targets and bad:
                raise TableError(f"{path}:{lineno}: comment tag names unknown target(s) {' '.join(bad)}")
            blocks.append((tags, []))
        elif blocks:
            blocks[-1][1].append(line)
        else:
            blocks.append((None, [line]))
    return blocks


def parse(path, text=None):
    text = open(path).read() if text is None else text
    targets, rows, pending, preamble, doc = None, [], [], [], []
    seen = set()
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            pending.append(line.strip())
            continue
        cells = line.split()
        if targets is None:
            if cells[0] != "feature" or len(cells) < 2:
                raise TableError(f"{path}:{n}: the first row must be the header: feature <target>...")
            targets = cells[1:]
            for tags, lines in _blocks(pending, path, n, targets):
                (doc if tags is None else preamble).append(lines if tags is None else (tags, lines))
            pending = []
            continue
        name, vals = cells[0], cells[1:]
        if len(vals) != len(targets):
            raise TableError(f"{path}:{n}: row {name} has {len(vals)} cells for {len(targets)} targets")
        allowed = DIRECTIVES.get(name, OUTCOMES) if name.startswith("@") else OUTCOMES
        if name.startswith("@") and name not in DIRECTIVES:
            raise TableError(f"{path}:{n}: unknown directive {name} (known: {' '.join(DIRECTIVES)})")
        for t, v in zip(targets, vals):
            ok = (NONE,) + allowed + (() if name.startswith("@") else (PREDICTED,))
            if v not in ok:
                raise TableError(f"{path}:{n}: {name} on {t}: '{v}' is not one of {', '.join(ok)}")
        if name in seen:
            raise TableError(f"{path}:{n}: row {name} appears twice")
        seen.add(name)
        rows.append(Row(name, dict(zip(targets, vals)), _blocks(pending, path, n, targets), n))
        pending = []
    if targets is None:
        raise TableError(f"{path}: no header row (feature <target>...)")
    if pending:
        raise TableError(f"{path}: comment lines after the last row")
    return Table(targets, rows, preamble, doc)
