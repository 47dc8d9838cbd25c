"""``mscsp export``: positions out as standard instance files (DIMACS CNF for model
counters, OPB, MiniZinc, CPLEX LP) with an index of their exact counts; with
``--package``, packed as a benchmark set (:mod:`mscsp.export.package`)."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from ..board import parse_board
from ..display.table import plural
from ..evaluation.benchmark import CorpusEntry, load_entries
from ..evaluation.played_positions import sample_positions
from ..export import FORMATS, MINE_NUMBERS
from ..export import export as run_export
from ..export.package import DEFAULT_ROUTES, PackageSummary, check_archive, corpus_origin, package
from ..export.routes import ROUTES
from ..formats.dimacs import ENCODINGS, KINDS
from ..formats.instances import PER
from ..game import PRESETS
from .options import reports_errors
from .probs import read_board_text
from .progress import Progress, wanted
from .types import AsciiInt
from .vocabulary import shared_options

shared = shared_options("export")


@click.command()
@click.argument("file", required=False, type=click.Path(allow_dash=True, dir_okay=False))
@shared("--mines", help="Total mine count of FILE, if the board text has no header.")
@click.option(
    "--corpus",
    type=click.Path(dir_okay=False),
    help='JSONL corpus, one {"board": "<text>"} per line (bench/corpora/hard.jsonl is the '
    "hard one).",
)
@shared("--preset", help="Positions from seeded games of this preset (as mscsp bench --preset).")
@click.option(
    "--positions",
    type=AsciiInt(min=1),
    default=50,
    show_default=True,
    help="Positions sampled with --preset.",
)
@shared("--seed")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default="mcc",
    show_default=True,
    help="mcc: DIMACS CNF (Model Counting Competition); opb: pseudo-Boolean; mzn: MiniZinc "
    "model and .dzn data; lp: CPLEX LP.",
)
@shared(
    "--out",
    type=click.Path(file_okay=False),
    required=True,
    help="Folder for the instances and index.jsonl (must be empty, or --overwrite).",
)
@click.option(
    "--per",
    type=click.Choice(PER),
    default="component",
    show_default=True,
    help="One instance per component and mine number, or per mine number of all the "
    "components of a position joined.",
)
@click.option(
    "--kind",
    type=click.Choice(KINDS),
    default="pmc",
    show_default=True,
    help="mcc only: pmc (projected count, one file per mine number) or wmc (one weighted "
    "file: --weight per mine).",
)
@click.option(
    "--encoding",
    type=click.Choice(ENCODINGS),
    default="seqcounter",
    show_default=True,
    help="PySAT CardEnc encoding of cardinality constraints too large to state directly "
    "(the mine number); a number's constraint needs no auxiliary variable.",
)
@click.option(
    "--weight",
    type=AsciiInt(min=1),
    default=2,
    show_default=True,
    help="Weight of a mine with --kind wmc (the count is sum_k counts[k] * weight**k).",
)
@click.option(
    "--mine-numbers",
    type=click.Choice(MINE_NUMBERS),
    default="all",
    show_default=True,
    help="An instance per mine number, or per component only the mine number with the "
    "most layouts (peak: a set of bounded size; not with --kind wmc).",
)
@click.option(
    "--package",
    "archive",
    metavar="ARCHIVE",
    type=click.Path(dir_okay=False),
    help="Also pack the export as a benchmark set in this .tar.gz or .tar.xz archive: "
    "README, index with a second count per instance, corpus, SHA256SUMS (pmc only).",
)
@click.option(
    "--check-with",
    "routes",
    type=click.Choice(list(ROUTES)),
    multiple=True,
    help=f"--package: second route(s) that count every instance again; a count that "
    f"differs stops the packaging [default: {', '.join(DEFAULT_ROUTES)}].",
)
@click.option(
    "--grades",
    "runs",
    metavar="RUNS",
    type=click.Path(dir_okay=False),
    multiple=True,
    help="--package: runs.jsonl of mscsp bench --out on the same positions, or of "
    "bench/solvers/count_set.py on the same files (any number), to grade each instance at "
    "60 s and 1,800 s.",
)
@shared(
    "--time-limit",
    help="Seconds to count each position (0: no limit); a position past it is skipped. "
    "With --package, also each second count.",
)
@shared(
    "--overwrite",
    help="Replace an earlier export in --out: only the files its index.jsonl lists are "
    "removed; anything else named like an instance there is refused. With --package, "
    "also replace the archive.",
)
@shared("--progress")
@shared("--json")
@reports_errors
def export(
    file: str | None,
    mines: int | None,
    corpus: str | None,
    preset: str | None,
    positions: int,
    seed: int,
    fmt: str,
    out: str,
    per: str,
    kind: str,
    encoding: str,
    weight: int,
    mine_numbers: str,
    archive: str | None,
    routes: tuple[str, ...],
    runs: tuple[str, ...],
    time_limit: float,
    overwrite: bool,
    progress: bool | None,
    as_json: bool,
) -> None:
    """Write the instances of FILE (- for stdin), a --corpus or --preset positions.

    Each component and mine number k becomes one instance, "these cells with exactly k
    mines", over one Boolean variable per cell; DIR/index.jsonl gives each file's exact
    count (a decimal string) from the default backend. Check a solver against it: see
    docs/export.md. With --package, the export packed as a benchmark set: each instance
    counted again by a second route (a disagreement is exit 2 and no archive), graded
    from --grades runs. Exit codes: 0 ok, 2 bad input, 4 missing package, 6 --out in use.
    """
    if sum(x is not None for x in (file, corpus, preset)) != 1:
        raise click.UsageError("give one of FILE, --corpus or --preset")
    if archive is None and (routes or runs):
        raise click.UsageError("--check-with and --grades go with --package")
    if archive is not None:
        if fmt != "mcc" or kind != "pmc":
            raise click.UsageError("--package takes pmc instances (--format mcc --kind pmc)")
        check_archive(archive, overwrite)  # before the export, not after
    if preset:
        boards = sample_positions(*PRESETS[preset], positions, seed=seed)
        entries = [CorpusEntry(b, 0, preset, f"{preset} #{i}") for i, b in enumerate(boards)]
    elif corpus:
        entries = load_entries(corpus)
    else:
        board = parse_board(read_board_text(file), mines=mines)
        entries = [CorpusEntry(board, 0, "", "stdin" if file == "-" else str(file))]
    with Progress(len(entries), "positions", "exporting", wanted(progress, as_json)) as bar:
        summary = run_export(
            entries,
            out,
            fmt=fmt,
            per=per,
            kind=kind,
            encoding=encoding,
            weight=weight,
            time_limit=time_limit or None,
            overwrite=overwrite,
            progress=bar.advance,
            mine_numbers=mine_numbers,
        )
    packed = None
    if archive is not None:
        if corpus:
            origin = corpus_origin(corpus)
        elif preset:
            origin = f"{positions} positions of seeded {preset} games (--seed {seed})"
        else:
            origin = entries[0].name
        with Progress(
            summary.instances, "instances", "recounting", wanted(progress, as_json)
        ) as bar:
            packed = package(
                entries,
                out,
                archive,
                origin=origin,
                skipped=summary.skipped,
                routes=routes or DEFAULT_ROUTES,
                runs=runs,
                time_limit=time_limit or None,
                mine_numbers=mine_numbers,
                overwrite=overwrite,
                progress=bar.advance,
            )
    if as_json:
        extra = {} if packed is None else {"package": asdict(packed)}
        click.echo(json.dumps({**asdict(summary), **extra}))
        return
    click.echo(
        f"wrote {plural(summary.instances, f'{fmt} instance')} of "
        f"{plural(summary.positions, 'position')} to "
        f"{summary.out} (index.jsonl) in {summary.seconds:.2f} s"
    )
    for skipped in summary.skipped:
        click.echo(f"skipped {skipped['source']}: {skipped['reason']}", err=True)
    if packed is not None:
        _report_package(packed)


def _report_package(packed: PackageSummary) -> None:
    """What the archive holds, in two lines."""
    click.echo(
        f"packed {plural(packed.instances, 'instance')} ({packed.two_counts} with two agreeing "
        f"counts) into {packed.archive} ({packed.bytes / 2**20:.1f} MiB)"
    )
    for limit, tally in packed.grades.items():
        grades = ", ".join(f"{n} {grade}" for grade, n in sorted(tally.items()))
        click.echo(f"grades at {limit} s: {grades}")
