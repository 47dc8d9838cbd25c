"""Times ``mscsp.solve`` on positions from real games at every stage of play.

Plays seeded games with the exact min-probability player (``mscsp.evaluation.played_positions``),
collects
every position, then times ``solve`` on each (best of ``--repeat`` runs, to damp noise from
other processes) and writes a Markdown table.

    python bench/solvers/solve_speed.py --games 40 --out bench/results/solve_speed.md
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import mscsp
from mscsp.backends import get_backend
from mscsp.evaluation.played_positions import game_positions
from mscsp.game import PRESETS


def time_preset(name: str, games: int, seed: int, repeat: int, backend: str) -> dict:
    rows, cols, mines = PRESETS[name]
    counter = get_backend(backend)
    boards = [
        board
        for g in range(games)
        for board in game_positions(mscsp.Game(rows, cols, mines, seed=[seed, g]), first=(0, 0))
    ]
    for board in boards[:20]:  # warm caches and imports
        mscsp.solve(board, counter)
    times = []
    for board in boards:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            solution = mscsp.solve(board, counter)
            _ = solution.probabilities, solution.best_move  # what users read
            best = min(best, time.perf_counter() - start)
        times.append(best * 1000)
    t = np.array(times)
    return {
        "preset": name,
        "games": games,
        "positions": len(t),
        "median": np.median(t),
        "p95": np.percentile(t, 95),
        "max": t.max(),
        "mean": t.mean(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backend", default="dss")
    parser.add_argument("--out", help="write the Markdown table here")
    args = parser.parse_args()
    rows = [time_preset(p, args.games, args.seed, args.repeat, args.backend) for p in PRESETS]
    lines = [
        f"Backend `{args.backend}`, {args.games} games per preset (seeds {args.seed}..), every "
        f"position of each game, best of {args.repeat} runs per position; "
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}.",
        "",
        "| preset | positions | median ms | p95 ms | max ms | mean ms |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['preset']} | {r['positions']} | {r['median']:.3f} | {r['p95']:.3f} "
            f"| {r['max']:.2f} | {r['mean']:.3f} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(table + "\n")


if __name__ == "__main__":
    main()
