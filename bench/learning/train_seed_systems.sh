#!/usr/bin/env bash
# Trains every shipped seed-paper artefact into learners/weights with the default settings
# (the commands docs/seeds.md quotes). Sequential: one core-heavy job at a time.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=$PWD
for name in "$@"; do
    python -m mscsp learn system "$name" --out learners/weights --json
done
