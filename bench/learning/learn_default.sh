#!/usr/bin/env bash
# learner:default v3 (docs/learners.md): CSP data on three sizes at two densities, then one
# training run of resnet-certain-w32 with a size curriculum (small boards first, then every
# size). Run alone from the repository root; rerun the same command after an interruption:
# finished shards are kept and training resumes from its last checkpoint (every 2,000 steps).
# Documented run: 2-core x86-64 VM, nothing else running; about 75 minutes in all.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${RUN:-runs/v3}
W=(--workers 2)
python -m mscsp learn data --out runs/data/beginner --preset beginner --games 10000 "${W[@]}"
python -m mscsp learn data --out runs/data/b17 --size 9x9 --mines 17 --games 10000 "${W[@]}"
python -m mscsp learn data --out runs/data/intermediate --preset intermediate --games 10000 "${W[@]}"
python -m mscsp learn data --out runs/data/i53 --size 16x16 --mines 53 --games 6000 "${W[@]}"
python -m mscsp learn data --out runs/data/expert --preset expert --games 20000 "${W[@]}"
D=()
for d in beginner b17 intermediate i53 expert; do D+=(--data runs/data/$d); done
python -m mscsp learn train --model resnet-certain-w32 "${D[@]}" --out "$RUN" \
  --steps 34000 --batch 32 --lr 3e-3 --eval-every 2000 "${W[@]}" \
  --curriculum 0:9x9,16x16 --curriculum 10000:9x9,16x16,16x30
