"""Boards that need no guess, each with a certificate a separate checker re-derives.

* :mod:`.certificate`: the boards file's format (its name, version and limits), shared by
  the writer and the checker: data only, no reasoning.
* :mod:`.generate`: lays boards, opens the first click, and solves each with the cheapest
  rule that makes progress (one number, two numbers, the exact forcing set, the mine
  total), keeping every step as evidence; a board that gets stuck is drawn again.
* :mod:`.verify`: checks a boards file step by step with a small enumeration of its own; it
  imports nothing from the generator nor the solver, so a bug there cannot vouch for itself.

Nothing is imported here: ``import mscsp`` stays light.
"""
