#!/usr/bin/env bash
# Every estimator on the built-in corpus, expert positions and the hard corpus, in one run:
# latency, accuracy against the exact reference and win rate (docs/estimators.md). Long
# with the defaults: run it alone on an idle machine (nohup bench/solvers/estimators_table.sh &).
# Outputs go to $OUT (default bench/results/estimators, not stored); the markdown table,
# with the machine and its load, is $OUT/table.md.
#
# Settings (environment variables):
#   ESTIMATORS  comma list        default: every counter but brute, the sampler, csp-limited,
#                                 learner:default, alexnet (those not installed are skipped)
#   POSITIONS   expert positions  default 100 (seed 1)
#   LIMIT       positions kept of each corpus (0: all)   default 0
#   GAMES       beginner games per estimator (lowest-estimate rule)  default 200
#   TIME_LIMIT  seconds per position                     default 10
#   OUT         output folder
# A quick check of the recipe: LIMIT=3 POSITIONS=3 GAMES=2 bench/solvers/estimators_table.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=$PWD
out=${OUT:-bench/results/estimators}
positions=${POSITIONS:-100}
limit=${LIMIT:-0}
games=${GAMES:-200}
time_limit=${TIME_LIMIT:-10}
estimators=${ESTIMATORS:-$(python - <<'PY'
from mscsp.estimators import estimator_kinds

wanted = ["sampler:1000", "csp-limited", "learner:default", "alexnet"]
names = [n for n, k in estimator_kinds().items() if k.family != "learned" and n != "brute"]
names = [n for n in names if n not in ("sampler", "csp-limited")] + wanted
print(",".join(n for n in names if estimator_kinds()[n.partition(":")[0]].available()))
PY
)}
mkdir -p "$out"
{ uname -srm; nproc; grep -m1 'model name' /proc/cpuinfo || true; } > "$out/machine.txt"
uptime > "$out/uptime_start.txt"
# The corpora as files, cut to $LIMIT positions when asked.
python - "$out" "$limit" <<'PY'
import sys
from importlib import resources
from pathlib import Path

out, limit = Path(sys.argv[1]), int(sys.argv[2])
builtin = resources.files("mscsp.data").joinpath("bench_corpus.jsonl").read_text("utf-8")
for name, text in (("builtin", builtin), ("hard", Path("bench/corpora/hard.jsonl").read_text("utf-8"))):
    lines = text.splitlines(keepends=True)
    (out / f"{name}.jsonl").write_text("".join(lines[:limit] if limit else lines))
PY
run() {  # name, then the corpus options
    local name=$1
    shift
    mkdir -p "$out/$name"
    python -m mscsp bench "$@" --backend "$estimators" --time-limit "$time_limit" \
        --out "$out/$name" --json > "$out/$name/stdout.json"
}
# The games (the same seeded beginner games for every estimator) are played once, with
# the built-in corpus's run.
run builtin --corpus "$out/builtin.jsonl" --games "$games" --games-preset beginner
run expert --preset expert --positions "$positions" --seed 1
run hard --corpus "$out/hard.jsonl"
uptime > "$out/uptime_end.txt"
python bench/solvers/estimators_table.py "$out" > "$out/table.md"
cat "$out/table.md"
