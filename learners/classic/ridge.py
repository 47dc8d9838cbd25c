"""``global-ridge``: seed 001's global probability regression (section III.A.2).

Every square of the board is a feature (one-hot cell code) and the target is the vector of
exact mine probabilities of all squares (0 on revealed ones), from the project's solver.
Kernel ridge regression with its kernel and regularisation chosen by cross-validation
(scikit-learn ``KernelRidge`` in ``GridSearchCV``) fits all outputs at once; play follows
Algorithm 1 on the predicted probabilities. The model is tied to one board size, which is
why the paper (and we) use it on small boards only.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer
from threadpoolctl import threadpool_limits

from mscsp import Board
from mscsp.errors import InvalidInputError
from mscsp.players.base import Cell, Player

from ..artefacts import (
    MODEL_SUFFIX,
    Progress,
    artefact,
    dump_model,
    load_model,
    shipped,
    write_json,
)
from .data import algorithm1, one_hot, oracle_states
from .local import hash_seed

#: Boards the paper's regression figures use (4x4 with 3 mines) and its 5x5 comparison.
BOARDS = ((4, 4, 3), (5, 5, 5))
GRID = [
    {"kernelridge__kernel": ["linear"], "kernelridge__alpha": [0.1, 1.0]},
    {
        "kernelridge__kernel": ["rbf"],
        "kernelridge__alpha": [0.003, 0.01, 0.03],
        "kernelridge__gamma": [0.02, 0.05, 0.1],
    },
]


#: Positions kept for the fit (kernel ridge is cubic in their number).
MAX_POSITIONS = 2000


def ridge_dataset(
    rows: int, cols: int, mines: int, games: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct positions of the training games and their exact probabilities (0 revealed).

    At most :data:`MAX_POSITIONS`, drawn with ``seed`` when there are more.
    """
    seen: dict[bytes, np.ndarray] = {}
    progress = Progress("games", games)
    for g in range(games):
        for board, solution in oracle_states(rows, cols, mines, seed=hash_seed(seed, g)):
            seen.setdefault(board.cells.tobytes(), np.nan_to_num(solution.probabilities).ravel())
        progress.update(g + 1)
    keys = list(seen)
    if len(keys) > MAX_POSITIONS:
        pick = np.random.default_rng(seed).choice(len(keys), MAX_POSITIONS, replace=False)
        keys = [keys[i] for i in sorted(pick)]
    x = np.array([np.frombuffer(k, dtype=np.int8) for k in keys])
    return x, np.array([seen[k] for k in keys])


def search(seed: int) -> GridSearchCV:
    """Cross-validated kernel ridge on one-hot board features."""
    pipe = make_pipeline(FunctionTransformer(one_hot), KernelRidge())
    folds = KFold(3, shuffle=True, random_state=seed)
    return GridSearchCV(pipe, GRID, cv=folds, scoring="neg_mean_squared_error")


class RidgePlayer(Player):
    """Algorithm 1 on kernel ridge's predicted probabilities.

    Args:
        models: Fitted pipelines by ``(rows, cols, mines)``.
    """

    name = "global-ridge"

    def __init__(self, models: dict[tuple[int, int, int], Pipeline]):
        self.models = models

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        key = (*board.shape, board.mines)
        model = self.models.get(key)
        if model is None:
            have = ", ".join("x".join(map(str, k)) for k in self.models)
            raise InvalidInputError(
                f"global-ridge has models for {have} only; train one with "
                f"'mscsp learn system global-ridge --size "
                f"{board.rows}x{board.cols} --mines {board.mines}'"
            )
        probs = predict(model, board)
        cell, guessed = algorithm1(board, -probs, probs < 0.5, rng)
        self.turn_guesses = int(guessed)
        return [cell]


def predict(model: Pipeline, board: Board) -> np.ndarray:
    """The model's mine probability of every square of ``board`` (its shape)."""
    with threadpool_limits(1):  # one row per move: BLAS threads only add overhead
        return model.predict(board.cells.reshape(1, -1))[0].reshape(board.shape)


def file_name(rows: int, cols: int, mines: int) -> str:
    """The model file of one board: ``global-ridge-4x4x3.skops``."""
    return f"global-ridge-{rows}x{cols}x{mines}{MODEL_SUFFIX}"


#: A model file's name ends with its board: ``...-ROWSxCOLSxMINES.skops`` (ASCII digits).
_BOARD_IN_NAME = re.compile(r"-([0-9]{1,4})x([0-9]{1,4})x([0-9]{1,7})$")


def board_of(path: Path) -> tuple[int, int, int]:
    """The board a model file's name gives (``global-ridge-4x4x3.skops``: 4, 4, 3).

    Raises:
        InvalidInputError: The name does not end with ``-ROWSxCOLSxMINES``.
    """
    found = _BOARD_IN_NAME.search(path.stem)
    if found is None:
        raise InvalidInputError(
            f"{path.name!r}: a global-ridge model file is named ...-ROWSxCOLSxMINES{MODEL_SUFFIX}"
        )
    rows, cols, mines = (int(v) for v in found.groups())
    return rows, cols, mines


def train(
    out: str | Path, *, seed: int = 0, games: int | None = None, board=None, resume=False, log=print
) -> dict:
    """Fits one model per board (default the paper's 4x4/3 and 5x5/5), ``games`` games each."""
    results = {}
    for rows, cols, mines in [tuple(board)] if board else BOARDS:
        start = time.perf_counter()
        x, y = ridge_dataset(rows, cols, mines, games or 600, seed)
        log(f"global-ridge {rows}x{cols}/{mines}: {len(x)} distinct positions")
        grid = search(seed).fit(x, y)
        path = Path(out) / file_name(rows, cols, mines)
        dump_model(path, grid.best_estimator_)
        meta = {
            "system": "global-ridge",
            "board": [rows, cols, mines],
            "games": games or 600,
            "positions": len(x),
            "best_params": {k.split("__")[1]: v for k, v in grid.best_params_.items()},
            "cv_mse": float(-grid.best_score_),
            "seed": seed,
            "seconds": round(time.perf_counter() - start, 1),
        }
        write_json(path.with_suffix(".json"), meta)
        log(f"  best {meta['best_params']}, cross-validated MSE {meta['cv_mse']:.4f}")
        results[f"{rows}x{cols}x{mines}"] = meta
    return results


def make_player(weights: str | None = None, trust_pickle: bool = False) -> RidgePlayer:
    """``global-ridge``: every shipped board model, or the one at ``weights`` (its name ends
    with its board, as :func:`file_name` writes it; a pickle only with ``trust_pickle``)."""
    paths = [artefact(weights, "")] if weights else shipped(f"global-ridge-*{MODEL_SUFFIX}")
    models = {}
    for path in paths:
        board = board_of(path)
        models[board] = load_model(path, "global-ridge", trust_pickle=trust_pickle)
    return RidgePlayer(models)
