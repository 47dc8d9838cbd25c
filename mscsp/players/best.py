"""``best``: placeholder, filled in below."""

from __future__ import annotations

from .csp import CspMinProbPlayer


class BestPlayer(CspMinProbPlayer):
    name = "best"
