"""``mscsp replay``: every click of a recorded game rated with the exact odds."""

from __future__ import annotations

import json
import sys

import click

from ..display.render import format_probability
from ..display.table import format_table
from ..errors import BackendUnavailableError, MscspError
from ..replay import (
    FORMATS,
    MAX_BYTES,
    ClickRating,
    ReplayRating,
    rate_replay,
    rating_json,
    read_replay,
)
from ..trust.escape import terminal_text
from ..trust.inputs import read_bounded
from .options import reports_errors
from .progress import Progress, wanted
from .replay_archive import is_archive, run_archive
from .types import AsciiInt
from .vocabulary import shared_options

shared = shared_options("replay")


@click.command()
@click.argument("files", metavar="PATH...", nargs=-1, required=True)
@shared("--backend")
@shared(
    "--time-limit",
    help="Seconds to solve each position of the game (0: no limit); hitting it exits 5.",
)
@shared("--json")
@click.option(
    "--guesses",
    "guesses_only",
    is_flag=True,
    default=False,
    help="List only the clicks that were not certain safe (the summary counts them all).",
)
@shared("--progress")
@shared(
    "--workers",
    help="Worker processes rating an archive (0: one per CPU); results do not depend on it.",
)
@shared("--executor")
@shared(
    "--out",
    type=click.Path(dir_okay=False),
    help="Archive: one JSON line per game, written as it is rated (resumable with --resume).",
)
@shared("--resume", help="Continue the archive rating recorded at --out.")
@click.option(
    "--summary", is_flag=True, default=False, help="Archive: print the totals (also with --json)."
)
@click.option("--csv", "csv_file", metavar="FILE", default=None, help="Archive: one row per game.")
@click.option("--summary-json", metavar="FILE", default=None, help="Archive: the summary as JSON.")
@click.option(
    "--report", metavar="FILE.html", default=None, help="Archive: a self-contained HTML report."
)
@click.option(
    "--endgame-layouts",
    type=AsciiInt(min=0, max=10_000),
    default=30,
    show_default=True,
    help="Archive accuracy: value guesses exactly when at most this many layouts are left.",
)
@click.option(
    "--pluck",
    is_flag=True,
    default=False,
    help="Archive: have ms_toollib compute its pluck (luck) too, to compare (slower).",
)
@reports_errors
def replay(
    files: tuple[str, ...],
    backend: str,
    time_limit: float,
    as_json: bool,
    guesses_only: bool,
    progress: bool | None,
    workers: int,
    executor: str,
    out: str | None,
    resume: bool,
    summary: bool,
    csv_file: str | None,
    summary_json: str | None,
    report: str | None,
    endgame_layouts: int,
    pluck: bool,
) -> None:
    """Rates every click of each replay PATH with the exact odds it was taken at.

    A file is a replay recorded by a Minesweeper program: .avf (Arbiter), .evf (Metasweeper),
    .rmv (Viennasweeper) or .mvf (Minesweeper Clone); reading it needs the replay extra.
    Each click gets the mine probability of the cell clicked, the lowest probability on the
    board, and a verdict: forced, certain, best guess, or avoidable risk (with its cost, the
    extra chance of losing over the safest cell). Flags are ignored; a chord counts as the
    cells it opens. Cells are (row, col) counted from 0. With several files, each is rated
    in turn under a '==> FILE <==' line (--json: one object per line); a file that cannot be
    rated is reported on stderr and the others are still rated.

    An archive (a PATH that is a folder, searched recursively for .avf .evf .evfs .rmv .mvf,
    a glob pattern, a .evfs file, or any of --out --resume --summary --csv --summary-json
    --report --workers) is rated game by game in parallel, then its totals are printed: per
    board and mode, by month, the worst mistakes (--json: each game's record, one per line,
    and the totals last with --summary). A .evfs file is a Metasweeper set of .evf games:
    each game is rated and recorded on its own, as FILE#N (N: 1 for the first game). A file
    that cannot be rated is listed with its reason and the run goes on (exit 0). See the
    user guide for the records, accuracy and --resume.
    Exit codes: 0 ok, 2 bad or unsupported file, 4 ms_toollib missing, 5 solver limit.
    """
    if is_archive(
        files,
        out=out,
        resume=resume,
        summary=summary,
        csv=csv_file,
        summary_json=summary_json,
        report=report,
        workers=workers != 1,
    ):
        run_archive(
            files,
            backend=backend,
            time_limit=time_limit or None,
            workers=workers,
            executor=executor,
            endgame_layouts=endgame_layouts,
            pluck=pluck,
            out=out,
            resume=resume,
            as_json=as_json,
            summary=summary,
            csv_file=csv_file,
            summary_json=summary_json,
            report=report,
            show_progress=wanted(progress, as_json),
        )
        return
    if len(files) == 1:  # one file: its errors are the command's
        _rate(files[0], backend, time_limit, as_json, guesses_only)
        return
    failed = 0
    with Progress(len(files), "replays", "rating", wanted(progress, as_json)) as bar:
        for index, file in enumerate(files):
            try:
                heading = ("\n" if index else "") + f"==> {file} <=="
                _rate(file, backend, time_limit, as_json, guesses_only, heading)
            except BackendUnavailableError:
                raise  # the same for every file: said once
            except MscspError as exc:
                where = "" if file in str(exc) else f"{file}: "  # each line names its file
                click.echo(terminal_text(f"mscsp: error: {where}{exc}"), err=True)
                failed = failed or exc.exit_code
            bar.advance()
    if failed:
        sys.exit(failed)


def _rate(
    file: str,
    backend: str,
    time_limit: float,
    as_json: bool,
    guesses_only: bool,
    heading: str | None = None,
) -> None:
    """Rates one replay and prints it, after ``heading`` (the file's name, among several)."""
    # Replays are read by file name (its extension picks the format): no standard input.
    data = read_bounded(file, MAX_BYTES, "replay file", allow_stdin=False)
    rating = rate_replay(read_replay(data, file), backend, time_limit or None)
    if as_json:
        click.echo(json.dumps({"file": file, **rating_json(rating)}))
        return
    if heading is not None:
        click.echo(terminal_text(heading))
    click.echo(_header(rating))
    click.echo()
    shown = [c for c in rating.clicks if not (guesses_only and c.verdict == "certain")]
    click.echo(format_table(_COLUMNS, [_row(c) for c in shown]))
    click.echo()
    click.echo(_summary(rating))


_COLUMNS = ("#", "cell", "kind", "p(mine)", "safest", "safe cells", "verdict", "cost")


def _header(rating: ReplayRating) -> str:
    replay = rating.replay
    who = f" by {replay.player}" if replay.player else ""
    made = f" ({replay.software})" if replay.software else ""
    return (
        f"{FORMATS[replay.format]} replay{who}{made}: {replay.cols}x{replay.rows}, "
        f"{replay.mines} mines, {replay.mode} mode"
    )


def _cell(cell: tuple[int, int]) -> str:
    return f"({cell[0]},{cell[1]})"


def _row(click: ClickRating) -> list[object]:
    kind = click.kind if click.kind == "click" else f"chord {_cell(click.at)}"
    verdict = click.verdict if click.survived else f"{click.verdict}, LOST"
    return [
        click.number,
        _cell(click.cell),
        kind,
        format_probability(float(click.probability)),
        format_probability(float(click.safest)),
        click.safe_cells,
        verdict,
        format_probability(float(click.cost)) if click.cost else "-",
    ]


def _summary(rating: ReplayRating) -> str:
    s = rating.summary()
    verdicts = ", ".join(f"{n} {v}" for v, n in s["verdicts"].items())
    lines = [
        f"result: {s['result']} after {s['clicks']} clicks ({verdicts})",
        f"luck: {s['luck']:.4g} (the chance of surviving the "
        f"{_plural(s['guesses_survived'], 'guess', 'guesses')} survived; "
        f"-log10 = {abs(s['luck_log10']):.4f}, as ms_toollib's pluck)",
        f"avoidable risk: {_plural(s['avoidable_risks'], 'click', 'clicks')}, total cost "
        f"{s['avoidable_cost']:.4f}",
    ]
    lost = rating.lost_click
    if lost is not None:
        lines.append(
            f"lost at click {lost.number}: {_cell(lost.cell)} at p = {lost.probability} "
            f"({format_probability(float(lost.probability))}); the safest cell "
            f"{_cell(lost.best_cell)} was at {lost.safest}"
        )
    return "\n".join(lines)


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
