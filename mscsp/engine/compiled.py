"""The compiled small-board path of :func:`mscsp.solve` (numba).

On a beginner board the pure pipeline spends its time in a few hundred small interpreted
steps, spread over every stage. Here one compiled kernel does what the pipeline does, stage
for stage (constraints from the numbers and the single-point rules, groups, propagation and
the subset rule, components, their counts by enumeration, the combination with the cells
next to no number), over the board's flat cell codes, and writes plain integers that
:func:`solve` turns into the very :class:`~mscsp.probabilities.Solution` the pure path gives:
the same odds in the same order, the same components and counts, the same weight and
probability map. Counts are exact: the kernel works in 64-bit integers only where every
number it computes provably fits (it bounds them first), and hands the position back to the
pure path (which uses Python integers) otherwise, as it does for an inconsistent board (so
that the error raised is the pure path's own) and for components too large to enumerate.

numba is imported, and the kernel loaded from its on-disk cache, once a process has made
``WARMUP`` small solves (or at :func:`load`), never at ``import mscsp``; where the cache does
not hold it yet, it is compiled in the background (see :func:`ready`).

The checks of ``best``'s guesses (board patterns, dead cells, probes, the endgame search)
have one implementation, the engine's: where the compiled code is not loaded (during the
warm-up or the first compile, with numba switched off or missing) they run the very same
functions uncompiled (:func:`uncompiled`), to the same answers, bit for bit.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import time
import types
from dataclasses import dataclass
from functools import cache, lru_cache, partial
from math import comb
from operator import itemgetter
from pathlib import Path

import numpy as np

from ..board import Board, check_board
from ..constraints import Component, ComponentCount
from ..errors import InconsistentBoardError, InvalidInputError, InvalidTypeError
from ..probabilities import CellOdds, Solution, weigh_components
from ..validate import check_cells, check_int, describe
from ._kernel_status import APPROX, COUNTED, DONE, EXACT, FLOAT_TIED, INCONSISTENT

#: Set this environment variable (to anything but ``0``) to make :func:`mscsp.solve` take
#: the pure path everywhere, as when numba is missing.
PURE_ENV = "MSCSP_PURE"
#: Whether :func:`mscsp.solve` may take this path (tests switch it off to compare).
enabled = os.environ.get(PURE_ENV, "0") == "0"
_HERE = Path(__file__).parent


@cache
def _kernel():
    """The compiled kernel, or ``None`` when numba is missing."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return None
    _start_numba()
    from . import _kernel as module

    return module.solve_flat


def _start_numba() -> None:
    """Readies numba's code generator, without the import of ``scipy.linalg`` its first
    use makes (0.3 s of a run's start-up, a third of numba's) only to learn whether BLAS is
    there: none of the kernel's code uses it, and scipy (a dependency) has it. The modules
    stand in for that one step; a later ``import scipy.linalg`` gets the real ones."""
    from numba.core.registry import cpu_target

    names = ("scipy.linalg", "scipy.linalg.cython_blas")
    standing_in = [name for name in names if name not in sys.modules]
    for name in standing_in:
        sys.modules[name] = types.ModuleType(name)
    try:
        cpu_target.target_context.refresh()
    finally:
        for name in standing_in:
            del sys.modules[name]


#: The package the engine's modules run uncompiled in (see :func:`uncompiled`).
UNCOMPILED = f"{__package__}.uncompiled"


@cache
def uncompiled(name: str) -> types.ModuleType:
    """The engine's module ``name`` (``"_regions"``, ``"_probe"``, ...) run by Python.

    The same source file, loaded a second time as ``mscsp.engine.uncompiled.<name>`` (with
    the engine's modules it imports) and with :mod:`mscsp.engine._nojit` in the place of
    :mod:`mscsp.engine._jit`: numba's jit bypassed, every function plain Python, numba not
    imported. Slower than the compiled code by far, but the same answers, bit for bit.
    """
    if UNCOMPILED not in sys.modules:
        package = types.ModuleType(UNCOMPILED)
        package.__path__ = [str(_HERE)]
        package.__spec__ = importlib.machinery.ModuleSpec(UNCOMPILED, None, is_package=True)
        package.__spec__.submodule_search_locations = package.__path__
        sys.modules[UNCOMPILED] = package
        sys.modules[f"{UNCOMPILED}._jit"] = importlib.import_module(f"{__package__}._nojit")
    return importlib.import_module(f"{UNCOMPILED}.{name}")


@cache
def _compiled(name: str) -> types.ModuleType:
    """The engine's module ``name``, compiled (loaded from numba's cache, or compiled)."""
    _start_numba()
    return importlib.import_module(f"{__package__}.{name}")


def _engine(name: str) -> types.ModuleType:
    """The engine's module ``name``: compiled where numba's cache holds the engine, else
    run by Python (:func:`uncompiled`).

    The warm-up of :func:`ready` does not apply: it spares a one-off solve the load of
    numba, but what asks for these modules (``best``'s checks, probes and endgame search)
    plays games, where the uncompiled road would cost far more than the load (300 expert
    games of ``best``: 5.4 s instead of 2.0 s).
    """
    return _compiled(name) if enabled and _kernel_ready() else uncompiled(name)


def numba_missing() -> bool:
    """Whether numba cannot be imported here (the compiled path then never runs)."""
    return _kernel() is None


def available() -> bool:
    """Whether the compiled path can run here (numba importable, not switched off)."""
    return enabled and _kernel() is not None


#: Small solves a process makes on the pure path before it loads the kernel. Loading it
#: (importing numba and reading its on-disk cache) costs about 0.4 s: a one-off solve
#: (``mscsp probs``) should not pay that, while a process that solves many positions repays
#: it after a few thousand.
WARMUP = 100
_warm = 0  # small solves made so far, up to WARMUP
#: Seconds between two looks at whether a compile in the background has finished.
POLL_SECONDS = 0.5
_loaded = False  # the kernel is compiled (in numba's cache) and may be called
_next_look = 0.0
_compiling: subprocess.Popen | None = None


def ready(solves: int = 1) -> bool:
    """Whether this small solve goes through the kernel (the first ``WARMUP`` do not).

    Counts the solve (or ``solves`` of them: a batch of games) towards the warm-up;
    :func:`load` skips what is left of it. After the warm-up, the kernel is used once
    numba's on-disk cache holds it. The first time on a machine it does not: compiling
    takes about 20 s, so a process of the same Python starts it in the background and this
    one stays on the pure path (the same answers) until the compile is done, never making a
    user wait for it.
    """
    global _warm
    if not enabled:
        return False
    if _warm < WARMUP:
        _warm += solves
        if _warm <= WARMUP:
            return False
    return _kernel_ready()


def _kernel_ready() -> bool:
    global _loaded, _next_look, _compiling
    if _loaded:
        return True
    if _kernel() is None:
        return False
    now = time.monotonic()
    if now < _next_look:
        return False
    _next_look = now + POLL_SECONDS
    if _compiling is not None:
        _compiling.poll()  # (reaps it once it has finished)
    if stamp().exists():
        _loaded = True
    elif _compiling is None:
        _compiling = _compile_in_background()
    return _loaded


#: The compiled program's sources (compiled together, see :func:`stamp`).
SOURCES = (
    "_jit.py",
    "_checks.py",
    "_kernel.py",
    "_kernel_ties.py",
    "_game_loop.py",
    "_probe.py",
    "_condition.py",
    "_lookahead.py",
    "_endgame.py",
    "_regions.py",
    "_kernel_status.py",
    "_feasible.py",
    "../board.py",
)


@cache
def stamp() -> Path:
    """The file that says numba's cache holds this kernel: its name keys the kernel's
    sources, numba's and Python's versions and numba's cache setting."""
    key = hashlib.sha256()
    for name in SOURCES:
        key.update((_HERE / name).read_bytes())
    # (numba's version from its metadata: importing it takes 0.4 s)
    numba = importlib.metadata.version("numba")
    key.update(f"{numba} {sys.version} {os.environ.get('NUMBA_CACHE_DIR')}".encode())
    folder = _HERE / "__pycache__"
    if not os.access(folder if folder.exists() else _HERE, os.W_OK):
        folder = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mscsp"
    return folder / f"kernel-{key.hexdigest()[:16]}.ready"


def endgame_stamp() -> Path:
    """The file that says numba's cache holds the endgame search too (:mod:`mscsp.engine._endgame`,
    compiled after the rest so that a first long run waits only for what it plays with)."""
    return stamp().with_suffix(".endgame")


def compile_endgame() -> None:
    """Compiles (or loads) the endgame search and its enumeration of layouts, and writes
    :func:`endgame_stamp`."""
    module = _compiled("_endgame")
    _search(module, [1, 2], 2, [[1], [0]], [2, 1], [0, 0], 100)
    _layouts(module, Board(np.full((2, 2), -1, dtype=np.int8), 1), 4, False)
    endgame_stamp().touch()


def _compile_command() -> tuple[list[str], dict[str, str]]:
    """``python -m mscsp.players.compiled_play``, which compiles everything (its ``warm``), and
    the environment that makes it import this very package."""
    path = os.pathsep.join(filter(None, [str(_HERE.parents[1]), os.environ.get("PYTHONPATH")]))
    return [sys.executable, "-m", "mscsp.players.compiled_play"], {**os.environ, "PYTHONPATH": path}


#: Seconds after which a compile's lock is taken for abandoned (a compile takes about one).
LOCK_SECONDS = 600


def _take_lock() -> bool:
    """Takes the compile's lock file (atomically: one process compiles, as a compile first
    empties numba's cache); False where another process holds a lock younger than
    :data:`LOCK_SECONDS`."""
    lock = stamp().with_suffix(".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        if time.time() - lock.stat().st_mtime < LOCK_SECONDS:
            return False
        lock.touch()  # (an abandoned lock: taken over)
        return True


def _compile_in_background() -> subprocess.Popen | None:
    """Starts the compile unless another process already runs one; ``None`` where it does
    not."""
    try:
        if not _take_lock():
            return None
        command, env = _compile_command()
        return subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # (a Ctrl-C of this process does not stop it)
        )
    except OSError:
        return None


def _compile_now() -> None:
    """Compiles here, or waits for the compile another process holds the lock of."""
    try:
        while not _take_lock():
            if stamp().exists():
                return
            time.sleep(POLL_SECONDS)
    except OSError:
        pass  # (no lock can be kept here: compile all the same)
    if not stamp().exists():
        command, env = _compile_command()
        subprocess.run(command, env=env, check=False, capture_output=True)
    stamp().with_suffix(".lock").unlink(missing_ok=True)


def compiled_here() -> bool:
    """Whether numba's cache holds the kernel (numba is not imported to tell)."""
    return enabled and importlib.util.find_spec("numba") is not None and stamp().exists()


def compiling() -> bool:
    """Whether this process waits on a compile it started in the background (see
    :func:`ready`): :func:`load` would wait for it to finish."""
    return _compiling is not None and _compiling.poll() is None


def load() -> bool:
    """Loads the kernel now, waiting for its compile if it must, and ends the warm-up (for
    benchmarks, tests and long runs).

    Returns:
        Whether the compiled path can run here.
    """
    global _warm, _loaded
    _warm = WARMUP
    if available() and not _loaded:
        if _compiling is not None:
            _compiling.wait()  # the compile this process started in the background
        if not stamp().exists():
            _compile_now()
        if not endgame_stamp().exists():  # (another process's compile may be at it still)
            compile_endgame()
        # (Should that compile have failed, the first call compiles here.)
        _loaded = True
    return available()


def skip_warm_up() -> None:
    """Takes the kernel for loaded from now on, compiling here whatever numba's cache lacks
    at its first call (for the compile's own process, :func:`mscsp.players.compiled_play.warm`:
    :func:`load` would wait for that very compile)."""
    global _warm, _loaded
    _warm = WARMUP
    _loaded = True


@lru_cache(maxsize=64)
def _coords(rows: int, cols: int) -> list[tuple[int, int]]:
    return [divmod(i, cols) for i in range(rows * cols)]


def _cells(flat: list[int], coords: list[tuple[int, int]]) -> tuple:
    return itemgetter(*flat)(coords) if len(flat) > 1 else (coords[flat[0]],)


def solve_small(board: Board) -> Solution | None:
    """The solution of ``board`` by the kernel, or ``None`` where the pure path must answer.

    The kernel writes one array of integers: a header (status, length, weight or the mines
    left), the groups fixed at neither none nor all of their cells (mines, size, cells), the
    safe cells, the mines, then each component (sizes, constraints, counts, each group's
    counts, each group's cells and numerator), then the cells next to no number (how many,
    numerator). Cells are row-major indices.
    """
    found = _solve_flat(board)
    return None if found is None else decode(board, *found)


def probability_map(board: Board) -> np.ndarray | None:
    """The probability map of ``board`` where the kernel answers it whole (the very map
    :func:`solve_small`'s :class:`Solution` carries), without building the Solution;
    ``None`` where it does not (the pure path must answer).

    Raises:
        InvalidTypeError: ``board`` is not a :class:`~mscsp.board.Board`.
    """
    check_board(board)
    found = _solve_flat(board)
    return found[2] if found is not None and found[0] == DONE else None


def _solve_flat(
    board: Board, approx: int = EXACT
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray] | None:
    """The kernel's status, answer, probability map and free cells for ``board``
    (``None``: not a board the kernel takes); ``approx`` as the kernel's."""
    cells = board.cells
    if cells.dtype != np.int8 or not cells.flags.c_contiguous or not 0 <= board.mines <= cells.size:
        return None
    out, probs, free, odds = scratch(*cells.shape)
    status = _kernel()(
        cells.reshape(-1), *cells.shape, board.mines, out, probs, free, odds, False, approx
    )
    return status, out, probs, free


def probe(
    board: Board,
    now: np.ndarray,
    total: int,
    cell: tuple[int, int],
    beat: float | None,
    weight: float,
    blend: float,
) -> tuple[float, float, bool, int, tuple[int, int] | None, frozenset] | None:
    """``best``'s probe of ``cell`` on the flagged ``board`` by the engine, or ``None``
    where Python must probe it (see :mod:`mscsp.engine._probe`; compiled or not, see
    :func:`uncompiled`).

    Args:
        board: The position, proven mines flagged.
        now: Its probability map.
        total: Its weight.
        cell: The covered cell probed.
        beat: Stop as soon as the score cannot exceed this (``None``: never).
        weight: The score's weight of progress.
        blend: The next click's weight of the second-safest cell.

    Returns:
        The chance of surviving two clicks, of progress, whether every outcome was
        evaluated, how many outcomes have layouts, the next cell shared by every outcome
        and the cells certainly safe after every outcome.
    """
    found = probes(board, now, total, [cell], [1.0], beat, 0.0, weight, blend)
    return found[0] if found else None


def probes(
    board: Board,
    now: np.ndarray,
    total: int,
    cells: list[tuple[int, int]],
    factors: list[float],
    score: float | None,
    margin: float,
    weight: float,
    blend: float,
) -> list[tuple] | None:
    """``best``'s look-ahead probes of ``cells`` in turn on the flagged ``board``, by the
    engine (:func:`mscsp.engine._probe.probe_cells`, compiled or not), up to the first it
    hands back to Python; ``None`` where the board is not the kernel's.

    Args:
        score: The best score so far (``None``: none yet).
        factors: Each cell's score is multiplied by its factor.
        margin: A probe stops as soon as it cannot come within this of the best score.
        Others: see :func:`probe`.

    Returns:
        Each probed cell's answer, as :func:`probe`'s (fewer than ``cells`` when the kernel
        hands the next one back; the cells certainly safe after every outcome are given
        for complete probes only).

    Raises:
        InvalidTypeError: ``board`` is not a :class:`~mscsp.board.Board`.
        InvalidInputError: ``cells`` and ``factors`` differ in length, or a cell is not a
            (row, col) pair on the board (the kernel reads without bounds checks).
    """
    check_board(board)
    if len(cells) != len(factors):
        raise InvalidInputError(f"{len(cells)} cells but {len(factors)} factors")
    check_cells(cells, board.cells.shape)
    cells_ = board.cells
    if cells_.dtype != np.int8 or not cells_.flags.c_contiguous:
        return None
    rows, cols = cells_.shape
    which = np.array([r * cols + c for r, c in cells], dtype=np.int64)
    found = np.empty((len(which), 5))
    implied = np.empty((len(which), cells_.size), dtype=np.bool_)
    shift = max(total.bit_length() - 60, 0)  # (the weight as a float and a binary exponent)
    prober = _engine("_probe")
    flat = cells_.reshape(-1)
    probe_scratch = scratch(rows, cols)
    base, conditioned = prober.position(flat, rows, cols, board.mines, probe_scratch)
    done, _ = prober.probe_cells(
        flat,
        rows,
        cols,
        board.mines,
        which,
        np.array(factors, dtype=np.float64),
        np.ascontiguousarray(now, dtype=np.float64).reshape(-1),
        float(total >> shift),
        shift,
        np.nan if score is None else score,
        margin,
        weight,
        blend,
        found,
        implied,
        probe_scratch,
        base,
        conditioned,
    )
    coords = _coords(rows, cols)
    answers = []
    for j, (survive, progress, complete, results, shared) in enumerate(found[:done].tolist()):
        safe = np.flatnonzero(implied[j]).tolist() if results and complete else []
        answers.append(
            (
                survive,
                progress,
                bool(complete),
                int(results),
                None if shared < 0 else coords[int(shared)],
                frozenset(coords[i] for i in safe),
            )
        )
    return answers


def _flat(a: np.ndarray, dtype: type) -> np.ndarray:
    """``a`` as a flat, contiguous array of ``dtype`` (what the compiled code takes)."""
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1)


def dead_cells(cells: np.ndarray, mines: np.ndarray, which: list[tuple[int, int]]) -> list[bool]:
    """``mscsp.players.best.is_dead`` of each cell of ``which`` (``cells``: the board's
    codes, ``mines``: the cells known to be mines), by the engine."""
    rows, cols = cells.shape
    flat = np.array([r * cols + c for r, c in which], dtype=np.int64)
    found = _engine("_regions").dead_cells(
        _flat(cells, np.int8), _flat(mines, np.bool_), rows, cols, flat
    )
    return found.tolist()


def _one_off(name: str) -> types.ModuleType:
    """The engine's module ``name`` for what may be a one-off (an explanation asked once):
    compiled where this process has loaded numba already (a game, a generator), else run by
    Python: a one-off does not repay numba's load (0.4 s, and its memory in a server's
    worker)."""
    return _engine(name) if "numba" in sys.modules else uncompiled(name)


class Feasibility:
    """A layout search of :mod:`mscsp.engine._feasible`, readied: numbers over cells
    ``0..n-1``, one cell fixed. :meth:`walk` runs it on the engine (:func:`_one_off`).

    Args:
        n: The cells.
        members: Each number's cells.
        needs: Each number's mines still to place.
        fixed: The cell fixed, and its value (1: a mine).

    Raises:
        InvalidTypeError: A count or a cell that is not an integer, or ``members`` and
            ``needs`` not lists of them.
        InvalidInputError: A cell off ``0..n-1``, a number with no cell, ``members`` and
            ``needs`` of different lengths, or a fixed value other than 0 or 1 (the compiled
            walk reads its arrays unchecked).
    """

    def __init__(self, n: int, members: list[list[int]], needs: list[int], fixed: tuple[int, int]):
        n = check_int(n, "n", 1)
        if not isinstance(members, list | tuple) or not isinstance(needs, list | tuple):
            raise InvalidTypeError("members and needs must be lists")
        if len(members) != len(needs):
            raise InvalidInputError(f"{len(members)} numbers' cells, but {len(needs)} needs")
        members = [[check_int(i, "a number's cell") for i in cells] for cells in members]
        # (any need: one no layout meets is an answer, not an error)
        needs = [check_int(k, "a number's need", -(2**62)) for k in needs]
        for cells in members:
            if not cells or max(cells) >= n:
                raise InvalidInputError(
                    f"a number over cells {cells}: cells of 0..{n - 1}, one at least"
                )
        if not isinstance(fixed, list | tuple) or len(fixed) != 2:
            raise InvalidTypeError(f"fixed must be a (cell, value) pair, got {describe(fixed)}")
        if check_int(fixed[0], "the fixed cell") >= n or check_int(fixed[1], "its value") > 1:
            raise InvalidInputError(f"fixed {tuple(fixed)}: a cell of 0..{n - 1}, a value 0 or 1")
        self.module = _one_off("_feasible")
        cells_of: list[list[int]] = [[] for _ in range(n)]
        for k, cells in enumerate(members):
            for i in cells:
                cells_of[i].append(k)
        watch_at = [0]
        for w in cells_of:
            watch_at.append(watch_at[-1] + len(w))
        placed, open_ = [0] * len(members), [len(cells) for cells in members]
        cell, v = fixed
        for k in cells_of[cell]:
            placed[k] += v
            open_[k] -= 1
        value = [-1] * n
        value[cell] = v
        #: Whether the fixed value leaves every number it belongs to satisfiable.
        self.possible = all(placed[k] <= needs[k] <= placed[k] + open_[k] for k in cells_of[cell])
        # Arrays for the compiled walk; Python's lists, faster by far, for the walk by Python.
        array = (
            list
            if self.module.__name__.startswith(UNCOMPILED)
            else partial(np.array, dtype=np.int64)
        )
        self.state = [
            array(x)
            for x in (value, placed, open_, list(needs), watch_at, [k for w in cells_of for k in w])
        ]
        self.frames = [array([0] * (n + 2)) for _ in range(3)]  # cell, mines, stage
        self.reg = array([0, 0, 0, 0])

    def walk(self, use_total: bool, left: int, others: int) -> bool | None:
        """Walks on (see :func:`mscsp.engine._feasible.search`): whether a layout was
        found, with the total (``left`` mines, ``others`` cells no number sees) where
        ``use_total``; ``None`` where a check of the caller's deadline is due first (then
        walk on)."""
        step = self.module.search(*self.state, use_total, left, others, *self.frames, self.reg)
        return None if step == self.module.CHECK else step == self.module.FOUND


#: Layouts past any board's: the engine reads a layout count as a ``float``, and larger
#: integers overflow one.
LAYOUTS_CAP = 10**300


def rules_may_apply(board: Board, layouts: int) -> bool | None:
    """Whether one of ``best``'s rules before its look-ahead (its endgame search at most
    ``layouts`` layouts, isolated regions, pseudo, looming and forced 50/50s) may apply to
    ``board`` (its proven mines flagged), as the engine tests it before it guesses for
    ``best`` (:func:`mscsp.engine._lookahead.rules_may_apply`); ``None`` where the kernel does not
    answer the board.

    Raises:
        InvalidTypeError: ``board`` is not a Board, or ``layouts`` not an integer.
        InvalidInputError: ``layouts`` is negative.
    """
    check_board(board)
    layouts = check_int(layouts, "layouts")
    found = _solve_flat(board, FLOAT_TIED)
    if found is None or found[0] not in (DONE, APPROX):
        return None
    from . import _lookahead

    status, out, probs, _ = found
    rows, cols = board.shape
    exact, most = status == DONE, float(min(layouts, LAYOUTS_CAP))
    flat = board.cells.reshape(-1)
    return bool(_lookahead.rules_may_apply(exact, out, probs.reshape(-1), flat, rows, cols, most))


Cell = tuple[int, int]


def isolated_regions(cells: np.ndarray) -> list[list[Cell]]:
    """:func:`mscsp.session.isolated_regions` of a board's cell codes, by the engine."""
    rows, cols = cells.shape
    labels = np.empty(cells.size, dtype=np.int64)
    count = _engine("_regions").isolated_labels(_flat(cells, np.int8), rows, cols, labels)
    return _regions_of(labels, count, rows, cols)


def _regions_of(labels: np.ndarray, count: int, rows: int, cols: int) -> list[list[Cell]]:
    """The isolated regions :func:`mscsp.engine._regions.isolated_labels` labelled."""
    if not count:
        return []
    regions: list[list[Cell]] = [[] for _ in range(count)]
    coords = _coords(rows, cols)
    for k in np.flatnonzero(labels >= 0).tolist():
        regions[labels[k]].append(coords[k])
    return regions


def pairs(cells: np.ndarray, missing: int) -> list[tuple[Cell, Cell]]:
    """``mscsp.players.fifty._pairs`` (side-by-side covered pairs with ``missing`` soft
    outer cells, in row-major order), by the engine."""
    rows, cols = cells.shape
    out = np.empty((2 * cells.size, 2), dtype=np.int64)
    found = _engine("_regions").pairs(_flat(cells, np.int8), rows, cols, missing, out)
    return _pairs_of(out, found, rows, cols)


def _pairs_of(out: np.ndarray, found: int, rows: int, cols: int) -> list[tuple[Cell, Cell]]:
    """The pairs :func:`mscsp.engine._regions.pairs` wrote."""
    coords = _coords(rows, cols)
    return [(coords[a], coords[b]) for a, b in out[:found].tolist()]


def boxes(cells: np.ndarray) -> list[tuple[Cell, Cell, Cell, Cell]]:
    """``mscsp.players.fifty.box_patterns`` (covered 2x2 boxes whose diagonal corners are
    flags or off the board, row-major, each top-left, top-right, bottom-left,
    bottom-right), by the engine."""
    rows, cols = cells.shape
    out = np.empty(cells.size, dtype=np.int64)
    found = _engine("_regions").boxes(_flat(cells, np.int8), rows, cols, out)
    return _boxes_of(out, found, rows, cols)


def _boxes_of(
    out: np.ndarray, found: int, rows: int, cols: int
) -> list[tuple[Cell, Cell, Cell, Cell]]:
    """The boxes :func:`mscsp.engine._regions.boxes` wrote (their top-left cells)."""
    coords = _coords(rows, cols)
    return [
        (coords[k], coords[k + 1], coords[k + cols], coords[k + cols + 1])
        for k in out[:found].tolist()
    ]


def representatives(cells: np.ndarray, mask: np.ndarray, count: int) -> list[Cell]:
    """``mscsp.players.best.representatives`` (the ``count`` cells of ``mask`` with the
    fewest covered neighbours, ties row-major), by the engine."""
    rows, cols = cells.shape
    out = np.empty(count, dtype=np.int64)
    found = _engine("_regions").fewest_covered(
        _flat(cells, np.int8), _flat(mask, np.bool_), rows, cols, out
    )
    coords = _coords(rows, cols)
    return [coords[k] for k in out[:found].tolist()]


#: Unconstrained cells :func:`checks` picks (``best``'s representatives of them all).
REPRESENTATIVES = 3


@dataclass(frozen=True)
class Checks:
    """What ``best``'s guess asks about one position, answered by one call of the engine
    (:func:`checks`).

    Attributes:
        regions: :func:`isolated_regions`.
        pairs: :func:`pairs` with no soft outer cell (pseudo 50/50s).
        loose: :func:`pairs` with one soft outer cell (looming 50/50s).
        boxes: :func:`boxes`.
        dead: Whether each cell is dead (``mscsp.players.best.is_dead``; only unknown
            cells are: covered and not known mines).
        representatives: :func:`representatives` of the cells asked for, at most
            :data:`REPRESENTATIVES`.
        given: The pseudo 50/50 rule's conditional solves that the kernel answered
            exactly: for a cell of a pair or box, ``None`` where no layout has it a mine,
            else the probabilities of the pattern's cells with it a mine
            (``mscsp.players.fifty.given_mine``'s map at those cells). A cell missing was
            not asked, or needs Python.
    """

    regions: list[list[Cell]]
    pairs: list[tuple[Cell, Cell]]
    loose: list[tuple[Cell, Cell]]
    boxes: list[tuple[Cell, Cell, Cell, Cell]]
    dead: np.ndarray
    representatives: list[Cell]
    given: dict[Cell, dict[Cell, float] | None]


def checks(
    board: Board,
    mines: np.ndarray,
    free: np.ndarray,
    rules: bool = True,
    pseudo: bool = False,
) -> Checks:
    """:class:`Checks` of a position in one call of the engine
    (:func:`mscsp.engine._checks.checks`), without the public functions' checks of their
    arguments (the player's own arrays).

    Args:
        board: The position (proven mines flagged).
        mines: The cells known to be mines (flags included).
        free: The cells to pick representatives from.
        rules: Whether the rules' patterns (regions, pairs, boxes) are wanted too (else
            they are left empty).
        pseudo: Whether the pseudo 50/50 rule's conditional solves are wanted too (with
            ``rules``: the board counted as the kernel counts it, see
            :func:`mscsp.solver.kernel_takes`).
    """
    cells = board.cells
    rows, cols = cells.shape
    n = cells.size
    pairs_, loose = np.empty((2 * n, 2), dtype=np.int64), np.empty((2 * n, 2), dtype=np.int64)
    tops = np.empty(n, dtype=np.int64)
    dead = np.empty(n, dtype=np.bool_)
    few = np.empty(REPRESENTATIVES, dtype=np.int64)
    found = (np.empty(n, dtype=np.int64), pairs_, loose, tops, dead, few)
    given = (
        np.empty(2 * n, dtype=np.int64),
        np.empty(2 * n),
        np.empty((n, 4), dtype=np.int64),
        np.empty((n, 4, 4)),
    )
    counts = _engine("_checks").checks(
        np.array(cells, dtype=np.int8).reshape(-1),  # (a copy: written on and restored)
        board.mines,
        _flat(mines, np.bool_),
        _flat(free, np.bool_),
        rows,
        cols,
        (rules, pseudo),
        found,
        given,
        scratch(rows, cols),
    )
    n_regions, n_pairs, n_loose, n_boxes, n_few = (int(x) for x in counts)
    coords = _coords(rows, cols)
    pairs_found = _pairs_of(pairs_, n_pairs, rows, cols)
    boxes_found = _boxes_of(tops, n_boxes, rows, cols)
    return Checks(
        _regions_of(found[0], n_regions, rows, cols),
        pairs_found,
        _pairs_of(loose, n_loose, rows, cols),
        boxes_found,
        dead.reshape(rows, cols),
        [coords[k] for k in few[:n_few].tolist()],
        _given_of(pairs_found, boxes_found, given) if rules and pseudo else {},
    )


def _given_of(
    pairs_found: list[tuple[Cell, Cell]],
    boxes_found: list[tuple[Cell, Cell, Cell, Cell]],
    given: tuple[np.ndarray, ...],
) -> dict[Cell, dict[Cell, float] | None]:
    """:attr:`Checks.given` of what :func:`mscsp.engine._checks.checks` wrote in ``given``:
    each solve the kernel answered exactly (:data:`DONE`: the cells' probabilities) or found
    without layouts (``None``); Python makes the others."""
    n_pairs, n_boxes = len(pairs_found), len(boxes_found)
    pair_status, pair_after = given[0][:n_pairs].tolist(), given[1][:n_pairs].tolist()
    box_status, box_after = given[2][:n_boxes].tolist(), given[3][:n_boxes].tolist()
    out: dict[Cell, dict[Cell, float] | None] = {}

    def keep(cell: Cell, status: int, cells: tuple[Cell, ...], after: list[float]) -> None:
        if status == INCONSISTENT:
            out[cell] = None
        elif status == DONE:
            out[cell] = {**(out.get(cell) or {}), **dict(zip(cells, after, strict=True))}

    for j, (a, b) in enumerate(pairs_found):
        keep(a, pair_status[j], (b,), [pair_after[j]])
    for i, box in enumerate(boxes_found):
        for k, t in enumerate(box):
            keep(t, box_status[i][k], box, box_after[i][k])
    return out


def _endgame() -> types.ModuleType:
    """The endgame search's module (:mod:`mscsp.engine._endgame`): compiled where the kernel
    is loaded and the search compiled too (:func:`endgame_stamp`), else run by Python."""
    loaded = ready(0) and endgame_stamp().exists()
    return _compiled("_endgame") if loaded else uncompiled("_endgame")


def search_endgame(
    layouts: list[int],
    n: int,
    nbr_idx: list[list[int]],
    nbr_mask: list[int],
    base: list[int],
    budget: int,
) -> tuple[float, int] | bool | None:
    """:func:`mscsp.players.endgame.solve_endgame`'s search by the engine (compiled or
    not, see :func:`_endgame`): the chance of winning and the cell to click (-1: won),
    ``None`` when it outgrew ``budget``, or ``False`` where the layouts or cells are too
    many for its words (Python searches).

    Args:
        layouts: The layouts (bitmasks over the ``n`` unknown cells).
        nbr_idx: Each unknown cell's unknown neighbours, in the board's neighbour order.
        nbr_mask: The same as bitmasks.
        base: Each unknown cell's flagged neighbours.
    """
    return _search(_endgame(), layouts, n, nbr_idx, nbr_mask, base, budget)


def endgame_layouts(
    board: Board, limit: int, any_count: bool
) -> tuple[list[tuple[int, int]], list[int]] | bool | None:
    """:func:`mscsp.players.endgame.enumerate_layouts` by the engine (compiled or not, see
    :func:`_endgame`): the unknown cells and the layouts, ``None`` beyond ``limit``, or
    ``False`` where the engine does not take the board (too many unknown cells for its
    words, or layouts asked for).

    Raises:
        InvalidTypeError: ``board`` is not a :class:`~mscsp.board.Board`, or ``limit`` not
            an integer.
        InvalidInputError: ``limit`` is negative.
    """
    check_board(board)
    limit = check_int(limit, "limit")
    return _layouts(_endgame(), board, limit, any_count)


def _layouts(module, board, limit, any_count):
    """:func:`endgame_layouts` by ``module`` (:mod:`mscsp.engine._endgame`, compiled or not)."""
    cells = board.cells
    if cells.dtype != np.int8 or not 0 <= limit <= 1 << 16:
        return False
    rows, cols = cells.shape
    flat = _flat(cells, np.int8)
    unknown = np.empty(module.MAX_CELLS, dtype=np.int64)
    out = np.empty(limit, dtype=np.int64)
    count = module.layouts(flat, rows, cols, board.mines, any_count, limit, unknown, out)
    if count == -2:
        return False
    if count < 0:
        return None
    coords = _coords(rows, cols)
    n = int(np.count_nonzero(flat == -1))
    return [coords[k] for k in unknown[:n].tolist()], out[:count].tolist()


def _search(module, layouts, n, nbr_idx, nbr_mask, base, budget):
    """:func:`search_endgame` by ``module`` (:mod:`mscsp.engine._endgame`, compiled or not)."""
    if n > module.MAX_CELLS or len(layouts) > module.MAX_LAYOUTS:
        return False
    start = np.cumsum([0] + [len(idx) for idx in nbr_idx])
    flat = [y for idx in nbr_idx for y in idx]
    win, cell = module.search(
        np.array(layouts, dtype=np.int64),
        n,
        np.array(nbr_mask, dtype=np.int64),
        start.astype(np.int64),
        np.array(flat, dtype=np.int64),
        np.array(base, dtype=np.int64),
        budget,
    )
    return None if win < 0 else (float(win), int(cell))


def scratch(rows: int, cols: int) -> tuple[np.ndarray, ...]:
    """The arrays the kernel writes its answer into, for a rows x cols board."""
    n = rows * cols
    return (
        np.empty(8 * n + 1024, dtype=np.int64),
        np.empty((rows, cols)),
        np.empty((rows, cols), dtype=np.bool_),
        np.empty(2 * n, dtype=np.int64),
    )


def decode(
    board: Board, status: int, out: np.ndarray, probs: np.ndarray, free: np.ndarray
) -> Solution | None:
    """The :class:`Solution` the kernel wrote for ``board`` (see :func:`solve_small`), or
    ``None`` where the pure path must answer."""
    if status not in (DONE, COUNTED):
        return None
    rows, cols = board.cells.shape
    data = out[: out[1]].tolist()
    coords = _coords(rows, cols)
    odds = []
    fixed_weight = 1
    i = 4
    for _ in range(data[3]):  # groups fixed at neither none nor all of their cells
        x, size, count = data[i : i + 3]
        i += 3
        odds.append(CellOdds(_cells(data[i : i + count], coords), x, size))
        i += count
        fixed_weight *= comb(size, x)
    for mine in (0, 1):  # the cells proven safe, then those proven mines
        count = data[i]
        i += 1
        if count:
            odds.append(CellOdds(_cells(data[i : i + count], coords), mine, 1))
            i += count
    components = []
    groups = []  # every component's groups' cells, in order, and their numerators
    numerators = []
    n_comp = data[i]
    i += 1
    for _ in range(n_comp):
        m = data[i]
        sizes = tuple(data[i + 1 : i + 1 + m])
        i += m + 1
        stated = []
        for _ in range(data[i]):
            length = data[i + 1]
            stated.append((tuple(data[i + 2 : i + 2 + length]), data[i + 2 + length]))
            i += length + 2
        length = data[i + 1]
        i += 2
        counts = tuple(data[i : i + length])
        i += length
        cell_counts = []
        for _ in range(m):
            cell_counts.append(tuple(data[i : i + length]))
            i += length
        group_cells = []
        for _ in range(m):
            count = data[i]
            group_cells.append(_cells(data[i + 1 : i + 1 + count], coords))
            groups.append(group_cells[-1])
            numerators.append(data[i + 1 + count])
            i += count + 2
        components.append(
            (
                Component(sizes, tuple(stated), tuple(group_cells)),
                ComponentCount(counts, tuple(cell_counts)),
            )
        )
    if status == COUNTED:  # combined, the counts might leave 64 bits: Python combines
        try:
            return weigh_components(board, odds, components, data[2], free, fixed_weight)
        except InconsistentBoardError:
            return None  # the pure path raises it, with its own words
    weight = data[2]
    odds += [CellOdds(group, num, weight) for group, num in zip(groups, numerators, strict=True)]
    if data[i]:
        odds.append(CellOdds(free, data[i + 1], weight))
    solution = Solution(board=board, odds=odds, components=components, weight=weight * fixed_weight)
    solution.__dict__["probabilities"] = probs
    return solution
