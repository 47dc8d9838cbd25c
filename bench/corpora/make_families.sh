#!/usr/bin/env bash
# Writes bench/corpora/families.jsonl: the published ladder of generated positions, from
# trivial to beyond every backend, made with `mscsp corpus` alone (deterministic: same
# seeds, same file; a test regenerates a sample of it). bench/corpora/count_families.py
# then adds each position's exact count where some backend got one.
#
# Usage: bash bench/corpora/make_families.sh [OUTPUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bench/corpora/families.jsonl}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
corpus() { python -m mscsp corpus "$@" >>"$tmp" 2> >(grep -v "^skipped " >&2 || true); }

# Real games, from the classic presets (trivial) to dense, large and huge boards.
corpus game --size 9x9 --density 0.123 --steps 1,2 --count 10
corpus game --size 16x30 --density 0.206 --steps 2,5,10 --count 10
corpus game --size 16x30 --density 0.27 --steps 1,2,3 --count 8
corpus game --size 30x30 --density 0.25 --steps 1,3,6 --count 4
corpus game --size 100x100 --density 0.2 --steps 0,3,6 --count 3
corpus game --size 200x200 --density 0.2 --steps 0,2 --count 2
# Number patterns over covered cells: one wide component each.
corpus lattice --size 4x4,6x6,8x8,10x10,12x12,14x14,16x16,18x18,20x20,24x24,16x30,30x30 \
    --density 0.1,0.2,0.3,0.4,0.5 --count 2
corpus band --size 5x30,9x16,9x30,13x16,7x60,13x30,17x30,9x100 --density 0.3,0.5 --count 2
corpus toollib --size 21x10,21x20,21x40 --density 0.2,0.4 --count 2
corpus strip --size 3x10,3x20,3x50,3x100,3x200,3x400,3x1000 --count 3

mv "$tmp" "$out"
trap - EXIT
echo "wrote $(wc -l <"$out") positions to $out"
