"""Learned systems come in through the ``mscsp.learners`` entry points, and only so.

An installed distribution's metadata registers a table of systems (``learners`` registers
:data:`learners.registry.SYSTEMS`); another package's table plays under its own names, and
with no table registered at all mscsp works and says which package a learned name needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from mscsp.errors import BackendUnavailableError, InvalidInputError
from mscsp.estimators.learned import learned_kinds
from mscsp.players import get_player, player_factory, plugins
from mscsp.players.rules import RulesPlayer

#: Another package's registry: one system that plays as ``rules`` with the options given.
THIRD_PARTY = """
from mscsp.players import PLAYERS


class Cautious:
    name = "cautious"
    extra = "cautious"
    summary = "the rules player, registered by another package"
    argument = None
    estimates = False

    def supported(self):
        return True

    def load(self, which):
        return PLAYERS["rules"]

    def build(self, spec, **options):
        return self.load("player")(**options)


SYSTEMS = {"cautious": Cautious()}
"""


@pytest.fixture(autouse=True)
def fresh_tables() -> Iterator[None]:
    """Each test reads the entry points anew (they are loaded once per process)."""
    plugins._tables.cache_clear()
    yield
    plugins._tables.cache_clear()


def test_another_package_registers_its_own_system(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "cautious_learners.py").write_text(THIRD_PARTY)
    dist = tmp_path / "cautious_learners-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: cautious-learners\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[mscsp.learners]\ncautious = cautious_learners:SYSTEMS\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "cautious" in plugins.learned_systems()
    player = get_player("cautious", backend="dss")  # options pass through to the factory
    assert isinstance(player, RulesPlayer) and player_factory("cautious") is RulesPlayer
    with pytest.raises(InvalidInputError, match="cautious"):
        get_player("no-such-strategy")


def test_without_any_registered_table_learned_names_say_what_is_missing(monkeypatch) -> None:
    # The metadata of a package that is gone (no module left to load) counts as not installed.
    gone = EntryPoint("gone", "no_such_learners_package:SYSTEMS", plugins.GROUP)
    monkeypatch.setattr(plugins, "entry_points", lambda group: [gone])
    assert plugins.learned_systems() == {} and plugins.learned_system("learner") is None
    with pytest.raises(BackendUnavailableError, match=r"learners package.*mscsp\[ml\]"):
        get_player("learner:default")
    with pytest.raises(InvalidInputError, match="unknown strategy 'csp-xgb'"):
        get_player("csp-xgb")
    assert player_factory("csp-xgb") is None
    assert learned_kinds() == []
    assert isinstance(get_player("rules"), RulesPlayer)  # the built-in players stay
