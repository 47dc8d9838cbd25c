#!/usr/bin/env bash
# The resnet-certain learner of docs/learners.md ("The expert model"): CSP data on all three
# presets, one training run, then held-out accuracy and 2,000 games per preset for it, the
# shipped model and csp-minprob on the same seeds. Run from the repository root; each step
# resumes when run again. OUT defaults to bench/results/learn-expert.
set -euo pipefail
OUT=${OUT:-bench/results/learn-expert}
GAMES=${GAMES:-2000}
RUN=${RUN:-runs/certain}
mkdir -p "$OUT"
for p in expert intermediate beginner; do
  python -m mscsp learn data --out runs/data/$p --preset $p --games 10000
done
D=(--data runs/data/expert --data runs/data/intermediate --data runs/data/beginner)
python -m mscsp learn train --model resnet-certain "${D[@]}" --out "$RUN" --steps 12000 \
  --batch 32 --lr 3e-3 --eval-every 1000
for m in "$RUN" default; do
  name=$(basename "$m")
  python -m mscsp learn eval "$m" "${D[@]}" --games 0 --out "$OUT/$name-accuracy.json" > /dev/null
done
for p in expert intermediate beginner; do
  for s in learner:"$RUN" learner:default csp-minprob; do
    name=$(echo "${s#learner:}" | tr '/:' '__')
    python -m mscsp play --strategy "$s" --preset $p --games "$GAMES" --seed 1000000 --json \
      > "$OUT/play-$name-$p.json"
  done
done
