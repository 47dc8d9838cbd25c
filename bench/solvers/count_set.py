"""The real counters on a benchmark set, as a competition runs them: one count per file.

``mscsp export --package`` packs a set of instances (``instances/*.cnf``, Model Counting
Competition format) with two agreeing counts each in ``index.jsonl``. This script gives
every file, once, to every real counter built (``counters/peers.tsv``; ``real_counters.sh
build``), each run in its own process group under a time and a memory limit
(:func:`mscsp.runtime.isolated.run_program`: peak resident memory of the counter and its
children, sampled), and checks each answer against the set's count: a count that differs
is ``wrong``, never a solve. Statuses are ``mscsp bench``'s: ``ok``, ``timeout``,
``memout``, ``crash``, ``error`` (no readable exact count).

Runs go to ``OUT/runs.jsonl`` (:data:`~mscsp.export.counter_runs.COUNTER_RUNS`: a header
with the set's digest and the limits; one record a run, synced as it comes), so
``--resume`` after a kill or on another day runs only what is missing, and ``--retry
STATUS`` runs again what ended so (the last run of a counter on a file counts).
Instances go smallest first (cells, then variables), every counter on one before the
next, so a run cut short leaves the small end
of the set counted by all. ``--jobs`` runs that many counts at once (one per core, as a
competition's nodes run several); say so beside any time.

The report: per counter solved, timeouts, memouts, crashes, errors, wrong, PAR-2 over the
set, median seconds of its solves, peak MB; solved per family; each instance's grade at
the limit (:func:`mscsp.export.grades.grade`: ``trivial``, ``easy``, ``hard``, ``beyond``,
``not measured`` while runs are missing), written to ``OUT/grades.jsonl``; and the cactus
plot ``OUT/cactus.png``.

    tar -xJf families-mcc.tar.xz -C /tmp/set
    MSCSP_COUNTERS=/tmp/counters/bin python bench/solvers/count_set.py /tmp/set/families-mcc \\
        --time-limit 60 --out out/set60 [--resume] [--jobs 2] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shlex
import statistics
import sys
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mscsp.bigint import from_decimal
from mscsp.evaluation.bench_plots import cactus
from mscsp.export.counter_runs import COUNTER_RUNS, run_counter, set_digest
from mscsp.export.grades import GRADES, Runs, add_file_run, grade
from mscsp.export.index import read_index
from mscsp.runtime.runlog import ResumableLog
from mscsp.trust.files import open_output

_spec = importlib.util.spec_from_file_location(
    "real_counters", Path(__file__).with_name("real_counters.py")
)
real_counters = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(real_counters)


#: The statuses of a failed run and the report's key for their number.
_FAILURES = {"timeout": "timeouts", "memout": "memouts", "crash": "crashes", "error": "errors"}


def counters(names: str | None, commands: list[str]) -> list[Any]:
    """The counters to run: those ``--command NAME=COMMAND`` names, else the built ones of
    ``counters/peers.tsv`` (``--counters``: those named)."""
    if commands:
        found = []
        for given in commands:
            name, _, words = given.partition("=")
            if not name or not words.strip():
                raise SystemExit(f"count_set: --command {given!r}: give NAME=COMMAND")
            found.append(real_counters.Peer(name, "", shlex.split(words)))
        return found
    found = [peer for peer in real_counters.peers() if real_counters.built(peer)]
    if names:
        wanted = names.split(",")
        unknown = sorted(set(wanted) - {peer.name for peer in real_counters.peers()})
        if unknown:
            raise SystemExit(f"count_set: unknown counter(s) {unknown}: see counters/peers.tsv")
        found = [peer for peer in found if peer.name in wanted]
    if not found:
        raise SystemExit("count_set: no counter built: run bench/solvers/real_counters.sh build")
    return found


def latest(rows: list[dict[str, Any]]) -> dict[tuple[int, str, str], dict[str, Any]]:
    """The last run of each counter command on each file (a retried run replaces the one
    before it; the log keeps both)."""
    return {(r["instance"], r["counter"], r["command"]): r for r in rows}


def run_set(args: argparse.Namespace, index: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs what is missing from ``OUT/runs.jsonl`` on the set's files (``index``, its
    index); every run of the log, old and new."""
    folder = Path(args.set)
    settings = {
        "set": set_digest(index),
        "instances": len(index),
        "time_limit": args.time_limit,
        "memory_mb": args.memory_limit,
    }
    os.environ["PATH"] = real_counters.search_path()  # the wrappers' children inherit it
    found = counters(args.counters, args.command)
    log = ResumableLog(Path(args.out) / "runs.jsonl", COUNTER_RUNS, lock=args.out)
    if args.resume:
        rows = [line for _, line in log.resume(settings, "drop --resume").records]
    elif log.exists():
        raise SystemExit(f"count_set: {log.path} exists: --resume it, or another --out")
    else:
        log.start(settings, new=True)
        rows = []
    done = {key for key, r in latest(rows).items() if r["status"] not in args.retry}
    order = sorted(range(len(index)), key=lambda i: (index[i]["cells"], index[i]["variables"]))
    todo = [
        (i, peer)
        for i in order
        for peer in found
        if (i, peer.name, shlex.join(peer.command)) not in done
    ]
    print(f"{len(todo)} runs to do ({len(rows)} logged), {len(found)} counters", file=sys.stderr)
    guard = threading.Lock()

    def one(item: tuple[int, Any]) -> None:
        i, peer = item
        record = index[i]
        row = run_counter(
            peer.command,
            folder / record["file"],
            from_decimal(record["count"]),
            time_limit=args.time_limit,
            memory_mb=args.memory_limit,
        )
        row = {
            "instance": i,
            "file": record["file"],
            "counter": peer.name,
            "command": shlex.join(peer.command),
            **row,
        }
        with guard:
            log.append(row)
            rows.append(row)
            print(
                f"[{len(rows)}] {record['file']} ({record['cells']} cells) {peer.name}: "
                f"{row['status']}{' WRONG' if row['wrong'] else ''} {row['seconds']:.2f} s",
                file=sys.stderr,
                flush=True,
            )

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(one, todo))
    return rows


def report(index: list[dict[str, Any]], rows: list[dict[str, Any]], limit: float) -> dict:
    """Per counter and family tallies, PAR-2 and each instance's grade at ``limit``.

    PAR-2 sums, over the instances every counter has a run on (all of them once the run is
    complete), each run's seconds where it counted right, twice the limit where not.
    """
    runs = Runs()
    for row in rows:
        add_file_run(runs, row, limit)
    names = sorted({r["counter"] for r in rows})
    ran = Counter(r["instance"] for r in rows)
    common = {i for i, n in ran.items() if n == len(names)}
    counters: dict[str, Any] = {}
    for name in names:
        mine = [r for r in rows if r["counter"] == name]
        solved = [r for r in mine if r["status"] == "ok" and not r["wrong"]]
        par2 = sum(
            r["seconds"] if r in solved else 2 * limit for r in mine if r["instance"] in common
        )
        peaks = [r["peak_mb"] for r in mine if r.get("peak_mb") is not None]
        counters[name] = {
            "runs": len(mine),
            "solved": len(solved),
            **{key: sum(r["status"] == s for r in mine) for s, key in _FAILURES.items()},
            "wrong": sum(bool(r["wrong"]) for r in mine),
            "par2": round(par2, 1),
            "median_s": round(statistics.median(r["seconds"] for r in solved), 3)
            if solved
            else None,
            "peak_mb": [round(statistics.median(peaks)), round(max(peaks))] if peaks else None,
            "families": dict(
                sorted(Counter(index[r["instance"]]["family"] for r in solved).items())
            ),
        }
    graded = [
        {
            "file": r["file"],
            "family": r["family"],
            "cells": r["cells"],
            **grade(runs, i, limit, r["file"]),
        }
        for i, r in enumerate(index)
    ]
    tally = Counter(g["grade"] for g in graded)
    return {
        "instances": len(index),
        "par2_instances": len(common),
        "families": dict(sorted(Counter(r["family"] for r in index).items())),
        "time_limit": limit,
        "counters": counters,
        "grades": {name: tally[name] for name in GRADES},
        "graded": graded,
    }


def print_report(summary: dict[str, Any]) -> None:
    """The report as Markdown tables."""
    limit = summary["time_limit"]
    print(
        f"{summary['instances']} instances, {limit:g} s each; PAR-2 over the "
        f"{summary['par2_instances']} every counter ran\n"
    )
    print(
        "| counter | solved | timeouts | memouts | crashes | errors | wrong | PAR-2 (s) "
        "| median s (solved) | peak MB (median / max) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    by_par2 = sorted(summary["counters"].items(), key=lambda item: item[1]["par2"])
    for name, c in by_par2:
        peak = "-" if c["peak_mb"] is None else f"{c['peak_mb'][0]:,} / {c['peak_mb'][1]:,}"
        median = "-" if c["median_s"] is None else f"{c['median_s']:g}"
        print(
            f"| {name} | {c['solved']} | {c['timeouts']} | {c['memouts']} | {c['crashes']} "
            f"| {c['errors']} | {c['wrong']} | {c['par2']:,.1f} | {median} | {peak} |"
        )
    names = [name for name, _ in by_par2]
    print("\n| family (instances) | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for family, n in summary["families"].items():
        cells = " | ".join(str(summary["counters"][c]["families"].get(family, 0)) for c in names)
        print(f"| {family} ({n}) | {cells} |")
    grades = ", ".join(f"{n} {name}" for name, n in summary["grades"].items() if n)
    print(f"\ngrades at {limit:g} s: {grades}")


def main() -> None:
    """Parses the arguments, runs, reports."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", help="an unpacked mscsp export --package folder")
    parser.add_argument("--out", required=True, help="folder for runs.jsonl and the report")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per run")
    parser.add_argument("--memory-limit", type=int, default=4096, help="MiB per run")
    parser.add_argument("--counters", help="comma list of peers.tsv names (default: all built)")
    parser.add_argument(
        "--command",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="a counter program to run (repeatable; replaces counters/peers.tsv's)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="runs at once (default 1)")
    parser.add_argument("--resume", action="store_true", help="run only what runs.jsonl lacks")
    parser.add_argument(
        "--retry",
        action="append",
        default=[],
        choices=list(_FAILURES),
        help="with --resume, run again the runs that ended so (repeatable)",
    )
    parser.add_argument("--report-only", action="store_true", help="report runs.jsonl, run none")
    parser.add_argument("--json", action="store_true", help="the report as JSON")
    args = parser.parse_args()
    if args.time_limit <= 0 or not math.isfinite(args.time_limit):
        parser.error("--time-limit must be a positive number of seconds")
    if args.retry and not args.resume:
        parser.error("--retry goes with --resume")
    if args.memory_limit < 1 or args.jobs < 1:
        parser.error("--memory-limit and --jobs must be at least 1")
    folder, out = Path(args.set), Path(args.out)
    index = read_index(folder)
    if args.report_only:
        contents = ResumableLog(out / "runs.jsonl", COUNTER_RUNS).read()
        settings = contents.header.settings
        if settings["set"] != set_digest(index):
            raise SystemExit(f"count_set: {out / 'runs.jsonl'} holds runs on another set")
        rows = [line for _, line in contents.records]
        args.time_limit = settings["time_limit"]
    else:
        rows = run_set(args, index)
    summary = report(index, list(latest(rows).values()), args.time_limit)
    with open_output(out / "grades.jsonl", "grades") as handle:
        handle.writelines(json.dumps(g) + "\n" for g in summary["graded"])
    cactus([{**r, "backend": r["counter"]} for r in rows], out / "cactus", args.time_limit)
    if args.json:
        print(json.dumps({k: v for k, v in summary.items() if k != "graded"}, indent=1))
    else:
        print_report(summary)


if __name__ == "__main__":
    main()
