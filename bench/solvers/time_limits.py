"""Does every backend stop at its time limit? The worst overrun per backend and limit.

Every available backend solves every position of the hard corpus (``bench/corpora/hard.jsonl``)
and a few 40x40 lattices (``mscsp/evaluation/families.py``) with ``time_limit=1``; the largest
position of
each family and the lattices again with ``time_limit=3`` (the whole corpus at both limits
would take about half an hour on two cores, and a position answered within 1 s needs no
second run). Each solve goes through :func:`mscsp.solve` in this process, as a user's call
would; its outcome is an answer or a :class:`~mscsp.errors.SolverLimitError` ("limit").
The overrun is the elapsed time minus the limit (negative: it answered in time). Prints one
JSON line per solve, then a table per backend and limit: solves, answers, limits, the worst
overrun and the position it was on.

    PYTHONPATH=. python bench/solvers/time_limits.py --out bench/results/time_limits.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mscsp import solve  # noqa: E402
from mscsp.backends import BACKENDS  # noqa: E402
from mscsp.board import Board, parse_board  # noqa: E402
from mscsp.errors import SolverLimitError  # noqa: E402
from mscsp.evaluation.families import lattice  # noqa: E402

#: The 40x40 lattices added to the corpus: (density, seed).
LATTICES_40 = ((0.2, 0), (0.2, 1), (0.4, 0))


def positions(corpus: Path) -> list[tuple[str, str, Board]]:
    """``(family, name, board)`` of the corpus and the 40x40 lattices."""
    entries = []
    for line in corpus.read_text().splitlines():
        record = json.loads(line)
        entries.append((record["family"], record["name"], parse_board(record["board"])))
    for density, seed in LATTICES_40:
        entries.append(
            ("lattice40", f"lattice 40x40 d{density} s{seed}", lattice(40, 40, density, seed))
        )
    return entries


def timed(board: Board, backend: str, limit: float) -> tuple[float, str]:
    """Seconds of one solve under ``limit`` and its outcome (``answer`` or ``limit``)."""
    start = time.perf_counter()
    try:
        solve(board, backend=backend, time_limit=limit)
        outcome = "answer"
    except SolverLimitError:
        outcome = "limit"
    return time.perf_counter() - start, outcome


def second_round(entries: list[tuple[str, str, Board]]) -> set[str]:
    """Names of the positions solved again at the longer limit: the largest of each family
    (by covered cells) and every 40x40 lattice."""
    largest: dict[str, tuple[int, str]] = {}
    for family, name, board in entries:
        size = int((board.cells < 0).sum())
        if family == "lattice40" or size > largest.get(family, (-1, ""))[0]:
            largest[family if family != "lattice40" else name] = (size, name)
    return {name for _, name in largest.values()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(__file__).resolve().parents[1] / "corpora" / "hard.jsonl",
    )
    parser.add_argument("--backend", default=",".join(BACKENDS), help="comma-separated names")
    parser.add_argument("--only", default="", help="positions whose name contains this")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON lines here")
    args = parser.parse_args()
    entries = [e for e in positions(args.corpus) if args.only in e[1]]
    again = second_round(entries)
    names = [n for n in args.backend.split(",") if BACKENDS[n].supported()]
    rows = []
    for backend in names:
        timed(entries[0][2], backend, 1.0)  # imports stay out of the timing
        for family, name, board in entries:
            for limit in (1.0, 3.0):
                seconds, outcome = timed(board, backend, limit)
                row = {
                    "backend": backend,
                    "family": family,
                    "name": name,
                    "limit": limit,
                    "seconds": round(seconds, 3),
                    "overrun": round(seconds - limit, 3),
                    "outcome": outcome,
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
                if outcome == "answer" or name not in again:
                    break  # the same work answers within the longer limit too
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(
        f"\n{'backend':10} {'limit':>5} {'solves':>6} {'answers':>7} {'limits':>6}  worst overrun"
    )
    for backend in names:
        for limit in (1.0, 3.0):
            mine = [r for r in rows if r["backend"] == backend and r["limit"] == limit]
            if not mine:
                continue
            worst = max(mine, key=lambda r: r["overrun"])
            answers = sum(r["outcome"] == "answer" for r in mine)
            print(
                f"{backend:10} {limit:5g} {len(mine):6d} {answers:7d} {len(mine) - answers:6d}"
                f"  {worst['overrun']:+.2f} s ({worst['name']}, {worst['outcome']})"
            )


if __name__ == "__main__":
    main()
