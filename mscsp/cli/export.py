"""``mscsp export``: positions out as standard instance files (DIMACS CNF for model
counters, OPB, MiniZinc, CPLEX LP) with an index of their exact counts."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from ..board import parse_board
from ..display.table import plural
from ..evaluation.benchmark import CorpusEntry, load_entries
from ..evaluation.played_positions import sample_positions
from ..export import FORMATS
from ..export import export as run_export
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
@shared(
    "--time-limit",
    help="Seconds to count each position (0: no limit); a position past it is skipped.",
)
@shared(
    "--overwrite",
    help="Replace an earlier export in --out: only the files its index.jsonl lists are "
    "removed; anything else named like an instance there is refused.",
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
    time_limit: float,
    overwrite: bool,
    progress: bool | None,
    as_json: bool,
) -> None:
    """Write the instances of FILE (- for stdin), a --corpus or --preset positions.

    Each component and mine number k becomes one instance, "these cells with exactly k
    mines", over one Boolean variable per cell; DIR/index.jsonl gives each file's exact
    count (a decimal string) from the default backend. Check a solver against it: see
    docs/export.md. Exit codes: 0 ok, 2 bad input, 4 missing package, 6 --out in use.
    """
    if sum(x is not None for x in (file, corpus, preset)) != 1:
        raise click.UsageError("give one of FILE, --corpus or --preset")
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
        )
    if as_json:
        click.echo(json.dumps(asdict(summary)))
        return
    click.echo(
        f"wrote {plural(summary.instances, f'{fmt} instance')} of "
        f"{plural(summary.positions, 'position')} to "
        f"{summary.out} (index.jsonl) in {summary.seconds:.2f} s"
    )
    for skipped in summary.skipped:
        click.echo(f"skipped {skipped['source']}: {skipped['reason']}", err=True)
