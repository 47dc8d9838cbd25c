#!/usr/bin/env bash
# The labels ablation of docs/learners.md: resnet trained on exact probabilities and on mine
# layouts, same 40,000 beginner CSP games, seed, schedule and 8,000 steps of 32; the kept
# checkpoints at 125, 250, ..., 8,000 steps each play the same 1,000 beginner games
# (seeds 1,000,000...). Resumes when run again. Run from the repository root.
set -euo pipefail
python -m mscsp learn data --out runs/data/beginner-40k --preset beginner --games 40000
python -m mscsp learn ablation --data runs/data/beginner-40k --out runs/ablation --model resnet \
  --steps 8000 --batch 32 --eval-every 1000 --points 7 --preset beginner --games 1000
cp runs/ablation/ablation.png docs/learners/ablation_beginner.png
cp runs/ablation/ablation.json docs/learners/ablation_beginner.json
