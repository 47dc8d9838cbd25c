#!/usr/bin/env bash
# The measurement runs behind docs/backends.md ("Measured results"). Long: run it in the
# background (nohup bench/run_backends.sh &); outputs and plots go to bench/results/ (not
# stored), and `python bench/backend_table.py --summary DIR/summary.json` prints the tables.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD
out=bench/results
mkdir -p "$out"/{hard,expert,expert_decide,hard_decide,approx}
uptime > "$out/uptime_start.txt"
python -m mscsp bench --corpus bench/hard.jsonl --backend dss,sdd,sat,cpsat,ganak \
    --time-limit 10 --out "$out/hard" --json > "$out/hard/stdout.json"
python -m mscsp bench --preset expert --positions 100 --seed 1 \
    --backend dss,sat,cpsat,sdd,ilp,ganak --time-limit 5 --out "$out/expert" --json \
    > "$out/expert/stdout.json"
python -m mscsp bench --decide --preset expert --positions 100 --seed 1 \
    --backend dss,sat,cpsat,ilp --time-limit 5 --out "$out/expert_decide" --json \
    > "$out/expert_decide/stdout.json"
grep -v '"family": "dense"\|"family": "large"' bench/hard.jsonl > "$out/hard_wide.jsonl"
python -m mscsp bench --decide --corpus "$out/hard_wide.jsonl" --backend dss,cpsat,sat \
    --time-limit 10 --out "$out/hard_decide" --json > "$out/hard_decide/stdout.json"
python -m mscsp bench --backend approxmc --time-limit 20 --out "$out/approx" --json \
    > "$out/approx/stdout.json"
uptime > "$out/uptime_end.txt"
