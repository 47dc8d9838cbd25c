"""What two runs of the same games must agree on (the tests' shared helper)."""

from __future__ import annotations


def game_rows(results: list) -> list[tuple]:
    """Each game's number, result, cells cleared, moves and guesses (not its time)."""
    return [(r.index, r.won, r.cleared, r.moves, r.guesses) for r in results]
