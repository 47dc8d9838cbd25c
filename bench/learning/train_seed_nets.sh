#!/usr/bin/env bash
# A Flax seed system (thesis-mlp, blog-mlp or alexnet) trained and shipped:
#   bench/learning/train_seed_nets.sh NAME [mscsp learn system OPTIONS, e.g. -o steps=30000]
# Data and run directory under runs/NAME (rerun the same command to resume after an
# interruption: finished shards are kept and training goes on from its last checkpoint), then
# the model and its JSON (settings, positions, wall time, load) are copied to learners/weights.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=$PWD
name=${1:?usage: bench/learning/train_seed_nets.sh thesis-mlp|blog-mlp|alexnet [OPTIONS]}
shift
case "$name" in
    thesis-mlp | blog-mlp | alexnet) ;;
    *) echo "bench/learning/train_seed_nets.sh: unknown system $name (thesis-mlp, blog-mlp, alexnet)" >&2
       exit 2 ;;
esac
python -m mscsp learn system "$name" --out "runs/$name" --resume --json "$@"
cp "runs/$name/$name.msgpack" "runs/$name/$name.json" learners/weights/
