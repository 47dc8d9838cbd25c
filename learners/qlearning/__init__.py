"""Tabular Q-learning players of the seed papers, trained on ``mscsp/Minesweeper-v0``.

* :mod:`.simple`: ``q-simple``, seed 001's immediate-reward Q-learning (Algorithms 2, 3).
* :mod:`.cluster`: ``q-cluster``, seed 002's Q-table on 3x3 clusters with click / ignore.

Needs the ``rl`` extra (gymnasium).
"""
