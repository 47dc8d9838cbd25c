"""``mscsp.solve`` against the Rust crate ``ms_toollib`` on positions from real games.

Plays seeded games with the exact min-probability player (``mscsp.evaluation.played_positions``,
first click
in the top-left corner), keeps every position, and times both solvers on each one in the
same process, alternating which goes first, best of ``--repeat`` runs each. Positions are
split by stage (the share of safe cells already revealed: opening < 1/3 <= middle < 2/3 <=
end). ``ms_toollib`` is a benchmark-only dependency (``pip install ms_toollib``).

    PYTHONPATH=. python bench/solvers/vs_toollib.py --games 40 --out bench/results/vs_toollib.md
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import time

import numpy as np

import mscsp
from mscsp.backends import get_backend
from mscsp.board import COVERED, FLAG, Board
from mscsp.engine import compiled
from mscsp.evaluation.played_positions import game_positions
from mscsp.game import PRESETS
from mscsp.solver import CountCache

STAGES = ("opening", "middle", "end")


def toollib_board(board: Board) -> list[list[int]]:
    """The board in ``ms_toollib``'s encoding: 10 covered, 11 flag, 0-8 numbers."""
    cells = board.cells.astype(np.int64)
    cells[board.cells == COVERED] = 10
    cells[board.cells == FLAG] = 11
    return cells.tolist()


def stage_of(board: Board) -> str:
    safe = board.cells.size - board.mines
    opened = int((board.cells >= 0).sum())
    return STAGES[min(2, 3 * opened // max(safe, 1))]


def best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def time_preset(name: str, games: int, seed: int, repeat: int) -> list[dict]:
    import ms_toollib

    rows, cols, mines = PRESETS[name]
    counter = get_backend("dss")
    games_boards = [
        list(game_positions(mscsp.Game(rows, cols, mines, seed=[seed, g]), first=(0, 0)))
        for g in range(games)
    ]
    boards = [board for game in games_boards for board in game]
    # In game order with one CountCache per game, once per position: what a player pays.
    in_game = []
    for game in games_boards:
        cached = CountCache(get_backend("dss"))
        for board in game:
            in_game.append(best_time(lambda b=board, c=cached: mscsp.solve(b, c).probabilities, 1))
    records = []
    for i, board in enumerate(boards):
        theirs = toollib_board(board)

        def run_ours(board=board):
            solution = mscsp.solve(board, counter)
            return solution.probabilities

        def run_theirs(theirs=theirs):
            return ms_toollib.cal_probability_onboard(theirs, mines)

        if i % 2:
            ours, peer = best_time(run_ours, repeat), best_time(run_theirs, repeat)
        else:
            peer, ours = best_time(run_theirs, repeat), best_time(run_ours, repeat)
        records.append(
            {
                "preset": name,
                "stage": stage_of(board),
                "ours": ours,
                "peer": peer,
                "in_game": in_game[i],
            }
        )
    return records


def time_corpus(path: str, repeat: int) -> list[str]:
    """One row per board of a corpus (JSONL, as ``mscsp bench`` reads), both solvers."""
    import ms_toollib

    from mscsp.evaluation.benchmark import load_corpus

    counter = get_backend("dss")
    lines = [
        "| board | covered | mscsp ms | ms_toollib ms | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for i, board in enumerate(load_corpus(path)):
        theirs = toollib_board(board)
        ours = best_time(lambda board=board: mscsp.solve(board, counter).probabilities, repeat)
        peer = best_time(
            lambda theirs=theirs, mines=board.mines: ms_toollib.cal_probability_onboard(
                theirs, mines
            ),
            repeat,
        )
        covered = int((board.cells == COVERED).sum())
        lines.append(
            f"| {i + 1} ({board.rows}x{board.cols}) | {covered} | {ours:.3f} | {peer:.3f} "
            f"| {ours / peer:.3f} |"
        )
    return lines


def time_untouched(runs: int) -> list[str]:
    """Expert-size boards with nothing or one number revealed: median of ``runs``
    alternating runs of each solver."""
    import ms_toollib

    counter = get_backend("dss")
    rows, cols, mines = PRESETS["expert"]
    untouched = np.full((rows, cols), COVERED, dtype=np.int8)
    one_number = untouched.copy()
    one_number[rows // 2, cols // 2] = 2
    lines = [
        "| board | mscsp median ms | ms_toollib median ms | ratio |",
        "|---|---:|---:|---:|",
    ]
    for label, cells in (("untouched", untouched), ("one number revealed", one_number)):
        board = Board(cells, mines)
        theirs = toollib_board(board)
        ours, peer = [], []
        for i in range(runs):
            pair = [
                (ours, lambda b=board: mscsp.solve(b, counter).probabilities),
                (peer, lambda t=theirs: ms_toollib.cal_probability_onboard(t, mines)),
            ]
            for times, fn in pair[:: 1 if i % 2 else -1]:
                times.append(best_time(fn, 1))
        lines.append(
            f"| {label} | {np.median(ours):.4f} | {np.median(peer):.4f} "
            f"| {np.median(ours) / np.median(peer):.2f} |"
        )
    return lines


def summarise(records: list[dict]) -> list[str]:
    lines = [
        "| preset | stage | positions | mscsp median ms | ms_toollib median ms "
        "| ratio of medians | median per-position ratio | mscsp faster on "
        "| mscsp in game, median ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for preset in PRESETS:
        for stage in (*STAGES, "all"):
            rows = [r for r in records if r["preset"] == preset and stage in (r["stage"], "all")]
            if not rows:
                continue
            ours = np.array([r["ours"] for r in rows])
            peer = np.array([r["peer"] for r in rows])
            lines.append(
                f"| {preset} | {stage} | {len(rows)} | {np.median(ours):.3f} "
                f"| {np.median(peer):.3f} | {np.median(ours) / np.median(peer):.2f} "
                f"| {np.median(ours / peer):.2f} | {100 * np.mean(ours <= peer):.0f} % "
                f"| {np.median([r['in_game'] for r in rows]):.3f} |"
            )
    return lines


def emit(lines: list[str], out: str | None) -> None:
    """Prints the table, and writes it to ``out`` when given."""
    table = "\n".join(lines)
    print(table)
    if out:
        with open(out, "w") as handle:
            handle.write(table + "\n")


def _path() -> str:
    """Which road ``solve`` takes on small boards here (numba's version when compiled)."""
    if compiled.available():
        return f"compiled small-board path (numba {importlib.metadata.version('numba')})"
    return "pure Python path"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per preset")
    parser.add_argument("--seed", type=int, default=2026, help="first game seed")
    parser.add_argument("--repeat", type=int, default=3, help="runs per position (best kept)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument("--corpus", help="time the boards of this JSONL corpus instead")
    parser.add_argument(
        "--untouched",
        type=int,
        metavar="RUNS",
        help="time expert boards with nothing or one number revealed instead (RUNS each)",
    )
    parser.add_argument("--out", help="write the Markdown table here")
    args = parser.parse_args()
    import ms_toollib  # noqa: F401 - fail early when the peer is missing

    compiled.load()  # no warm-up: every timed solve takes the road a long run keeps
    if args.corpus:
        emit(time_corpus(args.corpus, args.repeat), args.out)
        return
    if args.untouched:
        emit(time_untouched(args.untouched), args.out)
        return
    records = [r for p in args.presets for r in time_preset(p, args.games, args.seed, args.repeat)]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    header = [
        f"{args.games} games per preset (seeds {args.seed}..), every position, best of "
        f"{args.repeat} runs each, alternating; ratio = mscsp / ms_toollib (below 1: mscsp "
        "faster). In game: each position once, in game order, with one `CountCache` per "
        "game (counts of unchanged components reused), as a player solves. "
        f"{platform.machine()}, Python {platform.python_version()}, {_path()}, load average "
        f"{load} at the end.",
        "",
    ]
    emit(header + summarise(records), args.out)


if __name__ == "__main__":
    main()
