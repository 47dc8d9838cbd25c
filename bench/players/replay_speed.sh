#!/usr/bin/env bash
# Issue 33's speed target: games per second of `mscsp replay` over a generated archive of
# intermediate and expert games (target: 10,000 in <= 10 minutes, >= 17 games/s), with the
# full per-game record. Run it ALONE; it prints the load before and after.
#
# Usage: bash bench/players/replay_speed.sh [GAMES] [WORKERS]   (defaults 3000 and 2)
set -euo pipefail
cd "$(dirname "$0")/../.."
games=${1:-3000}
workers=${2:-2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# make_replays.py writes beginner, intermediate and expert games in turn: 3/2 x GAMES files
# give GAMES intermediate and expert ones.
python bench/players/make_replays.py "$dir/all" --games $((games * 3 / 2)) --seed 33 >/dev/null
mkdir "$dir/archive"
mv "$dir"/all/intermediate-* "$dir"/all/expert-* "$dir/archive/"
n=$(ls "$dir/archive" | wc -l)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $n replays, $workers workers"
start=$(date +%s.%N)
python -m mscsp replay "$dir/archive" --workers "$workers" --out "$dir/games.jsonl" \
    --no-progress --summary >/dev/null
end=$(date +%s.%N)
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python - "$n" "$start" "$end" "$dir/games.jsonl" <<'PY'
import json, sys
n, start, end, log = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rows = [json.loads(line) for line in open(log) if line.strip()]
games = [r for r in rows if r.get("status") == "ok"]
seconds = end - start
print(f"{len(games)} of {n} games rated in {seconds:.1f} s: {len(games) / seconds:.1f} games/s")
PY
