"""Paired comparison of two players (or two versions of one) on the same seeded games.

Both runs are ``mscsp play --log`` logs with the same board, first-click rule, first move
and seed, so game ``i`` has the same mine layout in both. Only the games where exactly one
side won carry information about which is stronger; the sign test on them gives
``z = (b - a) / sqrt(a + b)`` (``a``: only the first won, ``b``: only the second).

Usage::

    PYTHONPATH=$PWD python -m mscsp play -s best --preset expert -n 2000 --seed 1000000 \\
        --out bench/results/new.jsonl
    python bench/best_paired.py bench/results/old.jsonl bench/results/new.jsonl [--json]
    python bench/best_paired.py --markdown OLD1 NEW1 OLD2 NEW2 ...   # one table row per pair
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mscsp.harness import RunLog, wilson  # noqa: E402


def compare(old_log: str, new_log: str) -> dict:
    """Win counts on the games both logs finished, and the sign test on the discordant ones."""
    old_cfg, old = RunLog(old_log).read()
    new_cfg, new = RunLog(new_log).read()
    if old_cfg is None or new_cfg is None:
        raise SystemExit("both logs need a run header")
    same = ("rows", "cols", "mines", "first_click", "first_move", "seed")
    for key in same:
        if getattr(old_cfg, key) != getattr(new_cfg, key):
            raise SystemExit(f"the logs differ in {key}: not the same games")
    games = sorted(set(old) & set(new))
    old_only = sum(1 for i in games if old[i].won and not new[i].won)
    new_only = sum(1 for i in games if new[i].won and not old[i].won)
    n = len(games)
    old_wins = sum(old[i].won for i in games)
    new_wins = sum(new[i].won for i in games)
    differ = old_only + new_only
    return {
        "games": n,
        "board": f"{old_cfg.rows}x{old_cfg.cols}/{old_cfg.mines}",
        "first_click": old_cfg.first_click,
        "first_move": old_cfg.first_move,
        "seed": old_cfg.seed,
        "old": {"options": old_cfg.options, "wins": old_wins, "ci": wilson(old_wins, n)},
        "new": {"options": new_cfg.options, "wins": new_wins, "ci": wilson(new_wins, n)},
        "old_only": old_only,
        "new_only": new_only,
        "differ": differ,
        "z": (new_only - old_only) / math.sqrt(differ) if differ else 0.0,
        "seconds_per_game": {
            "old": sum(old[i].seconds for i in games) / max(n, 1),
            "new": sum(new[i].seconds for i in games) / max(n, 1),
        },
    }


def markdown_row(result: dict) -> str:
    """One row of the paired table in docs/results.md."""
    n = result["games"]
    cells = [result["board"], result["first_click"], str(n)]
    for side in ("old", "new"):
        wins = result[side]["wins"]
        low, high = result[side]["ci"]
        cells.append(f"{100 * wins / max(n, 1):.2f} ({100 * low:.2f}-{100 * high:.2f})")
    cells += [str(result["old_only"]), str(result["new_only"]), f"{result['z']:+.2f}"]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("logs", nargs="+", help="OLD NEW log pairs (JSONL, same games)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = parser.parse_args()
    if len(args.logs) % 2:
        parser.error("logs come in OLD NEW pairs")
    results = [compare(a, b) for a, b in zip(args.logs[::2], args.logs[1::2], strict=True)]
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0]))
        return
    if args.markdown:
        print(
            "| board | first click | games | old win % (95 % CI) | new win % (95 % CI) "
            "| only old won | only new won | sign test z |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for result in results:
            print(markdown_row(result))
        return
    for result in results:
        n = result["games"]
        for side in ("old", "new"):
            wins = result[side]["wins"]
            low, high = result[side]["ci"]
            print(
                f"{side}: {wins}/{n} = {wins / max(n, 1):.2%} [{low:.2%}, {high:.2%}] "
                f"{result['seconds_per_game'][side] * 1000:.0f} ms/game {result[side]['options']}"
            )
        print(
            f"differ on {result['differ']} games: old only {result['old_only']}, "
            f"new only {result['new_only']}, sign test z = {result['z']:+.2f}"
        )


if __name__ == "__main__":
    main()
