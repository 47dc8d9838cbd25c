"""Shared fixtures: every registered backend, and positions from real games."""

from __future__ import annotations

import pytest

from mscsp.backends import BACKENDS
from mscsp.positions import sample_positions


@pytest.fixture(scope="session", params=list(BACKENDS))
def backend_name(request: pytest.FixtureRequest) -> str:
    """Each registered backend by name; skipped where its optional package is missing."""
    cls = BACKENDS[request.param]
    if not cls.supported():
        pytest.skip(f"backend {request.param!r} needs pip install 'mscsp[{cls.extra}]'")
    return request.param


@pytest.fixture(scope="session")
def expert_positions():
    """A few expert positions met by a solver-driven player (deterministic)."""
    return sample_positions(16, 30, 99, 12, seed=5, per_game=3)
