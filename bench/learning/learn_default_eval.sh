#!/usr/bin/env bash
# The measurements of learner:default v3 in docs/learners.md: held-out accuracy against the
# exact solver, then 2,000 games per preset for v3, the model it replaces (v2) and csp-minprob
# on the same games (classic rule, seed 7,000,000: never used for training or tuning). Run
# alone, after bench/learning/learn_default.sh; writes docs/learners/v3-default/.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${RUN:-runs/v3}
OUT=${OUT:-docs/learners/v3-default}
GAMES=${GAMES:-2000}
SEED=${SEED:-7000000}
mkdir -p "$OUT"
[ -f runs/v2.msgpack ] || git show 467ab06:learners/weights/default.msgpack > runs/v2.msgpack
D=()
for d in beginner intermediate expert; do D+=(--data runs/data/$d); done
for pair in "v3 $RUN" "v2 runs/v2.msgpack"; do
  set -- $pair
  python -m mscsp learn eval "$2" "${D[@]}" --games 0 --out "$OUT/$1-accuracy.json" > /dev/null
done
for p in beginner intermediate expert; do
  for pair in "v3 learner:$RUN" "v2 learner:runs/v2.msgpack" "csp-minprob csp-minprob"; do
    set -- $pair
    python -m mscsp play --strategy "$2" --preset $p --games "$GAMES" --seed "$SEED" \
      --workers 2 --json --out "runs/play-$1-$p.jsonl" --overwrite > "$OUT/play-$1-$p.json"
  done
done
# Paired on the same games: sign tests of v3 against csp-minprob and against v2.
for p in beginner intermediate expert; do
  python bench/players/best_paired.py runs/play-csp-minprob-$p.jsonl runs/play-v3-$p.jsonl \
    runs/play-v2-$p.jsonl runs/play-v3-$p.jsonl --json > "$OUT/paired-$p.json"
done
cp "$RUN/metrics.jsonl" "$RUN/curves.png" "$OUT/"
