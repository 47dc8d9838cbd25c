"""Seed 004's learned guess heuristics on top of exact probabilities (versions 5.0-6.5).

Each player is the project's full CSP player (every certain cell first, from exact
probabilities); only the guess differs. The candidates are the paper's list ``B_s`` of
section 4.2.1, the unknown cells within 0.05 of the lowest mine probability, and a learned
model picks among them:

* :mod:`.xgb`: ``csp-xgb`` (v5.0), XGBoost safety classifier on state-action features.
* :mod:`.nn_iter`: ``csp-nn-iter`` (v5.5), Table 1 network trained by Algorithm 4.
* :mod:`.dqn`: ``csp-dqn`` (v6.5) and ``csp-dqn-iter`` (v6.0), a Table 2 Q-network on 3x3
  score sub-states (equations 9-11).

:mod:`.common` holds the features, the candidate list and the recorded training games.
"""
