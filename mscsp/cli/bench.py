"""``mscsp bench``: compares estimators (counting backends, approximate and learned ones)
over a corpus of positions: latency, accuracy against the exact reference, and win rate."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from ..display.table import format_table, rich_tables
from ..evaluation.bench_runs import RunsLog
from ..evaluation.benchmark import (
    CorpusEntry,
    default_memory_limit,
    load_entries,
    run_benchmark,
    select_backends,
    win_rates,
    write_outputs,
)
from ..evaluation.played_positions import sample_positions
from ..game import PRESETS
from ..runtime.outlock import output_lock
from .options import reports_errors
from .progress import Progress, wanted
from .types import AsciiInt
from .vocabulary import shared_options

shared = shared_options("bench")

#: What each column of the summary table means (printed under it).
LEGEND = (
    ("exact", "yes: exact counts (the probabilities must equal the reference's)"),
    ("solved", "positions answered within the limits, and not wrong"),
    ("limits", "positions where the backend stopped itself (time limit or solution cap)"),
    ("timeouts", "positions that ran past the time limit and were killed"),
    ("memouts", "positions that needed more than the memory limit"),
    ("wrong", "answers that differ from the reference's, or counts failing their checks"),
    ("PAR-2", "seconds: time of each solved position, twice the limit for any other"),
    ("median/p95/max", "latency per solved position in ms (the whole solve)"),
    ("x ref", "median over positions both solved of latency / reference's latency"),
    ("max |dp|", "largest probability difference from the reference (0 when exact)"),
)

#: Columns of the accuracy table (definitions in mscsp.evaluation.metrics and docs/estimators.md).
ACCURACY_LEGEND = (
    ("mean |dp|", "mean |estimate - exact| over the covered cells"),
    ("brier", "mean (estimate - exact)^2"),
    ("log loss", "cross-entropy with the exact probabilities as soft labels (exact: the floor)"),
    ("safe->unsafe", "cells certainly safe (exact 0) estimated >= 0.01"),
    ("false safe", "cells estimated < 0.01 that the exact odds call unsafe (exact >= 0.01)"),
    ("pos/s", "positions per second estimated in one batch (estimators that batch)"),
    ("win %", "games won by revealing the lowest-estimate cell, 95 % Wilson interval"),
)

#: Columns added by --decide.
DECIDE_LEGEND = (
    ("search", "yes: certain cells found by solver calls; no: read off exact counts"),
    ("calls", "median solver calls per position (search backends)"),
    ("no safe cell", "positions with no certainly safe cell: a player must count to guess"),
    ("max |dp|", "1 if some position's certain cells differ from the reference's, else 0"),
)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def echo_table(title: str, header: tuple[str, ...], rows: list[tuple]) -> None:
    """A table: drawn with ``rich`` in a terminal, plain aligned text when piped."""
    if sys.stdout.isatty():
        try:
            from rich.console import Console
        except ImportError:
            pass
        else:
            console = Console()
            for table in rich_tables(title, header, rows, console.width):
                console.print(table)
            return
    click.echo(f"{title}\n")
    click.echo(format_table(header, rows))


@click.command()
@shared(
    "--backend",
    "backend_spec",
    metavar="NAMES",
    help="'all' (every available counting backend but brute), a name, or a comma list of any "
    "estimators ('mscsp backends' lists them): sat:NAME, sampler:N, csp-limited:N, "
    "learner:default, learner:PATH, alexnet.",
)
@click.option(
    "--reference",
    default="dss",
    show_default=True,
    metavar="NAME",
    help="Backend the others' probabilities are compared with.",
)
@click.option(
    "--corpus",
    type=click.Path(exists=True, dir_okay=False),
    help='JSONL file of positions, one {"board": "<text>"} per line (optional "family", '
    '"name"); bench/corpora/hard.jsonl is the hard corpus.',
)
@shared("--preset", help="Sample positions from seeded games of this preset instead of a corpus.")
@click.option(
    "--positions",
    type=AsciiInt(min=1),
    default=50,
    show_default=True,
    help="Number of positions sampled with --preset.",
)
@shared("--seed")
@shared(
    "--time-limit",
    help="Seconds per position for every backend (0: no limit); a position past it is "
    "recorded as a timeout.",
)
@shared(
    "--memory-limit",
    help="Megabytes each backend's worker and its children may hold resident beyond its "
    "start (0: no limit); a position past it is recorded as a memory out. Default: 4096, or "
    "half the machine's memory if less. Not applied with --in-process.",
)
@shared(
    "--max-solutions", help="Solution cap per component for enumerating backends [default: none]."
)
@click.option(
    "--repeat",
    type=AsciiInt(min=1),
    default=1,
    show_default=True,
    help="Solve each position this many times and keep the fastest run.",
)
@click.option(
    "--decide",
    is_flag=True,
    default=False,
    help="Time finding the certain cells only (safe / mine), by solver search on backends "
    "that can, instead of exact probabilities.",
)
@click.option(
    "--in-process",
    is_flag=True,
    default=False,
    help="Solve in this process, or each --workers process (faster start; only the "
    "backends' own limits apply, so a native counter may overrun the time limit).",
)
@shared("--workers")
@shared("--executor")
@shared(
    "--games",
    help="Also play this many seeded games with each estimator (lowest-estimate rule) and "
    "report its win rate.",
)
@click.option(
    "--games-preset",
    type=click.Choice(list(PRESETS)),
    default=None,
    help="Board of the --games (default: --preset, else beginner).",
)
@shared(
    "--out",
    type=click.Path(file_okay=False),
    help="Write components.csv, positions.csv, runs.csv, summary.json, the plots "
    "(latency, width, calibration, cactus, scatter-A-vs-B) here, and runs.jsonl, each run "
    "as it finishes.",
)
@shared(
    "--resume",
    help="Go on from the runs recorded in --out's runs.jsonl (same corpus and limits), "
    "running only the others.",
)
@shared("--progress")
@shared("--json")
@reports_errors
def bench(
    backend_spec: str,
    reference: str,
    corpus: str | None,
    preset: str | None,
    positions: int,
    seed: int,
    time_limit: float,
    memory_limit: int | None,
    max_solutions: int | None,
    repeat: int,
    decide: bool,
    in_process: bool,
    workers: int,
    executor: str,
    games: int,
    games_preset: str | None,
    out: str | None,
    resume: bool,
    progress: bool | None,
    as_json: bool,
) -> None:
    """Time estimators over positions and measure their error against the reference.

    Without --corpus or --preset, uses the built-in corpus (60 positions from seeded
    beginner, intermediate and expert games). Each counting backend solves in its own
    worker process under --memory-limit, killed when a position runs past --time-limit (a
    recorded timeout or memory out, not a hang or a crash); with --workers N, N such workers
    solve a backend's positions at once (the records, tables and files come out in the
    same order). The other estimators (sampler,
    csp-limited, learned models) run in this process. Per backend, as the SAT and #SAT
    competitions report: solved, timeouts, memory outs, wrong answers and the PAR-2 score;
    with --out, cactus and scatter plots, and every run in runs.jsonl as it finishes
    (--resume goes on from it). With --games N each also plays N seeded games. The columns
    are explained under the tables.
    """
    if corpus and preset:
        raise click.UsageError("give either --corpus or --preset, not both")
    if resume and not out:
        raise click.UsageError("--resume goes on from --out DIR's runs.jsonl: give --out")
    if memory_limit is None:
        memory_limit = default_memory_limit()
    names = select_backends(backend_spec)
    # Taken before the positions are drawn: a second run on --out is refused before any work.
    with output_lock(out, "bench results folder"):
        if preset:
            entries = [
                CorpusEntry(board, 0, preset, f"{preset} #{i}")
                for i, board in enumerate(sample_positions(*PRESETS[preset], positions, seed=seed))
            ]
        else:
            entries = load_entries(corpus)
        estimators = len(dict.fromkeys([reference, *names]))
        # A run is one estimator on one position (or one game): the units of the bar.
        total = (len(entries) + games) * estimators
        with Progress(total, "runs", "benchmarking", wanted(progress, as_json)) as bar:

            def planned(runs: int) -> None:
                # Runs resumed from the file are not in the count: the time left is the
                # pending runs' only.
                bar.set_total(runs + games * estimators)

            result = run_benchmark(
                entries,
                names,
                reference=reference,
                time_limit=time_limit or None,
                max_solutions=max_solutions,
                repeat=repeat,
                progress=bar.advance,
                isolate=not in_process,
                decide=decide,
                memory_limit=memory_limit or None,
                runs=RunsLog(Path(out) / "runs.jsonl", resume=resume) if out else None,
                planned=planned,
                workers=workers,
                executor=executor,
            )
            if games:
                win_rates(
                    result,
                    dict.fromkeys([reference, *names]),
                    games_preset or preset or "beginner",
                    games,
                    seed=seed,
                    progress=bar.advance,
                )
        if out:
            written = write_outputs(result, out)
            for path in written:
                click.echo(f"wrote {path}", err=True)
            if not any(path.suffix == ".png" for path in written):
                click.echo("no plot: matplotlib is missing (pip install 'mscsp[plot]')", err=True)
    if as_json:
        click.echo(json.dumps(result.to_json()))
        return
    _echo_report(result)


def _echo_report(result: Any) -> None:
    summary = result.summary()
    limit = f"{result.time_limit:g} s" if result.time_limit else "none"
    if result.memory_limit:
        limit += f", memory limit {result.memory_limit} MB"
    decide = result.mode == "decide"
    header = ["backend", "exact", "solved", "limits", "timeouts", "memouts", "wrong", "PAR-2"]
    header += ["median", "p95", "max"]
    header += ["x ref", "max |dp|"] + (["search", "calls", "no safe cell"] if decide else [])
    rows = []
    for r in summary:
        row = [
            r["backend"],
            "yes" if r["exact"] else "no",
            r["solved"],
            r["limits"],
            r["timeouts"],
            r["memouts"],
            r["wrong"],
            _num(r["par2"], ".1f"),
            _ms(r["median_ms"]),
            _ms(r["p95_ms"]),
            _ms(r["max_ms"]),
            "-" if r["ratio_to_reference"] is None else f"{r['ratio_to_reference']:.2f}",
            "-" if r["max_abs_diff"] is None else f"{r['max_abs_diff']:.3g}",
        ]
        if decide:
            calls = r["median_calls"]
            row += ["yes" if r["native"] else "no", "-" if calls is None else f"{calls:g}"]
            row += [r["no_safe_cell"]]
        rows.append(tuple(row))
    what = "certain cells only" if decide else "exact probabilities"
    echo_table(
        f"{result.positions} positions, {what}; reference {result.reference}; time limit {limit}",
        tuple(header),
        rows,
    )
    click.echo("")
    legend = dict(LEGEND)
    if decide:
        legend.update(DECIDE_LEGEND)
    for column, meaning in legend.items():
        click.echo(f"  {column}: {meaning}")
    if not decide:
        _echo_accuracy(result, summary)
    backends = [r["backend"] for r in summary]
    families = result.by_family()
    if len(families) > 1 or families[0]["family"] != "-":
        click.echo("")
        echo_table(
            "median latency (ms) per family; (n) positions not solved",
            ("family", "positions", *backends),
            [
                (
                    row["family"],
                    row["positions"],
                    *(
                        _ms(row[b]["median_ms"])
                        + (f" ({row[b]['failed']})" if row[b]["failed"] else "")
                        for b in backends
                    ),
                )
                for row in families
            ],
        )
    sizes = result.by_size()
    counters = [b for b in backends if b in sizes[0]] if sizes else []
    if sizes:
        click.echo("")
        echo_table(
            "median count time per component (ms) by component size",
            ("cells", "components", *counters),
            [
                (row["cells"], row["components"], *(_ms(row.get(b)) for b in counters))
                for row in sizes
            ],
        )


def _num(value: float | None, form: str = ".3g") -> str:
    return "-" if value is None else format(value, form)


def _echo_accuracy(result: Any, summary: list[dict[str, Any]]) -> None:
    """Accuracy against the reference (and win rate with --games), then per family for
    the inexact estimators."""
    played = bool(result.games)
    header = ["backend", "family", "cells", "mean |dp|", "brier", "log loss"]
    header += ["safe->unsafe", "false safe", "pos/s"]
    header += ["games", "win %", "95 % CI"] if played else []
    rows = []
    for r in summary:
        row = [r["backend"], r["family"], r["cells"], _num(r["mean_abs_diff"])]
        row += [_num(r["brier"]), _num(r["log_loss"], ".4f")]
        row += [r["certain_safe_called_unsafe"], r["called_safe_not_safe"]]
        row += [_num(r["positions_per_s"], ".0f")]
        if played:
            g = r.get("games") or {}
            row += [g.get("games", "-"), _num(g.get("win_rate") and 100 * g["win_rate"], ".1f")]
            row += [f"{100 * g['ci_low']:.1f}-{100 * g['ci_high']:.1f}" if g else "-"]
        rows.append(tuple(row))
    title = f"accuracy against {result.reference} (covered cells of the positions both solved)"
    if played:
        title += f"; win rate on {result.games_board}"
    click.echo("")
    echo_table(title, tuple(header), rows)
    click.echo("")
    for column, meaning in ACCURACY_LEGEND:
        if played or column != "win %":
            click.echo(f"  {column}: {meaning}")
    inexact = [r["backend"] for r in summary if not r["exact"]]
    families = result.by_family()
    if inexact and (len(families) > 1 or families[0]["family"] != "-"):
        click.echo("")
        echo_table(
            "mean |dp| (brier) per family: where an estimate's error grows",
            ("family", "positions", *inexact),
            [
                (
                    row["family"],
                    row["positions"],
                    *(
                        f"{_num(row[b].get('mean_abs_diff'))} ({_num(row[b].get('brier'))})"
                        for b in inexact
                    ),
                )
                for row in families
            ],
        )
