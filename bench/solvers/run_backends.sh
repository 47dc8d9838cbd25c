#!/usr/bin/env bash
# The measurement runs behind docs/backends.md ("Measured results"). Long: run it in the
# background (nohup bench/solvers/run_backends.sh &); outputs and plots go to bench/results/ (not
# stored), and `python bench/solvers/backend_table.py --summary DIR/summary.json` prints the tables.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=$PWD
out=bench/results
mkdir -p "$out"/{hard,expert,expert_decide,hard_decide,approx}
uptime > "$out/uptime_start.txt"
python -m mscsp bench --corpus bench/corpora/hard.jsonl --backend dss,sdd,sat,cpsat,ganak \
    --time-limit 10 --out "$out/hard" --json > "$out/hard/stdout.json"
python -m mscsp bench --preset expert --positions 100 --seed 1 \
    --backend dss,sat,cpsat,sdd,ilp,ganak --time-limit 5 --out "$out/expert" --json \
    > "$out/expert/stdout.json"
python -m mscsp bench --decide --preset expert --positions 100 --seed 1 \
    --backend dss,sat,cpsat,ilp --time-limit 5 --out "$out/expert_decide" --json \
    > "$out/expert_decide/stdout.json"
grep -v '"family": "dense"\|"family": "large"' bench/corpora/hard.jsonl > "$out/hard_wide.jsonl"
python -m mscsp bench --decide --corpus "$out/hard_wide.jsonl" --backend dss,cpsat,sat \
    --time-limit 10 --out "$out/hard_decide" --json > "$out/hard_decide/stdout.json"
python -m mscsp bench --backend approxmc --time-limit 20 --out "$out/approx" --json \
    > "$out/approx/stdout.json"
# The compiled diagram and the sampler ("mdd against dss", "Sampled probabilities").
mkdir -p "$out/hard_mdd"
python -m mscsp bench --corpus bench/corpora/hard.jsonl --backend dss,mdd,sdd --time-limit 10 \
    --out "$out/hard_mdd" --json > "$out/hard_mdd/stdout.json"
for family in lattice band; do
    grep "\"family\": \"$family\"" bench/corpora/hard.jsonl > "$out/hard_$family.jsonl"
done
python bench/solvers/hard_mdd.py --corpus "$out/hard_lattice.jsonl" --expert 100 \
    --out "$out/mdd_vs_dss_lattice.jsonl"
python bench/solvers/hard_mdd.py --corpus "$out/hard_band.jsonl" --expert 0 \
    --out "$out/mdd_vs_dss_band.jsonl"
python bench/solvers/hard_sampling.py --expert 30 --time-limit 5 --out "$out/sampling.jsonl"
uptime > "$out/uptime_end.txt"
