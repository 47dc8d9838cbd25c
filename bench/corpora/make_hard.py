"""Writes ``bench/corpora/hard.jsonl``: the hard corpus (one wide component per position).

Each line is ``{"board": ..., "family": ..., "name": ...}``; the families are described in
``mscsp/evaluation/families.py``. Deterministic: same seeds, same file (a test checks it).

Usage: ``python bench/corpora/make_hard.py [OUTPUT]``; then, for example,
``mscsp bench --corpus bench/corpora/hard.jsonl --backend dss,sdd --time-limit 20 --out out/hard``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from mscsp.board import Board
from mscsp.evaluation.families import band, game_position, lattice, strip_text, toollib

#: Lattice sizes (rows, cols), each at two mine densities and two seeds.
LATTICES = ((8, 8), (10, 10), (12, 12), (14, 14), (16, 16), (18, 18), (20, 20), (16, 30))
LATTICE_DENSITIES = (0.2, 0.4)
#: Band sizes (rows, cols) at density 0.5, two seeds each.
BANDS = ((5, 30), (9, 16), (9, 30), (13, 16), (7, 60))
STRIPS = (20, 50, 100)
#: Real-game families: (family, rows, cols, mines, seeds, steps).
GAMES = (
    ("dense", 16, 30, 130, (1, 2), (3, 8)),
    ("dense", 30, 30, 225, (1,), (3, 8)),
    ("large", 100, 100, 2000, (1,), (0, 3, 6)),
)


def positions() -> Iterator[tuple[str, str, Board | str]]:
    """``(family, name, board or board text)`` for every position of the hard corpus."""
    for rows, cols in LATTICES:
        for density in LATTICE_DENSITIES:
            for seed in (0, 1):
                board = lattice(rows, cols, density, seed)
                yield "lattice", f"lattice {rows}x{cols} d{density} s{seed}", board
    for rows, cols in BANDS:
        for seed in (0, 1):
            yield "band", f"band {rows}x{cols} d0.5 s{seed}", band(rows, cols, 0.5, seed)
    for seed in (0, 1, 2):
        yield "toollib", f"toollib 21x10 s{seed}", toollib(seed=seed)
    rng = np.random.default_rng(2026)
    for width in STRIPS:
        yield "strip", f"strip 3x{width}", strip_text(width, rng)
    for family, rows, cols, mines, seeds, steps in GAMES:
        for seed in seeds:
            for step in steps:
                board = game_position(rows, cols, mines, seed, step)
                if board is not None:
                    yield family, f"{family} {rows}x{cols}/{mines} s{seed} step {step}", board


def main(out: Path) -> None:
    lines = []
    for family, name, board in positions():
        text = board if isinstance(board, str) else board.to_text()
        lines.append(json.dumps({"board": text, "family": family, "name": name}))
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} positions to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("hard.jsonl"))
