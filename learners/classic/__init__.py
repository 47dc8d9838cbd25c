"""Seed 001's supervised players (scikit-learn): local classification and global regression.

* :mod:`.data`: the paper's training games (always a correct move, mostly on the perimeter)
  with exact CSP labels, and its Algorithm 1 for playing with any predictor.
* :mod:`.local`: ``local-logistic`` and ``local-svm`` on local-window features.
* :mod:`.ridge`: ``global-ridge``, kernel ridge regression of every cell's probability.

Needs the ``classic`` extra (scikit-learn).
"""
