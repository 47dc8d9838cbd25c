"""No-guess boards side by side: ``mscsp generate --no-guess`` and ms_toollib's
``laymine_solvable``, on one core, at the same sizes and first click (an opening at the
top-left corner).

For each size it measures

* boards per second of each generator (wall clock, this process, one core);
* how many of the peer's "solvable" boards need a guess under exact reasoning: each is
  played from the first click with certain moves only (every cell :func:`mscsp.solve` calls
  safe is opened, every certain mine flagged) and counted if it stalls before the end;
* the reverse: how many of our boards the peer's own check (``is_solvable``) calls unsolvable;
* how many of our certificates :mod:`mscsp.noguess.verify` refuses (the target is none).

Run it pinned to one core, e.g.::

    taskset -c 1 python bench/corpora/no_guess_vs_toollib.py --count 200 --cheap \
        --out bench/corpora/no_guess_vs_toollib.json

``--cheap`` also measures ``--max-step-numbers 2 --max-total-steps 0``: the generator
without its exact stage (one- and two-number rules only, filtered by the compiled pass:
faster per layout, a few more layouts per board).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from importlib import metadata
from typing import Any

import numpy as np

import mscsp
from mscsp.board import FLAG, Board
from mscsp.game import PRESETS, Game, GameState
from mscsp.noguess.generate import Generator, Settings
from mscsp.noguess.verify import verify_record


def needs_a_guess(mine: np.ndarray, start: tuple[int, int]) -> bool:
    """Whether the board stalls when only certain moves are made from ``start`` (exact)."""
    rows, cols = mine.shape
    game = Game(rows, cols, int(mine.sum()), first_click="any", layout=mine)
    game.reveal(*start)
    flags: set[tuple[int, int]] = set()
    while game.state == GameState.PLAYING:
        cells = game.view.copy()
        for r, c in flags:
            cells[r, c] = FLAG
        solution = mscsp.solve(Board(cells, game.mines))
        flags.update(solution.mines)
        safe = [cell for cell in solution.safe if game.view[cell] < 0]
        if not safe:
            return True
        for r, c in safe:
            if game.view[r, c] < 0:
                game.reveal(r, c)
    return game.state != GameState.WON


def peer_board(mine: np.ndarray) -> list[list[int]]:
    """A layout as ms_toollib's boards are: -1 a mine, else the number."""
    padded = np.pad(mine.astype(np.int8), 1)
    rows, cols = mine.shape
    counts = sum(
        padded[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if dr or dc
    )
    return np.where(mine, -1, counts).astype(int).tolist()


def ours(preset: str, count: int, seed: int, exact: bool) -> dict[str, Any]:
    rows, cols, mines = PRESETS[preset]
    # Without the exact stage: steps of one or two numbers, none with the total.
    limits = {} if exact else {"max_step_numbers": 2, "max_total_steps": 0}
    generator = Generator(Settings(rows, cols, mines, **limits), seed)
    start = time.perf_counter()
    made = [generator.next_board() for _ in range(count)]
    seconds = time.perf_counter() - start
    return {"boards": made, "seconds": seconds, "layouts": generator.tries}


def peer(preset: str, count: int) -> dict[str, Any]:
    import ms_toollib

    rows, cols, mines = PRESETS[preset]
    start = time.perf_counter()
    made = [ms_toollib.laymine_solvable(rows, cols, mines, 0, 0, 1_000_000) for _ in range(count)]
    seconds = time.perf_counter() - start
    return {"boards": made, "seconds": seconds}


def compare(preset: str, count: int, seed: int, cheap: bool) -> dict[str, Any]:
    import ms_toollib

    rows, cols, _ = PRESETS[preset]
    result: dict[str, Any] = {"preset": preset, "count": count}
    mine_runs = {"ours": ours(preset, count, seed, exact=True)}
    if cheap:
        mine_runs["ours_cheap"] = ours(preset, count, seed, exact=False)
    for name, run in mine_runs.items():
        refused = 0
        peer_unsolvable = 0
        for k, board in enumerate(run["boards"]):
            try:
                verify_record(board.to_record(k), f"{name} board {k}")
            except mscsp.MscspError:
                refused += 1
            mine = np.zeros(rows * cols, dtype=bool)
            mine[list(board.layout)] = True
            if not ms_toollib.is_solvable(peer_board(mine.reshape(rows, cols)), 0, 0):
                peer_unsolvable += 1
        result[name] = {
            "boards_per_second": round(count / run["seconds"], 2),
            "seconds": round(run["seconds"], 3),
            "layouts_per_board": round(run["layouts"] / count, 2),
            "certificates_refused": refused,
            "peer_calls_unsolvable": peer_unsolvable,
            "total_steps_per_board": round(sum(b.total_steps for b in run["boards"]) / count, 3),
            "largest_step": max(b.largest_step for b in run["boards"]),
        }
    theirs = peer(preset, count)
    found = [b for b, ok in theirs["boards"] if ok]
    guesses = sum(needs_a_guess(np.array(b) == -1, (0, 0)) for b in found)
    result["ms_toollib"] = {
        "boards_per_second": round(count / theirs["seconds"], 2),
        "seconds": round(theirs["seconds"], 3),
        "gave_up": count - len(found),
        "need_a_guess_exactly": guesses,
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200, help="Boards per size and generator.")
    parser.add_argument("--seed", type=int, default=0, help="Seed of our generator.")
    parser.add_argument(
        "--presets", default="beginner,intermediate,expert", help="Comma list of presets."
    )
    parser.add_argument(
        "--cheap", action="store_true", help="Also --max-step-numbers 2 --max-total-steps 0."
    )
    parser.add_argument("--out", default=None, help="Write the JSON result here too.")
    args = parser.parse_args()
    result = {
        "command": "python bench/corpora/no_guess_vs_toollib.py "
        + f"--count {args.count} --seed {args.seed} --presets {args.presets}"
        + (" --cheap" if args.cheap else ""),
        "machine": {
            "python": platform.python_version(),
            "cpus_visible": os.cpu_count(),
            "cpus_allowed": len(os.sched_getaffinity(0)),
            "load_average": os.getloadavg(),
            "ms_toollib": metadata.version("ms_toollib"),
            "mscsp": mscsp.__version__,
        },
        "first_click": "opening at (0, 0)",
        "sizes": [],
    }
    for preset in args.presets.split(","):
        row = compare(preset, args.count, args.seed, args.cheap)
        result["sizes"].append(row)
        print(json.dumps(row), flush=True)
    result["machine"]["load_average_after"] = os.getloadavg()
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
