#!/usr/bin/env bash
# Small-scale input-channel comparison (docs/learners.md, "On-policy rounds and input
# channels"): resnet with and without the extra inputs, trained from scratch alike on 4,000
# beginner CSP games, evaluated on the held-out games and 2,000 beginner games.
set -euo pipefail
OUT=${OUT:-bench/results/channels-beginner}
python -m mscsp learn data --out "$OUT/csp" --preset beginner --games 4000
python -m mscsp learn sweep --data "$OUT/csp" --out "$OUT/sweep" --steps 3000 --batch 32 \
  --model resnet --model resnet-counts --model resnet-certain --preset beginner --games 2000
