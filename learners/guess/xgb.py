"""``csp-xgb``: seed 004 version 5.0, an XGBoost single-pass classifier as the guess.

Trained once on the candidates of games played by version 4.0 (``csp-edge``) over many
board sizes and densities (:func:`.common.classification_rows`); at a guess, the candidate
of ``B_s`` with the highest predicted chance of being safe is clicked.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from mscsp.errors import InvalidInputError
from mscsp.trust.inputs import read_bounded

from ..artefacts import MAX_MODEL_BYTES, Progress, artefact, write_json
from .common import FEATURES, EdgePlayer, GuessState, RankingPlayer, classification_rows, features

FILE = "csp-xgb.ubj"


class CspXgbPlayer(RankingPlayer):
    """Version 5.0: exact probabilities, then XGBoost's safest near-minimum candidate."""

    name = "csp-xgb"

    def __init__(self, booster, backend: str = "dss"):
        super().__init__(backend)
        self.booster = booster

    def rank(self, state: GuessState, cells: np.ndarray) -> np.ndarray:
        return self.booster.inplace_predict(features(state, cells))


def train(
    out: str | Path, *, seed: int = 0, games: int | None = None, board=None, resume=False, log=print
) -> dict:
    """Plays ``games`` csp-edge games (default 1,000) and fits the classifier on their guesses."""
    import xgboost

    start = time.perf_counter()
    n = games or 1000
    x, y = classification_rows(EdgePlayer(), n, seed, progress=Progress("csp-xgb games", n))
    log(f"csp-xgb: {len(x)} candidate rows, {100 * y.mean():.1f} % safe")
    params = {
        "objective": "binary:logistic",
        "eval_metric": "logloss",
        "max_depth": 5,
        "eta": 0.1,
        "lambda": 1.0,
        "seed": seed,
        "nthread": 1,
    }
    dtrain = xgboost.DMatrix(x, label=y.astype(float), feature_names=list(FEATURES))
    booster = xgboost.train(params, dtrain, num_boost_round=200)
    path = Path(out) / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    booster.save_model(str(path))
    meta = {
        "system": "csp-xgb",
        "games": n,
        "rows": len(x),
        "safe_share": float(y.mean()),
        "seed": seed,
        "seconds": round(time.perf_counter() - start, 1),
    }
    write_json(path.with_suffix(".json"), meta)
    return meta


def make_player(weights: str | None = None, backend: str = "dss") -> CspXgbPlayer:
    """``csp-xgb`` with the shipped booster or the one at ``weights``."""
    import xgboost

    path = artefact(weights, FILE)
    # Read here, bounded (no FIFO, no device), then parsed from memory: XGBoost's own
    # format holds trees and numbers only, nothing that runs.
    data = read_bounded(path, MAX_MODEL_BYTES, "csp-xgb model", allow_stdin=False)
    booster = xgboost.Booster()
    try:
        booster.load_model(bytearray(data))
    except xgboost.core.XGBoostError as exc:
        # (its message carries a C++ stack trace: the first line says what is wrong)
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        raise InvalidInputError(f"{path} is not an XGBoost model ({first})") from None
    booster.feature_names = None
    booster.set_param({"nthread": 1})  # one guess at a time: threads only add overhead
    return CspXgbPlayer(booster, backend)
