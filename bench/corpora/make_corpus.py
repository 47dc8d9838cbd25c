"""Regenerates the built-in benchmark corpus ``mscsp/data/bench_corpus.jsonl``.

Positions are what a solver-driven player meets in seeded games (deterministic: same seeds,
same file), mixing beginner, intermediate and expert boards so that ``mscsp bench`` covers
tiny to large frontier components.

Usage: ``python bench/corpora/make_corpus.py [OUTPUT]``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mscsp.evaluation.played_positions import sample_positions
from mscsp.game import PRESETS

#: (preset, positions, seed) making up the corpus.
MIX = (("beginner", 10, 1), ("intermediate", 15, 2), ("expert", 35, 3))


def main(out: Path) -> None:
    lines = []
    for preset, count, seed in MIX:
        for board in sample_positions(*PRESETS[preset], count, seed=seed):
            lines.append(json.dumps({"board": board.to_text(), "preset": preset}))
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} positions to {out}")


if __name__ == "__main__":
    default = Path(__file__).resolve().parents[2] / "mscsp" / "data" / "bench_corpus.jsonl"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
