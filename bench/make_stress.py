"""Writes ``bench/stress.jsonl``: long strips whose one component has very many solutions.

Each board is three rows: covered cells on top; below them, in odd columns, the numbers
those cells cause, and flags (known mines) in even columns; the bottom row is revealed.
Each number links three top cells and neighbouring numbers share one, so the top row is a
single chain-shaped component whose solution count grows exponentially with the width while
few constraints are open at once: easy for ``dss``, hard for the enumerating backends
(``sat``, ``cpsat``), which visit every solution. ``ganak`` counts each formula quickly but
needs one count per group and mine total, so it slows down too.

Usage: ``python bench/make_stress.py [OUTPUT]``; then
``mscsp bench --corpus bench/stress.jsonl --time-limit 5``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

#: Strip widths, each once.
WIDTHS = (10, 20, 30, 40, 50, 60, 80, 100)


def top_row(width: int, rng: np.random.Generator) -> np.ndarray:
    """Random mines whose every number is strictly between 0 and its cell count.

    A 0 or a full number would fix its cells and cut the chain into small pieces, so
    cells are drawn left to right among the choices that keep each number in between.
    """
    top = np.zeros(width, dtype=bool)
    top[0] = rng.random() < 0.5
    for c in range(1, width, 2):
        new = top[c : c + 2]
        choices = [
            bits
            for bits in np.ndindex(*(2,) * len(new))
            if 0 < top[c - 1] + sum(bits) < 1 + len(new)
        ]
        new[:] = choices[rng.integers(len(choices))]
    return top


def strip(width: int, rng: np.random.Generator) -> str:
    top = top_row(width, rng)
    flags = np.arange(width) % 2 == 0
    rows = np.zeros((3, width + 2), dtype=int)
    rows[0, 1:-1], rows[1, 1:-1] = top, flags
    cells = [["?"] * width, [], []]
    for c in range(1, width + 1):
        seen = rows[:, c - 1 : c + 2].sum(axis=1)
        cells[1].append("F" if flags[c - 1] else str(seen[0] + seen[1]))
        cells[2].append(str(seen[1]) if seen[1] else ".")
    body = "\n".join("".join(row) for row in cells)
    return f"{width}x3x{int(top.sum() + flags.sum())}\n{body}\n"


def main(out: Path) -> None:
    rng = np.random.default_rng(2026)
    out.write_text("".join(json.dumps({"board": strip(w, rng)}) + "\n" for w in WIDTHS))
    print(f"wrote {len(WIDTHS)} strips to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("stress.jsonl"))
