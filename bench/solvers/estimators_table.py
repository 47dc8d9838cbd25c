"""Markdown tables of a ``bench/solvers/estimators_table.sh`` run: one row per corpus and estimator,
then the error per family of the hard corpus.

Usage: ``python bench/solvers/estimators_table.py OUT`` (the script's output folder).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

CORPORA = (("builtin", "built-in corpus"), ("expert", "expert positions"), ("hard", "hard corpus"))


def cell(value: float | None, form: str) -> str:
    """``value`` formatted, or ``-`` when there is none."""
    return "-" if value is None else format(value, form)


def main(out: Path) -> None:
    """Prints the tables of the run in ``out``."""
    print(f"Machine: {' / '.join((out / 'machine.txt').read_text().split(chr(10))[:3])}  ")
    print(f"Load at start: {(out / 'uptime_start.txt').read_text().strip()}  ")
    print(f"Load at end: {(out / 'uptime_end.txt').read_text().strip()}\n")
    print(
        "| corpus | estimator | family | solved | median ms | p95 ms | pos/s batched "
        "| max abs diff | mean abs diff | Brier | log loss | safe called unsafe "
        "| called safe, not safe | win % (95 % CI) |"
    )
    print("|" + "---|" * 14)
    for folder, label in CORPORA:
        summary = json.loads((out / folder / "summary.json").read_text())
        for r in summary["summary"]:
            games = r.get("games")
            win = "-"
            if games:
                win = (
                    f"{100 * games['win_rate']:.1f} ({100 * games['ci_low']:.1f}-"
                    f"{100 * games['ci_high']:.1f}), n={games['games']}"
                )
            print(
                f"| {label} ({summary['positions']}) | {r['backend']} | {r['family']} "
                f"| {r['solved']} | {cell(r['median_ms'], '.2f')} | {cell(r['p95_ms'], '.2f')} "
                f"| {cell(r['positions_per_s'], '.0f')} | {cell(r['max_abs_diff'], '.3g')} "
                f"| {cell(r['mean_abs_diff'], '.3g')} | {cell(r['brier'], '.3g')} "
                f"| {cell(r['log_loss'], '.4f')} | {r['certain_safe_called_unsafe']} "
                f"| {r['called_safe_not_safe']} | {win} |"
            )
    hard = json.loads((out / "hard" / "summary.json").read_text())
    names = [r["backend"] for r in hard["summary"] if not r["exact"]]
    print("\nHard corpus by family: mean abs diff (Brier)\n")
    print("| family | positions | " + " | ".join(names) + " |")
    print("|" + "---|" * (2 + len(names)))
    for row in hard["by_family"]:
        values = " | ".join(
            f"{cell(row[n].get('mean_abs_diff'), '.3g')} ({cell(row[n].get('brier'), '.3g')})"
            for n in names
        )
        print(f"| {row['family']} | {row['positions']} | {values} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
