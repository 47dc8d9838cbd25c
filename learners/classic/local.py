"""``local-logistic`` and ``local-svm``: seed 001's local classification (section III.A.1).

Each perimeter cell is described by the 24 cells of its 5x5 window (cell codes, with an
out-of-bounds code past the edge), one-hot encoded. It is labelled positive only when it is
certainly safe (no mine in any layout consistent with the board, from the exact solver), so
the classes are separable; the positive class is weighted up (``class_weight="balanced"``),
as the paper does against its 66 % negative skew. Play follows Algorithm 1.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from mscsp import Board
from mscsp.errors import InvalidInputError
from mscsp.players.base import Cell, Player

from ..artefacts import MODEL_SUFFIX, Progress, artefact, dump_model, load_model, write_json
from .data import PAPER_BOARDS, algorithm1, one_hot, oracle_states, perimeter, windows

RADIUS = 2


def local_dataset(
    boards: tuple[tuple[int, int, int], ...], games: int, seed: int, log: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """Window features and certain-safe labels of every perimeter cell of the training games.

    ``games`` games are split evenly over ``boards``; game ``g`` is seeded ``[seed, g]``.
    """
    xs, ys = [], []
    progress = Progress("games", games) if log else None
    for g in range(games):
        rows, cols, mines = boards[g % len(boards)]
        for board, solution in oracle_states(rows, cols, mines, seed=hash_seed(seed, g)):
            edge = perimeter(board.cells).ravel()
            probs = solution.probabilities.ravel()
            xs.append(windows(board.cells, RADIUS)[edge])
            ys.append(probs[edge] == 0)
        if progress:
            progress.update(g + 1)
    return np.concatenate(xs).astype(np.int8), np.concatenate(ys)


def hash_seed(seed: int, index: int) -> int:
    """Seed of game ``index`` (distinct runs and games never share a layout)."""
    return seed * 1_000_003 + index


def make_pipeline_for(kind: str, seed: int = 0) -> Pipeline:
    """The scikit-learn pipeline of ``kind`` (``"logistic"`` or ``"svm"``)."""
    if kind == "logistic":
        model = LogisticRegression(class_weight="balanced", max_iter=2000)
    elif kind == "svm":
        # An RBF kernel SVM through its Nystroem feature map: the same model class as the
        # paper's kernelised dual, with play-time cost independent of the support vectors.
        model = make_pipeline(
            Nystroem(kernel="rbf", gamma=0.05, n_components=400, random_state=seed),
            LinearSVC(C=1.0, class_weight="balanced", random_state=seed),
        )
    else:
        raise InvalidInputError(f"unknown local classifier {kind!r}")
    return make_pipeline(FunctionTransformer(one_hot), model)


class LocalPlayer(Player):
    """Algorithm 1 with a local classifier: the decision value ranks perimeter cells.

    Args:
        pipeline: A fitted pipeline on :func:`windows` features (positive = safe).
    """

    name = "local"

    def __init__(self, pipeline: Pipeline):
        self.pipeline = pipeline

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        safety = scores(self.pipeline, board)
        cell, guessed = algorithm1(board, safety, safety > 0, rng)
        self.turn_guesses = int(guessed)
        return [cell]


def scores(pipeline: Pipeline, board: Board) -> np.ndarray:
    """The classifier's decision value of every perimeter cell (positive: safe), ``-inf``
    elsewhere, in the board's shape."""
    edge = perimeter(board.cells).ravel()
    safety = np.full(board.cells.size, -np.inf)
    if edge.any():
        # One BLAS thread: a few dozen rows per move, where thread start-up dominates.
        with threadpool_limits(1):
            safety[edge] = pipeline.decision_function(windows(board.cells, RADIUS)[edge])
    return safety.reshape(board.shape)


def subsample(
    x: np.ndarray, y: np.ndarray, seed: int, max_samples: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """At most ``max_samples`` rows of ``(x, y)``, drawn with ``seed``."""
    if max_samples is not None and len(x) > max_samples:
        keep = np.random.default_rng(seed).choice(len(x), max_samples, replace=False)
        x, y = x[keep], y[keep]
    return x, y


def fit(kind: str, x: np.ndarray, y: np.ndarray, seed: int, max_samples: int | None) -> Pipeline:
    """Fits ``kind`` on at most ``max_samples`` rows (drawn with ``seed``)."""
    return make_pipeline_for(kind, seed).fit(*subsample(x, y, seed, max_samples))


def _train(kind: str, out: Path, seed: int, games: int, max_samples: int | None, log) -> dict:
    start = time.perf_counter()
    x, y = local_dataset(PAPER_BOARDS, games, seed, log)
    log(f"local-{kind}: {len(x)} perimeter cells, {100 * y.mean():.1f} % certainly safe")
    pipeline = fit(kind, x, y, seed, max_samples)
    path = Path(out) / f"local-{kind}{MODEL_SUFFIX}"
    dump_model(path, pipeline)
    meta = {
        "system": f"local-{kind}",
        "boards": [list(b) for b in PAPER_BOARDS],
        "games": games,
        "samples": int(min(len(x), max_samples or len(x))),
        "positive_share": float(y.mean()),
        # On (a sample of) the training rows: an SVM scores ~100k rows slowly.
        "train_accuracy": float(pipeline.score(*subsample(x, y, seed + 1, 20_000))),
        "seed": seed,
        "seconds": round(time.perf_counter() - start, 1),
    }
    write_json(path.with_suffix(".json"), meta)
    return meta


def train_logistic(
    out: str | Path, *, seed: int = 0, games: int | None = None, board=None, resume=False, log=print
) -> dict:
    """Trains ``local-logistic`` on ``games`` games over the paper's boards (default 600)."""
    return _train("logistic", Path(out), seed, games or 600, None, log)


def train_svm(
    out: str | Path, *, seed: int = 0, games: int | None = None, board=None, resume=False, log=print
) -> dict:
    """Trains ``local-svm`` (RBF kernel, 30,000 sampled cells) on ``games`` games (default 600)."""
    return _train("svm", Path(out), seed, games or 600, 30_000, log)


def load(kind: str, weights: str | Path | None = None, trust_pickle: bool = False) -> Pipeline:
    """The pipeline at ``weights`` or the shipped one (a pickle only with ``trust_pickle``)."""
    path = artefact(weights, f"local-{kind}{MODEL_SUFFIX}")
    return load_model(path, f"local-{kind}", trust_pickle=trust_pickle)


def make_player(weights: str | None = None, trust_pickle: bool = False) -> LocalPlayer:
    """``local-logistic`` (``weights``: a model file, default the shipped one)."""
    player = LocalPlayer(load("logistic", weights, trust_pickle))
    player.name = "local-logistic"
    return player


def make_svm_player(weights: str | None = None, trust_pickle: bool = False) -> LocalPlayer:
    """``local-svm`` (``weights``: a model file, default the shipped one)."""
    player = LocalPlayer(load("svm", weights, trust_pickle))
    player.name = "local-svm"
    return player
