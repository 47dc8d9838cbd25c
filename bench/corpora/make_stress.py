"""Writes ``bench/corpora/stress.jsonl``: long strips whose one component has very many solutions.

Each board is three rows: covered cells on top; below them, in odd columns, the numbers
those cells cause, and flags (known mines) in even columns; the bottom row is revealed.
Each number links three top cells and neighbouring numbers share one, so the top row is a
single chain-shaped component whose solution count grows exponentially with the width while
few constraints are open at once: easy for ``dss``, hard for the enumerating backends
(``sat``, ``cpsat``), which visit every solution. ``ganak`` counts each formula quickly but
needs one count per group and mine total, so it slows down too.

Usage: ``python bench/corpora/make_stress.py [OUTPUT]``; then
``mscsp bench --corpus bench/corpora/stress.jsonl --time-limit 5``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from mscsp.evaluation.families import strip_text

#: Strip widths, each once.
WIDTHS = (10, 20, 30, 40, 50, 60, 80, 100)


def main(out: Path) -> None:
    rng = np.random.default_rng(2026)
    out.write_text("".join(json.dumps({"board": strip_text(w, rng)}) + "\n" for w in WIDTHS))
    print(f"wrote {len(WIDTHS)} strips to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("stress.jsonl"))
