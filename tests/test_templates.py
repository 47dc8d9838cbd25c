"""The templates of a new backend and a new player work as copied: the first step of
"How to add a backend" (docs/backends.md) and of a new player (docs/players.md)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import mscsp
from mscsp import solve
from mscsp.backends import BACKENDS
from mscsp.backends.brute import BruteBackend
from mscsp.constraints import Component
from mscsp.evaluation.families import band, lattice
from mscsp.evaluation.harness import RunConfig, play_game
from mscsp.players import PLAYERS, get_player

PACKAGE = Path(mscsp.__file__).parent

#: Components with shared groups, a group in no constraint's reach of another, and none
#: possible: each checked against the brute force.
COMPONENTS = [
    Component(sizes=(5, 7, 3), constraints=(((0, 1), 6), ((1, 2), 5))),
    Component(sizes=(2, 1), constraints=(((0, 1), 2),)),
    Component(sizes=(1, 2, 2, 1), constraints=(((0, 1), 1), ((1, 2), 2), ((2, 3), 1))),
    Component(sizes=(2,), constraints=(((0,), 3),)),
]


def copied(template: Path, folder: Path, name: str, package: str):
    """The template copied to ``folder/name.py`` and imported as ``package.name``, as a
    developer's new module is (relative imports resolve in ``package``)."""
    path = folder / f"{name}.py"
    shutil.copy(template, path)
    spec = importlib.util.spec_from_file_location(f"{package}.{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_the_backend_template_counts_exactly_and_plugs_into_the_registry(tmp_path, monkeypatch):
    module = copied(PACKAGE / "backends" / "TEMPLATE.py", tmp_path, "mine", "mscsp.backends")
    backend = module.TemplateBackend()
    for component in COMPONENTS:
        assert backend.count(component) == BruteBackend().count(component)
    monkeypatch.setitem(BACKENDS, "template", module.TemplateBackend)
    for board in (lattice(7, 7, 0.3, 1), band(4, 9, 0.4, 2)):
        ours = solve(board, backend="template")
        assert ours.weight == solve(board).weight
        assert np.array_equal(ours.probabilities, solve(board).probabilities, equal_nan=True)


def test_the_player_template_plays_seeded_games_by_name(tmp_path, monkeypatch):
    module = copied(PACKAGE / "players" / "TEMPLATE.py", tmp_path, "mine", "mscsp.players")
    monkeypatch.setitem(PLAYERS, "template", module.TemplatePlayer)
    config = RunConfig("template", 9, 9, 10, seed=3)
    config.validate()  # (its option, backend, is checked like any player's)
    results = [play_game(get_player("template"), config, i) for i in range(20)]
    again = [play_game(get_player("template"), config, i) for i in range(20)]
    assert [r.won for r in results] == [r.won for r in again]  # the same seed, the same games
    assert sum(r.won for r in results) >= 10  # beginner games: most are won
    with pytest.raises(Exception, match="backend"):
        get_player("template", backend="no-such-backend").next_moves(
            mscsp.parse_board("3x3x1\n1??\n???\n???\n"), None
        )
