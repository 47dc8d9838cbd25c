"""Evaluation: agreement with the exact solver, win rates, latency.

Games are played with :class:`mscsp.Game` directly (classic rule: safe first click in the
corner), so numbers here do not depend on the players package. ``csp-minprob`` is the exact
baseline: reveal every certain-safe cell, else the least likely mine.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .data import Positions, csp_move

#: Evaluation games use seeds from here on, far from the training seeds (0, 1, 2, ...).
EVAL_SEED = 1_000_000


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a win rate (95 % by default)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


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


def new_game(preset: str, seed: int) -> Any:
    """A classic game: safe first click, already made in the top-left corner."""
    from mscsp import Game

    game = Game.from_preset(preset, seed=seed, first_click="safe")
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


def play_games(player: Any, preset: str, games: int, seed: int = EVAL_SEED) -> dict[str, Any]:
    """Plays ``games`` games one after another through ``player.next_moves``."""
    rng = np.random.default_rng(seed)
    wins, seconds = 0, 0.0
    for i in range(games):
        game = new_game(preset, seed + i)
        player.new_game()
        t0 = time.perf_counter()
        while not game.over:
            play_turn(game, player.next_moves(game.board(), rng))
        seconds += time.perf_counter() - t0
        wins += game.state == "won"
    return summarise(wins, games, seconds)


def play_lockstep(
    learner: Any, preset: str, games: int, seed: int = EVAL_SEED, batch: int = 256
) -> dict[str, Any]:
    """Plays ``games`` games ``batch`` at a time, one batched inference per turn for all.

    Same games and moves as :func:`play_games` with the learner; only the timing differs.
    """
    from mscsp import PRESETS

    from .player import choose_moves

    # Pad each turn's batch to a power of two, so a few compiled shapes serve every turn
    # without running the full batch for the last few live games; compile them untimed.
    rows, cols, mines = PRESETS[preset]
    buckets = [2**k for k in range(batch.bit_length()) if 2**k < batch] + [batch]
    for size in buckets:
        learner.probabilities_batch(np.full((size, rows, cols), -1, np.int8), mines)
    wins, t0 = 0, time.perf_counter()
    for start in range(0, games, batch):
        live = [new_game(preset, seed + i) for i in range(start, min(start + batch, games))]
        while live:
            size = next(b for b in buckets if b >= len(live))
            cells = np.full((size, rows, cols), -1, np.int8)
            cells[: len(live)] = [g.view for g in live]
            probs = learner.probabilities_batch(cells, mines)
            for game, p in zip(live, probs[: len(live)], strict=True):
                play_turn(game, choose_moves(p, game.view, learner.safe_below))
            wins += sum(g.state == "won" for g in live)
            live = [g for g in live if not g.over]
    return summarise(wins, games, time.perf_counter() - t0)


def decisions(pred: np.ndarray, positions: Positions, safe_below: float) -> dict[str, float]:
    """How good the moves the predictions lead to are, judged by the exact solution.

    Returns:
        ``chosen_safest``: the lowest-predicted covered cell has the lowest exact probability;
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
        i = np.unravel_index(np.argmin(pc), pc.shape)
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


def calibration(pred: np.ndarray, positions: Positions, bins: int = 10) -> dict[str, list]:
    """Reliability table over covered cells: per predicted-probability bin, the mean
    prediction, mean exact probability, observed mine frequency and cell count."""
    covered = positions.cells == -1
    p, q, m = pred[covered], positions.probs[covered], positions.layout[covered]
    which = np.minimum((p * bins).astype(int), bins - 1)
    table: dict[str, list] = {"pred": [], "exact": [], "mines": [], "count": []}
    for b in range(bins):
        sel = which == b
        if sel.any():
            table["pred"].append(float(p[sel].mean()))
            table["exact"].append(float(q[sel].mean()))
            table["mines"].append(float(m[sel].mean()))
            table["count"].append(int(sel.sum()))
    return table


def plot_reliability(tables: dict[str, dict[str, list]], png: str | Path) -> None:
    """Reliability diagram: mean exact probability and mine frequency per predicted bin."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], "--", c="gray", label="perfect")
    for name, t in tables.items():
        (line,) = ax.plot(t["pred"], t["exact"], "o-", label=f"{name}: exact prob.")
        ax.plot(t["pred"], t["mines"], "x:", c=line.get_color(), label=f"{name}: mine freq.")
    ax.set_xlabel("predicted mine probability")
    ax.set_ylabel("exact probability / observed frequency")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def throughput(learner: Any, positions: Positions, batch: int, repeats: int = 5) -> float:
    """Positions per second of batched inference (after a compile warm-up)."""
    idx = np.arange(batch) % len(positions)
    cells, mines = positions.cells[idx], positions.mines[idx]
    learner.probabilities_batch(cells, mines)
    t0 = time.perf_counter()
    for _ in range(repeats):
        learner.probabilities_batch(cells, mines)
    return batch * repeats / (time.perf_counter() - t0)


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
        plots: Directory for ``reliability.png``.
        seed: Seed of the first game.
    """
    from .data import load
    from .player import LearnerPlayer
    from .train import accuracy, predict_positions

    learner = LearnerPlayer(checkpoint)
    report: dict[str, Any] = {
        "checkpoint": str(learner.path),
        "config": learner.config,
        "accuracy": {},
        "games": {},
    }
    tables = {}
    for group in load(data_dirs) if data_dirs else []:
        val = group.split()[1]
        pred = predict_positions(learner.predict, val, inputs=learner.inputs)
        name = "x".join(map(str, group.shape))
        report["accuracy"][name] = {
            "positions": len(val),
            **accuracy(pred, val),
            **decisions(pred, val, learner.safe_below),
            "positions_per_s": {b: throughput(learner, val, b) for b in (1, 64, 256)},
        }
        tables[name] = calibration(pred, val)
    report["calibration"] = tables
    if plots and tables:
        Path(plots).mkdir(parents=True, exist_ok=True)
        plot_reliability(tables, Path(plots) / "reliability.png")
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
