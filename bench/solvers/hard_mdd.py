"""``mdd`` against ``dss``, alternating on each position: per-position latency ratios.

``mscsp bench`` runs one backend over the whole corpus, then the next, so on a shared
machine the load can differ between them. Here the two solve each position in turn
(``dss``, ``mdd``, ``dss``, ``mdd``, ...), in one process, each keeping its fastest of
``--repeat`` runs (one run when it takes more than a second), so both see the same load.
A solve that stops at ``--time-limit`` is a ``limit``. Prints one line per position and
the median ratio ``dss / mdd`` per family (above 1: ``mdd`` is faster).

    PYTHONPATH=. python bench/solvers/hard_mdd.py --expert 100 --out bench/results/mdd_vs_dss.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from mscsp import solve
from mscsp.backends import get_backend
from mscsp.backends.order import open_constraints
from mscsp.board import parse_board
from mscsp.errors import SolverLimitError
from mscsp.evaluation.played_positions import sample_positions
from mscsp.runtime.outlock import output_lock

BACKENDS = ("dss", "mdd")


def timed(board, backend) -> float | None:
    """Seconds of one whole solve, or ``None`` at the time limit."""
    start = time.perf_counter()
    try:
        solve(board, backend=backend)
    except SolverLimitError:
        return None
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("bench/corpora/hard.jsonl"))
    parser.add_argument("--expert", type=int, default=100, help="real expert positions added")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    entries = []
    for line in args.corpus.read_text().splitlines():
        record = json.loads(line)
        entries.append((record["family"], record["name"], parse_board(record["board"])))
    expert = sample_positions(16, 30, 99, args.expert, seed=args.seed, per_game=3)
    entries += [("expert", f"expert {i}", board) for i, board in enumerate(expert)]
    backends = {name: get_backend(name, time_limit=args.time_limit) for name in BACKENDS}
    for backend in backends.values():  # first-call costs (imports) stay out of the timing
        solve(expert[0] if expert else entries[0][2], backend=backend)
    rows = []
    with output_lock(args.out, "mdd results"):
        for family, name, board in entries:
            best: dict[str, float | None] = {}
            for run in range(args.repeat):
                for backend_name, backend in backends.items():
                    if run and (best[backend_name] is None or best[backend_name] > 1.0):
                        continue
                    seconds = timed(board, backend)
                    if seconds is not None and best.get(backend_name) is not None:
                        seconds = min(seconds, best[backend_name])
                    best[backend_name] = seconds
            components = solve(board, backend="mdd").components if best["mdd"] else []
            row = {
                "family": family,
                "name": name,
                **{f"{k}_ms": None if v is None else round(1000 * v, 3) for k, v in best.items()},
                "cells": max((c.n_cells for c, _ in components), default=None),
                "width": max((open_constraints(c) for c, _ in components), default=None),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.out is not None:
                with args.out.open("a") as handle:
                    handle.write(json.dumps(row) + "\n")
    print(
        "\nfamily | positions | dss solved | mdd solved | median dss ms | median mdd ms | "
        "median dss/mdd | mdd faster"
    )
    for family in dict.fromkeys(r["family"] for r in rows):
        mine = [r for r in rows if r["family"] == family]
        both = [r for r in mine if r["dss_ms"] is not None and r["mdd_ms"] is not None]
        ratios = [r["dss_ms"] / r["mdd_ms"] for r in both]

        def median(key: str, pool=mine) -> str:
            values = [r[key] for r in pool if r[key] is not None]
            return f"{statistics.median(values):.2f}" if values else "-"

        print(
            f"{family} | {len(mine)} | {sum(r['dss_ms'] is not None for r in mine)} | "
            f"{sum(r['mdd_ms'] is not None for r in mine)} | {median('dss_ms')} | "
            f"{median('mdd_ms')} | {statistics.median(ratios) if ratios else float('nan'):.2f} | "
            f"{sum(x > 1 for x in ratios)} of {len(ratios)}"
        )


if __name__ == "__main__":
    main()
