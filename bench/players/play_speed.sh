#!/usr/bin/env bash
# End-to-end speed of `mscsp play` as a user runs it (issue 21): one core, wall clock from
# the shell, start-up included; then the scaling from 1 to 2 workers. Run it alone.
#   bench/players/play_speed.sh [GAMES] [ROUNDS]
set -euo pipefail
games=${1:-3000}
rounds=${2:-2}
out=$(mktemp -d)
uptime
for round in $(seq "$rounds"); do
  for strategy in csp-minprob best; do
    start=$(date +%s.%N)
    taskset -c 0 mscsp play -s "$strategy" --preset expert --games "$games" --workers 1 \
      --json > "$out/$strategy.json"
    end=$(date +%s.%N)
    python -c "import json; d = json.load(open('$out/$strategy.json')); w = $end - $start; \
print(f'$strategy round $round: {w:.2f} s wall, {$games / w:.0f} games/s, {d[\"wins\"]} wins')"
  done
done
for workers in 1 2; do
  start=$(date +%s.%N)
  mscsp play -s csp-minprob --preset expert --games $((10 * games)) --workers $workers \
    --json > "$out/workers.json"
  end=$(date +%s.%N)
  python -c "import json; d = json.load(open('$out/workers.json')); w = $end - $start; \
print(f'csp-minprob, {$((10 * games))} games, $workers workers: {w:.2f} s wall, \
{$((10 * games)) / w:.0f} games/s, {d[\"wins\"]} wins')"
done
uptime
rm -r "$out"
