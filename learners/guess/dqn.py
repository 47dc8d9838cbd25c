"""``csp-dqn`` (v6.5) and ``csp-dqn-iter`` (v6.0): seed 004's deep Q-learning guess.

* Score (equation 9): ``Sc = alpha P + (1 - alpha) (1 - score)`` on every unknown cell, with
  ``P`` the exact mine probability and ``score`` equation (4)'s location score. The paper
  writes ``(1 - alpha) score`` while its heuristic takes the *lowest* value, which would
  prefer the worst locations; we use ``1 - score`` so that lower is better in both terms.
  Revealed cells and proven mines read -1, cells past the edge -2 (the "invalid values").
* ``alpha`` (equation 10) is linear in rows, columns and mine ratio, fitted as the paper
  did: on a grid of boards, the ``alpha`` in 0, 0.1, ..., 1 with the most wins of the
  section 4.2.1 heuristic run on ``Sc`` instead of ``P``, then least squares.
* Sub-state: the 3x3 scores around a candidate. Reward (equation 11): the cells opened from
  this guess until the next guess (or the end), over the safe cells; a losing guess earns 0.
  Return: ``sum_k r_{t+k} / (1 + k)`` (a linearly growing discount).
* Network: Table 2 (:class:`learners.nets.models.Table2QNet`), MSE, RMSprop. Single-pass (6.5):
  one fit on games of the base heuristic (``csp-edge``). Iterative (6.0): from the
  single-pass model, episodes of 5 games played by the current model, refitting after each.
* Play: the candidate of ``B_s`` (section 4.2.1's near-minimum list) with the highest Q.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import optax
from flax import nnx

from mscsp.players.csp import edge_heuristic
from mscsp.runtime.outlock import output_lock

from ..artefacts import Progress, artefact, episode_seed, write_json
from ..nets.models import build
from ..nets.train import load_model, save_model
from .common import (
    EdgePlayer,
    GuessPlayer,
    GuessState,
    RankingPlayer,
    play_recorded,
    random_board,
)
from .nets import fit, mse, predictor

FILE = "csp-dqn.msgpack"
ITER_FILE = "csp-dqn-iter.msgpack"
SUB = 3
CONFIG = {"model": "table2-qnet", "sub": SUB}
ALPHAS = np.linspace(0.0, 1.0, 11)
#: Boards of the alpha fit (rows, cols) and their mine ratios.
ALPHA_BOARDS = ((5, 5), (6, 8), (8, 8), (8, 10), (10, 10))
ALPHA_RATIOS = (0.1, 0.2)
#: Iterative training: games per episode (section 5.2.2).
ITER_GAMES = 5
REVEALED, OFF_BOARD = -1.0, -2.0


def location_score(state: GuessState) -> np.ndarray:
    """Equation (4)'s score of every cell (see :func:`mscsp.players.csp.zero_score`)."""
    from mscsp.players.csp import zero_score

    return zero_score(state.board, int(state.unknown.sum()), state.known_mines)


def scores(state: GuessState, alpha: float) -> np.ndarray:
    """Equation (9) on unknown cells, :data:`REVEALED` elsewhere (rows x cols)."""
    sc = alpha * state.probs + (1 - alpha) * (1 - location_score(state))
    return np.where(state.unknown, sc, REVEALED)


def substates(grid: np.ndarray, cells: np.ndarray, sub: int = SUB) -> np.ndarray:
    """The ``sub x sub`` windows of ``grid`` around flat ``cells`` (``k x sub*sub``)."""
    half = sub // 2
    padded = np.pad(grid, half, constant_values=OFF_BOARD)
    view = np.lib.stride_tricks.sliding_window_view(padded, (sub, sub))
    return view.reshape(grid.size, sub * sub)[cells].astype(np.float32)


def alpha_for(theta: np.ndarray, rows: int, cols: int, mines: int) -> float:
    """Equation (10), clipped to [0, 1]."""
    value = theta @ np.array([rows, cols, mines / (rows * cols), 1.0])
    return float(np.clip(value, 0.0, 1.0))


def discounted_returns(rewards: list[float]) -> list[float]:
    """``G_t = sum_k r_{t+k} / (1 + k)`` for every step of one game."""
    return [sum(r / (1 + k) for k, r in enumerate(rewards[t:])) for t in range(len(rewards))]


class ScorePlayer(GuessPlayer):
    """Section 4.2.1's heuristic on ``Sc`` instead of ``P`` (for the alpha fit)."""

    name = "csp-score"

    def __init__(self, alpha: float, backend: str = "dss"):
        super().__init__(backend)
        self.alpha = alpha

    def choose(self, state: GuessState, rng: np.random.Generator) -> int:
        sc = np.where(state.unknown, scores(state, self.alpha), np.inf)
        r, c = edge_heuristic(state.board, sc, state.unknown, state.known_mines)
        return r * state.board.cols + c


class CspDqnPlayer(RankingPlayer):
    """Versions 6.0 / 6.5: the near-minimum candidate with the highest predicted Q.

    Args:
        model: A :class:`learners.nets.models.Table2QNet`.
        theta: Equation (10)'s coefficients.
        backend: Counting backend.
    """

    name = "csp-dqn"

    def __init__(self, model: nnx.Module, theta: np.ndarray, backend: str = "dss"):
        super().__init__(backend)
        self.predict = predictor(model)
        self.theta = np.asarray(theta, dtype=float)

    def rank(self, state: GuessState, cells: np.ndarray) -> np.ndarray:
        board = state.board
        alpha = alpha_for(self.theta, board.rows, board.cols, board.mines)
        return self.predict(substates(scores(state, alpha), cells))


def fit_alpha(seed: int, games: int, log=print) -> tuple[np.ndarray, list]:
    """Equation (10)'s ``theta`` from the best ``alpha`` per board (``games`` per alpha)."""
    rows_x, best = [], []
    configs = [(r, c, max(1, round(r * c * q))) for r, c in ALPHA_BOARDS for q in ALPHA_RATIOS]
    progress = Progress("alpha fit", len(configs) * len(ALPHAS))
    done = 0
    for rows, cols, mines in configs:
        wins = []
        for alpha in ALPHAS:
            player = ScorePlayer(float(alpha))
            won = 0
            for g in range(games):
                game, _ = play_recorded(player, rows, cols, mines, episode_seed(seed, g))
                won += game.state == "won"
            wins.append(won)
            done += 1
            progress.update(done)
        # Ties go to the largest alpha (closest to plain probabilities).
        best.append(float(ALPHAS[len(ALPHAS) - 1 - int(np.argmax(wins[::-1]))]))
        rows_x.append([rows, cols, mines / (rows * cols), 1.0])
        log(f"  {rows}x{cols}/{mines}: wins by alpha {wins} -> {best[-1]:.1f}")
    theta, *_ = np.linalg.lstsq(np.array(rows_x), np.array(best), rcond=None)
    return theta, [list(map(float, x)) + [b] for x, b in zip(rows_x, best, strict=True)]


def simulate(
    player: GuessPlayer, theta: np.ndarray, games: int, seed: int, offset: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Sub-states of every guess of ``games`` games and their discounted returns."""
    xs, ys = [], []
    for g in range(offset, offset + games):
        game_seed = episode_seed(seed, g)
        board = random_board(np.random.default_rng([game_seed, 2]), max_rows=12)
        game, record = play_recorded(player, *board, game_seed)
        if not record:
            continue
        safe = game.safe_cells
        afters = [rec.revealed_before for rec in record[1:]] + [game.revealed]
        rewards = [
            (after - rec.revealed_before) / safe for rec, after in zip(record, afters, strict=True)
        ]
        for rec, ret in zip(record, discounted_returns(rewards), strict=True):
            alpha = alpha_for(theta, *board)
            xs.append(substates(scores(rec.state, alpha), np.array([rec.chosen]))[0])
            ys.append(ret)
    return np.array(xs, np.float32).reshape(-1, SUB * SUB), np.array(ys, np.float32)


def _optimizer(model: nnx.Module) -> nnx.Optimizer:
    return nnx.Optimizer(model, optax.rmsprop(1e-3), wrt=nnx.Param)


def train(
    out: str | Path,
    *,
    seed: int = 0,
    games: int | None = None,
    board=None,
    resume: bool = False,
    log=print,
    alpha_games: int = 12,
    epochs: int = 40,
) -> dict:
    """Single-pass training (v6.5): alpha fit, ``games`` csp-edge games (default 400), one fit.

    With ``resume``, an alpha fit already in ``OUT/csp-dqn-alpha.json`` is reused.
    """
    # The model file's lock also covers the alpha fit it is trained with.
    with output_lock(Path(out) / FILE, "csp-dqn model"):
        start = time.perf_counter()
        Path(out).mkdir(parents=True, exist_ok=True)
        alpha_path = Path(out) / "csp-dqn-alpha.json"
        if resume and alpha_path.exists():
            fitted = json.loads(alpha_path.read_text())
            theta = np.array(fitted["theta"])
            log(f"reusing the alpha fit in {alpha_path}")
        else:
            theta, table = fit_alpha(seed, alpha_games, log)
            fitted = {"theta": theta.tolist(), "boards": table, "games_per_alpha": alpha_games}
            write_json(alpha_path, fitted)
        log(f"alpha = {theta[0]:.4f} p + {theta[1]:.4f} q + {theta[2]:.4f} ratio + {theta[3]:.4f}")
        n = games or 400
        x, y = simulate(EdgePlayer(), theta, n, seed)
        log(f"csp-dqn: {len(x)} guesses from {n} games, mean return {y.mean():.4f}")
        model = build(CONFIG, seed=seed)
        loss = fit(model, _optimizer(model), x, y, mse, epochs=epochs, batch=32, seed=seed)
        meta = {
            "system": "csp-dqn",
            "training": "single-pass",
            "theta": theta.tolist(),
            "games": n,
            "guesses": len(x),
            "loss": loss,
            "seed": seed,
            "seconds": round(time.perf_counter() - start, 1),
        }
        path = Path(out) / FILE
        save_model(path, model, CONFIG, meta)
        write_json(path.with_suffix(".json"), meta)
        return meta


def train_iter(
    out: str | Path,
    *,
    seed: int = 0,
    games: int | None = None,
    board=None,
    resume: bool = False,
    log=print,
    epochs: int = 20,
) -> dict:
    """Iterative training (v6.0): ``games`` episodes (default 15; the paper 50) of 5 games.

    Starts from ``OUT/csp-dqn.msgpack`` (train ``csp-dqn`` first); checkpoints after every
    episode, and ``resume`` continues from the last one.
    """
    path = Path(out) / ITER_FILE
    with output_lock(path, "csp-dqn-iter model"):
        if resume and path.exists():
            model, _, meta = load_model(path)
            log(f"resuming {path} at episode {meta['episodes']}")
        else:
            model, _, meta = load_model(artefact(Path(out) / FILE, FILE))
            meta = {**meta, "training": "iterative", "episodes": 0}
        theta = np.array(meta["theta"])
        episodes = games or 15
        progress = Progress("csp-dqn-iter episodes", episodes, every=0)
        start = time.perf_counter()
        for episode in range(meta["episodes"], episodes):
            player = CspDqnPlayer(model, theta)
            x, y = simulate(player, theta, ITER_GAMES, seed + 1, offset=episode * ITER_GAMES)
            optimizer = _optimizer(model)
            loss = fit(model, optimizer, x, y, mse, epochs=epochs, batch=8, seed=episode)
            meta = {**meta, "system": "csp-dqn-iter", "episodes": episode + 1, "loss": loss}
            save_model(path, model, CONFIG, meta)
            progress.update(episode + 1, f"{len(x)} guesses, loss {loss:.5f}")
        meta["seconds_this_run"] = round(time.perf_counter() - start, 1)
        write_json(path.with_suffix(".json"), meta)
        return meta


def _load(weights: str | None, default: str, backend: str) -> CspDqnPlayer:
    model, _, meta = load_model(artefact(weights, default))
    return CspDqnPlayer(model, np.array(meta["theta"]), backend)


def make_player(weights: str | None = None, backend: str = "dss") -> CspDqnPlayer:
    """``csp-dqn`` (v6.5, single-pass) with the shipped network or ``weights``."""
    return _load(weights, FILE, backend)


def make_iter_player(weights: str | None = None, backend: str = "dss") -> CspDqnPlayer:
    """``csp-dqn-iter`` (v6.0, iterative) with the shipped network or ``weights``."""
    player = _load(weights, ITER_FILE, backend)
    player.name = "csp-dqn-iter"
    return player
