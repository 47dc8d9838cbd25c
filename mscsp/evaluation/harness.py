"""The win-rate harness: seeded games, parallel batches, a resumable JSONL log, statistics.

Game ``i`` of a run with seed ``s`` draws its mine layout, its first move and the player's
random generator from ``SeedSequence(s, spawn_key=(i, k))`` (``k`` = 0, 1, 2), so a result
depends on ``(s, i)`` only: not on the number of workers, the executor, batching or resumes.

A run on no-guess boards (:attr:`RunConfig.no_guess`) plays, as game ``i``, the first board
the no-guess generator (:class:`mscsp.noguess.generate.Generator`) lays from the layout seed
``SeedSequence(s, spawn_key=(i, 0))``, from the first click of its certificate: still a
function of ``(s, i)``. Those games are played one by one, never on the compiled batch
engine (which draws plain layouts).
"""

from __future__ import annotations

import inspect
import json
import math
import numbers
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidInputError
from ..game import FirstClick, Game, draw_mines, first_move, mine_candidates
from ..players import Player, get_player, player_factory
from ..runtime.executors import check_executor, parallel_map
from ..runtime.outlock import output_lock
from ..runtime.runlog import LogContents, LogFormat, ResumableLog
from ..trust.jsonlog import Damaged, typed

if TYPE_CHECKING:
    from ..noguess.generate import Settings

#: Games times cells from which a run waits for the compiled engine's first compile (about
#: a minute of one core, once per install) instead of playing on the pure road meanwhile:
#: 2,000,000 is about 4,000 expert games, a minute or more on the pure road.
WAIT_FOR_ENGINE = 2_000_000


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's games (what a resumed run must match).

    Attributes:
        strategy: Player spec (registry name or ``learner:PATH``).
        rows: Board rows.
        cols: Board columns.
        mines: Mine count.
        first_click: First-click rule (``safe``, ``opening``, ``any``).
        first_move: First-move policy (``corner``, ``center``, ``random`` or ``"r,c"``).
        seed: Run seed.
        options: Player keyword options.
        no_guess: Play boards that need no guess from the first click (see the module
            docstring); the first click must then be ``safe`` or ``opening``.
    """

    strategy: str
    rows: int
    cols: int
    mines: int
    first_click: str = FirstClick.SAFE.value
    first_move: str = "corner"
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    no_guess: bool = False

    def validate(self) -> None:
        """Raises :class:`InvalidInputError` for a board, first move or player option that
        cannot be played (before any game starts, not in the middle of a run)."""
        Game(self.rows, self.cols, self.mines, first_click=self.first_click)
        if self.first_move != "random":
            first_move(self.first_move, self.rows, self.cols)
        if self.no_guess:
            no_guess_settings(self).check()
        check_player_options(self.strategy, self.options)


def no_guess_settings(config: RunConfig) -> Settings:
    """The no-guess generator's settings for the boards of ``config`` (its size, mines and
    first click; the generator's defaults otherwise)."""
    from ..noguess.generate import Settings

    return Settings(
        config.rows,
        config.cols,
        config.mines,
        first_click=config.first_click,
        first_move=config.first_move,
    )


def no_guess_game(config: RunConfig, index: int) -> tuple[Game, tuple[int, int]]:
    """Game ``index`` of a no-guess run: the first board the generator lays from the game's
    layout seed, and its certificate's first click.

    Raises:
        SolverLimitError: The generator found no board in its tries.
    """
    from ..noguess.generate import Generator

    board = Generator(no_guess_settings(config), game_seed(config.seed, index, LAYOUT)).next_board()
    mines = np.zeros(config.rows * config.cols, dtype=np.bool_)
    mines[list(board.layout)] = True
    layout = mines.reshape(config.rows, config.cols)
    game = Game(
        config.rows, config.cols, config.mines, first_click=config.first_click, layout=layout
    )
    return game, board.start


def check_player_options(strategy: str, options: dict[str, Any]) -> None:
    """Checks ``options`` against the keyword arguments of the strategy's player class.

    A value must have the type of the argument's default; numbers must be finite and not
    negative, and caps (``max_*``) at least 1. Unknown strategies are left to
    :func:`~mscsp.players.get_player`, which names the valid ones.

    Raises:
        InvalidInputError: Unknown option or bad value (one line, naming both).
    """
    factory = player_factory(strategy)
    if factory is None:
        return
    params = inspect.signature(factory).parameters
    fixed = {"path"}  # a learner's path comes from its spec
    takes = [n for n, p in params.items() if n not in fixed and p.kind is p.POSITIONAL_OR_KEYWORD]
    for name, value in options.items():
        if name not in takes:
            raise InvalidInputError(
                f"strategy {strategy!r} has no option {name!r} (it takes: "
                f"{', '.join(takes) or 'none'})"
            )
        default = params[name].default
        wanted = _option_kind(default)
        if wanted is None:
            continue
        number = isinstance(value, int | float) and not isinstance(value, bool)
        ok = {
            "an integer": isinstance(value, int) and not isinstance(value, bool),
            "a number": number and math.isfinite(value),
            "a string": isinstance(value, str),
            "true or false": isinstance(value, bool),
        }[wanted]
        if not ok:
            raise InvalidInputError(f"option {name} of {strategy!r} takes {wanted}, got {value!r}")
        least = 1 if name.startswith("max_") and wanted == "an integer" else 0
        if number and value < least:
            raise InvalidInputError(
                f"option {name} of {strategy!r} must be >= {least}, got {value}"
            )


def _option_kind(default: Any) -> str | None:
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, int):
        return "an integer"
    if isinstance(default, float):
        return "a number"
    if isinstance(default, str):
        return "a string"
    return None


@dataclass(frozen=True)
class GameResult:
    """One game's outcome.

    Attributes:
        index: Game number within the run.
        won: Whether every safe cell was revealed.
        cleared: Fraction of the safe cells revealed.
        moves: Cells the player clicked (first click included).
        guesses: Clicks the player reported as guesses.
        seconds: Wall time of the game.
    """

    index: int
    won: bool
    cleared: float
    moves: int
    guesses: int
    seconds: float

    def row(self) -> list:
        """The log row: exact values (JSON writes floats so that they read back identical)."""
        return [self.index, int(self.won), self.cleared, self.moves, self.guesses, self.seconds]

    @classmethod
    def from_row(cls, row: list) -> GameResult:
        index, won, cleared, moves, guesses, seconds = row
        return cls(int(index), bool(won), float(cleared), int(moves), int(guesses), float(seconds))


#: What each of a game's seeds draws (see :func:`game_seeds`).
LAYOUT, PLAYER, FIRST_MOVE = range(3)


def game_seed(seed: int, index: int, role: int) -> np.random.SeedSequence:
    """The seed of game ``index`` for one ``role`` (:data:`LAYOUT`, :data:`PLAYER`,
    :data:`FIRST_MOVE`)."""
    return np.random.SeedSequence(seed, spawn_key=(index, role))


def game_seeds(seed: int, index: int) -> tuple[np.random.SeedSequence, ...]:
    """Seeds of game ``index``: mine layout, player generator, first move."""
    return tuple(game_seed(seed, index, role) for role in (LAYOUT, PLAYER, FIRST_MOVE))


def play_game(player: Player, config: RunConfig, index: int) -> GameResult:
    """Plays game ``index`` of ``config`` to the end (a no-guess board's time leaves out
    laying it)."""
    if config.no_guess:
        game, first = no_guess_game(config, index)
        return _played(player, game, first, config, index, time.perf_counter())
    start = time.perf_counter()
    layout_seed, _, move_seed = game_seeds(config.seed, index)
    game = Game(
        config.rows, config.cols, config.mines, seed=layout_seed, first_click=config.first_click
    )
    move_rng = np.random.default_rng(move_seed)
    first = first_move(config.first_move, config.rows, config.cols, move_rng)
    return _played(player, game, first, config, index, start)


def _played(
    player: Player,
    game: Game,
    first: tuple[int, int],
    config: RunConfig,
    index: int,
    start: float,
) -> GameResult:
    """``game`` played to the end from the click ``first``, with the player's generator of
    game ``index``."""
    rng = np.random.default_rng(game_seed(config.seed, index, PLAYER))
    player.new_game()
    game.reveal(*first)
    moves, guesses = player.play(game, rng)
    return GameResult(
        index,
        game.state == "won",
        game.revealed / max(game.safe_cells, 1),
        moves + 1,  # the first click
        guesses,
        time.perf_counter() - start,
    )


_PLAYER_CACHE: dict[str, Player] = {}


def _check_games(config: RunConfig, indices: list[int]) -> None:
    """Refuses a config that cannot be played or game numbers that are not whole numbers
    >= 0 (:class:`InvalidInputError`, one line), before any game starts."""
    if not isinstance(config, RunConfig):
        raise InvalidInputError(f"config must be a RunConfig, got {type(config).__name__}")
    config.validate()
    bad = [i for i in indices if isinstance(i, bool) or not isinstance(i, int | np.integer)]
    bad += [i for i in indices if i not in bad and i < 0]
    if bad:
        raise InvalidInputError(f"game numbers must be whole numbers >= 0, got {bad[0]!r}")


def play_batch(config: RunConfig, indices: list[int]) -> list[GameResult]:
    """Plays the given games; the player is built once per process and config.

    Raises:
        InvalidInputError: See :func:`_check_games`.
    """
    indices = list(indices)
    _check_games(config, indices)
    key = json.dumps([config.strategy, config.options], sort_keys=True)
    player = _PLAYER_CACHE.get(key)
    if player is None:
        player = _PLAYER_CACHE[key] = get_player(config.strategy, **config.options)
    # (No-guess boards are laid one by one by their generator: played one by one too.)
    engine = len(indices) > 1 and not config.no_guess
    if engine and player.plays_batches(config.rows, config.cols, len(indices)):
        return _on_engine(player, config, indices)
    return [play_game(player, config, i) for i in indices]


def play_on_engine(config: RunConfig, indices: list[int]) -> list[GameResult]:
    """Plays the given games all at once on the compiled engine (for a player whose
    :meth:`~mscsp.players.Player.plays_batches` says so): the layouts and first clicks that
    :func:`play_game` would draw, the same games. Each game is given an equal share of the
    batch's time (the engine does not time games one by one).

    Raises:
        InvalidInputError: See :func:`_check_games`, the strategy does not play in
            batches (:meth:`~mscsp.players.Player.play_layouts`), or ``config`` is of
            no-guess boards (played one by one: :func:`play_batch`).
    """
    indices = list(indices)
    _check_games(config, indices)
    if config.no_guess:
        raise InvalidInputError("no-guess games are played one by one, not on the engine")
    return _on_engine(get_player(config.strategy, **config.options), config, indices)


def _on_engine(player: Player, config: RunConfig, indices: list[int]) -> list[GameResult]:
    if not indices:
        return []

    start = time.perf_counter()
    rule = FirstClick(config.first_click)
    rows, cols = config.rows, config.cols
    layouts = np.empty((len(indices), config.mines), dtype=np.int64)
    firsts = np.empty(len(indices), dtype=np.int64)
    fixed = None if config.first_move == "random" else first_move(config.first_move, rows, cols)
    if fixed is not None:  # (the same first click, so the same candidates, in every game)
        candidates = mine_candidates(rows, cols, rule, *fixed)
    for k, index in enumerate(indices):
        r, c = fixed or first_move(
            "random", rows, cols, np.random.default_rng(game_seed(config.seed, index, FIRST_MOVE))
        )
        if fixed is None:
            candidates = mine_candidates(rows, cols, rule, r, c)
        rng = np.random.default_rng(game_seed(config.seed, index, LAYOUT))
        layouts[k] = draw_mines(rng, candidates, config.mines)
        firsts[k] = r * cols + c
    results = player.play_layouts(config.rows, config.cols, layouts, firsts)
    seconds = (time.perf_counter() - start) / len(indices)
    safe_cells = max(config.rows * config.cols - config.mines, 1)
    return [
        GameResult(index, bool(won), revealed / safe_cells, int(moves), int(guesses), seconds)
        for index, (won, revealed, moves, guesses) in zip(indices, results.tolist(), strict=True)
    ]


def wilson(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95 % by default)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def jeffreys(wins: int, games: int, level: float = 0.95) -> tuple[float, float]:
    """The Jeffreys interval of a win rate: the central ``level`` of Beta(wins + 1/2,
    games - wins + 1/2), with the end at 0 (1) when no game was won (lost), as Brown, Cai and
    DasGupta (2001) recommend it.

    Raises:
        InvalidInputError: ``games`` or ``wins`` is not an integer with
            ``0 <= wins <= games``, or ``level`` is not strictly between 0 and 1.
    """
    for name, value in (("games", games), ("wins", wins)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise InvalidInputError(f"{name} must be an integer, not {value!r}")
    if not 0 <= wins <= games:
        raise InvalidInputError(f"wins must be in 0..games ({games}), not {wins}")
    if not isinstance(level, numbers.Real) or not 0 < level < 1:
        raise InvalidInputError(f"level must be strictly between 0 and 1, not {level!r}")
    if games == 0:
        return 0.0, 1.0
    from scipy.special import betaincinv  # scipy only where an interval is asked for

    tail = (1 - level) / 2
    a, b = wins + 0.5, games - wins + 0.5
    low = 0.0 if wins == 0 else float(betaincinv(a, b, tail))
    high = 1.0 if wins == games else float(betaincinv(a, b, 1 - tail))
    return low, high


@dataclass(frozen=True)
class Summary:
    """Aggregate statistics of a set of games."""

    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    cleared: float
    moves: float
    guesses: float
    seconds_per_game: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Tally:
    """Running sums of game results, summarised on demand.

    Sums are exact (floats are added as fractions), so the summary does not depend on the
    order games finish in: a resumed or parallel run summarises exactly like a serial one.
    """

    def __init__(self, results: Iterable[GameResult] = ()):
        self.games = self.wins = self.moves = self.guesses = 0
        self.cleared = self.seconds = Fraction(0)
        self.add(results)

    def add(self, results: Iterable[GameResult]) -> None:
        for r in results:
            self.games += 1
            self.wins += r.won
            self.cleared += Fraction(r.cleared)
            self.moves += r.moves
            self.guesses += r.guesses
            self.seconds += Fraction(r.seconds)

    def summary(self) -> Summary:
        n = self.games or 1
        low, high = wilson(self.wins, self.games)
        return Summary(
            self.games,
            self.wins,
            self.wins / n,
            low,
            high,
            float(self.cleared / n),
            self.moves / n,
            self.guesses / n,
            float(self.seconds / n),
        )


class RunLog:
    """The play log: a header line with the run's config, then one line per batch (a
    :class:`~mscsp.runtime.runlog.ResumableLog` of :data:`PLAY_LOG`).

    A log holds exactly one run's games. A resumed run may append a new header with the same
    config (for a new game count); a header with another config makes the log unreadable
    rather than silently mixed. A file whose first line is not a run header is refused
    untouched; a damaged line after it is reported and skipped, the lines after it kept; a
    last line cut short by an interruption is dropped by :meth:`repair`. The log is never
    written through a link.
    """

    #: What the log is, for messages.
    WHAT = "play log"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        #: Games the logged run was last started for (set by :meth:`read`).
        self.planned = 0
        self._log = ResumableLog(self.path, PLAY_LOG)
        self._contents: LogContents | None = None

    def exists(self) -> bool:
        """Whether the log holds anything (an empty file counts as no log)."""
        return self._log.exists()

    def read(self) -> tuple[RunConfig | None, dict[int, GameResult]]:
        """The logged config and the finished games by index.

        Raises:
            InvalidInputError: The file is not a run log, or it holds games of several runs.
        """
        return self._results(self._log.read())

    def resume(self, config: RunConfig) -> dict[int, GameResult]:
        """The finished games of the logged run of ``config``, the log readied for appending.

        Raises:
            InvalidInputError: No log, not a run log, or a log of another run (the message
                names what differs).
        """
        contents = self._log.resume(asdict(config), "start a new log (--overwrite)")
        return self._results(contents)[1]

    def _results(self, contents: LogContents) -> tuple[RunConfig | None, dict[int, GameResult]]:
        self._contents = contents
        header = contents.header
        config = None if header is None else RunConfig(**header.settings)
        self.planned = 0 if header is None else header.fields["games"]
        done: dict[int, GameResult] = {}
        for _, results in contents.records:
            done.update((result.index, result) for result in results)
        return config, done

    def repair(self) -> None:
        """Drops a last line cut short by an interruption (or ends a whole one), so
        appended batches start clean."""
        if self._contents is None:
            self.read()
        self._log.repair(self._contents)

    def start(self, config: RunConfig, games: int, *, new: bool = False) -> None:
        """Writes the header line (replacing the whole file when ``new``). ``no_guess`` is
        written only where it is set: the header of any other run is as it always was."""
        self._log.start(asdict(config), new=new, games=games)

    def append(self, results: list[GameResult]) -> None:
        """Records one finished batch (flushed at once: a kill loses at most this line)."""
        self._log.append({"type": "batch", "games": [r.row() for r in results]})


#: The settings of a run header, and the JSON types each must have.
_CONFIG_KINDS: dict[str, tuple[type, ...]] = {
    "strategy": (str,),
    "rows": (int,),
    "cols": (int,),
    "mines": (int,),
    "first_click": (str,),
    "first_move": (str,),
    "seed": (int,),
    "options": (dict,),
    "no_guess": (bool,),
}
#: The JSON types of a logged game's row (:meth:`GameResult.row`), in order.
_ROW_KINDS: tuple[tuple[type, ...], ...] = ((int,), (int, bool), (float,), (int,), (int,), (float,))


def _run_fields(value: dict[str, Any]) -> dict[str, Any]:
    """A run header's own field: the games the run was started for (0 if left out)."""
    games = typed(value, "games", int) if "games" in value else 0
    if games < 0:
        raise Damaged(f"a negative game count {games}")
    return {"games": games}


def _run_record(value: Any) -> list[GameResult]:
    """A batch line's games (:class:`Damaged` for anything else)."""
    if typed(value, "type", str) != "batch":
        raise Damaged(f"an unknown record type {value['type']!r}")
    results = []
    for row in typed(value, "games", list):
        if not isinstance(row, list) or len(row) != len(_ROW_KINDS):
            raise Damaged(f"a game row of {len(_ROW_KINDS)} values expected, got {row!r:.60}")
        for position, kinds in enumerate(_ROW_KINDS):
            typed(dict(enumerate(row)), position, *kinds)  # (Damaged names the position)
        if row[0] < 0:
            raise Damaged(f"a negative game number {row[0]}")
        results.append(GameResult.from_row(row))
    return results


#: The play log's format: a ``run`` header with the :class:`RunConfig` (``no_guess`` left
#: out where it is not set) and the game count, then ``batch`` lines.
PLAY_LOG = LogFormat(
    RunLog.WHAT,
    _run_record,
    kind="run",
    settings=_CONFIG_KINDS,
    optional={"no_guess": False},
    fields=_run_fields,
    settings_key="config",
)


def _play_batch_args(args: tuple[RunConfig, list[int]]) -> list[GameResult]:
    return play_batch(*args)


def _open_log(
    run_log: RunLog | None, config: RunConfig, games: int, *, resume: bool, new_log: bool
) -> dict[int, GameResult]:
    """Checks the log against the run and readies it; returns the games already played."""
    if resume:
        if run_log is None:
            raise InvalidInputError("cannot resume: no log given")
        done = run_log.resume(config)
        if games != run_log.planned:
            run_log.start(config, games)
        return done
    if run_log is not None:
        if run_log.exists() and not new_log:
            logged, _ = run_log.read()
            if logged is None:
                raise InvalidInputError(f"{run_log.path} exists and is not a run log")
            raise InvalidInputError(
                f"{run_log.path} already holds a run ({logged.strategy}, "
                f"{logged.rows}x{logged.cols}/{logged.mines}, seed {logged.seed}); resume it "
                "(--resume) or replace it (--overwrite)"
            )
        run_log.start(config, games, new=True)
    return {}


def _wait_for_engine(
    player: Player, config: RunConfig, games: int, on_compile: Callable[[], None] | None
) -> None:
    """Waits for the engine's first compile where the run is long enough to gain by it,
    and loads the engine at once where it is compiled (the warm-up on the pure road is for
    one-off solves: a look-ahead's first games there cost half a second)."""
    from ..engine import compiled

    cells = config.rows * config.cols
    if games * cells < WAIT_FOR_ENGINE:
        return
    if compiled.compiled_here():
        compiled.load()
        return
    # (Starts the compile in the background where the player plays on the engine.)
    if not player.plays_batches(config.rows, config.cols, games) and compiled.compiling():
        if on_compile is not None:
            on_compile()
        compiled.load()


def run(
    config: RunConfig,
    games: int,
    *,
    workers: int = 1,
    executor: str = "process",
    log: str | Path | None = None,
    resume: bool = False,
    new_log: bool = False,
    batch_size: int | None = None,
    on_batch: Callable[[list[GameResult], Summary], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_compile: Callable[[], None] | None = None,
) -> Summary:
    """Plays games ``0 .. games-1`` of ``config`` and summarises them.

    Args:
        config: The run's settings.
        games: Number of games.
        workers: Parallel worker processes (or Ray CPUs).
        executor: ``"process"`` (local processes) or ``"ray"``.
        log: JSONL log path; every finished batch is appended to it.
        resume: Continue the run recorded in ``log`` (its config must match).
        new_log: Replace a log that already exists (without it, an existing log is refused
            unless ``resume``: a log never holds two runs).
        batch_size: Games per batch (default: about ten batches per worker, at most 250).
        on_batch: Called after each batch with its results and the running summary.
        on_start: Called once the log is read, before the first game, with the games
            already played (by an earlier session of a resumed run) and those to play.
        on_compile: Called before the run waits for the compiled engine's first compile
            (a long run, where it pays: see :data:`WAIT_FOR_ENGINE`).

    Returns:
        The summary of all games, earlier sessions of a resumed run included. On
        ``KeyboardInterrupt`` the finished batches are already in the log; the exception
        carries on to the caller.

    Raises:
        InvalidInputError: Bad settings, a log that does not match ``config``, or an existing
            log given neither ``resume`` nor ``new_log``.
        OutputLockedError: Another process is writing ``log`` (:mod:`mscsp.runtime.outlock`).
        BackendUnavailableError: ``executor="ray"`` without Ray installed.
    """
    check_executor(executor)
    if games < 0 or workers < 1:
        raise InvalidInputError("games must be >= 0 and workers >= 1")
    config.validate()
    # Held until the last batch is logged, and taken before the log is read or truncated:
    # a second run on the same log is refused before it writes a byte. Only this process
    # writes the log (workers return their batches), so they need no lock of their own.
    with output_lock(log, "play log"):
        player = get_player(config.strategy, **config.options)  # fail fast on a bad spec
        run_log = RunLog(log) if log is not None else None
        done = _open_log(run_log, config, games, resume=resume, new_log=new_log)
        todo = [i for i in range(games) if i not in done]
        _wait_for_engine(player, config, len(todo), on_compile)
        size = batch_size or max(1, min(250, math.ceil(len(todo) / (10 * workers))))
        batches = [todo[k : k + size] for k in range(0, len(todo), size)]
        tally = Tally(r for i, r in done.items() if i < games)
        jobs = [(config, b) for b in batches]
        if on_start is not None:
            on_start(games - len(todo), len(todo))
        for batch in parallel_map(_play_batch_args, jobs, workers, executor):
            if run_log is not None:
                run_log.append(batch)
            tally.add(batch)
            if on_batch is not None:
                on_batch(batch, tally.summary())
        return tally.summary()
