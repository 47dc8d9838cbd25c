"""The README of a packaged benchmark set: what the instances are, where each came from,
how they were counted and graded, and how to check them.

Everything in it is computed from the package (no clock, no machine name, no path): the
same set gives the same text. Free text from a corpus (names, families) is written through
:func:`~mscsp.trust.escape.markdown_text`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import __version__
from ..evaluation.benchmark import CorpusEntry
from ..evaluation.families import FAMILIES
from ..trust.escape import markdown_text
from .grades import GRADES, LIMITS, TRIVIAL_SECONDS, limit_key
from .provenance import command, setting_of
from .routes import FIRST_ROUTE


@dataclass(frozen=True)
class SetFacts:
    """What the README says of a set beyond its records.

    Attributes:
        title: The set's name (the archive's folder).
        origin: Where the positions came from (``families.jsonl``, its SHA-256).
        formats: The ``c format:`` lines of the instance files (one, normally).
        routes: The second routes run (:data:`~mscsp.export.routes.ROUTES`).
        time_limit: Seconds of each count (``None``: none).
        skipped: ``{"source", "reason"}`` of each position left out.
        counters: ``{counter: [time limits of its runs]}`` of the runs graded from.
        mine_numbers: ``all`` or ``peak`` (which mine numbers became instances).
    """

    title: str
    origin: str
    formats: tuple[str, ...]
    routes: tuple[str, ...]
    time_limit: float | None
    skipped: tuple[dict[str, str], ...]
    counters: dict[str, list[float | None]]
    mine_numbers: str


def readme(
    facts: SetFacts, records: Sequence[dict[str, Any]], entries: Sequence[CorpusEntry]
) -> str:
    """The README's Markdown text."""
    two = sum(len(r["counted_by"]) >= 2 for r in records)
    positions = len({r["position"] for r in records})
    decided = len(entries) - positions - len(facts.skipped)
    intro = [
        f"{len(records)} instances (DIMACS CNF) from {positions} of the {len(entries)} "
        f"positions of {markdown_text(facts.origin)}, each with its exact count; {two} of "
        "them counted by two independent routes that agree.",
        f"Made by mscsp {__version__} (`mscsp export --package`).",
    ]
    if facts.skipped:
        intro.append(f"{len(facts.skipped)} positions are left out (below).")
    if decided:
        intro.append(f"{decided} have no component left to count (the rules decide every cell).")
    lines = [
        f"# {markdown_text(facts.title)}: Minesweeper model counting instances",
        "",
        " ".join(intro),
        "",
        "## Files",
        "",
        "- `instances/`: one CNF file per instance, `pPPPPP-cCCC-kKKK.cnf` (position, component,"
        " mine number).",
        "- `index.jsonl`: one JSON object per instance (below).",
        '- `corpus.jsonl`: the positions, one `{"board", "family", "name"}` per line, in '
        "order (line `P + 1` is position `P`).",
        "- `SHA256SUMS`: the SHA-256 of every other file; check with `sha256sum -c SHA256SUMS`.",
        "",
        "## What an instance is",
        "",
        "A position's covered cells next to a number split into independent components (after"
        " the deductions of the rules); an instance is *the layouts of one component's cells"
        " with exactly `k` mines*"
        + (
            ", for the `k` with the most layouts (one instance per component)."
            if facts.mine_numbers == "peak"
            else ", for every `k` any layout holds."
        )
        + " One Boolean variable per cell (true: a mine), variables `1..cells`; the line "
        "`c cells` gives each one's board cell. A number's constraint is stated directly; the "
        "mine number by a cardinality encoding whose auxiliary variables are not shown: the "
        "count asked for is the **projected** count on the `c p show` variables (track "
        "`c t pmc`).",
        "",
        "Format, as the files say it:",
        "",
        *[f"    {line}" for line in facts.formats],
        "",
        "## Counts: two routes",
        "",
        _routes_text(facts, records, two),
        "",
        "## Families",
        "",
        *_families_table(records, entries),
        "",
        "## Grades",
        "",
        *_grades_text(facts, records),
        "",
        "## Positions",
        "",
        *_positions_table(records, entries),
        "",
        *_skipped_text(facts),
        "## `index.jsonl`",
        "",
        "| key | meaning |",
        "|---|---|",
        "| `file` | the instance, relative to this folder |",
        "| `count` | the exact projected count, a decimal string |",
        f"| `counted_by` | the routes that gave this count: `{FIRST_ROUTE}` and the second ones |",
        "| `not_counted` | `{route: why}` for a second route that gave no count |",
        "| `grades` | `{limit: {grade, solved_by, not_measured}}`, limits in seconds |",
        "| `position`, `component`, `mines` | where the instance comes from (`k`) |",
        "| `cells`, `variables`, `constraints` | cell variables, all variables, clauses |",
        "| `source`, `family` | the position's corpus line and family |",
        "| `kind`, `encoding` | the track (`pmc`) and the cardinality encoding |",
        "",
        "## Check a counter",
        "",
        "```bash",
        "jq -r '[.file, .count] | @tsv' index.jsonl | while IFS=$'\\t' read -r file count; do",
        "  got=$(ganak \"$file\" | awk '/^c s exact arb int/ {print $6} /^s mc/ {print $3}')",
        '  [ "$got" = "$count" ] || echo "DISAGREE $file: $count expected, $got"',
        "done",
        "```",
        "",
    ]
    return "\n".join(lines)


def _routes_text(facts: SetFacts, records: Sequence[dict[str, Any]], two: int) -> str:
    """How the counts were made, and how many each route confirmed."""
    limit = "no time limit" if facts.time_limit is None else f"{facts.time_limit:g} s each"
    confirmed = Counter(route for r in records for route in r["counted_by"][1:])
    why = Counter(why for r in records for why in r.get("not_counted", {}).values())
    text = (
        f"`count` is `{FIRST_ROUTE}`'s (mscsp's default counter: a search over groups of "
        "interchangeable cells). Each instance was counted again by "
        + " and ".join(f"`{route}`" for route in facts.routes)
        + f" ({limit}): `d4` and `ganak` count the file itself (a model counter reading the "
        "CNF, encoding included); `mdd` recounts the component (a decision diagram evaluated "
        "modulo primes, no code shared with the search). No count in this set has a second "
        "route against it: a disagreement stops the packaging. "
        f"**{two} of {len(records)} instances have two agreeing counts** ("
        + ", ".join(f"{route}: {confirmed[route]}" for route in facts.routes)
        + ")."
    )
    if len(records) > two:
        text += (
            f" The other {len(records) - two} have `{FIRST_ROUTE}`'s count only ("
            + "; ".join(f"{n}: {reason}" for reason, n in sorted(why.items()))
            + ")."
        )
    return text


def _families_table(records: Sequence[dict[str, Any]], entries: Sequence[CorpusEntry]) -> list[str]:
    """One row per family: what it is, board sizes and densities, instances and cells."""
    by_family: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_family[record["family"]].append(record)
    rows = [
        "| family | what it is | positions | board sizes | mine density | instances | cells |",
        "|---|---|---|---|---|---|---|",
    ]
    for family in sorted(by_family):
        found = by_family[family]
        boards = [entries[p].board for p in sorted({r["position"] for r in found})]
        sizes = sorted({b.shape for b in boards}, key=lambda s: (s[0] * s[1], s))
        densities = [b.mines / (b.shape[0] * b.shape[1]) for b in boards]
        cells = [r["cells"] for r in found]
        what = FAMILIES[family].help if family in FAMILIES else "(not an mscsp corpus family)"
        rows.append(
            f"| {markdown_text(family)} | {markdown_text(what)} | {len(boards)} | "
            + ", ".join(f"{r}x{c}" for r, c in sizes)
            + f" | {_span(densities, '.3f')} | {len(found)} | {_span(cells, 'd')} |"
        )
    rows += [
        "",
        "Mine density: the board's mines over its cells. The families are "
        "`mscsp/evaluation/families.py`'s (`mscsp corpus FAMILY`): each position is consistent"
        " by construction (a mine layout drawn first, the numbers its counts).",
    ]
    return rows


def _span(values: Sequence[float], spec: str) -> str:
    """``lowest to highest``, or the one value."""
    low, high = format(min(values), spec), format(max(values), spec)
    return low if low == high else f"{low} to {high}"


def _grades_text(facts: SetFacts, records: Sequence[dict[str, Any]]) -> list[str]:
    """The grade definitions, the runs graded from, and how many instances got each."""
    lines = [
        "Graded as the competitions grade, from measured runs (of `mscsp bench` on these "
        "positions, or of counter programs on these files), at each limit: **trivial** "
        "(every counter counted it, each in under "
        f"{TRIVIAL_SECONDS:g} s), **easy** (every counter within the limit), **hard** (some "
        "counters, not all), **beyond** (no counter: beyond every counter at this limit), "
        "**not measured** (some counter's outcome at this limit is unknown: no run, or a run "
        "under a smaller limit that failed; never guessed). A bench counts a position whole, "
        "every component and mine number at once: an instance carries its position's grade "
        "for a bench's counters, and its own for a counter run on its file.",
        "",
    ]
    if not facts.counters:
        lines.append("No runs were given: every instance is **not measured**.")
        return lines
    lines.append(
        "Counters and the time limits of their runs: "
        + "; ".join(
            f"`{markdown_text(name)}` "
            + ", ".join("no limit" if t is None else f"{t:g} s" for t in sorted_limits(limits))
            for name, limits in sorted(facts.counters.items())
        )
        + "."
    )
    lines += ["", "| limit | " + " | ".join(GRADES) + " |", "|---" * (len(GRADES) + 1) + "|"]
    for limit in LIMITS:
        key = limit_key(limit)
        tally = Counter(r["grades"][key]["grade"] for r in records)
        lines.append(f"| {key} s | " + " | ".join(str(tally[g]) for g in GRADES) + " |")
    return lines


def sorted_limits(limits: list[float | None]) -> list[float | None]:
    """Distinct limits, smallest first (no limit last)."""
    return sorted(set(limits), key=lambda t: (t is None, t or 0.0))


def _positions_table(
    records: Sequence[dict[str, Any]], entries: Sequence[CorpusEntry]
) -> list[str]:
    """One row per position: where it came from, the command that makes it, its grades."""
    by_position: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_position[record["position"]].append(record)
    keys = [limit_key(limit) for limit in LIMITS]
    rows = [
        "| position | name | made by | size | mines | instances | "
        + " | ".join(f"grade {k} s" for k in keys)
        + " |",
        "|---" * (6 + len(keys)) + "|",
    ]
    for position, found in sorted(by_position.items()):
        entry = entries[position]
        setting = setting_of(entry)
        made = f"`{command(setting)}`" if setting is not None else "(not regenerated)"
        rows.append(
            f"| {position} | {markdown_text(entry.name)} | {made} | "
            f"{entry.board.shape[0]}x{entry.board.shape[1]} | {entry.board.mines} | "
            f"{len(found)} | " + " | ".join(found[0]["grades"][k]["grade"] for k in keys) + " |"
        )
    rows += [
        "",
        '"Made by": the `mscsp corpus` command that writes this very position again (checked'
        " when packaging: the same board); `(not regenerated)` where the name does not read "
        "as a generator's setting that makes it.",
    ]
    return rows


def _skipped_text(facts: SetFacts) -> list[str]:
    """The positions left out, and why."""
    if not facts.skipped:
        return []
    lines = [
        "## Positions left out",
        "",
        f"{len(facts.skipped)} positions of the corpus have no instance here: `{FIRST_ROUTE}` "
        "gave no count of them (past the time limit: beyond this set's exact counts, not "
        "easier; or a board no layout fits).",
        "",
    ]
    lines += [
        f"- {markdown_text(s['source'])}: {markdown_text(s['reason'])}" for s in facts.skipped
    ]
    return [*lines, ""]
