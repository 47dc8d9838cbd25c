"""The win-rate harness: seeded games, parallel batches, a resumable JSONL log, statistics.

Game ``i`` of a run with seed ``s`` draws its mine layout, its first move and the player's
random generator from ``SeedSequence(s, spawn_key=(i, k))`` (``k`` = 0, 1, 2), so a result
depends on ``(s, i)`` only: not on the number of workers, the executor, batching or resumes.
"""

from __future__ import annotations

import json
import math
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import BackendUnavailableError, InvalidInputError
from .game import FirstClick, Game, first_move
from .players import Player, get_player

EXECUTORS = ("process", "ray")


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
    """

    strategy: str
    rows: int
    cols: int
    mines: int
    first_click: str = FirstClick.SAFE.value
    first_move: str = "corner"
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        """Raises :class:`InvalidInputError` for a board or first move that cannot be played."""
        Game(self.rows, self.cols, self.mines, first_click=self.first_click)
        if self.first_move != "random":
            first_move(self.first_move, self.rows, self.cols)


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
        return [
            self.index,
            int(self.won),
            round(self.cleared, 6),
            self.moves,
            self.guesses,
            round(self.seconds, 6),
        ]

    @classmethod
    def from_row(cls, row: list) -> GameResult:
        index, won, cleared, moves, guesses, seconds = row
        return cls(int(index), bool(won), float(cleared), int(moves), int(guesses), float(seconds))


def game_seeds(seed: int, index: int) -> tuple[np.random.SeedSequence, ...]:
    """Seeds of game ``index``: mine layout, player generator, first move."""
    return tuple(np.random.SeedSequence(seed, spawn_key=(index, k)) for k in range(3))


def play_game(player: Player, config: RunConfig, index: int) -> GameResult:
    """Plays game ``index`` of ``config`` to the end."""
    start = time.perf_counter()
    layout_seed, player_seed, move_seed = game_seeds(config.seed, index)
    rng = np.random.default_rng(player_seed)
    game = Game(
        config.rows, config.cols, config.mines, seed=layout_seed, first_click=config.first_click
    )
    player.new_game()
    game.reveal(
        *first_move(config.first_move, config.rows, config.cols, np.random.default_rng(move_seed))
    )
    moves, guesses = 1, 0
    while not game.over:
        cells = player.next_moves(game.board(), rng)
        if not cells:
            raise RuntimeError(f"player {player.name!r} returned no move")
        guesses += player.turn_guesses
        for r, c in cells:
            moves += 1
            game.reveal(r, c)
            if game.over:
                break
    return GameResult(
        index,
        game.state == "won",
        game.revealed / max(game.safe_cells, 1),
        moves,
        guesses,
        time.perf_counter() - start,
    )


_PLAYER_CACHE: dict[str, Player] = {}


def play_batch(config: RunConfig, indices: list[int]) -> list[GameResult]:
    """Plays the given games; the player is built once per process and config."""
    key = json.dumps([config.strategy, config.options], sort_keys=True)
    player = _PLAYER_CACHE.get(key)
    if player is None:
        player = _PLAYER_CACHE[key] = get_player(config.strategy, **config.options)
    return [play_game(player, config, i) for i in indices]


def wilson(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95 % by default)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


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
    """Running sums of game results, summarised on demand."""

    def __init__(self, results: Iterable[GameResult] = ()):
        self.games = self.wins = self.moves = self.guesses = 0
        self.cleared = self.seconds = 0.0
        self.add(results)

    def add(self, results: Iterable[GameResult]) -> None:
        for r in results:
            self.games += 1
            self.wins += r.won
            self.cleared += r.cleared
            self.moves += r.moves
            self.guesses += r.guesses
            self.seconds += r.seconds

    def summary(self) -> Summary:
        n = self.games or 1
        low, high = wilson(self.wins, self.games)
        return Summary(
            self.games,
            self.wins,
            self.wins / n,
            low,
            high,
            self.cleared / n,
            self.moves / n,
            self.guesses / n,
            self.seconds / n,
        )


class RunLog:
    """An append-only JSONL log: a header line with the config, then one line per batch.

    A line cut short by an interruption is ignored when the log is read back.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        #: Games the logged run was started for (set by :meth:`read`).
        self.planned = 0

    def read(self) -> tuple[RunConfig | None, dict[int, GameResult]]:
        """The logged config and the finished games by index."""
        config, done = None, {}
        self.planned = 0
        with self.path.open() as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if record.get("type") == "run":
                    config = RunConfig(**record["config"])
                    self.planned = int(record.get("games", 0))
                elif record.get("type") == "batch":
                    for row in record["games"]:
                        result = GameResult.from_row(row)
                        done[result.index] = result
        return config, done

    def repair(self) -> None:
        """Ends a line cut short by an interruption, so appended batches start clean."""
        with self.path.open("rb+") as handle:
            if handle.seek(0, 2) and (handle.seek(-1, 2), handle.read(1))[1] != b"\n":
                handle.write(b"\n")

    def start(self, config: RunConfig, games: int) -> None:
        with self.path.open("a") as handle:
            handle.write(
                json.dumps({"type": "run", "config": asdict(config), "games": games}) + "\n"
            )

    def append(self, results: list[GameResult]) -> None:
        with self.path.open("a") as handle:
            handle.write(json.dumps({"type": "batch", "games": [r.row() for r in results]}) + "\n")
            handle.flush()


def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the parent, which stops them and keeps what is logged.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_processes(
    config: RunConfig, batches: list[list[int]], workers: int
) -> Iterator[list[GameResult]]:
    if workers <= 1:
        for batch in batches:
            yield play_batch(config, batch)
        return
    import multiprocessing

    pool = multiprocessing.get_context("spawn").Pool(workers, initializer=_ignore_sigint)
    try:
        yield from pool.imap_unordered(_play_batch_args, [(config, b) for b in batches])
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _play_batch_args(args: tuple[RunConfig, list[int]]) -> list[GameResult]:
    return play_batch(*args)


def _run_ray(
    config: RunConfig, batches: list[list[int]], workers: int
) -> Iterator[list[GameResult]]:
    try:
        import ray
    except ImportError:
        raise BackendUnavailableError(
            "--executor ray needs Ray: pip install 'mscsp[ray]'"
        ) from None
    if not ray.is_initialized():
        # Workers import this copy of mscsp, whatever is installed.
        root = str(Path(__file__).resolve().parents[1])
        ray.init(
            num_cpus=workers,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": root}},
        )
    remote = ray.remote(play_batch)
    pending = [remote.remote(config, b) for b in batches]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready[0])
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


def run(
    config: RunConfig,
    games: int,
    *,
    workers: int = 1,
    executor: str = "process",
    log: str | Path | None = None,
    resume: bool = False,
    batch_size: int | None = None,
    on_batch: Callable[[list[GameResult], Summary], None] | None = None,
) -> Summary:
    """Plays games ``0 .. games-1`` of ``config`` and summarises them.

    Args:
        config: The run's settings.
        games: Number of games.
        workers: Parallel worker processes (or Ray CPUs).
        executor: ``"process"`` (local processes) or ``"ray"``.
        log: JSONL log path; every finished batch is appended to it.
        resume: Continue the run recorded in ``log`` (its config must match).
        batch_size: Games per batch (default: about ten batches per worker, at most 250).
        on_batch: Called after each batch with its results and the running summary.

    Returns:
        The summary of all games, earlier sessions of a resumed run included. On
        ``KeyboardInterrupt`` the finished batches are already in the log; the exception
        carries on to the caller.

    Raises:
        InvalidInputError: Bad settings, or a log that does not match ``config``.
        BackendUnavailableError: ``executor="ray"`` without Ray installed.
    """
    if executor not in EXECUTORS:
        raise InvalidInputError(f"unknown executor {executor!r}; choose from {EXECUTORS}")
    if games < 0 or workers < 1:
        raise InvalidInputError("games must be >= 0 and workers >= 1")
    config.validate()
    get_player(config.strategy, **config.options)  # fail fast on a bad spec, in this process
    done: dict[int, GameResult] = {}
    run_log = RunLog(log) if log is not None else None
    if resume:
        if run_log is None or not run_log.path.exists():
            raise InvalidInputError(f"cannot resume: no log at {log}")
        run_log.repair()
        logged, done = run_log.read()
        if logged != config:
            raise InvalidInputError(
                f"the log {log} records a different run: {logged}; this run is {config}"
            )
    elif run_log is not None:
        run_log.start(config, games)
    todo = [i for i in range(games) if i not in done]
    size = batch_size or max(1, min(250, math.ceil(len(todo) / (10 * workers))))
    batches = [todo[k : k + size] for k in range(0, len(todo), size)]
    source = _run_ray if executor == "ray" else _run_processes
    tally = Tally(r for i, r in done.items() if i < games)
    for batch in source(config, batches, workers):
        if run_log is not None:
            run_log.append(batch)
        tally.add(batch)
        if on_batch is not None:
            on_batch(batch, tally.summary())
    return tally.summary()
