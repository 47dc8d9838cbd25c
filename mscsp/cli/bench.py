"""``mscsp bench``: compares counting backends over a corpus of positions."""

from __future__ import annotations

import json
import sys

import click

from ..benchmark import load_corpus, run_benchmark, select_backends, write_outputs
from ..game import PRESETS
from ..positions import sample_positions
from .options import json_option, reports_errors, seed_option, time_limit_option
from .table import format_table


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


@click.command()
@click.option(
    "--backend",
    "backend_spec",
    default="all",
    show_default=True,
    metavar="NAMES",
    help="'all' (every available backend but brute), a name, or a comma list; "
    "sat:NAME picks a SAT sub-solver.",
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
    help='JSONL file of positions, one {"board": "<text>"} per line.',
)
@click.option(
    "--preset",
    type=click.Choice(list(PRESETS)),
    help="Sample positions from seeded games of this preset instead of a corpus.",
)
@click.option(
    "--positions",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Number of positions sampled with --preset.",
)
@seed_option
@time_limit_option(10.0)
@click.option(
    "--max-solutions",
    type=click.IntRange(min=1),
    default=None,
    help="Solution cap per component for enumerating backends.",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Solve each position this many times and keep the fastest run.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Write components.csv, positions.csv, summary.json and latency.png here.",
)
@json_option
@reports_errors
def bench(
    backend_spec: str,
    reference: str,
    corpus: str | None,
    preset: str | None,
    positions: int,
    seed: int,
    time_limit: float,
    max_solutions: int | None,
    repeat: int,
    out: str | None,
    as_json: bool,
) -> None:
    """Time backends over positions and check they agree with the reference.

    Without --corpus or --preset, uses the built-in corpus (60 positions from seeded
    beginner, intermediate and expert games). Latencies are per position (whole solve);
    'max |dp|' is the largest probability difference from the reference (0 when exact).
    """
    if corpus and preset:
        raise click.UsageError("give either --corpus or --preset, not both")
    names = select_backends(backend_spec)
    if preset:
        boards = sample_positions(*PRESETS[preset], positions, seed=seed)
    else:
        boards = load_corpus(corpus)
    total = len(boards) * len(dict.fromkeys([reference, *names]))
    with click.progressbar(
        length=total,
        label="benchmarking",
        file=sys.stderr,
        hidden=as_json or not sys.stderr.isatty(),
    ) as bar:
        result = run_benchmark(
            boards,
            names,
            reference=reference,
            time_limit=time_limit or None,
            max_solutions=max_solutions,
            repeat=repeat,
            progress=bar.update,
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
    summary = result.summary()
    click.echo(
        f"{result.positions} positions; reference {result.reference}; latency per position in ms\n"
    )
    click.echo(
        format_table(
            ("backend", "exact", "solved", "limits", "median", "p95", "max", "x ref", "max |dp|"),
            [
                (
                    r["backend"],
                    "yes" if r["exact"] else "no",
                    r["solved"],
                    r["limits"],
                    _ms(r["median_ms"]),
                    _ms(r["p95_ms"]),
                    _ms(r["max_ms"]),
                    "-" if r["ratio_to_reference"] is None else f"{r['ratio_to_reference']:.2f}",
                    "-" if r["max_abs_diff"] is None else f"{r['max_abs_diff']:.3g}",
                )
                for r in summary
            ],
        )
    )
    sizes = result.by_size()
    if sizes:
        backends = [r["backend"] for r in summary]
        click.echo("\nmedian count time per component (ms) by component size\n")
        click.echo(
            format_table(
                ("cells", "components", *backends),
                [
                    (row["cells"], row["components"], *(_ms(row[b]) for b in backends))
                    for row in sizes
                ],
            )
        )
