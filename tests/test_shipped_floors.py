"""Every shipped model still plays: a win-rate floor on a small fixed seed.

A broken weight file, a changed input encoding or a player that no longer loads its model
plays far below its measured figure. Each floor sits well under the figure measured with
n = 2,000 (docs/seeds.md, docs/learners.md), so that a healthy model passes on these 40
games (each floor is about 60-75 % of what the model wins on them, and the seed is fixed, so
the outcome is too). ``q-cluster`` wins 0.5 % when healthy: its floor is on the cells it
clears.
"""

from __future__ import annotations

import pytest

from mscsp.evaluation.harness import RunConfig, play_batch

learners_registry = pytest.importorskip("learners.registry")

GAMES = 40
SEED = 9_000_000

#: (system, rows, cols, mines, first click, first move, measured win %, floor on wins %,
#: floor on the mean share of safe cells cleared).
SHIPPED = (
    ("learner:default", 9, 9, 10, "safe", "corner", 89.9, 70, 0.8),
    ("learner:graph", 9, 9, 10, "safe", "corner", 91.95, 70, 0.8),
    ("q-simple", 4, 4, 3, "safe", "corner", 66.95, 45, 0.6),
    ("local-logistic", 4, 4, 3, "safe", "corner", 32.20, 15, 0.6),
    ("local-svm", 4, 4, 3, "safe", "corner", 35.30, 15, 0.6),
    ("global-ridge", 4, 4, 3, "safe", "corner", 63.65, 45, 0.6),
    ("q-cluster", 8, 8, 10, "safe", "corner", 0.50, 0, 0.4),
    ("alexnet", 8, 8, 10, "opening", "corner", 83.45, 62, 0.8),
    ("thesis-mlp", 9, 9, 10, "opening", "corner", 43.00, 25, 0.75),
    ("blog-mlp", 9, 9, 10, "safe", "random", 81.38, 60, 0.75),
    ("csp-xgb", 9, 9, 10, "safe", "corner", 88.80, 70, 0.85),
    ("csp-nn-iter", 9, 9, 10, "safe", "corner", 89.90, 70, 0.85),
    ("csp-dqn", 9, 9, 10, "safe", "corner", 91.10, 70, 0.85),
    ("csp-dqn-iter", 9, 9, 10, "safe", "corner", 90.10, 70, 0.85),
    # (No model: the baseline whose rules the learner's player shares.)
    ("rules-local", 16, 30, 99, "safe", "corner", 33.40, 20, 0.45),
)


def test_every_shipped_system_has_a_floor() -> None:
    shipped = {system.name for system in learners_registry.SYSTEMS.values()}
    named = {row[0].partition(":")[0] for row in SHIPPED}
    assert shipped <= named | {"learner"}, shipped - named


@pytest.mark.parametrize("row", SHIPPED, ids=[row[0] for row in SHIPPED])
def test_shipped_model_plays_above_its_floor(row: tuple) -> None:
    name, rows, cols, mines, first_click, first_move, measured, floor, cleared = row
    system = learners_registry.get_system(name)
    for module in system.requires:
        pytest.importorskip(module, reason=f"{name} needs pip install 'mscsp[{system.extra}]'")
    config = RunConfig(name, rows, cols, mines, first_click, first_move, SEED)
    results = play_batch(config, list(range(GAMES)))
    wins = sum(r.won for r in results)
    share = sum(r.cleared for r in results) / GAMES
    assert 100 * wins / GAMES >= floor, (name, wins, measured)
    assert share >= cleared, (name, share)
