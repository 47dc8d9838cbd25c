"""Measures backends on a corpus (or reads a saved summary) and prints Markdown for the docs.

Usage::

    python bench/solvers/backend_table.py                      # built-in corpus, every backend
    python bench/solvers/backend_table.py --preset expert --positions 100 --seed 1 --out out/expert
    python bench/solvers/backend_table.py --corpus bench/corpora/hard.jsonl --time-limit 10 --decide
    python bench/solvers/backend_table.py --summary out/hard/summary.json   # tables of a past run

Prints the machine (when measuring), the per-position latency table (with the decision
columns for a ``--decide`` run), the median latency per corpus family and the median count
time per component by size. Timings are wall-clock on whatever else the machine is doing:
note the load average (``uptime``) next to them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from typing import Any

from mscsp.backends import BACKENDS
from mscsp.evaluation.benchmark import load_entries, run_benchmark, select_backends, write_outputs
from mscsp.evaluation.played_positions import sample_positions
from mscsp.game import PRESETS


def markdown(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def tables(summary: dict[str, Any]) -> str:
    """The Markdown tables of a ``summary.json`` (as written by ``mscsp bench --out``)."""
    decide = summary.get("mode") == "decide"
    header = ["backend", "solved", "limits", "timeouts", "median ms", "p95 ms", "max ms"]
    header += ["x dss", "max abs diff"] + (["calls", "no safe cell"] if decide else [])
    rows = []
    for r in summary["summary"]:
        row = [r["backend"], r["solved"], r["limits"], r.get("timeouts", 0)]
        row += [fmt(r["median_ms"]), fmt(r["p95_ms"]), fmt(r["max_ms"])]
        row += [fmt(r["ratio_to_reference"])]
        row += ["-" if r["max_abs_diff"] is None else f"{r['max_abs_diff']:.3g}"]
        if decide:
            row += [fmt(r["median_calls"], 1), r["no_safe_cell"]]
        rows.append(row)
    out = [markdown(header, rows)]
    backends = [r["backend"] for r in summary["summary"]]
    families = summary.get("by_family", [])
    if len(families) > 1:
        out.append(
            markdown(
                ["family", "positions", *backends],
                [
                    [f["family"], f["positions"]]
                    + [
                        fmt(f[b]["median_ms"], 1)
                        + (f" ({f[b]['failed']})" if f[b]["failed"] else "")
                        for b in backends
                    ]
                    for f in families
                ],
            )
        )
    if summary.get("by_size") and not decide:
        out.append(
            markdown(
                ["cells", "components", *(f"{b} ms" for b in backends)],
                [
                    [row["cells"], row["components"], *(fmt(row.get(b), 3) for b in backends)]
                    for row in summary["by_size"]
                ],
            )
        )
    return "\n\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="all")
    parser.add_argument("--corpus", help="JSONL corpus (default: the built-in one)")
    parser.add_argument("--preset", choices=list(PRESETS))
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--decide", action="store_true", help="time certain cells only")
    parser.add_argument("--out")
    parser.add_argument("--summary", help="print the tables of this summary.json and exit")
    args = parser.parse_args()
    if args.summary:
        with open(args.summary) as handle:
            print(tables(json.load(handle)))
        return
    names = select_backends(args.backend)
    if args.preset:
        boards = sample_positions(*PRESETS[args.preset], args.positions, seed=args.seed)
        source = f"{args.positions} {args.preset} positions (seed {args.seed})"
    else:
        boards = load_entries(args.corpus)
        source = f"{args.corpus or 'built-in corpus'} ({len(boards)} positions)"
    result = run_benchmark(
        boards, names, time_limit=args.time_limit, repeat=args.repeat, decide=args.decide
    )
    if args.out:
        write_outputs(result, args.out)
    versions = ", ".join(f"{n} {BACKENDS[n.partition(':')[0]].version()}" for n in names)
    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {sys.version.split()[0]}, {platform.system()}, load {os.getloadavg()[0]:.1f}; "
        f"{versions}."
    )
    print(
        f"Corpus: {source}; time limit {args.time_limit} s per position; fastest of "
        f"{args.repeat} runs per position.\n"
    )
    print(tables(result.to_json()))


if __name__ == "__main__":
    main()
