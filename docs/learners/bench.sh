#!/bin/bash
# Commands behind the v1 measurements of docs/learners.md (2 shared CPU cores); the shipped
# v2 comes from bench/learning/learn_expert.sh. Run from the repository root.
set -e
D="--data runs/data/beginner --data runs/data/intermediate --data runs/data/expert"
# 1. Positions from CSP games (3000 / 3000 / 2000 games, seeds 0...).
mscsp learn data runs/data/beginner --preset beginner --games 3000
mscsp learn data runs/data/intermediate --preset intermediate --games 3000
mscsp learn data runs/data/expert --preset expert --games 2000
# 2. Equal-budget runs (600 steps of 32 positions) and the longer shipped run.
T="mscsp learn train --batch 32 --eval-every 200"
$T --model resnet --labels exact --steps 600 $D --out runs/resnet-exact
$T --model resnet --labels mines --steps 600 $D --out runs/resnet-mines
$T --model cnn-seed --labels exact --steps 600 $D --out runs/cnn-seed-exact
$T --model logistic --labels exact --steps 300 $D --out runs/logistic-exact
$T --model mlp-window --labels exact --steps 300 $D --out runs/mlp-window-exact
$T --model mlp-board --labels exact --steps 300 --data runs/data/beginner --out runs/mlp-board-exact
mscsp learn train --batch 32 --eval-every 1000 --model resnet --labels exact --steps 5000 $D \
    --out runs/resnet-long
# (runs/resnet-long at 5000 steps was evaluated as below into docs/learners/resnet-5k-*.json)
cp -r runs/resnet-long runs/resnet-long2  # warm restart: resume under a 10000-step schedule
mscsp learn train --batch 32 --eval-every 1000 --model resnet --labels exact --steps 10000 $D \
    --out runs/resnet-long2
cp runs/resnet-long2/model.msgpack learners/weights/default.msgpack
# (checked and not shipped: one more restart to 16000 steps, runs/resnet-long3, same evaluation)
# 3. Evaluation (held-out games of the shards; games from seed 1000000).
python -c '
import json
from learners.nets.evaluate import CspPlayer, play_games
games = {"beginner": 1000, "intermediate": 1000, "expert": 500}
print(json.dumps({p: play_games(CspPlayer(), p, n) for p, n in games.items()}, indent=1))
' > docs/learners/csp-minprob.json
mscsp learn eval default $D --games 0 --plots docs/learners --out docs/learners/default-accuracy.json
for p in beginner intermediate; do
    mscsp learn eval default --preset $p --games 1000 --lockstep --out docs/learners/default-$p.json
done
mscsp learn eval default --preset expert --games 500 --lockstep --out docs/learners/default-expert.json
for m in resnet-exact resnet-mines cnn-seed-exact logistic-exact mlp-window-exact; do
    mscsp learn eval runs/$m $D --games 300 --out docs/learners/$m.json
done
mscsp learn eval runs/mlp-board-exact --data runs/data/beginner --preset beginner --games 300 \
    --out docs/learners/mlp-board-exact.json
# 4. Bulk-reveal cut-off of the player, on games not used above (seeds from 2000000).
python -c '
from learners.nets.evaluate import play_games
from learners.nets.player import LearnerPlayer
learner = LearnerPlayer("default")
for preset, n in [("intermediate", 600), ("expert", 400)]:
    for cut in [0.0, 0.005, 0.02, 0.05, 0.1]:
        learner.safe_below = cut
        print(preset, cut, play_games(learner, preset, n, seed=2_000_000))
'
