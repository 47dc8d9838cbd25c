"""Measures every available backend on a corpus and prints Markdown for docs/backends.md.

Usage::

    python bench/backend_table.py                      # built-in corpus
    python bench/backend_table.py --preset expert --positions 300 --seed 1 --out out/expert
    python bench/backend_table.py --corpus bench/stress.jsonl --time-limit 5

Prints the machine, the per-position latency table and the per-component table by size.
Timings are wall-clock on whatever else the machine is doing: rerun before quoting.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

from mscsp.backends import BACKENDS
from mscsp.benchmark import load_corpus, run_benchmark, select_backends, write_outputs
from mscsp.game import PRESETS
from mscsp.positions import sample_positions


def markdown(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="all")
    parser.add_argument("--corpus", help="JSONL corpus (default: the built-in one)")
    parser.add_argument("--preset", choices=list(PRESETS))
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out")
    args = parser.parse_args()
    names = select_backends(args.backend)
    if args.preset:
        boards = sample_positions(*PRESETS[args.preset], args.positions, seed=args.seed)
        source = f"{args.positions} {args.preset} positions (seed {args.seed})"
    else:
        boards = load_corpus(args.corpus)
        source = f"{args.corpus or 'built-in corpus'} ({len(boards)} positions)"
    result = run_benchmark(boards, names, time_limit=args.time_limit, repeat=args.repeat)
    if args.out:
        write_outputs(result, args.out)
    versions = ", ".join(f"{n} {BACKENDS[n.partition(':')[0]].version()}" for n in names)
    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {sys.version.split()[0]}, {platform.system()}; {versions}."
    )
    print(
        f"Corpus: {source}; time limit {args.time_limit} s per component; fastest of "
        f"{args.repeat} runs per position.\n"
    )
    print(
        markdown(
            [
                "backend",
                "solved",
                "limits",
                "median ms",
                "p95 ms",
                "max ms",
                "x dss",
                "max abs diff",
            ],
            [
                [
                    r["backend"],
                    r["solved"],
                    r["limits"],
                    fmt(r["median_ms"]),
                    fmt(r["p95_ms"]),
                    fmt(r["max_ms"]),
                    fmt(r["ratio_to_reference"]),
                    "-" if r["max_abs_diff"] is None else f"{r['max_abs_diff']:.3g}",
                ]
                for r in result.summary()
            ],
        )
    )
    print()
    backends = [r["backend"] for r in result.summary()]
    print(
        markdown(
            ["cells", "components", *(f"{b} ms" for b in backends)],
            [
                [row["cells"], row["components"], *(fmt(row[b], 3) for b in backends)]
                for row in result.by_size()
            ],
        )
    )


if __name__ == "__main__":
    main()
