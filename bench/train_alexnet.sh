#!/usr/bin/env bash
# alexnet: data and run directory under runs/alexnet (resumable), the model shipped.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD
python -m mscsp learn system alexnet --out runs/alexnet --resume --json
cp runs/alexnet/alexnet.msgpack runs/alexnet/alexnet.json learners/weights/
