"""``mscsp probs``: mine probabilities of a pasted position (exact, or any estimator's)."""

from __future__ import annotations

import json
from importlib import resources

import click

from ..board import MAX_TEXT, Board, parse_board
from ..contradiction import explained
from ..display.heatmap import save_png
from ..display.render import format_probability, probability_map, shown_probabilities, solution_json
from ..errors import InconsistentBoardError, InvalidInputError, MscspError, SolverLimitError
from ..estimators import (
    CountingEstimator,
    Estimate,
    Estimator,
    get_estimator,
    run_report,
)
from ..explain import explain, parse_cells
from ..policy.fallback import COMMAND, check_fallback, fallback_record
from ..policy.limits import both_stopped
from ..probabilities import Solution
from ..screen import FLAGS_NOTE, read_screenshot
from ..screen.image import MAX_IMAGE_BYTES
from ..trust.inputs import read_bounded
from .options import reports_errors
from .vocabulary import shared_options

shared = shared_options("probs")

#: Largest board text read (bytes): parse_board's limit in characters, as board text is ASCII.
MAX_TEXT_BYTES = MAX_TEXT


def read_board_text(path: str | None) -> bytes:
    """Reads board text from a file, ``-`` (stdin), or the built-in example when ``None``.

    Raises:
        InvalidInputError: The file cannot be read, is not a regular file, or is larger than
            any board text (read in chunks: a stream past the limit is refused at once).
    """
    if path is None:
        return resources.files("mscsp.data").joinpath("example.txt").read_bytes()
    return read_bounded(path, MAX_TEXT_BYTES, "board text")


@click.command()
@click.argument("file", required=False, type=click.Path(allow_dash=True, dir_okay=False))
@shared("--mines", help="Total mine count, if the board text has no header.")
@shared(
    "--backend",
    more="; or any estimator: sampler:N, csp-limited:N, learner:PATH, ... "
    "(see 'mscsp backends'), shown as approximate",
)
@shared("--time-limit")
@shared("--json")
@click.option(
    "--exact",
    "show_exact",
    is_flag=True,
    default=False,
    help="Also give exact fractions (JSON key 'exact', or a list in text mode).",
)
@click.option(
    "--png",
    "png",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    metavar="FILE",
    help="Also write the heat map as a PNG image (needs the plot extra).",
)
@click.option(
    "--explain",
    "explain_cells",
    multiple=True,
    metavar="R,C|all",
    help="Why: the numbers that force a certain cell, or the layout counts behind a "
    "probability (repeatable; 'all': every certain cell; JSON key 'explanations').",
)
@click.option(
    "--image",
    type=click.Path(allow_dash=True, dir_okay=False),
    default=None,
    metavar="SHOT",
    help="Read the board from a screenshot instead of FILE (ms_toollib's recogniser, the "
    "replay extra): the board read is shown to check against the screen, cells it cannot "
    "read are marked # and get no odds (JSON key 'image').",
)
@shared("--obr-model")
@click.option(
    "--fallback",
    metavar="ESTIMATOR",
    default=None,
    help="Where the exact count stops at a limit (--time-limit, memory, a component too "
    "large), answer with this estimator instead (bp, mcmc[:SWEEPS], sampler:N, "
    "learner:PATH), flagged APPROXIMATE with its measured error (JSON key 'fallback').",
)
@reports_errors
def probs(
    file: str | None,
    mines: int | None,
    backend: str,
    time_limit: float,
    as_json: bool,
    show_exact: bool,
    png: str | None,
    explain_cells: tuple[str, ...],
    image: str | None,
    obr_model: str | None,
    fallback: str | None,
) -> None:
    """Exact mine probability of every covered cell of FILE (- for stdin).

    With an inexact --backend (approxmc, sampler:N, csp-limited, learner:default, ...) the
    map is that estimate, flagged APPROXIMATE (JSON "approximate": true). Without FILE,
    solves a built-in expert position. Cells are (row, col) counted from 0; text positions
    in input errors are line and column counted from 1.
    Exit codes: 0 ok, 2 bad input, 3 inconsistent board, 4 backend missing, 5 solver limit.
    """
    if image is None:
        board = parse_board(read_board_text(file), mines=mines)
    elif file is not None:
        raise InvalidInputError("give FILE or --image, not both")
    else:
        board, read = _read_image(image, obr_model, mines, as_json)
    wanted = parse_cells(explain_cells, board) if explain_cells else []
    estimator = get_estimator(backend, time_limit=time_limit or None)
    backup = None
    if check_fallback(fallback, backend, COMMAND) is not None:
        backup = get_estimator(fallback, time_limit=COMMAND.estimate_seconds(time_limit) or None)
    stopped = None
    if isinstance(estimator, CountingEstimator):
        try:
            solution = _solve(board, estimator)
        except SolverLimitError as exc:
            if backup is None:
                raise
            stopped = str(exc)
            try:
                solution = Estimate(board, backup.estimate(board))
            except SolverLimitError as also:
                raise both_stopped(stopped, also, COMMAND) from None
            show_exact = False
            explain_cells = ()
    elif show_exact:
        raise InvalidInputError(f"--exact needs exact counts; backend {backend!r} estimates")
    elif explain_cells:
        raise InvalidInputError(f"--explain needs exact counts; backend {backend!r} estimates")
    else:
        solution = Estimate(board, estimator.estimate(board))
    report = run_report(backup if stopped is not None else estimator)
    explanations = explain(board, solution, wanted, time_limit or None) if explain_cells else None
    if png:
        try:
            save_png(solution, png)
        except OSError as exc:
            raise InvalidInputError(f"cannot write {png}: {exc.strerror}") from None
    answered = backend if stopped is None else fallback
    if as_json:
        out = solution_json(solution, answered, exact=show_exact)
        if image is not None:
            out["image"] = read
        if isinstance(solution, Estimate):
            out["exact"] = False  # an estimate has no exact fractions to give
        if explanations is not None:
            out["explanations"] = explanations
        if report is not None:
            out["report"] = report
        if stopped is not None:
            out["fallback"] = fallback_record(fallback, stopped, backup)
        click.echo(json.dumps(out))
        return
    if stopped is not None:
        click.echo(f"the exact count stopped ({stopped}): fallback {fallback}")
        click.echo(_measured(backup))
    if solution.approximate:
        click.echo(f"APPROXIMATE probabilities (backend {answered}): not exact counts")
    if report is not None:
        shown = (
            f"{k} {format(v, '.3g') if isinstance(v, float) else v}" for k, v in report.items()
        )
        click.echo(f"{answered} run: " + ", ".join(shown))
    click.echo(probability_map(solution))
    click.echo()
    click.echo(f"safe cells ({len(solution.safe)}): " + _cells(solution.safe))
    click.echo(f"certain mines ({len(solution.mines)}): " + _cells(solution.mines))
    if solution.best_move is not None:
        r, c = solution.best_move
        # As on the map: an estimate of 0 (or a float that rounds to it) is not certain.
        shown = format_probability(shown_probabilities(solution)[r, c])
        if not isinstance(solution, Estimate):
            shown = f"{solution.exact[(r, c)]} = {shown}"
        click.echo(f"suggested move: ({r}, {c}), mine probability {shown}")
    if show_exact:
        for (r, c), f in sorted(solution.exact.items()):
            click.echo(f"({r}, {c}) {f}")
    for item in explanations or []:
        r, c = item["cell"]
        head = item.get("value") or f"p = {item['probability']}"
        extra = f", {item['pattern']}" if item.get("pattern") else ""
        click.echo(
            f"\nwhy ({r}, {c}) is {head}" + (f" ({item['kind']}{extra})" if "kind" in item else "")
        )
        for step in item["steps"]:
            click.echo(f"  {step}")


def _read_image(
    image: str, model: str | None, mines: int | None, as_json: bool
) -> tuple[Board, dict]:
    """The board in a screenshot, shown to check (text: at once; JSON: the 'image' record,
    also printed alone where no odds follow).

    Raises:
        InvalidInputError: Unreadable cells (after showing the board with them marked).
    """
    reading = read_screenshot(read_bounded(image, MAX_IMAGE_BYTES, "image"), model)
    text = reading.text(mines)
    read = {"board": text, "unreadable": [list(cell) for cell in reading.unreadable]}
    read["note"] = FLAGS_NOTE
    if not as_json:
        click.echo(f"board read from {image}; check it against the screen ({FLAGS_NOTE}):")
        click.echo(text)
    try:
        return reading.board(mines), read
    except MscspError:
        if as_json:
            click.echo(json.dumps({"image": read}))
        raise


def _solve(board: Board, estimator: CountingEstimator) -> Solution:
    """The exact solution; an inconsistent board names the number that fails, and why."""
    try:
        return estimator.solve(board)
    except InconsistentBoardError as exc:
        raise explained(board, exc, estimator.backend) from None


def _measured(backup: Estimator) -> str:
    """What the fallback's answers have been worth, where measured."""
    if not backup.measured:
        return f"{backup.spec}'s error on hard boards is not measured (see docs/estimators.md)"
    by_family = ", ".join(f"{family} {error:.4f}" for family, error in backup.measured)
    return f"{backup.spec}'s mean |dp| by family of the hard corpus: {by_family}"


def _cells(cells: list[tuple[int, int]], limit: int = 20) -> str:
    shown = " ".join(f"({r},{c})" for r, c in cells[:limit])
    return shown + (f" ... and {len(cells) - limit} more" if len(cells) > limit else "") or "none"
