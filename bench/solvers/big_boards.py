"""How ``mscsp.solve`` scales with the board: time and peak memory by size and density.

Two kinds of position per size and density (mine layouts from a seeded generator):

* ``opening``: a game with the opening rule after its first click in the centre;
* ``openings``: every opening of the layout revealed at once (many numbers and many
  independent components: the hard case for combining counts).

Each case runs in its own process (so its peak memory is its own) under ``--time-limit``;
a case that hits the limit reports ``limit`` (the solver-limit error, exit code 5).

    PYTHONPATH=. python bench/solvers/big_boards.py --time-limit 60 \
        --out bench/results/big_boards.md
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

SIZES = (100, 200, 400, 700, 1000)
DENSITIES = (0.05, 0.1, 0.2)


def make_board(kind: str, side: int, density: float, seed: int):
    import mscsp
    from mscsp.board import Board, neighbour_sum

    if kind == "opening":
        game = mscsp.Game(side, side, int(side * side * density), seed=seed, first_click="opening")
        game.reveal(side // 2, side // 2)
        return game.board()
    mine = np.random.default_rng(seed).random((side, side)) < density
    numbers = neighbour_sum(mine.astype(np.int8))
    zero = ~mine & (numbers == 0)
    shown = (zero | (neighbour_sum(zero.astype(np.int8)) > 0)) & ~mine
    return Board(np.where(shown, numbers, mscsp.COVERED).astype(np.int8), int(mine.sum()))


def one_case(kind: str, side: int, density: float, seed: int, time_limit: float) -> dict:
    import mscsp

    board = make_board(kind, side, density, seed)
    numbers = int((board.cells > 0).sum())
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    try:
        solution = mscsp.solve(board, time_limit=time_limit)
        outcome = f"ok, {len(solution.components)} components"
    except mscsp.SolverLimitError:
        outcome = "limit"
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "kind": kind,
        "side": side,
        "density": density,
        "numbers": numbers,
        "seconds": seconds,
        "peak_mb": peak / 1024,
        "growth_mb": (peak - base) / 1024,
        "outcome": outcome,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--densities", type=float, nargs="+", default=list(DENSITIES))
    parser.add_argument("--kinds", nargs="+", default=["opening", "openings"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve")
    parser.add_argument("--out", help="write the Markdown table here")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        kind, side, density = args.one
        print(json.dumps(one_case(kind, int(side), float(density), args.seed, args.time_limit)))
        return
    lines = [
        "| position | side | density | numbers on the board | seconds | peak MB | outcome |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for kind in args.kinds:
        for side in args.sizes:
            for density in args.densities:
                command = [sys.executable, __file__, "--one", kind, str(side), str(density)]
                command += ["--seed", str(args.seed), "--time-limit", str(args.time_limit)]
                out = subprocess.run(command, capture_output=True, text=True, check=True)
                r = json.loads(out.stdout)
                line = (
                    f"| {kind} | {side} | {density:.0%} | {r['numbers']} | {r['seconds']:.2f} "
                    f"| {r['peak_mb']:.0f} | {r['outcome']} |"
                )
                print(line, flush=True)
                lines.append(line)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    lines.append(f"\nTime limit {args.time_limit} s per solve; load average {load} at the end.")
    if args.out:
        with open(args.out, "w") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
