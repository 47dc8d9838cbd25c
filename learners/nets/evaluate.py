"""Evaluation of a checkpoint: a thin view over the estimators' harness and metrics.

Accuracy against the exact probabilities, its calibration table and plot are
:mod:`mscsp.evaluation.metrics` (the definitions ``mscsp bench`` uses); batched throughput is
:func:`mscsp.evaluation.benchmark.batched_throughput` on the model as an estimator
(:mod:`mscsp.estimators`); the Wilson interval is :func:`mscsp.evaluation.harness.wilson`. What is
the learners' own: :func:`decisions` (how good the moves the predictions lead to are), and
games played with :class:`mscsp.Game` directly (classic rule: safe first click in the
corner) one by one or in lockstep with batched inference, on the seeds the training loops
and published results use. ``csp-minprob`` is the exact baseline: reveal every certain-safe
cell, else the least likely mine. ``mscsp bench --backend learner:PATH --games N`` compares
a checkpoint with every other estimator in one table.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mscsp.evaluation.harness import wilson

from .data import Positions, csp_move
from .player import choose_moves

#: Evaluation games use seeds from here on, far from the training seeds (0, 1, 2, ...).
EVAL_SEED = 1_000_000


class CspPlayer:
    """``csp-minprob``: exact probabilities from :func:`mscsp.solve` (one reused backend)."""

    name: ClassVar[str] = "csp-minprob"

    def __init__(self, backend: str = "dss"):
        from mscsp.backends import get_backend

        self.backend = get_backend(backend)

    def new_game(self) -> None:
        """Stateless between games."""

    def next_moves(
        self, board: Any, rng: np.random.Generator | None = None
    ) -> list[tuple[int, int]]:
        from mscsp import solve

        return csp_move(solve(board, self.backend))


def new_game(preset: str, seed: int, first_click: str = "safe") -> Any:
    """A game whose first click (classic: a safe cell) is already made in the top-left corner."""
    from mscsp import Game

    game = Game.from_preset(preset, seed=seed, first_click=first_click)
    game.reveal(0, 0)
    return game


def play_turn(game: Any, moves: list[tuple[int, int]]) -> None:
    """Reveals ``moves`` in order until the game ends."""
    for r, c in moves:
        if game.over:
            return
        game.reveal(r, c)


def summarise(wins: int, games: int, seconds: float) -> dict[str, Any]:
    """Win rate with its Wilson interval and time per game."""
    lo, hi = wilson(wins, games)
    return {
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "ci95": [lo, hi],
        "sec_per_game": seconds / games,
    }


def play_games(
    player: Any, preset: str, games: int, seed: int = EVAL_SEED, first_click: str = "safe"
) -> dict[str, Any]:
    """Plays ``games`` games one after another through ``player.next_moves``."""
    rng = np.random.default_rng(seed)
    wins, seconds = 0, 0.0
    for i in range(games):
        game = new_game(preset, seed + i, first_click)
        player.new_game()
        t0 = time.perf_counter()
        while not game.over:
            play_turn(game, player.next_moves(game.board(), rng))
        seconds += time.perf_counter() - t0
        wins += game.state == "won"
    return summarise(wins, games, seconds)


def play_lockstep(
    learner: Any,
    preset: str,
    games: int,
    seed: int = EVAL_SEED,
    batch: int = 256,
    first_click: str = "safe",
) -> dict[str, Any]:
    """Plays ``games`` games ``batch`` at a time, one batched inference per turn for all.

    Same games and moves as :func:`play_games` with the learner (its own move rule,
    :meth:`learners.nets.player.LearnerPlayer.moves_from`); only the timing differs.
    """
    from mscsp import PRESETS

    # Pad each turn's batch to a power of two, so a few compiled shapes serve every turn
    # without running the full batch for the last few live games; compile them untimed.
    rows, cols, mines = PRESETS[preset]
    buckets = [2**k for k in range(batch.bit_length()) if 2**k < batch] + [batch]
    for size in buckets:
        learner.probabilities_batch(np.full((size, rows, cols), -1, np.int8), mines)
    wins, t0 = 0, time.perf_counter()
    for start in range(0, games, batch):
        live = [
            new_game(preset, seed + i, first_click) for i in range(start, min(start + batch, games))
        ]
        while live:
            size = next(b for b in buckets if b >= len(live))
            cells = np.full((size, rows, cols), -1, np.int8)
            cells[: len(live)] = [g.view for g in live]
            probs = learner.probabilities_batch(cells, mines)
            for game, p in zip(live, probs[: len(live)], strict=True):
                play_turn(game, learner.moves_from(p, game.view))
            wins += sum(g.state == "won" for g in live)
            live = [g for g in live if not g.over]
    return summarise(wins, games, time.perf_counter() - t0)


def decisions(pred: np.ndarray, positions: Positions, safe_below: float) -> dict[str, float]:
    """How good the moves the predictions lead to are, judged by the exact solution.

    Returns:
        ``chosen_safest``: the cell the player would guess (lowest prediction, ties to the
        fewest neighbours: :func:`~learners.nets.player.choose_moves`) has the lowest exact
        probability;
        ``chosen_safe``: it holds no mine; ``chosen_certain_when_available``: it is a
        certain-safe cell, on positions that have one; ``bulk_false_safe``: share of cells
        predicted below ``safe_below`` that are not certain-safe (each is a gamble the player
        takes unknowingly); ``csp_chosen_safe``: how often the exact best move holds no mine.
    """
    safest = safe = certain = with_certain = bulk = bulk_bad = csp_safe = 0
    for p, cells, q, mine in zip(
        pred, positions.cells, positions.probs, positions.layout, strict=True
    ):
        covered = cells == -1
        pc = np.where(covered, p, np.inf)
        qc = np.where(covered, q, np.inf)
        # The player's own pick: lowest prediction, its tie-break (fewest neighbours).
        i = choose_moves(p, cells, safe_below=0.0)[0]
        j = np.unravel_index(np.argmin(qc), qc.shape)
        safest += qc[i] <= qc[j] + 1e-9
        safe += not mine[i]
        csp_safe += not mine[j]
        if qc[j] == 0:
            with_certain += 1
            certain += qc[i] == 0
        picked = pc < safe_below
        bulk += int(picked.sum())
        bulk_bad += int((picked & (qc > 0)).sum())
    n = len(positions)
    return {
        "chosen_safest": safest / n,
        "chosen_safe": safe / n,
        "chosen_certain_when_available": certain / max(with_certain, 1),
        "bulk_false_safe": bulk_bad / max(bulk, 1),
        "csp_chosen_safe": csp_safe / n,
    }


def evaluate_checkpoint(
    checkpoint: str,
    *,
    data_dirs: list[str],
    presets: list[str],
    games: int,
    csp: bool = False,
    lockstep: bool = False,
    plots: str | None = None,
    seed: int = EVAL_SEED,
) -> dict[str, Any]:
    """Accuracy on held-out positions, win rates and latency of one checkpoint.

    Args:
        checkpoint: Model file, run directory or ``"default"``.
        data_dirs: Shard directories; their held-out games give the accuracy numbers.
        presets: Presets to play.
        games: Games per preset (learner sequential, learner lockstep, and csp if asked).
        csp: Also play ``csp-minprob`` on the same games.
        lockstep: Also time the learner playing all games in lockstep (batched inference).
        plots: Directory for ``reliability.png``
        (:func:`mscsp.evaluation.metrics.plot_calibration`).
        seed: Seed of the first game.
    """
    from mscsp.board import Board
    from mscsp.estimators import get_estimator
    from mscsp.evaluation.benchmark import batched_throughput
    from mscsp.evaluation.metrics import cell_errors, plot_calibration

    from .data import load

    estimator = get_estimator(f"learner:{checkpoint}")
    learner = estimator.model
    report: dict[str, Any] = {
        "checkpoint": str(learner.path),
        "config": learner.config,
        "accuracy": {},
        "games": {},
        "seed": seed,
    }
    tables = {}
    for group in load(data_dirs) if data_dirs else []:
        val = group.split()[1]
        # The player's probabilities (its symmetric views and exchangeable sets included).
        pred = np.concatenate(
            [
                learner.probabilities_batch(val.cells[i : i + 256], val.mines[i : i + 256])
                for i in range(0, len(val), 256)
            ]
        )
        name = "x".join(map(str, group.shape))
        errors = cell_errors(pred, val.probs, val.cells == -1)
        boards = [Board(c, int(m)) for c, m in zip(val.cells, val.mines, strict=True)]
        report["accuracy"][name] = {
            "positions": len(val),
            **errors.summary(),
            **decisions(pred, val, learner.safe_below),
            "positions_per_s": {
                b: batched_throughput(estimator, [boards[i % len(boards)] for i in range(b)], 5)
                for b in (1, 64, 256)
            },
        }
        tables[name] = errors.calibration()
    report["calibration"] = tables
    if plots and tables:
        Path(plots).mkdir(parents=True, exist_ok=True)
        plot_calibration(tables, Path(plots) / "reliability.png")
    for preset in presets:
        if not games:
            break
        play_games(learner, preset, 1, seed=seed - 1)  # compile for this board size
        row = {"learner": play_games(learner, preset, games, seed)}
        if lockstep:
            row["learner_lockstep"] = play_lockstep(learner, preset, games, seed)
        if csp:
            row["csp-minprob"] = play_games(CspPlayer(), preset, games, seed)
        report["games"][preset] = row
    return report
