"""Training positions from real games, labelled with exact CSP probabilities.

A *position* is what a player sees before a move: the cell codes (``int8``, as
:attr:`mscsp.Game.view`), the total mine count, the exact mine probability of every covered
cell (:func:`mscsp.solve`) and the true mine layout. Positions come from games played by the
CSP player (reveal every certain-safe cell, else the least likely mine), so they cover every
stage of a game the way a strong player meets them.

Shards are ``np.savez_compressed`` files ``shard-00000.npz`` holding one board size each, with
a JSON ``meta`` entry (preset, size, rule, game seeds, counts); ``data.json`` records the
settings all shards of a directory share. Generation runs shards in worker processes and
skips shards already on disk, so an interrupted run resumes; other settings are refused.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from mscsp.errors import InvalidInputError
from mscsp.runtime.executors import check_executor, parallel_map
from mscsp.runtime.outlock import output_lock

from .channels import OFF_BOARD, extra_inputs

#: Input channels: covered, numbers 0-8, flag, on-board, remaining-mine density.
N_CHANNELS = 13
#: A game is held out for validation when ``seed % VAL_MODULUS == 0``.
VAL_MODULUS = 10


def encode(
    cells: np.ndarray,
    mines: np.ndarray | int,
    inputs: Sequence[str] = (),
    extra: np.ndarray | None = None,
) -> np.ndarray:
    """One-hot network input for a batch of positions of any size.

    Args:
        cells: ``int8`` codes, shape ``(rows, cols)`` or ``(batch, rows, cols)``; cells equal
            to :data:`OFF_BOARD` are padding.
        mines: Total mines per position (scalar or shape ``(batch,)``).
        inputs: Extra inputs a model config names (:mod:`learners.nets.channels`), appended in
            this order after the base channels.
        extra: Those inputs' channels when already computed (``(batch, rows, cols, k)``, as
            :func:`with_extra_inputs` keeps them); then ``inputs`` is not recomputed.

    Returns:
        ``float32`` array ``(batch, rows, cols, N_CHANNELS + extra)``: covered, 0-8, flag,
        on-board (so padding differs from an edge) and the density of unflagged mines among
        covered cells, broadcast over the board; then the extra inputs' channels.
    """
    cells = np.asarray(cells)
    if cells.ndim == 2:
        cells = cells[None]
    mines = np.broadcast_to(np.asarray(mines, dtype=np.float32), cells.shape[:1])
    codes = np.arange(-1, 9, dtype=np.int8)  # covered, then 0-8
    onehot = cells[..., None] == codes
    flag = cells == -2
    covered = cells == -1
    on_board = cells != OFF_BOARD
    left = mines - flag.sum(axis=(1, 2))
    density = left / np.maximum(covered.sum(axis=(1, 2)), 1)
    density_map = np.where(on_board, density[:, None, None], 0.0)
    base = np.concatenate(
        [onehot, flag[..., None], on_board[..., None], density_map[..., None]], axis=-1
    ).astype(np.float32)
    if extra is None:
        if not inputs:
            return base
        extra = extra_inputs(cells, mines, inputs)
    return np.concatenate([base, extra.astype(np.float32)], axis=-1)


@dataclass(frozen=True)
class GenSpec:
    """What to generate: board size, mine count and first-click rule."""

    rows: int
    cols: int
    mines: int
    first_click: str = "safe"
    first_move: str = "corner"
    preset: str | None = None

    @classmethod
    def from_preset(cls, name: str, **kwargs: Any) -> GenSpec:
        from mscsp import PRESETS

        return cls(*PRESETS[name], preset=name, **kwargs)


def csp_move(solution: Any) -> list[tuple[int, int]]:
    """The CSP player's turn: every certain-safe cell, else the least likely mine."""
    return list(solution.safe) or [solution.best_move]


def play_positions(spec: GenSpec, seed: int, backend: Any) -> Iterator[tuple[Any, Any, np.ndarray]]:
    """Plays one CSP game, yielding ``(board, solution, mine layout)`` before each turn."""
    from mscsp import Game
    from mscsp.evaluation.played_positions import solved_positions
    from mscsp.game import first_move

    game = Game(spec.rows, spec.cols, spec.mines, seed=seed, first_click=spec.first_click)
    # Its own stream (not the layout's), fixed by the game seed: "random" first moves too are
    # the same on every run and worker.
    start = first_move(spec.first_move, spec.rows, spec.cols, np.random.default_rng([seed, 1]))
    for board, solution in solved_positions(game, start, backend=backend):
        yield board, solution, game.mine


def game_positions(spec: GenSpec, seed: int, backend: Any) -> dict[str, np.ndarray]:
    """Every position of one CSP game as arrays (cells, probs, layout)."""
    cells, probs, layout = [], [], []
    for board, solution, mine in play_positions(spec, seed, backend):
        cells.append(board.cells)
        probs.append(np.nan_to_num(solution.probabilities, nan=0.0).astype(np.float32))
        layout.append(mine.copy())
    # A game decided by its first click has no positions; reshape keeps its arrays stackable.
    shape = (-1, spec.rows, spec.cols)
    return {
        "cells": np.array(cells, dtype=np.int8).reshape(shape),
        "probs": np.array(probs, dtype=np.float32).reshape(shape),
        "layout": np.array(layout, dtype=bool).reshape(shape),
        "seed": np.full(len(cells), seed, dtype=np.int64),
    }


class GamePolicy(Protocol):
    """A player other than the CSP one whose games become shards (see :mod:`.onpolicy`).

    The on-policy loop hands one to :func:`generate`, so this module never imports that loop.

    Attributes:
        record: What the shards' metadata and ``data.json`` record as the policy (JSON).
    """

    record: dict[str, Any]

    def __call__(self, spec: GenSpec, seed: int, backend: Any) -> dict[str, np.ndarray]:
        """Every position of game ``seed``: arrays as :func:`game_positions`, plus ``weight``."""
        ...


def make_shard(
    spec: GenSpec,
    seeds: Sequence[int],
    path: str,
    backend: str = "dss",
    policy: GamePolicy | None = None,
) -> int:
    """Plays the games of ``seeds`` and writes their positions to ``path`` atomically.

    Args:
        spec: Board and first-click rule.
        seeds: Game seeds.
        path: Shard file.
        backend: Counting backend for the labels.
        policy: ``None``: the CSP player's games; else a learner's policy
            (:class:`learners.nets.onpolicy.LearnerPolicy`): its own games, with cell weights.

    Returns:
        The number of positions written.
    """
    from mscsp.backends import get_backend

    counter = get_backend(backend)
    play = game_positions if policy is None else policy
    parts = [play(spec, int(s), counter) for s in seeds]
    arrays = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    meta = {
        "preset": spec.preset,
        "rows": spec.rows,
        "cols": spec.cols,
        "mines": spec.mines,
        "first_click": spec.first_click,
        "first_move": spec.first_move,
        "policy": "csp" if policy is None else policy.record,
        "backend": backend,
        "seeds": [int(s) for s in seeds],
        "games": len(seeds),
        "positions": int(len(arrays["cells"])),
    }
    # A hidden name (never read as a shard); savez appends .npz unless present; the rename
    # makes the write atomic.
    tmp = str(Path(path).with_name(f".{Path(path).name}.tmp.npz"))
    np.savez_compressed(
        tmp,
        meta=np.array(json.dumps(meta)),
        mines=np.full(len(arrays["cells"]), spec.mines, np.int32),
        **arrays,
    )
    os.replace(tmp, path)
    return meta["positions"]


#: The directory's record of what its shards are: the settings every shard must share.
DATA_FILE = "data.json"


def shard_name(index: int) -> str:
    """File name of shard ``index`` (what :func:`load` reads: ``shard-*.npz``)."""
    return f"shard-{index:05d}.npz"


def _settings(
    spec: GenSpec, games_per_shard: int, seed: int, policy: GamePolicy | None = None
) -> dict[str, Any]:
    return {
        "spec": asdict(spec),
        "games_per_shard": games_per_shard,
        "seed": seed,
        "policy": "csp" if policy is None else policy.record,
    }


def _check_settings(out: Path, settings: dict[str, Any]) -> None:
    """Refuses a directory whose recorded settings (or shards) differ from ``settings``.

    Raises:
        InvalidInputError: One line naming the settings that differ.
    """
    path = out / DATA_FILE
    if path.exists():
        try:
            recorded = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise InvalidInputError(
                f"{path} is unreadable ({exc}); use another directory"
            ) from None
    else:
        recorded = None
        for shard in sorted(out.glob("shard-*.npz")):
            meta = read_meta(shard)  # a directory from before data.json: its shards decide
            spec = {k: meta.get(k) for k in asdict(GenSpec(1, 1, 0))}
            index = int(shard.stem.split("-")[1])
            first = settings["seed"] + index * settings["games_per_shard"]
            recorded = {
                "spec": spec,
                "games_per_shard": settings["games_per_shard"],
                "seed": settings["seed"] if meta["seeds"][:1] in ([], [first]) else "other",
                "policy": meta.get("policy", "csp"),
            }
            if recorded != settings:
                break
    if recorded is None:
        return
    recorded.setdefault("policy", "csp")  # data.json from before policies: CSP games
    flat = {**recorded["spec"], **{k: v for k, v in recorded.items() if k != "spec"}}
    wanted = {**settings["spec"], **{k: v for k, v in settings.items() if k != "spec"}}
    differ = [k for k in wanted if flat.get(k) is not None and flat.get(k) != wanted[k]]
    if differ:
        detail = "; ".join(f"{k}: {flat[k]!r} there, {wanted[k]!r} here" for k in differ)
        raise InvalidInputError(
            f"{out} holds shards of other settings ({detail}); use another directory"
        )


def generate(
    out_dir: str | Path,
    spec: GenSpec,
    games: int,
    *,
    games_per_shard: int = 100,
    seed: int = 0,
    workers: int | None = None,
    backend: str = "dss",
    progress: bool = True,
    policy: GamePolicy | None = None,
    executor: str = "process",
    on_plan: Callable[[int, int], None] | None = None,
    on_shard: Callable[[int, int], None] | None = None,
) -> list[Path]:
    """Writes ``games`` CSP games as shards under ``out_dir``, in parallel and resumably.

    With ``policy`` (a :class:`GamePolicy`, e.g. :class:`learners.nets.onpolicy.LearnerPolicy`)
    the games are played by that learner instead, and the shards carry per-cell loss weights.

    Game ``i`` uses seed ``seed + i``; shard ``k`` holds games ``k * games_per_shard`` onwards,
    so the shards are the same whatever ``workers`` and ``executor`` (``"process"``: local
    processes, ``"ray"``: Ray tasks; see :func:`mscsp.runtime.executors.parallel_map`).
    The directory records its settings in ``data.json``: a rerun with the same settings
    keeps every finished shard and plays only the missing games (a larger ``games``
    extends the run); other settings are refused, so a directory never mixes two kinds of
    data. Shards are written atomically, so an interrupted run leaves only whole shards.

    ``progress`` draws click's bar of shards on stderr, unless the caller follows the run
    itself: ``on_plan(done, todo)`` is called once with the games already in the directory
    and those to play, ``on_shard(games, positions)`` after each shard is written.

    Returns:
        Paths of the shards of this run (games ``0 .. games-1``).

    Raises:
        InvalidInputError: The directory holds data of other settings, or an unknown executor.
        OutputLockedError: Another process is writing ``out_dir`` (:mod:`mscsp.runtime.outlock`).
        BackendUnavailableError: ``executor="ray"`` without Ray installed.
    """
    import click

    check_executor(executor)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"{out} is not a directory")
    # Held by this process while its workers write the shards: they never lock.
    with output_lock(out, "data directory"):
        out.mkdir(parents=True, exist_ok=True)
        settings = _settings(spec, games_per_shard, seed, policy)
        _check_settings(out, settings)
        _write_json(out / DATA_FILE, settings)
        for stale in out.glob(".*.tmp.npz"):  # left by an interrupted write
            stale.unlink()
        jobs = []
        for k, start in enumerate(range(0, games, games_per_shard)):
            path = out / shard_name(k)
            seeds = list(range(seed + start, seed + min(start + games_per_shard, games)))
            jobs.append((path, seeds))
        # A shard is done when it holds exactly its games; a shorter last shard from a run with
        # fewer games is played again in full.
        todo = [(p, s) for p, s in jobs if not p.exists() or read_meta(p)["seeds"] != s]
        workers = min(workers or os.cpu_count() or 1, max(len(todo), 1))
        if on_plan is not None:
            on_plan(games - sum(len(s) for _, s in todo), sum(len(s) for _, s in todo))
        sink = sys.stderr if progress and on_shard is None else io.StringIO()
        jobs_todo = [(spec, s, str(p), backend, policy) for p, s in todo]
        with click.progressbar(length=len(todo), label=f"shards -> {out}", file=sink) as bar:
            for played, positions in parallel_map(_make_shard_args, jobs_todo, workers, executor):
                bar.update(1)
                if on_shard is not None:
                    on_shard(played, positions)
        return [p for p, _ in jobs]


def _make_shard_args(
    args: tuple[GenSpec, list[int], str, str, GamePolicy | None],
) -> tuple[int, int]:
    """The games of one shard and the positions it holds."""
    return len(args[1]), make_shard(*args)


def _write_json(path: Path, record: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, path)


def directory_totals(out_dir: str | Path) -> dict[str, int]:
    """What a shard directory holds: ``shards``, ``games`` and ``positions``."""
    metas = [read_meta(p) for p in sorted(Path(out_dir).glob("shard-*.npz"))]
    return {
        "shards": len(metas),
        "games": sum(m["games"] for m in metas),
        "positions": sum(m["positions"] for m in metas),
    }


def read_meta(path: str | Path) -> dict[str, Any]:
    """The JSON metadata of a shard."""
    with np.load(path) as shard:
        return json.loads(str(shard["meta"]))


@dataclass
class Positions:
    """Positions of one board size, in memory."""

    cells: np.ndarray  # int8 (n, rows, cols)
    mines: np.ndarray  # int32 (n,)
    probs: np.ndarray  # float32 (n, rows, cols), 0 on revealed cells
    layout: np.ndarray  # bool (n, rows, cols)
    seed: np.ndarray  # int64 (n,), the game each position came from
    # uint8 (n, rows, cols): loss weight of each cell (on-policy shards); None: all 1.
    weight: np.ndarray | None = None
    # float16 (n, rows, cols, k): a model's extra input channels, computed once for training
    # (with_extra_inputs); None: computed per batch.
    extra: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.cells)

    @property
    def shape(self) -> tuple[int, int]:
        return self.cells.shape[1], self.cells.shape[2]

    def take(self, index: np.ndarray) -> Positions:
        return Positions(
            *(
                None if getattr(self, k) is None else getattr(self, k)[index]
                for k in Positions.__dataclass_fields__
            )
        )

    def split(self) -> tuple[Positions, Positions]:
        """(train, validation), held out by game so no game feeds both."""
        val = self.seed % VAL_MODULUS == 0
        return self.take(~val), self.take(val)


def with_extra_inputs(
    positions: Positions, inputs: Sequence[str], workers: int = 1, chunk: int = 2000
) -> Positions:
    """``positions`` with the extra input channels of ``inputs`` computed once, in parallel.

    Training draws each position many times; the ``certain`` channel costs about a
    millisecond of Python per expert position, more than the net's own step, so it is worth
    computing once. Exact 0/1 and count values survive float16 (counts are below 2,048).
    """
    from dataclasses import replace

    if not inputs:
        return positions
    starts = range(0, len(positions), chunk)
    jobs = [
        (positions.cells[i : i + chunk], positions.mines[i : i + chunk], tuple(inputs))
        for i in starts
    ]
    parts = list(parallel_map(_indexed_extra, list(enumerate(jobs)), workers))
    extra = np.concatenate([part for _, part in sorted(parts, key=lambda p: p[0])])
    return replace(positions, extra=extra)


def _indexed_extra(item: tuple[int, tuple]) -> tuple[int, np.ndarray]:
    index, (cells, mines, inputs) = item
    return index, extra_inputs(cells, mines, inputs).astype(np.float16)


def load(dirs: str | Path | Sequence[str | Path]) -> list[Positions]:
    """Loads every shard under ``dirs``, grouped by board size (one group per size)."""
    dirs = [dirs] if isinstance(dirs, str | Path) else dirs
    groups: dict[tuple[int, int], list[dict[str, np.ndarray]]] = {}
    for d in dirs:
        for path in sorted(Path(d).glob("shard-*.npz")):
            with np.load(path) as shard:
                arrays = {k: shard[k] for k in Positions.__dataclass_fields__ if k in shard}
            groups.setdefault(arrays["cells"].shape[1:], []).append(arrays)
    if not groups:
        raise FileNotFoundError(f"no shard-*.npz files under {', '.join(map(str, dirs))}")
    out = []
    for _, parts in sorted(groups.items()):
        weighted = any("weight" in p for p in parts)
        if weighted:  # CSP shards mixed with on-policy ones: their cells weigh 1
            for p in parts:
                p.setdefault("weight", np.ones(p["cells"].shape, np.uint8))
        out.append(Positions(**{k: np.concatenate([p[k] for p in parts]) for k in parts[0]}))
    return out
