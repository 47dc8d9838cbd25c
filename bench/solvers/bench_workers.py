"""How much faster ``mscsp bench --workers 2`` is than ``--workers 1``, and whether the
statuses agree: the two commands run alternately (start-up included), the wall clock of
each and the runs whose status differs between any two of them.

    python bench/solvers/bench_workers.py --rounds 2 --out /tmp/bench-workers  # (alone)

Defaults: the families ladder (``bench/corpora/families.jsonl``, 254 positions), ``dss``
(the reference) and ``mdd``, a 1 s limit and 2048 MB, as ``docs/backends.md`` reports.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bench(workers: int, out: Path, args: argparse.Namespace) -> float:
    """Wall seconds of one ``mscsp bench`` with ``workers`` workers, writing to ``out``."""
    command = [
        sys.executable, "-m", "mscsp", "bench", "--corpus", str(args.corpus),
        "--backend", args.backend, "--time-limit", str(args.time_limit),
        "--memory-limit", str(args.memory_limit), "--workers", str(workers),
        "--out", str(out), "--json",
    ]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def statuses(out: Path) -> dict[tuple[str, int], tuple[str, float]]:
    """``(backend, position) -> (status, seconds)`` of a bench's ``runs.jsonl``."""
    runs = {}
    for line in (out / "runs.jsonl").read_text().splitlines():
        run = json.loads(line)
        if "instance" in run:
            runs[(run["backend"], run["instance"])] = (run["status"], run["seconds"])
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "bench/corpora/families.jsonl")
    parser.add_argument("--backend", default="mdd")
    parser.add_argument("--time-limit", type=float, default=1.0)
    parser.add_argument("--memory-limit", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    walls: dict[int, list[float]] = {1: [], 2: []}
    runs = {}
    for round_ in range(args.rounds):
        for workers in (1, 2):
            out = args.out / f"w{workers}-{round_}"
            walls[workers].append(bench(workers, out, args))
            runs[out.name] = statuses(out)
            print(f"{out.name}: {walls[workers][-1]:.2f} s", flush=True)
    serial, parallel = statistics.median(walls[1]), statistics.median(walls[2])
    print(
        f"median wall: {serial:.2f} s on 1 worker, {parallel:.2f} s on 2: {serial / parallel:.2f}x"
    )
    limit = args.time_limit
    for a, b in itertools.combinations(runs, 2):
        differ = [
            (key, runs[a][key], runs[b][key])
            for key in runs[a]
            if runs[a][key][0] != runs[b][key][0]
        ]
        near = sum(min(x[1], y[1]) >= 0.8 * limit for _, x, y in differ)
        total = len(runs[a])
        print(f"{a} vs {b}: {len(differ)} of {total} statuses differ, {near} near the limit")
        for key, x, y in differ:
            print(f"  {key}: {x[0]} {x[1]:.3f} s / {y[0]} {y[1]:.3f} s")


if __name__ == "__main__":
    main()
