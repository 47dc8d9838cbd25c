#!/usr/bin/env bash
# learner:default with its symmetries (docs/learners.md, "Symmetries at play time"): the same
# v3 weights, the player averaging the board's symmetric views and each set of exchangeable
# cells, ties to the fewest neighbours. N games per preset (default 5,000) of csp-minprob,
# learner:default and learner:default -o symmetric=false (one view) on the same games, seed
# 28,000,000 (never used for training or tuning); then paired sign tests and held-out
# accuracy. Run alone from the repository root after bench/learning/learn_default.sh (for the
# accuracy, its data); writes docs/learners/v3-symmetric/.
# The check before a guess came after this measurement: the plays pass -o deduce=none to
# reproduce it; the last step's learn eval reads the player as it is now.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-docs/learners/v3-symmetric}
LOGS=${LOGS:-runs/v3-symmetric}
GAMES=${GAMES:-5000}
SEED=${SEED:-28000000}
export OUT LOGS GAMES SEED
bench/players/play_paired.sh "csp csp-minprob" "symmetric learner:default -o deduce=none" \
  "one-view learner:default -o symmetric=false -o deduce=none"
D=()
for d in beginner intermediate expert; do D+=(--data runs/data/$d); done
python -m mscsp learn eval default "${D[@]}" --games 0 --out "$OUT/accuracy.json" > /dev/null
