#!/usr/bin/env bash
# Players on the same games of every preset, then paired sign tests: the learner recipes'
# shared step. Each argument is "NAME STRATEGY [OPTIONS]"; the first is the reference, the
# second the player measured, any others its variants. Paired: the reference against every
# other player, then each variant against the second (the variant as "old").
#   OUT=docs/... LOGS=runs/... GAMES=5000 SEED=N bench/players/play_paired.sh "csp csp-minprob" ...
# Writes OUT/play-NAME-PRESET.json, OUT/paired-PRESET.json and LOGS/NAME-PRESET.jsonl.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${OUT:?}" "${LOGS:?}" "${GAMES:?}" "${SEED:?}"
mkdir -p "$OUT" "$LOGS"
players=("$@")
for p in beginner intermediate expert; do
  names=()
  for spec in "${players[@]}"; do
    read -r name strategy <<< "$spec"
    names+=("$name")
    # shellcheck disable=SC2086  # the strategy's options are separate words
    python -m mscsp play --strategy $strategy --preset "$p" --games "$GAMES" --seed "$SEED" \
      --workers 2 --json --out "$LOGS/$name-$p.jsonl" --overwrite > "$OUT/play-$name-$p.json"
  done
  pairs=()
  for name in "${names[@]:1}"; do pairs+=("$LOGS/${names[0]}-$p.jsonl" "$LOGS/$name-$p.jsonl"); done
  for name in "${names[@]:2}"; do pairs+=("$LOGS/$name-$p.jsonl" "$LOGS/${names[1]}-$p.jsonl"); done
  python bench/players/best_paired.py "${pairs[@]}" --json > "$OUT/paired-$p.json"
done
