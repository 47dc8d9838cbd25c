#!/usr/bin/env bash
# Small-scale on-policy measurement (docs/learners.md, "On-policy rounds and input channels").
# Fine-tunes the shipped model on beginner for two rounds of 500 games, once with on-policy
# games (DAgger: beta 0.5 then 0.25) and once with the exact player's games (beta 1, the
# control: same pipeline, positions, weights and steps), then plays both and the shipped
# model on the same 3,000 seeded games. Run from the repository root; OUT defaults to
# bench/results/onpolicy-beginner.
set -euo pipefail
OUT=${OUT:-bench/results/onpolicy-beginner}
GAMES=${GAMES:-3000}
common=(--preset beginner --data "$OUT/csp" --rounds 2 --games 500 --steps 1000 --batch 32
        --lr 1e-3 --eval-every 250 --eval-games 1000)
python -m mscsp learn data --out "$OUT/csp" --preset beginner --games 1000
python -m mscsp learn dagger --out "$OUT/dagger" --beta 0.5 --beta-decay 0.5 "${common[@]}"
python -m mscsp learn dagger --out "$OUT/control" --beta 1 --beta-decay 1 "${common[@]}"
for s in learner:default learner:"$OUT/dagger/round-02/model" \
         learner:"$OUT/control/round-02/model" csp-minprob; do
  python -m mscsp play --strategy "$s" --preset beginner --games "$GAMES" --seed 7 --first-move corner --json
done
