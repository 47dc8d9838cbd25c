"""The same mscsp commands from two source trees, side by side: wall time, start-up included.

Each command runs from tree A and tree B alternately (A B B A ...), pinned to one core with
``taskset`` when it exists, ``--rounds`` times each after one untimed warm-up per tree
(numba's cache, imports). Prints per command the median seconds of each tree and the ratio
B / A, and writes them as JSON with ``--out``. Used to check that a change is no slower
(issue 47: ``play``, ``probs`` and ``bench`` against the commit before; issue 48 adds
``best``'s games)::

    git worktree add /tmp/base <commit>
    python bench/solvers/side_by_side.py /tmp/base . --rounds 7 \
        --out bench/solvers/side_by_side.json

Run it alone: no other job on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The commands compared (arguments of ``python -m mscsp``), by name.
COMMANDS = {
    "probs": ["probs"],
    "probs-json": ["probs", "--json"],
    "play": ["play", "-s", "csp-minprob", "--preset", "expert", "-n", "2000", "--seed", "7"],
    "play-best": ["play", "-s", "best", "--preset", "expert", "-n", "300", "--seed", "7"],
    "bench": ["bench", "--backend", "dss", "--json"],
}


def run(tree: Path, args: list[str], cwd: Path) -> float:
    """Seconds one command takes from ``tree`` (its own sources first on the path)."""
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    pin = ["taskset", "-c", "1"] if shutil.which("taskset") else []
    start = time.perf_counter()
    subprocess.run(
        [*pin, sys.executable, "-m", "mscsp", *args],
        cwd=cwd,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="the first source tree (the commit before)")
    parser.add_argument("b", type=Path, help="the second source tree (the change)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", nargs="*", choices=list(COMMANDS), default=list(COMMANDS))
    parser.add_argument("--out", type=Path, default=None)
    opts = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as cwd:  # (not a tree: '' first on sys.path)
        for name in opts.only:
            args = COMMANDS[name]
            times: dict[str, list[float]] = {"a": [], "b": []}
            for tree in (opts.a, opts.b):
                run(tree, args, Path(cwd))
            for i in range(opts.rounds):
                order = ("a", "b") if i % 2 == 0 else ("b", "a")
                for which in order:
                    times[which].append(run(getattr(opts, which), args, Path(cwd)))
            a, b = statistics.median(times["a"]), statistics.median(times["b"])
            results[name] = {"a_s": a, "b_s": b, "ratio_b_over_a": b / a, "times": times}
            print(f"{name:12s} A {a:7.3f} s   B {b:7.3f} s   B/A {b / a:5.3f}", flush=True)
    if opts.out is not None:
        opts.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
