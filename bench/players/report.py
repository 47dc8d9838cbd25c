"""Markdown tables for docs/results.md from the sweep logs and the speed log.

PYTHONPATH=. python bench/players/report.py > /tmp/tables.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mscsp.evaluation.harness import RunLog, Tally
from mscsp.game import PRESETS
from mscsp.players import PLAYERS

RULES = ("classic", "modern")


def win_table(results: Path) -> str:
    head = "| strategy | " + " | ".join(f"{p} {r}" for p in PRESETS for r in RULES) + " |"
    lines = [head, "|" + " --- |" * (1 + 2 * len(PRESETS))]
    for strategy in PLAYERS:
        cells = []
        for preset in PRESETS:
            for rule in RULES:
                log = results / f"{strategy}_{preset}_{rule}.jsonl"
                if not log.exists():
                    cells.append("-")
                    continue
                _, done = RunLog(log).read()
                s = Tally(done.values()).summary()
                cells.append(
                    f"**{100 * s.win_rate:.2f}** ({100 * s.ci_low:.2f}-"
                    f"{100 * s.ci_high:.2f}), n={s.games}"
                )
        lines.append(f"| `{strategy}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def detail_table(results: Path) -> str:
    lines = [
        "| strategy | preset | rule | games | cleared | moves | guesses | ms/game |",
        "|" + " --- |" * 8,
    ]
    for strategy in PLAYERS:
        for preset in PRESETS:
            for rule in RULES:
                log = results / f"{strategy}_{preset}_{rule}.jsonl"
                if log.exists():
                    s = Tally(RunLog(log).read()[1].values()).summary()
                    lines.append(
                        f"| `{strategy}` | {preset} | {rule} | {s.games} | "
                        f"{100 * s.cleared:.1f} % | {s.moves:.1f} | {s.guesses:.2f} | "
                        f"{1000 * s.seconds_per_game:.1f} |"
                    )
    return "\n".join(lines)


def speed_table(path: Path) -> str:
    if not path.exists():
        return "(no speed log)"
    rows = [json.loads(line) for line in path.open()]
    rate = {(d["strategy"], d["preset"]): d for d in rows}
    lines = ["| strategy | " + " | ".join(PRESETS) + " |", "|" + " --- |" * (1 + len(PRESETS))]
    for strategy in PLAYERS:
        cells = [
            f"{rate[(strategy, p)]['games_per_s']:.1f}" if (strategy, p) in rate else "-"
            for p in PRESETS
        ]
        lines.append(f"| `{strategy}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def limited_table(path: Path) -> str:
    if not path.exists():
        return "(no limited-traversal log)"
    lines = [
        "| preset | strategy | options | games | win rate (95 % CI) | games / CPU s |",
        "|" + " --- |" * 6,
    ]
    for d in map(json.loads, path.open()):
        options = ", ".join(f"{k}={v}" for k, v in d["options"].items()) or "exact"
        lines.append(
            f"| {d['preset']} | `{d['strategy']}` | {options} | {d['games']} | "
            f"{100 * d['win_rate']:.2f} ({100 * d['ci_low']:.2f}-"
            f"{100 * d['ci_high']:.2f}) | {d['games_per_cpu_s']:.0f} |"
        )
    return "\n".join(lines)


def paired_table(results: Path, a: str = "best", b: str = "csp-minprob") -> str:
    """``a`` against ``b`` on the games both played (same seed, same indices)."""
    lines = [
        f"| preset | rule | common games | `{a}` wins | `{b}` wins | only `{a}` won | "
        f"only `{b}` won |",
        "|" + " --- |" * 7,
    ]
    for preset in PRESETS:
        for rule in RULES:
            logs = [results / f"{s}_{preset}_{rule}.jsonl" for s in (a, b)]
            if not all(log.exists() for log in logs):
                continue
            done_a, done_b = (RunLog(log).read()[1] for log in logs)
            common = done_a.keys() & done_b.keys()
            only_a = sum(done_a[i].won and not done_b[i].won for i in common)
            only_b = sum(done_b[i].won and not done_a[i].won for i in common)
            lines.append(
                f"| {preset} | {rule} | {len(common)} | "
                f"{sum(done_a[i].won for i in common)} | "
                f"{sum(done_b[i].won for i in common)} | {only_a} | {only_b} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("bench/results"))
    args = parser.parse_args()
    print("## Win rates\n")
    print(win_table(args.results))
    print("\n## `best` against `csp-minprob` on the same games\n")
    print(paired_table(args.results))
    print("\n## Details\n")
    print(detail_table(args.results))
    print("\n## Speed (games per second, one core)\n")
    print(speed_table(args.results / "speed.jsonl"))
    print("\n## Limited traversal\n")
    print(limited_table(args.results / "limited.jsonl"))


if __name__ == "__main__":
    main()
