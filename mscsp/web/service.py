"""What the web API does, without the web framework: validate, solve, replay, suggest.

Every function takes the decoded JSON body of a request and returns the JSON answer, or
raises :class:`ApiError` (bad request shape, limits) or an :class:`~mscsp.errors.MscspError`
from the library, which :func:`error_body` turns into the error answer the page shows.
"""

from __future__ import annotations

import functools
import inspect
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from importlib import resources
from typing import Any

import numpy as np

from .. import __version__
from ..backends import BACKENDS, DEFAULT_BACKEND, Backend, get_backend
from ..bigint import fraction_text, to_decimal
from ..board import COVERED, FLAG, Board, parse_board
from ..constraints import Component, ComponentCount
from ..contradiction import explain_contradiction
from ..display.heatmap import palette
from ..display.render import solution_json
from ..engine import compiled
from ..errors import (
    BackendUnavailableError,
    BoardParseError,
    InconsistentBoardError,
    InvalidInputError,
    MscspError,
    SolverLimitError,
)
from ..estimators import (
    Estimate,
    Estimator,
    estimator_kinds,
    get_estimator,
    is_counting,
    kind_of,
    run_report,
)
from ..explain import explain, parse_cells
from ..game import PRESETS, BoardSpec, FirstClick, Game
from ..players import PLAYERS, get_player
from ..players.best import BestPlayer
from ..policy.fallback import REQUEST, check_fallback, fallback_record
from ..policy.limits import why_stopped
from ..policy.names import (
    PROGRAM_BACKENDS,
    SHIPPED_MODELS,
    check_player_name,
    check_request_name,
)
from ..probabilities import Solution
from ..session import GameSession
from ..solver import kernel_solves, solve
from .insight import WhatIf, dead_cells, fifty_fifties, why_best, why_rule


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server, and where it is being answered.

    Attributes:
        max_body: Largest request body in bytes.
        max_cells: Largest board (rows x cols) solved or played.
        time_limit: Seconds per request, from when it arrives (a client may ask for less).
        workers: Long requests solved at once, each in its own worker process (and requests
            tried at once in the server's threads); more wait for one, then get a "busy"
            answer.
        memory_mb: Megabytes each worker process may allocate above what it holds idle
            (``None``: no ceiling); past it the request gets the memory-limit error.
        arrived: When the request arrived (``time.monotonic()``): its time limit runs from
            then, waiting and a worker's start-up included (``None``: from when the handler
            starts). The server's runner sets it.
        bounded: Answer only what is bounded by construction (the compiled kernel on a
            small board), raising :class:`NotHere` otherwise: the runner sets it for a
            :attr:`Cost.TIMED` request's try in the server's own threads.
        attempt: Seconds this call may take before the request moves to a worker process
            that gives it its whole time limit (``None``: its whole limit). The runner sets
            it for a :attr:`Cost.TIMED` request's short try in a worker; :func:`_backend`
            enforces it, and a handler that cannot stop within it raises :class:`NotHere`.
        allowed_names: Backend and estimator names the server's operator allowed besides
            the built-in ones (``mscsp serve --allow-backend``): a program or a checkpoint
            path, usable by a request that sends exactly that name
            (:func:`mscsp.policy.names.check_request_name`).
        obr_model: The screenshot recogniser's model file, named by the server's operator
            (``mscsp serve --obr-model``; ``None``: screenshots are not read).
        max_image: Largest screenshot in bytes (``/api/read-image``'s body).
    """

    max_body: int = 256 * 1024
    max_cells: int = 10_000
    time_limit: float = 10.0
    workers: int = 2
    memory_mb: int | None = 1024
    arrived: float | None = None
    bounded: bool = False
    attempt: float | None = None
    allowed_names: tuple[str, ...] = ()
    obr_model: str | None = None
    max_image: int = 8 * 2**20


class Cost(Enum):
    """How long a request handler may run, which decides where the server runs it.

    ``CHEAP``: bounded by the request's size (a game replayed from its moves, after laying a
    no-guess board within :data:`NO_GUESS_TRIES` layouts); answered in the server's
    threads. ``TIMED``: honours :attr:`Limits.bounded` and :attr:`Limits.attempt` (it
    counts only through :func:`_backend`); answered in the
    server's threads where the compiled kernel answers it, else tried in a worker process
    under the short :attr:`Limits.attempt`, then, if that runs out, solved in a worker
    process under the whole limit. ``LONG``: may run long and cannot stop early; solved in a
    worker process from the start. Handlers that run in workers must be module-level
    functions, as they are sent there by name.
    """

    CHEAP = "cheap"
    TIMED = "timed"
    LONG = "long"


class NotHere(Exception):
    """The handler cannot answer within the bounds it was given here (see
    :attr:`Limits.bounded` and :attr:`Limits.attempt`): the runner moves the request to a
    worker process, under its whole time limit."""


@dataclass(frozen=True)
class Clock:
    """One request's time: its own limit, which errors name, and when it runs out.

    Attributes:
        limit: The request's time limit in seconds.
        end: When it runs out (``time.monotonic()``).
    """

    limit: float
    end: float

    @classmethod
    def of(cls, body: Any, limits: Limits) -> Clock:
        """The clock of a request: its own limit (:func:`time_limit_of`) from its arrival."""
        return cls.starting(time_limit_of(body, limits), limits)

    @classmethod
    def starting(cls, limit: float, limits: Limits) -> Clock:
        """A clock of ``limit`` seconds from the request's arrival (or from now)."""
        start = time.monotonic() if limits.arrived is None else limits.arrived
        return cls(limit, start + limit)

    def left(self) -> float:
        """Seconds left.

        Raises:
            SolverLimitError: None are.
        """
        left = self.end - time.monotonic()
        if left <= 0:
            raise self.error()
        return left

    def over(self) -> bool:
        """Whether the time is up."""
        return time.monotonic() >= self.end

    def error(self) -> SolverLimitError:
        """The error of a request whose time is up."""
        return SolverLimitError(
            f"the analyser's time limit of {self.limit:g} s per request was hit"
        )

    def within(self, seconds: float | None) -> Clock:
        """This clock, ending ``seconds`` from now if that is sooner (``None``: as is)."""
        if seconds is None:
            return self
        return Clock(self.limit, min(self.end, time.monotonic() + seconds))


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
    ``column`` when known, and ``missing``: ``"mines"`` when only the mine count is
    missing), ``invalid``, ``inconsistent`` (with ``cell``, ``[row, col]``, when the message
    names one), ``unavailable``, ``limit`` (each with the CLI's ``exit_code``; a board that
    parsed but could not be solved comes back as ``board``, in canonical text), and
    ``request``, ``too_large``, ``busy``, ``host`` (a ``Host`` the server does not answer
    to) and ``token`` (the server's token missing) from the server.
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
            if getattr(exc, "missing", None) is not None:
                error["missing"] = exc.missing  # the request field that would fix it
            if isinstance(exc, InconsistentBoardError) and exc.cell is not None:
                error["cell"] = [int(v) for v in exc.cell]  # the page marks it on the board
            if getattr(exc, "board", None) is not None:
                error["board"] = exc.board
            return status, {"error": error}
    raise TypeError(f"not an API error: {exc!r}")


def internal_error_body(exc: Exception) -> dict[str, Any]:
    """The body of the 500 answer to an unexpected exception (its type only, no details)."""
    return {"error": {"kind": "internal", "message": f"internal error: {type(exc).__name__}"}}


def encode(out: dict[str, Any]) -> bytes:
    """A JSON answer's bytes, as Starlette's ``JSONResponse`` writes them."""
    return json.dumps(
        out, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")


def error_answer(exc: Exception) -> tuple[int, bytes]:
    """:func:`error_body`, encoded."""
    status, body = error_body(exc)
    return status, encode(body)


def answer(handler: Handler, body: Any, limits: Limits) -> tuple[int, bytes] | None:
    """``handler(body, limits)`` as an HTTP status and encoded JSON body, errors included.

    Returns:
        The answer, or ``None`` where it must be answered elsewhere: the handler raised
        :class:`NotHere`, or its short try (:attr:`Limits.attempt`) hit its limit while the
        request has time left.

    Raises:
        MemoryError: The handler ran out of memory (also where the library turned that into
            a solver-limit error): the worker process, which knows its ceiling, answers it.
    """
    try:
        return 200, encode(handler(body, limits))
    except NotHere:
        return None
    except MemoryError:
        raise
    except (ApiError, MscspError) as exc:
        if _caused_by_memory(exc):
            raise MemoryError(str(exc)) from exc
        tried = limits.attempt is not None and isinstance(exc, SolverLimitError)
        if tried and not Clock.of(body, limits).over():
            return None
        return error_answer(exc)
    except Exception as exc:  # a bug: answered as the app answers any, the server goes on
        return 500, encode(internal_error_body(exc))


def _caused_by_memory(exc: BaseException) -> bool:
    """Whether ``exc`` came from a :class:`MemoryError` (raised while handling one)."""
    seen: BaseException | None = exc
    for _ in range(16):  # (a chain is short; the bound keeps a cycle harmless)
        if seen is None:
            return False
        if isinstance(seen, MemoryError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


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

    The inner backend's own limit is what was left when the solve began, so one slow
    component stops at about the request's end; this wrapper stops a solve with many.
    A program's failure (``external:...``, which only the operator may name) is told
    without what the program printed: a request never gets a child's output back.

    Args:
        inner: The backend that counts.
        clock: The request's clock (or a try's, ending sooner).
    """

    name = "deadline"

    def __init__(self, inner: Backend, clock: Clock):
        super().__init__(time_limit=clock.left())
        self.inner = inner
        self.clock = clock

    def count(self, component: Component) -> ComponentCount:
        self.clock.left()
        if self.inner.name not in PROGRAM_BACKENDS:
            return self.inner.count(component)
        try:
            return self.inner.count(component)
        except SolverLimitError:
            raise  # (its own words: the limit, or the memory ceiling)
        except MscspError:
            raise InvalidInputError(
                f"the counter program of backend {self.inner.name!r} gave no exact count "
                "(what it printed stays on the server)"
            ) from None


def _backend(name: str, clock: Clock, limits: Limits) -> Backend:
    """The backend ``name`` under the request's ``clock`` (and its try's budget, if any).

    A handler declared :attr:`Cost.TIMED` counts through this, so that its short try in a
    worker stops at :attr:`Limits.attempt`.
    """
    clock = clock.within(limits.attempt)
    return DeadlineBackend(get_backend(name, time_limit=clock.left()), clock)


@contextmanager
def solving(clock: Clock, board: Board | None = None) -> Iterator[None]:
    """A limit hit as the request's time ran out is told in the request's terms (its own
    limit, not what was left of it when a stage began); the page is told which ``board``
    could not be solved."""
    try:
        yield
    except (InconsistentBoardError, SolverLimitError) as exc:
        if isinstance(exc, SolverLimitError) and clock.over() and not _caused_by_memory(exc):
            exc = clock.error()
        if board is not None:
            exc.board = board.to_text()  # the page still draws the board it could not solve
        raise exc from None


def naming_board(exc: ApiError | MscspError, body: Any, limits: Limits) -> ApiError | MscspError:
    """``exc``, naming the request's board if it is a limit error that does not yet.

    A request whose worker overran and was killed, hit its memory ceiling or died gets its
    limit error from the server or the worker's loop, not from its handler: this names the
    board as the handler would have (see :func:`solving`), so the page still draws it. A
    body without a board that parses is left as it is (its own error was, or will be, told
    elsewhere).
    """
    if not isinstance(exc, SolverLimitError) or getattr(exc, "board", None) is not None:
        return exc
    if not isinstance(body, dict) or not isinstance(body.get("board"), str):
        return exc
    with suppress(ApiError, MscspError):
        exc.board = _board(body, limits).to_text()  # type: ignore[attr-defined]
    return exc


def _kernel_solution(board: Board, backend: str) -> Solution | None:
    """The compiled kernel's answer for ``backend``, or ``None`` where it gives none.

    The kernel's work is bounded by its own limits (a small board, a node budget per
    component), not by the clock: it answers in the server's threads, whatever the load.
    """
    if backend != DEFAULT_BACKEND or not kernel_solves(get_backend(backend), board):
        return None
    return compiled.solve_small(board)


def warm_kernel() -> None:
    """Loads the compiled kernel where numba's cache already holds it, and runs it once
    (its first call reads the cache), so that the server's requests do not pay for it.
    Where it is not cached yet, :func:`mscsp.engine.compiled.ready` compiles it in the background
    after its warm-up, as in any process."""
    if compiled.available() and compiled.stamp().exists() and compiled.load():
        compiled.solve_small(parse_board("3x3x1\n1??\n???\n???\n"))


def _board(body: dict[str, Any], limits: Limits) -> Board:
    text = _field(body, "board", str, None)
    if text is None:
        raise ApiError(400, "request", "field 'board' (the board text) is required")
    mines = _field(body, "mines", int, None)
    if mines is not None and mines < 0:
        raise InvalidInputError(f"mine count must be non-negative, got {mines}")
    try:
        board = parse_board(text, mines=mines)
    except BoardParseError:
        if mines is None and _parses_with_a_count(text):
            raise _missing_mines() from None
        raise
    check_size(board.rows, board.cols, limits)
    return board


def _parses_with_a_count(text: str) -> bool:
    """Whether ``text`` is a board but for its mine count (so that is what is missing)."""
    try:
        parse_board(text, mines=0)
    except BoardParseError:
        return False
    except MscspError:  # (it parsed: too many flags for 0 mines, say)
        return True
    return True


def _missing_mines() -> BoardParseError:
    """The error of a board text without a mine count, in the page's words (its Mines box)
    as well as the API's (the ``mines`` field): not the CLI's ``--mines``."""
    error = BoardParseError(
        "missing mine count: add a header line 'WxHxM' or 'mines=M' to the board text, "
        "or fill in the Mines box (the request's 'mines' field)"
    )
    error.missing = "mines"  # type: ignore[attr-defined]
    return error


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


def time_limit_of(body: Any, limits: Limits) -> float:
    """The seconds a request asks for (its ``time_limit``, at most the server's), or the
    server's limit where it asks for none, or not in a form its handler will accept (the
    handler then refuses it)."""
    if isinstance(body, dict):
        try:
            return _seconds(body, limits)
        except (ApiError, MscspError):
            pass
    return limits.time_limit


SOLVE_FIELDS = {"board", "mines", "backend", "time_limit", "exact", "fallback"}
EXPLAIN_FIELDS = {"board", "mines", "time_limit", "cells"}
MARKS_FIELDS = {"board", "mines", "time_limit"}
#: Most undecided cells whose deadness ``/api/marks`` decides (a count or two each).
MAX_DEAD_CELLS = 2000


def marks_request(body: Any, limits: Limits) -> dict[str, Any]:
    """``POST /api/marks``: the dead cells and 50/50 pairs of a position (exact).

    Request fields: ``board`` (text), ``mines``, ``time_limit``. The answer: ``board`` (the
    board in canonical text), ``dead`` (``[row, col]`` of every covered cell, not certain,
    whose number is the same in every layout where it is safe: clicking it teaches nothing),
    ``fifty_fifty`` (pairs ``[[r, c], [r, c]]``: one mine between them, 1/2 each, and no
    other click can tell them apart) and ``note`` (why ``dead`` is ``null``: a board with
    too many undecided cells, or the time limit; else ``null``). See
    :mod:`mscsp.web.insight`.
    """
    body = _check_fields(body, MARKS_FIELDS)
    board = _board(body, limits)
    clock = Clock.starting(_seconds(body, limits), limits)
    if limits.bounded:  # a count or two per undecided cell: not bounded by construction
        raise NotHere
    solution = _solution(board, DEFAULT_BACKEND, clock, limits)
    out: dict[str, Any] = {"board": board.to_text(), "dead": None, "fifty_fifty": [], "note": None}
    what_if = _what_if(board, clock, limits)
    check = clock.within(limits.attempt).left
    with solving(clock, board):
        try:
            pairs = fifty_fifties(board, solution, what_if)
            out["fifty_fifty"] = [[list(a), list(b)] for a, b in pairs]
            undecided = sum(1 for f in solution.exact.values() if 0 < f < 1)
            if undecided > MAX_DEAD_CELLS:
                out["note"] = (
                    f"dead cells not marked: {undecided} undecided cells, more than the "
                    f"{MAX_DEAD_CELLS} this server checks"
                )
            else:
                out["dead"] = [list(c) for c in dead_cells(board, solution, what_if, check)]
        except SolverLimitError:
            if limits.attempt is not None and not clock.over():
                raise  # a short try ran out: the whole limit is given in another worker
            out["note"] = f"dead cells not marked: the time limit of {clock.limit:g} s ran out"
    return out


def _what_if(board: Board, clock: Clock, limits: Limits) -> WhatIf:
    """The exact solution of ``board`` with one more cell revealed (``None``: impossible),
    by the compiled kernel where it answers, else counted again around the cell under the
    request's clock."""
    session: GameSession | None = None
    dss = get_backend(DEFAULT_BACKEND)

    def what_if(cell: tuple[int, int], value: int) -> Solution | None:
        nonlocal session
        cells = board.cells.copy()
        cells[cell] = value
        try:
            after = Board(cells, board.mines)
        except InconsistentBoardError:
            return None
        if kernel_solves(dss, after):
            found = compiled.solve_small(after)
            if found is not None:
                return found
        if session is None:
            session = GameSession(_backend(DEFAULT_BACKEND, clock, limits))
        try:
            return session.what_if(board, cell, value)
        except InconsistentBoardError:
            return None

    return what_if


def explain_request(body: Any, limits: Limits) -> dict[str, Any]:
    """``POST /api/explain``: why cells are certain, or why they have their probability.

    Request fields: ``board`` (text), ``mines``, ``time_limit``, ``cells`` (a list of
    ``[row, col]``, at most the board's cell count; omitted: every certain cell). The
    answer's ``explanations`` are those of ``mscsp probs --explain --json`` (see
    :mod:`mscsp.explain`), one per cell asked, in the order first asked.
    """
    body = _check_fields(body, EXPLAIN_FIELDS)
    board = _board(body, limits)
    clock = Clock.starting(_seconds(body, limits), limits)
    wanted = _field(body, "cells", list, None)
    if wanted is not None and len(wanted) > board.rows * board.cols:
        raise InvalidInputError(
            f"cells: {len(wanted)} cells asked, more than the board's {board.rows * board.cols}"
        )
    # One answer per cell however often it is asked: the answer is bounded by the board.
    specs = ["all"] if wanted is None else list(dict.fromkeys(_cell_spec(c) for c in wanted))
    cells = parse_cells(specs, board)
    if limits.bounded:  # explaining is a search: not bounded by construction
        raise NotHere
    solution = _solution(board, DEFAULT_BACKEND, clock, limits)
    with solving(clock, board):
        left = clock.within(limits.attempt).left()
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
    clock = Clock.starting(_seconds(body, limits), limits)
    exact = _field(body, "exact", bool, False)
    fallback = _field(body, "fallback", (str, type(None)), None)
    if limits.bounded and backend != DEFAULT_BACKEND:
        raise NotHere  # (checking another name may import its solvers' package: a worker's)
    backend = check_request_name(backend, allowed_extra=limits.allowed_names)
    if fallback is not None:
        fallback = check_request_name(fallback, what="fallback", allowed_extra=limits.allowed_names)
    fallback = check_fallback(fallback, backend, REQUEST)
    if not is_counting(backend):
        return _estimate(board, backend, clock, limits)
    start = time.perf_counter()
    try:
        counting = clock if fallback is None else clock.within(REQUEST.count_seconds(clock.left()))
        solution = _solution(board, backend, counting, limits)
    except SolverLimitError as exc:
        if fallback is None or limits.attempt is not None or _caused_by_memory(exc):
            raise  # (a short try's limit moves the request to a worker with its whole time)
        stopped = why_stopped(exc, REQUEST, clock.limit, share_used=counting.over())
        return _fallback_answer(board, fallback, stopped, clock)
    elapsed = time.perf_counter() - start
    out = solution_json(solution, backend, exact=exact)
    groups, cells = _groups(solution)
    out.update(
        board=board.to_text(),
        solutions=to_decimal(solution.weight),
        seconds=round(elapsed, 6),
        time_limit=clock.limit,
        groups=groups,
        cells=cells,
    )
    return out


def _solution(board: Board, backend: str, clock: Clock, limits: Limits) -> Solution:
    """The exact solution of ``board``: the compiled kernel's where it gives one (anywhere:
    it is fast and bounded), else, unless :attr:`Limits.bounded`, ``backend``'s under the
    request's clock.

    Raises:
        NotHere: Only the kernel may answer here, and it gave no answer.
        InconsistentBoardError: No layout fits; it names a cell of the contradiction (as
            ``mscsp probs`` does) unless the time ran out first.
    """
    with solving(clock, board):
        clock.left()  # (the kernel is fast, but a request out of time gets no answer)
        solution = _kernel_solution(board, backend)
        if solution is None:
            if limits.bounded:
                raise NotHere
            try:
                solution = solve(board, _backend(backend, clock, limits))
            except InconsistentBoardError as exc:
                raise _located(exc, board, clock, limits) from None
    return solution


def _located(
    exc: InconsistentBoardError, board: Board, clock: Clock, limits: Limits
) -> InconsistentBoardError:
    """``exc`` naming a cell of the contradiction, so that the page can mark it; as it is
    where it names one already, or no time is left to find one."""
    if exc.cell is not None:
        return exc
    try:  # (the number that fails, in the CLI's words)
        return explain_contradiction(board, exc, _backend(DEFAULT_BACKEND, clock, limits))
    except SolverLimitError:
        if limits.attempt is not None and not clock.over():
            raise  # a short try ran out: the whole limit is given in another worker
        return exc


def _fallback_answer(board: Board, spec: str, stopped: str, clock: Clock) -> dict[str, Any]:
    """The estimate of ``spec`` for a board whose exact count stopped, in the second half
    of the request's time: the estimator answer's keys (no exact reference: there is none
    in time) with ``fallback``: the estimator, why the count stopped and its measured error
    by family of the hard corpus (as ``mscsp probs --fallback --json``)."""
    estimator = _estimator(spec, REQUEST.estimate_seconds(clock.limit))
    with solving(clock, board):
        clock.left()
        start = time.perf_counter()
        estimate = Estimate(board, estimator.estimate(board))
        elapsed = time.perf_counter() - start
    out = solution_json(estimate, spec)
    out.update(
        exact=False,
        board=board.to_text(),
        solutions=None,
        seconds=round(elapsed, 6),
        time_limit=clock.limit,
        groups=[],
        cells=[],
        fallback=fallback_record(spec, stopped, estimator),
    )
    report = run_report(estimator)
    if report is not None:
        out["report"] = report
    return out


@functools.lru_cache(maxsize=8)
def _estimator(spec: str, seconds: float) -> Estimator:
    """Estimators kept between requests: a learned model loads (and compiles) once."""
    return get_estimator(spec, time_limit=seconds)


def _estimate(board: Board, spec: str, clock: Clock, limits: Limits) -> dict[str, Any]:
    """``/api/solve`` with an estimator that does not count (sampler, learned model).

    The answer has the keys of the counting answer with ``approximate`` true, ``exact``
    false, no exact odds (``cells`` and ``groups`` empty) and no certain cells, plus
    ``reference`` (the default backend) and ``difference``: per covered cell, the estimate
    minus the exact probability (``None`` elsewhere), and, for an estimator that reports
    how its run ended (``bp``, ``mcmc``), ``report``. ``solutions`` is the exact count.
    The exact solve shares the request's time limit; a board it finds inconsistent is
    refused as with a counting backend. Estimators do not stop at a short try's budget (a
    learned model loads first): they are answered under the request's whole limit only.
    """
    if limits.bounded or limits.attempt is not None:
        raise NotHere
    estimator = _estimator(spec, clock.limit)  # loading a model is not the estimate's time
    start = time.perf_counter()
    estimate = Estimate(board, estimator.estimate(board))
    elapsed = time.perf_counter() - start
    reference = _solution(board, DEFAULT_BACKEND, clock, limits)
    difference = estimate.probabilities - reference.probabilities
    covered = board.cells == COVERED
    out = solution_json(estimate, spec)
    out.update(
        exact=False,
        board=board.to_text(),
        solutions=to_decimal(reference.weight),
        seconds=round(elapsed, 6),
        time_limit=clock.limit,
        groups=[],
        cells=[],
        reference=DEFAULT_BACKEND,
        difference=np.where(covered, difference, None).tolist(),
    )
    report = run_report(estimator)
    if report is not None:
        out["report"] = report  # (read right after its estimate: this request's run)
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
        fraction = fraction_text(Fraction(odd.num, odd.den))
        cells.extend([r, c, fraction, len(groups) - 1] for r, c in members)
    cells.sort()
    return groups, cells


PLAY_FIELDS = {"preset", "seed", "first_click", "moves", "no_guess"}
#: Layouts the no-guess generator may draw for one board of ``/api/play`` before the request
#: is refused (an expert board takes about 10 with an opening, 22 with a safe first click;
#: each costs a few milliseconds at most, so a request stays within a few seconds).
NO_GUESS_TRIES = 1000


@functools.lru_cache(maxsize=16)
def no_guess_board(preset: str, seed: int, first_click: str) -> tuple[np.ndarray, tuple[int, int]]:
    """The no-guess board of ``preset`` for ``seed``: its mine mask and its first click.

    The first board :class:`mscsp.noguess.generate.Generator` lays from ``seed`` (the same
    as ``mscsp generate --no-guess --seed SEED --count 1``), with its certificate's first
    click at the corner. Cached: ``/api/play`` replays every move of a game per request.

    Raises:
        InvalidInputError: An unknown preset, or a first-click rule that is not safe.
        SolverLimitError: No board in :data:`NO_GUESS_TRIES` layouts.
    """
    from ..noguess.generate import Generator, Settings  # (numba: not at import time)

    spec = BoardSpec.from_preset(preset)
    rows, cols, mines = spec.rows, spec.cols, spec.mines
    if first_click not in (FirstClick.SAFE.value, FirstClick.OPENING.value):
        raise InvalidInputError(
            f"first click {first_click!r}: a no-guess board needs a safe first click "
            "(safe or opening)"
        )
    settings = Settings(rows, cols, mines, first_click=first_click, max_tries=NO_GUESS_TRIES)
    try:
        board = Generator(settings, seed).next_board()
    except SolverLimitError:
        raise SolverLimitError(
            f"no no-guess {preset} board for seed {seed} in {NO_GUESS_TRIES} layouts; "
            "try another seed"
        ) from None
    mask = np.zeros(rows * cols, dtype=bool)
    mask[list(board.layout)] = True
    mask.flags.writeable = False  # (shared by the cache)
    return mask.reshape(rows, cols), board.start


def play_request(body: Any, limits: Limits) -> dict[str, Any]:
    """``POST /api/play``: a seeded game on a preset, replayed from the client's moves.

    The server keeps no game: the page sends ``preset``, ``seed``, ``first_click`` and every
    move so far (``["reveal" | "flag", row, col]``), and gets back what the player sees:
    ``board`` (text with header), ``state`` (``playing``, ``won``, ``lost``), ``exploded``,
    and once the game is over, ``layout`` (the mines, as ``[row, col]`` pairs).

    With ``no_guess`` (JSON ``true``; default ``false``) the board is the seeded no-guess
    board of the preset (:func:`no_guess_board`) and the server makes its certificate's
    first click before the client's moves: the answer's ``start`` names it. From there
    every safe cell can be found without a guess.
    """
    body = _check_fields(body, PLAY_FIELDS)
    preset = _field(body, "preset", str, "beginner")
    seed = _seed(body)
    first_click = _field(body, "first_click", str, str(FirstClick.SAFE))
    moves = _field(body, "moves", list, [])
    no_guess = _field(body, "no_guess", bool, False)
    spec = BoardSpec.from_preset(preset)
    if spec.rows * spec.cols > limits.max_cells:
        raise ApiError(413, "too_large", f"preset {preset!r} is larger than this server allows")
    start: tuple[int, int] | None = None
    if no_guess:
        layout, start = no_guess_board(preset, seed, first_click)
        game = Game.from_preset(preset, seed=seed, first_click=first_click, layout=layout)
        game.reveal(*start)
        game.moves.clear()  # (the server's click, not one of the client's moves)
    else:
        game = Game.from_preset(preset, seed=seed, first_click=first_click)
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
        "no_guess": no_guess,
        "start": list(start) if start is not None else None,
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
    name = check_player_name(_field(body, "player", str, "best"))
    backend = _field(body, "backend", str, DEFAULT_BACKEND)
    seed = _seed(body)
    clock = Clock.starting(_seconds(body, limits), limits)
    if not (board.cells == COVERED).any():
        raise InvalidInputError("no covered cell left to click")
    if limits.bounded:  # a player's turn may search: not bounded by construction
        raise NotHere
    backend = check_request_name(backend, allowed_extra=limits.allowed_names)
    if not is_counting(backend):
        raise InvalidInputError(f"a player counts with a counting backend, not {backend!r}")
    takes_backend = "backend" in inspect.signature(PLAYERS[name]).parameters
    options = {"backend": _backend(backend, clock, limits)} if takes_backend else {}
    player = get_player(name, **options)
    player.new_game()
    start = time.perf_counter()
    with solving(clock, board):
        moves = player.next_moves(board, np.random.default_rng(seed))
    elapsed = time.perf_counter() - start
    guess = player.turn_guesses > 0
    return {
        "player": name,
        "move": list(moves[0]),
        "moves": [list(m) for m in moves],
        "guess": guess,
        "seconds": round(elapsed, 6),
        "why": _why(player, board, moves[0], guess, clock, limits),
    }


def _why(
    player: Any, board: Board, move: tuple[int, int], guess: bool, clock: Clock, limits: Limits
) -> dict[str, Any] | None:
    """The numbers behind ``best``'s move (:func:`insight.why_best`), or ``None`` for other
    players (``search`` too: its rollouts, not these numbers, pick among the closest); with
    the rule only, and a ``note``, when time ran out."""
    if type(player) is not BestPlayer:
        return None
    try:
        with solving(clock, board):
            return why_best(player, board, move, guess)
    except SolverLimitError:
        if limits.attempt is not None and not clock.over():
            raise  # a short try ran out: the whole limit is given in another worker
        note = f"the numbers were not computed: the time limit of {clock.limit:g} s ran out"
        return {**why_rule(player, move, guess), "note": note}


def meta_request(body: Any, limits: Limits) -> dict[str, Any]:
    """``GET /api/meta`` as a handler (the body is ignored): see :func:`meta`."""
    return meta(limits)


def meta(limits: Limits) -> dict[str, Any]:
    """``GET /api/meta``: backends (installed or not), players, presets, limits, colours and
    the built-in example board.

    Only names a request may use are listed: the built-in ones (no program backend) and
    those the operator allowed (:attr:`Limits.allowed_names`), after them.
    """
    allowed = [(spec, kind_of(spec)) for spec in limits.allowed_names]
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
            if name not in PROGRAM_BACKENDS
        ]
        + [
            {
                "name": spec,
                "available": kind.available(),
                "exact": kind.exact,
                "description": f"allowed by the server's operator: {kind.description}",
                "extra": kind.extra,
            }
            for spec, kind in allowed
            if kind.name in BACKENDS
        ],
        "default_backend": DEFAULT_BACKEND,
        # The estimators that do not count, by the name the menu sends (learner:default).
        "estimators": [
            {
                "name": menu_name,
                "family": kind.family,
                "available": kind.available(),
                "exact": kind.exact,
                "description": kind.description,
                "extra": kind.extra,
            }
            for name, kind in estimator_kinds().items()
            if name not in BACKENDS
            for menu_name in (
                [f"{name}:{model}" for model in SHIPPED_MODELS] if kind.arg == "PATH" else [name]
            )
        ]
        + [
            {
                "name": spec,
                "family": kind.family,
                "available": kind.available(),
                "exact": kind.exact,
                "description": f"allowed by the server's operator: {kind.description}",
                "extra": kind.extra,
            }
            for spec, kind in allowed
            if kind.name not in BACKENDS
        ],
        "players": list(PLAYERS),
        "presets": {name: list(spec) for name, spec in PRESETS.items()},
        "first_click": [f.value for f in FirstClick],
        "limits": {
            "max_body": limits.max_body,
            "max_cells": limits.max_cells,
            "time_limit": limits.time_limit,
            "max_image": limits.max_image,
        },
        # Whether a screenshot pasted or dropped on the page is read (/api/read-image).
        "reads_images": limits.obr_model is not None,
        "palette": palette(),
        "example": resources.files("mscsp.data").joinpath("example.txt").read_text("utf-8"),
    }
