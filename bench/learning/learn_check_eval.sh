#!/usr/bin/env bash
# learner:default with its check before a guess (docs/learners.md, "The check before a
# guess"): the same v3 weights and symmetries; before a guess the player proves cells with
# the rules of mscsp.deduce. N games per preset (default 5,000) of csp-minprob,
# learner:default and learner:default -o deduce=none (the player before the check) on the
# same games, seed 31,000,000 (never used for training or tuning); paired sign tests; then
# certain-safe cells found on 2,000 fresh expert games no model trained on, and held-out
# accuracy on v3's data. Run alone from the repository root after bench/learning/learn_default.sh
# (for the held-out data); writes docs/learners/v3-check/.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-docs/learners/v3-check}
LOGS=${LOGS:-runs/v3-check}
GAMES=${GAMES:-5000}
SEED=${SEED:-31000000}
export OUT LOGS GAMES SEED
bench/players/play_paired.sh "csp csp-minprob" "checked learner:default" \
  "unchecked learner:default -o deduce=none"
python -m mscsp learn data --out runs/data/expert-31m --preset expert --games 2000 \
  --seed "$SEED" --workers 2
PYTHONPATH=$PWD python bench/learning/learner_regret.py --data runs/data/expert-31m --all \
  --positions 0 > "$OUT/regret-expert-fresh.json"
PYTHONPATH=$PWD python bench/solvers/deduce_check.py --data runs/data/expert-31m --every 10 \
  > "$OUT/deduce-expert-fresh.json"
D=()
for d in beginner intermediate expert; do D+=(--data runs/data/$d); done
python -m mscsp learn eval default "${D[@]}" --games 0 --out "$OUT/accuracy.json" > /dev/null
