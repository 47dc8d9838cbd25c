"""Win rates at the anchors' scale: millions of classic expert games, beside the published
figures of David Hill's solver and of PSEQ (issue 49).

The games are ``mscsp play``'s, resumable and on every core; Hill's rules are expert
16x30/99 with the first click in a corner, safe but not always an opening::

    python -m mscsp play -s best --preset expert --first-click safe --first-move corner \\
        -n 10000000 --seed 50000000 --workers 0 --out best.jsonl      # --resume after a stop
    python -m mscsp play -s csp-minprob --preset expert --first-click safe \\
        --first-move corner -n 10000000 --seed 50000000 --workers 0 --out minprob.jsonl
    python bench/players/anchor_scale.py best.jsonl minprob.jsonl [--json]

For each log: its games, wins and win rate with the Jeffreys 95 % interval; the rates of
blocks of ``--block`` games in game order (Hill reports 10 blocks of 1,000,000); the mean
time per game per worker; and the difference from Hill's published rate with its 95 %
interval (the two samples independent), read as below, level with or above it. For two
logs of the same games (same board, rule, first move and seed), the sign test on the games
only one of them won.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mscsp.evaluation.harness import GameResult, RunConfig, RunLog, jeffreys  # noqa: E402

#: Published figures on expert classic: (name, win %, 95 % half-width in points, games).
ANCHORS = (
    ("Hill's solver (published, 10 x 1,000,000 games)", 41.132, 0.03, 10_000_000),
    ("PSEQ (published)", 39.61, None, None),
)
Z95 = 1.959964


def log_summary(config: RunConfig, games: dict[int, GameResult], block: int) -> dict:
    """Win rate, Jeffreys interval, block rates and time per game of one play log."""
    n = len(games)
    wins = sum(g.won for g in games.values())
    low, high = jeffreys(wins, n)
    blocks = []
    for start in range(0, max(games) + 1 if games else 0, block):
        inside = [games[i].won for i in range(start, start + block) if i in games]
        if inside:
            blocks.append(
                {"first": start, "games": len(inside), "win_rate": sum(inside) / len(inside)}
            )
    hill_rate, hill_half = ANCHORS[0][1] / 100, ANCHORS[0][2] / 100
    rate = wins / n if n else 0.0
    half = Z95 * math.sqrt(rate * (1 - rate) / n) if n else 1.0
    difference = rate - hill_rate
    spread = math.sqrt(half**2 + hill_half**2)
    verdict = (
        "below" if difference + spread < 0 else "above" if difference - spread > 0 else "level"
    )
    return {
        "strategy": config.strategy,
        "config": {
            "rows": config.rows,
            "cols": config.cols,
            "mines": config.mines,
            "first_click": config.first_click,
            "first_move": config.first_move,
            "seed": config.seed,
            "options": config.options,
        },
        "games": n,
        "wins": wins,
        "win_rate": rate,
        "jeffreys95": [low, high],
        "blocks": blocks,
        "ms_per_game": 1000 * sum(g.seconds for g in games.values()) / n if n else None,
        "against_hill": {
            "difference_points": 100 * difference,
            "half_width_points": 100 * spread,
            "verdict": verdict,
        },
    }


def paired(a: dict[int, GameResult], b: dict[int, GameResult]) -> dict:
    """The sign test on the games of both logs that exactly one of them won."""
    shared = a.keys() & b.keys()
    only_a = sum(a[i].won and not b[i].won for i in shared)
    only_b = sum(b[i].won and not a[i].won for i in shared)
    n = len(shared)
    z = (only_a - only_b) / math.sqrt(only_a + only_b) if only_a + only_b else 0.0
    return {
        "games": n,
        "only_first": only_a,
        "only_second": only_b,
        "difference_points": 100 * (only_a - only_b) / n if n else 0.0,
        "half_width_points": 100 * Z95 * math.sqrt(only_a + only_b) / n if n else 0.0,
        "z": z,
    }


def same_games(first: RunConfig, second: RunConfig) -> bool:
    """Whether two runs play the same mine layouts (game ``i`` is the same in both)."""
    keys = ("rows", "cols", "mines", "first_click", "first_move", "seed")
    return all(getattr(first, k) == getattr(second, k) for k in keys)


def markdown(summaries: list[dict], pair: dict | None) -> str:
    """The tables for docs/results.md."""
    lines = [
        "| player | games | wins | win % | Jeffreys 95 % | ms / game / worker "
        "| minus Hill, points (95 %) | against Hill |",
        "|---|---:|---:|---:|---|---:|---|---|",
    ]
    for s in summaries:
        low, high = s["jeffreys95"]
        h = s["against_hill"]
        lines.append(
            f"| `{s['strategy']}` | {s['games']:,} | {s['wins']:,} | {100 * s['win_rate']:.3f} "
            f"| {100 * low:.3f}-{100 * high:.3f} | {s['ms_per_game']:.2f} "
            f"| {h['difference_points']:+.3f} +- {h['half_width_points']:.3f} | {h['verdict']} |"
        )
    for name, rate, half, games in ANCHORS:
        interval = f"+- {half}" if half else "-"
        count = f"{games:,}" if games else "-"
        lines.append(f"| {name} | {count} | | {rate:.3f} | {interval} | | | |")
    lines += [
        "",
        "| player | "
        + " | ".join(f"block {i + 1}" for i in range(max(len(s["blocks"]) for s in summaries)))
        + " |",
    ]
    lines.append("|---|" + "---:|" * max(len(s["blocks"]) for s in summaries))
    for s in summaries:
        cells = " | ".join(f"{100 * b['win_rate']:.3f}" for b in s["blocks"])
        lines.append(f"| `{s['strategy']}` | {cells} |")
    if pair:
        lines += [
            "",
            f"Paired, {pair['games']:,} games: only `{summaries[0]['strategy']}` won "
            f"{pair['only_first']:,}, only `{summaries[1]['strategy']}` {pair['only_second']:,}; "
            f"difference {pair['difference_points']:+.3f} +- {pair['half_width_points']:.3f} "
            f"points, z = {pair['z']:+.1f}.",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path, help="mscsp play logs (--out)")
    parser.add_argument("--block", type=int, default=1_000_000, help="games per block")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.block < 1:
        parser.error("--block must be at least 1")
    read = []
    for path in args.logs:
        config, games = RunLog(path).read()
        if config is None or not games:
            parser.error(f"{path}: no games logged")
        read.append((config, games))
    summaries = [log_summary(config, games, args.block) for config, games in read]
    pair = None
    if len(read) == 2:
        if not same_games(read[0][0], read[1][0]):
            parser.error("the two logs are not of the same games (board, rule, move, seed)")
        pair = paired(read[0][1], read[1][1])
    if args.json:
        print(json.dumps({"logs": summaries, "paired": pair}, indent=1))
    else:
        print(markdown(summaries, pair))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
