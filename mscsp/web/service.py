"""What the web API does, without the web framework: validate, solve, replay, suggest.

Every function takes the decoded JSON body of a request and returns the JSON answer, or
raises :class:`ApiError` (bad request shape, limits) or an :class:`~mscsp.errors.MscspError`
from the library, which :func:`error_body` turns into the error answer the page shows.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from importlib import resources
from typing import Any

import numpy as np

from .. import __version__
from ..backends import BACKENDS, DEFAULT_BACKEND, Backend, get_backend
from ..board import COVERED, FLAG, Board, parse_board
from ..constraints import Component, ComponentCount
from ..errors import (
    BackendUnavailableError,
    BoardParseError,
    InconsistentBoardError,
    InvalidInputError,
    MscspError,
    SolverLimitError,
)
from ..estimators import Estimate, Estimator, estimator_kinds, get_estimator, is_counting
from ..explain import explain, parse_cells
from ..game import PRESETS, FirstClick, Game
from ..heatmap import palette
from ..players import PLAYERS, get_player
from ..probabilities import Solution
from ..render import solution_json
from ..solver import solve


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server.

    Attributes:
        max_body: Largest request body in bytes.
        max_cells: Largest board (rows x cols) solved or played.
        time_limit: Seconds of solver time per request (a client may ask for less).
        workers: Long requests solved at once, each in its own worker process (and requests
            tried at once in the server's threads); more wait for one, then get a "busy"
            answer.
        attempt: Seconds of solver time this call may take in the server process before
            the request moves to a worker process (``None``: its whole time limit). The
            server's runner sets it for a :attr:`Cost.TIMED` request's first try;
            :func:`_backend` enforces it.
    """

    max_body: int = 256 * 1024
    max_cells: int = 10_000
    time_limit: float = 10.0
    workers: int = 2
    attempt: float | None = None


class Cost(Enum):
    """How long a request handler may run, which decides where the server runs it.

    ``CHEAP``: bounded by the request's size (a game replayed from its moves); answered in
    the server's threads. ``TIMED``: counts only through :func:`_backend`, so it
    honours :attr:`Limits.attempt`; tried in the server's threads under that short budget,
    then, if it runs out, solved again in a worker process under the whole limit. ``LONG``:
    may run long and cannot stop early; solved in a worker process from the start (the
    handler must be a module-level function, as it is sent there by name).
    """

    CHEAP = "cheap"
    TIMED = "timed"
    LONG = "long"


#: A request handler: the decoded JSON body and the limits in, the JSON answer out.
Handler = Callable[[Any, Limits], dict[str, Any]]


class ApiError(Exception):
    """A request the API refuses before the library sees it.

    Attributes:
        status: HTTP status code.
        kind: Machine-readable error kind (see :func:`error_body`).
    """

    def __init__(self, status: int, kind: str, message: str):
        super().__init__(message)
        self.status = status
        self.kind = kind


#: Library errors by kind, with their HTTP status. The CLI's exit code goes in the body too.
_LIBRARY_ERRORS: tuple[tuple[type[MscspError], str, int], ...] = (
    (BoardParseError, "parse", 400),
    (InvalidInputError, "invalid", 400),
    (InconsistentBoardError, "inconsistent", 422),
    (BackendUnavailableError, "unavailable", 422),
    (SolverLimitError, "limit", 422),
    (MscspError, "error", 422),
)


def error_body(exc: Exception) -> tuple[int, dict[str, Any]]:
    """The HTTP status and JSON body of an error answer.

    The body is ``{"error": {"kind", "message", ...}}``. Kinds: ``parse`` (with ``line`` and
    ``column`` when known), ``invalid``, ``inconsistent``, ``unavailable``, ``limit`` (each
    with the CLI's ``exit_code``; a board that parsed but could not be solved comes back as
    ``board``, in canonical text), and ``request``, ``too_large``, ``busy`` from the server.
    """
    if isinstance(exc, ApiError):
        return exc.status, {"error": {"kind": exc.kind, "message": str(exc)}}
    for cls, kind, status in _LIBRARY_ERRORS:
        if isinstance(exc, cls):
            error: dict[str, Any] = {"kind": kind, "message": str(exc)}
            error["exit_code"] = exc.exit_code
            if isinstance(exc, BoardParseError):
                error["line"] = exc.line
                error["column"] = exc.column
            if getattr(exc, "board", None) is not None:
                error["board"] = exc.board
            return status, {"error": error}
    raise TypeError(f"not an API error: {exc!r}")


def internal_error_body(exc: Exception) -> dict[str, Any]:
    """The body of the 500 answer to an unexpected exception (its type only, no details)."""
    return {"error": {"kind": "internal", "message": f"internal error: {type(exc).__name__}"}}


def answer(handler: Handler, body: Any, limits: Limits) -> tuple[int, dict[str, Any]]:
    """``handler(body, limits)`` as an HTTP status and JSON body, errors included."""
    try:
        return 200, handler(body, limits)
    except (ApiError, MscspError) as exc:
        return error_body(exc)
    except Exception as exc:  # a bug: answered as the app answers any, the server goes on
        return 500, internal_error_body(exc)


def _field(body: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any) -> Any:
    value = body.get(name, default)
    if value is default:
        return value
    # JSON true/false are bools, which are ints in Python: refuse them where a number is meant.
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
        names = "/".join(k.__name__ for k in _tuple(kind))
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ApiError(400, "request", f"field {name!r} must be {names}, got {shown}")
    return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _check_fields(body: Any, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(400, "request", "the request body must be a JSON object")
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ApiError(
            400,
            "request",
            f"unknown field(s) {', '.join(unknown)}; expected {', '.join(sorted(allowed))}",
        )
    return body


class DeadlineBackend(Backend):
    """Stops counting once the request's time is up, across all its components.

    The inner backend's own limit (per component) is the request's limit too, so one slow
    component stops at about that limit; this wrapper stops a solve with many components.
    """

    name = "deadline"

    def __init__(self, inner: Backend, seconds: float):
        super().__init__(time_limit=seconds)
        self.inner = inner
        self.deadline = time.perf_counter() + seconds

    def count(self, component: Component) -> ComponentCount:
        if time.perf_counter() > self.deadline:
            raise SolverLimitError(
                f"the analyser's time limit of {self.time_limit:g} s per request was hit"
            )
        return self.inner.count(component)


def _backend(name: str, seconds: float, limits: Limits | None = None) -> Backend:
    """The backend ``name`` under the request's ``seconds`` (and its try's budget, if any).

    A handler declared :attr:`Cost.TIMED` counts through this with its ``limits``, so that
    its first try in the server process stops at :attr:`Limits.attempt`.
    """
    attempt = None if limits is None else limits.attempt
    budget = seconds if attempt is None else min(seconds, attempt)
    return DeadlineBackend(get_backend(name, time_limit=budget), budget)


def _board(body: dict[str, Any], limits: Limits) -> Board:
    text = _field(body, "board", str, None)
    if text is None:
        raise ApiError(400, "request", "field 'board' (the board text) is required")
    mines = _field(body, "mines", int, None)
    if mines is not None and mines < 0:
        raise InvalidInputError(f"mine count must be non-negative, got {mines}")
    board = parse_board(text, mines=mines)
    check_size(board.rows, board.cols, limits)
    return board


def check_size(rows: int, cols: int, limits: Limits, what: str = "board") -> None:
    """Refuses (413 ``too_large``) a board of more than ``limits.max_cells`` cells."""
    if rows * cols > limits.max_cells:
        raise ApiError(
            413,
            "too_large",
            f"{what} {cols}x{rows} has {rows * cols} cells; "
            f"this server solves at most {limits.max_cells}",
        )


def _seed(body: dict[str, Any]) -> int:
    seed = _field(body, "seed", int, 0)
    if seed < 0:
        raise InvalidInputError(f"seed must be non-negative, got {seed}")
    return seed


def _seconds(body: dict[str, Any], limits: Limits) -> float:
    asked = _field(body, "time_limit", (int, float), None)
    if asked is None or asked == 0:
        return limits.time_limit
    if asked < 0:
        raise InvalidInputError(f"time_limit must be non-negative, got {asked}")
    return min(float(asked), limits.time_limit)


SOLVE_FIELDS = {"board", "mines", "backend", "time_limit", "exact"}
EXPLAIN_FIELDS = {"board", "mines", "time_limit", "cells"}


def explain_request(body: Any, limits: Limits) -> dict[str, Any]:
    """``POST /api/explain``: why cells are certain, or why they have their probability.

    Request fields: ``board`` (text), ``mines``, ``time_limit``, ``cells`` (a list of
    ``[row, col]``; omitted: every certain cell). The answer's ``explanations`` are those of
    ``mscsp probs --explain --json`` (see :mod:`mscsp.explain`).
    """
    body = _check_fields(body, EXPLAIN_FIELDS)
    board = _board(body, limits)
    seconds = _seconds(body, limits)
    wanted = _field(body, "cells", list, None)
    specs = ["all"] if wanted is None else [_cell_spec(c) for c in wanted]
    cells = parse_cells(specs, board)
    start = time.perf_counter()
    solution = solve(board, time_limit=seconds)
    left = max(seconds - (time.perf_counter() - start), 1e-3)
    return {"explanations": explain(board, solution, cells, left)}


def _cell_spec(cell: Any) -> str:
    """A ``[row, col]`` pair of the request as the ``"R,C"`` that :func:`parse_cells` reads."""
    ok = isinstance(cell, list) and len(cell) == 2
    if not ok or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell):
        raise InvalidInputError(f"cells: each cell is [row, col], got {cell!r}")
    return f"{cell[0]},{cell[1]}"


def solve_request(body: Any, limits: Limits) -> dict[str, Any]:
    """``POST /api/solve``: the fields of ``mscsp probs --json``, plus what the page shows.

    Request fields: ``board`` (text, required), ``mines`` (when the text has no header),
    ``backend`` (default ``dss``), ``time_limit`` (seconds, at most the server's), ``exact``
    (add the exact fractions).

    The answer adds ``board`` (the board in canonical text), ``solutions`` (number of mine
    layouts, a decimal string: it can exceed what JSON numbers hold exactly), ``seconds``
    (solver wall time), ``time_limit``, and ``cells``: for every covered cell,
    ``[row, col, fraction, group]`` (the fraction as ``str(Fraction)``), where ``group``
    indexes ``groups`` (``{"kind", "size", "component"}``; kinds ``frontier``, ``fixed``,
    ``unconstrained``, ``safe``, ``mine``).
    """
    body = _check_fields(body, SOLVE_FIELDS)
    board = _board(body, limits)
    backend = _field(body, "backend", str, DEFAULT_BACKEND)
    seconds = _seconds(body, limits)
    exact = _field(body, "exact", bool, False)
    if not is_counting(backend):
        return _estimate(board, backend, seconds)
    start = time.perf_counter()
    try:
        solution = solve(board, _backend(backend, seconds, limits))
    except (InconsistentBoardError, SolverLimitError) as exc:
        exc.board = board.to_text()  # the page still draws the board it could not solve
        raise
    elapsed = time.perf_counter() - start
    out = solution_json(solution, backend, exact=exact)
    groups, cells = _groups(solution)
    out.update(
        board=board.to_text(),
        solutions=str(solution.weight),
        seconds=round(elapsed, 6),
        time_limit=seconds,
        groups=groups,
        cells=cells,
    )
    return out


@functools.lru_cache(maxsize=8)
def _estimator(spec: str, seconds: float) -> Estimator:
    """Estimators kept between requests: a learned model loads (and compiles) once."""
    return get_estimator(spec, time_limit=seconds)


def _estimate(board: Board, spec: str, seconds: float) -> dict[str, Any]:
    """``/api/solve`` with an estimator that does not count (sampler, learned model).

    The answer has the keys of the counting answer with ``approximate`` true, ``exact``
    false, no exact odds (``cells`` and ``groups`` empty) and no certain cells, plus
    ``reference`` (the default backend) and ``difference``: per covered cell, the estimate
    minus the exact probability (``None`` elsewhere). ``solutions`` is the exact count.
    The exact solve shares the request's time limit; a board it finds inconsistent is
    refused as with a counting backend.
    """
    estimator = _estimator(spec, seconds)  # loading a model is not the estimate's time
    start = time.perf_counter()
    estimate = Estimate(board, estimator.estimate(board))
    elapsed = time.perf_counter() - start
    try:
        reference = solve(board, _backend(DEFAULT_BACKEND, seconds))
    except (InconsistentBoardError, SolverLimitError) as exc:
        exc.board = board.to_text()
        raise
    difference = estimate.probabilities - reference.probabilities
    covered = board.cells == COVERED
    out = solution_json(estimate, spec)
    out.update(
        exact=False,
        board=board.to_text(),
        solutions=str(reference.weight),
        seconds=round(elapsed, 6),
        time_limit=seconds,
        groups=[],
        cells=[],
        reference=DEFAULT_BACKEND,
        difference=np.where(covered, difference, None).tolist(),
    )
    return out


def _groups(solution: Solution) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    """Each covered cell with its exact odds and the group of cells it shares them with."""
    component_of: dict[tuple[int, int], int] = {}
    for index, (component, _) in enumerate(solution.components):
        for group in component.cells:
            for cell in group:
                component_of[cell] = index
    groups: list[dict[str, Any]] = []
    cells: list[list[Any]] = []
    for odd in solution.odds:
        members = odd.cells
        if isinstance(members, np.ndarray):
            members = [(int(r), int(c)) for r, c in np.argwhere(members)]
        if odd.num == 0:
            kind = "safe"
        elif odd.num == odd.den:
            kind = "mine"
        elif isinstance(odd.cells, np.ndarray):
            kind = "unconstrained"
        else:
            kind = "frontier" if members[0] in component_of else "fixed"
        component = component_of.get(members[0]) if kind == "frontier" else None
        groups.append({"kind": kind, "size": len(members), "component": component})
        fraction = str(Fraction(odd.num, odd.den))
        cells.extend([r, c, fraction, len(groups) - 1] for r, c in members)
    cells.sort()
    return groups, cells


PLAY_FIELDS = {"preset", "seed", "first_click", "moves"}


def play_request(body: Any, limits: Limits) -> dict[str, Any]:
    """``POST /api/play``: a seeded game on a preset, replayed from the client's moves.

    The server keeps no game: the page sends ``preset``, ``seed``, ``first_click`` and every
    move so far (``["reveal" | "flag", row, col]``), and gets back what the player sees:
    ``board`` (text with header), ``state`` (``playing``, ``won``, ``lost``), ``exploded``,
    and once the game is over, ``layout`` (the mines, as ``[row, col]`` pairs).
    """
    body = _check_fields(body, PLAY_FIELDS)
    preset = _field(body, "preset", str, "beginner")
    seed = _seed(body)
    first_click = _field(body, "first_click", str, str(FirstClick.SAFE))
    moves = _field(body, "moves", list, [])
    game = Game.from_preset(preset, seed=seed, first_click=first_click)
    if game.rows * game.cols > limits.max_cells:
        raise ApiError(413, "too_large", f"preset {preset!r} is larger than this server allows")
    if len(moves) > 2 * game.rows * game.cols:
        raise ApiError(413, "too_large", f"{len(moves)} moves: more than this board can take")
    for move in moves:
        if (
            not isinstance(move, list)
            or len(move) != 3
            or move[0] not in ("reveal", "flag")
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in move[1:])
        ):
            raise ApiError(
                400, "request", f"move {move!r}: expected ['reveal' or 'flag', row, col]"
            )
        kind, r, c = move
        (game.reveal if kind == "reveal" else game.flag)(r, c)
    out: dict[str, Any] = {
        "preset": preset,
        "seed": seed,
        "first_click": str(game.first_click),
        "rows": game.rows,
        "cols": game.cols,
        "mines": game.mines,
        "board": game.board().to_text(),
        "state": str(game.state),
        "exploded": list(game.exploded) if game.exploded else None,
        "flags": int(np.count_nonzero(game.view == FLAG)),
        "covered": int(np.count_nonzero(game.view == COVERED)),
    }
    if game.over and game.mine is not None:
        out["layout"] = [[int(r), int(c)] for r, c in np.argwhere(game.mine)]
    return out


SUGGEST_FIELDS = {"board", "mines", "player", "backend", "seed", "time_limit"}


def suggest_request(body: Any, limits: Limits) -> dict[str, Any]:
    """``POST /api/suggest``: what a registered player would click in this position.

    Request fields: ``board``, ``mines`` as for solve; ``player`` (default ``best``, any
    built-in name), ``backend``, ``seed`` (for players that pick at random) and ``time_limit``.
    The answer: ``player``, ``move`` (the first cell it would reveal), ``moves`` (all the
    cells of its turn), ``guess`` (whether the turn includes a guess) and ``seconds``.
    """
    body = _check_fields(body, SUGGEST_FIELDS)
    board = _board(body, limits)
    name = _field(body, "player", str, "best")
    if name not in PLAYERS:
        raise InvalidInputError(f"unknown player {name!r}; choose from {', '.join(PLAYERS)}")
    backend = _field(body, "backend", str, DEFAULT_BACKEND)
    seed = _seed(body)
    seconds = _seconds(body, limits)
    if not (board.cells == COVERED).any():
        raise InvalidInputError("no covered cell left to click")
    takes_backend = "backend" in inspect.signature(PLAYERS[name]).parameters
    options = {"backend": _backend(backend, seconds, limits)} if takes_backend else {}
    player = get_player(name, **options)
    player.new_game()
    start = time.perf_counter()
    moves = player.next_moves(board, np.random.default_rng(seed))
    elapsed = time.perf_counter() - start
    return {
        "player": name,
        "move": list(moves[0]),
        "moves": [list(m) for m in moves],
        "guess": player.turn_guesses > 0,
        "seconds": round(elapsed, 6),
    }


def meta(limits: Limits) -> dict[str, Any]:
    """``GET /api/meta``: backends (installed or not), players, presets, limits, colours and
    the built-in example board."""
    return {
        "version": __version__,
        "backends": [
            {
                "name": name,
                "available": cls.supported(),
                "exact": cls.exact,
                "description": cls.description,
                "extra": cls.extra,
            }
            for name, cls in BACKENDS.items()
        ],
        "default_backend": DEFAULT_BACKEND,
        # The estimators that do not count, by the name the menu sends (learner:default).
        "estimators": [
            {
                "name": f"{name}:default" if kind.arg == "PATH" else name,
                "family": kind.family,
                "available": kind.available(),
                "exact": kind.exact,
                "description": kind.description,
                "extra": kind.extra,
            }
            for name, kind in estimator_kinds().items()
            if name not in BACKENDS
        ],
        "players": list(PLAYERS),
        "presets": {name: list(spec) for name, spec in PRESETS.items()},
        "first_click": [f.value for f in FirstClick],
        "limits": {
            "max_body": limits.max_body,
            "max_cells": limits.max_cells,
            "time_limit": limits.time_limit,
        },
        "palette": palette(),
        "example": resources.files("mscsp.data").joinpath("example.txt").read_text("utf-8"),
    }
