"""Sampled probabilities against exact ones: the diagram sampler, ApproxMC/UniGen, csp-limited.

Per position: the exact probabilities (``mdd``, timed, and ``dss``, timed), then each
approximate method's time and its largest and mean absolute error over the covered cells:

* ``sample``: :func:`mscsp.layouts.sample_layouts`, exactly uniform whole-board layouts
  drawn from the compiled diagrams (``--samples`` of them);
* ``approxmc``: the ``approxmc`` backend (ApproxMC counts, UniGen samples per mine total);
* ``csp-limited``: the seed paper's limited traversal (100 solutions, 300 tree edges per
  component, as in the paper).

Every method runs in a forked child process (after one untimed warm-up solve in the parent)
that is killed ``--time-limit`` plus 5 seconds in
(a native ApproxMC call cannot be interrupted); a method that stops itself at the limit is
a ``limit``, a killed one a ``timeout``. Rows go to ``--out`` as JSON lines and a summary
per family is printed at the end.

    PYTHONPATH=. python bench/solvers/hard_sampling.py --expert 30 \
        --out bench/results/sampling.jsonl
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import time
from pathlib import Path

import numpy as np

from mscsp import solve
from mscsp.backends import get_backend
from mscsp.board import format_board, parse_board
from mscsp.errors import SolverLimitError
from mscsp.evaluation.played_positions import sample_positions
from mscsp.layouts import sample_layouts
from mscsp.players.limited import CspLimitedPlayer
from mscsp.runtime.outlock import output_lock

METHODS = ("dss", "mdd", "sample", "approxmc", "csp-limited")
#: A small position every child solves first, untimed.
WARM_UP = "4x3x2\n1???\n?2??\n????\n"


def estimate(method: str, board, samples: int, seed: int, limit: float) -> np.ndarray:
    """One method's probabilities for a board."""
    if method in ("dss", "mdd", "approxmc"):
        return solve(board, backend=get_backend(method, time_limit=limit)).probabilities
    if method == "sample":
        return sample_layouts(board, samples, seed=seed, time_limit=limit).probabilities
    player = CspLimitedPlayer(max_solutions=100, max_nodes=300)
    return player.estimate(board, np.random.default_rng(seed))[1]


def _run(method: str, text: str, samples: int, seed: int, limit: float, queue) -> None:
    """Child process: one method on one board; puts (status, seconds, probabilities)."""
    board = parse_board(text)
    start = time.perf_counter()
    try:
        probs = estimate(method, board, samples, seed, limit)
    except SolverLimitError:
        queue.put(("limit", time.perf_counter() - start, None))
        return
    queue.put(("ok", time.perf_counter() - start, probs))


def measure(method: str, text: str, samples: int, seed: int, limit: float) -> tuple:
    """(status, seconds, probabilities or None) of one method, killed past the limit."""
    context = mp.get_context("fork")  # the parent has imported and warmed everything
    queue = context.Queue()
    child = context.Process(target=_run, args=(method, text, samples, seed, limit, queue))
    child.start()
    try:
        return queue.get(timeout=limit + 5)
    except Exception:  # queue.Empty: the child ran past the limit
        return ("timeout", None, None)
    finally:
        child.kill()
        child.join()


def positions(corpus: Path, expert: int, seed: int) -> list[tuple[str, str, str]]:
    """(family, name, board text) of the corpus's positions, then ``expert`` real ones."""
    out = []
    for line in corpus.read_text().splitlines():
        record = json.loads(line)
        out.append((record["family"], record["name"], record["board"]))
    for i, board in enumerate(sample_positions(16, 30, 99, expert, seed=seed, per_game=3)):
        out.append(("expert", f"expert {i}", format_board(board)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("bench/corpora/hard.jsonl"))
    parser.add_argument("--expert", type=int, default=30, help="real expert positions added")
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per method")
    parser.add_argument("--families", nargs="*", default=None, help="only these families")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    for method in METHODS:  # imports and first calls, once, before the children fork
        estimate(method, parse_board(WARM_UP), 10, args.seed, args.time_limit)
    rows = []
    with output_lock(args.out, "sampling results"):
        for family, name, text in positions(args.corpus, args.expert, args.seed):
            if args.families and family not in args.families:
                continue
            covered = parse_board(text).cells == -1
            results = {
                m: measure(m, text, args.samples, args.seed, args.time_limit) for m in METHODS
            }
            exact = next(
                (r[2] for m, r in results.items() if m in ("dss", "mdd") and r[2] is not None), None
            )
            for method, (status, seconds, probs) in results.items():
                row = {"family": family, "name": name, "method": method, "status": status}
                row["ms"] = None if seconds is None else round(1000 * seconds, 2)
                row["approximate"] = method not in ("dss", "mdd")
                if probs is not None and exact is not None:
                    diff = np.abs(probs - exact)[covered]
                    row["max_err"] = round(float(diff.max()), 5)
                    row["mean_err"] = round(float(diff.mean()), 5)
                rows.append(row)
                print(json.dumps(row), flush=True)
                if args.out is not None:
                    with args.out.open("a") as handle:
                        handle.write(json.dumps(row) + "\n")
    summarise(rows)


def summarise(rows: list[dict]) -> None:
    """Per family and method: positions done, median ms, median and largest max error."""
    print("\nfamily | method | done | median ms | median max err | largest max err")
    for family in dict.fromkeys(r["family"] for r in rows):
        for method in METHODS:
            mine = [r for r in rows if r["family"] == family and r["method"] == method]
            done = [r for r in mine if r["status"] == "ok"]
            errors = [r["max_err"] for r in done if "max_err" in r]
            ms = statistics.median(r["ms"] for r in done) if done else None
            print(
                f"{family} | {method} | {len(done)}/{len(mine)} | "
                f"{'-' if ms is None else f'{ms:.1f}'} | "
                f"{f'{statistics.median(errors):.4f}' if errors else '-'} | "
                f"{f'{max(errors):.4f}' if errors else '-'}"
            )


if __name__ == "__main__":
    main()
