#!/usr/bin/env bash
# The resnet-certain learner of docs/learners.md ("The expert model"): CSP data on all three
# presets, one training run, then held-out accuracy and 2,000 games per preset for it, the
# previously shipped model and csp-minprob on the same seeds, then ships it. Run from the
# repository root; data and training resume when run again. Hardware of the documented run:
# 2-core x86-64 VM shared with other jobs (load average 6-11), about 37 min of training.
set -euo pipefail
OUT=${OUT:-docs/learners/v2}
GAMES=${GAMES:-2000}
RUN=${RUN:-runs/certain}
mkdir -p "$OUT"
for p in expert intermediate beginner; do
  python -m mscsp learn data --out runs/data/$p --preset $p --games 10000
done
D=(--data runs/data/expert --data runs/data/intermediate --data runs/data/beginner)
python -m mscsp learn train --model resnet-certain "${D[@]}" --out "$RUN" --steps 12000 \
  --batch 32 --lr 3e-3 --eval-every 1000
# The model shipped before this one, for comparison on the same positions and games.
git show 0cf2db9:learners/weights/default.msgpack > runs/v1.msgpack
for pair in "v2 $RUN" "v1 runs/v1.msgpack"; do
  set -- $pair
  python -m mscsp learn eval "$2" "${D[@]}" --games 0 --out "$OUT/$1-accuracy.json" > /dev/null
done
for p in expert intermediate beginner; do
  for pair in "v2 learner:$RUN" "v1 learner:runs/v1.msgpack" "csp-minprob csp-minprob"; do
    set -- $pair
    python -m mscsp play --strategy "$2" --preset $p --games "$GAMES" --seed 1000000 --json \
      > "$OUT/play-$1-$p.json"
  done
done
cp "$RUN/model.msgpack" learners/weights/default.msgpack
