"""Certain cells by the rules a person uses, without counting a single layout.

The solver settles certain cells by counting every layout of a component. A person (and a
learned player checking itself before a guess) uses rules instead, each sound on its own:

* **single-point and DSS propagation** on groups of interchangeable cells
  (:func:`mscsp.reduce.propagate`), with the covered cells next to no number as one more
  group, and the **mine total** as one more constraint over every group;
* the **subset rule** (:func:`mscsp.reduce.subset_rule`), repeated on what it derives;
* the **overlap rule**: two numbers sharing cells bound the mines in the shared part by
  what each of them leaves for its own part (the 1-2 pattern); when that pins the shared
  part, or one number's own part, to a count, it is a new constraint;
* **mine counting**: numbers with no cell in common hold exactly their mines, so the
  cells outside them hold the rest of the total (a greedy choice of such numbers);
* with ``cases``, **one assumption**: a group assumed to hold a mine that leads the rules
  above to a contradiction holds none, so its cells are safe.

Everything is derived, so nothing here can call a cell safe that the exact solver would
not (``tests/test_deduce.py`` checks every answer against exact probabilities on real-game
positions); what it can miss are cells that only deeper case analysis settles.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .board import Board
from .constraints import build_system
from .errors import InconsistentBoardError, SolverLimitError
from .reduce import Constraint, open_part, propagate, subset_rule, touching_lists
from .runtime.deadline import Deadline

Cell = tuple[int, int]

#: Rounds of derivation at most (each round: the rules on what the last one left open).
MAX_ROUNDS = 16


@dataclass(frozen=True)
class Deduction:
    """The cells a position's rules settle.

    Attributes:
        safe: Covered cells that hold no mine in any layout, row-major.
        mines: Covered cells that hold a mine in every layout, row-major.
    """

    safe: list[Cell]
    mines: list[Cell]


class _Rules:
    """The rules' state on one position: group bounds and the constraints found so far."""

    def __init__(self, board: Board, deadline: Deadline | None):
        system = build_system(board, deadline)
        self.cells = list(system.cells)
        self.sizes = list(system.sizes)
        if system.n_unconstrained:
            # The cells next to no number are interchangeable: one more group.
            self.cells.append(tuple(map(tuple, np.argwhere(system.unconstrained).tolist())))
            self.sizes.append(system.n_unconstrained)
        self.deadline = deadline
        self.lo = [0] * len(self.sizes)
        self.hi = list(self.sizes)
        for g, mines in system.settled:
            self.lo[g] = self.hi[g] = mines
        self.total: Constraint = (tuple(range(len(self.sizes))), system.remaining)
        #: Constraints the subset and overlap rules may combine further.
        self.local: list[Constraint] = list(system.constraints)
        #: Every constraint known, each once (groups sorted).
        self.known = {(tuple(sorted(g)), t) for g, t in self.local}

    def copy(self) -> _Rules:
        other = object.__new__(_Rules)
        other.__dict__.update(self.__dict__)
        other.lo, other.hi = list(self.lo), list(self.hi)
        other.local, other.known = list(self.local), set(self.known)
        return other

    def close(self) -> None:
        """Applies every rule until none finds anything new.

        Raises:
            InconsistentBoardError: The rules reach a contradiction.
        """
        every = [*self.local, self.total]
        touching = touching_lists(every, len(self.sizes))
        first = 0
        for _ in range(MAX_ROUNDS):
            if self.deadline is not None:
                self.deadline.check()
            propagate(every, self.lo, self.hi, self.deadline, first=first, touching=touching)
            remaining = open_part(self.local, self.lo, self.hi)
            found = subset_rule(remaining) + self._overlaps(remaining)
            counted = self._counting(remaining)
            new_local = self._unseen(found)
            new = new_local + self._unseen([counted] if counted else [])
            if not new:
                return
            # Counting's constraint spans most of the board: it feeds propagation only, so
            # the pairwise rules never combine it into ever larger ones.
            self.local += new_local
            first = len(every)
            every += new
            touching_lists(every, len(self.sizes), first, touching)

    def _unseen(self, constraints: list[Constraint]) -> list[Constraint]:
        out = []
        for groups, t in constraints:
            key = (tuple(sorted(groups)), t)
            if groups and key not in self.known:
                self.known.add(key)
                out.append(key)
        return out

    def _overlaps(self, constraints: list[Constraint]) -> list[Constraint]:
        """The overlap rule on every pair of constraints that share a group."""
        lo, hi = self.lo, self.hi
        sets = [frozenset(groups) for groups, _ in constraints]
        holding: dict[int, list[int]] = {}
        for c, groups in enumerate(sets):
            for g in groups:
                holding.setdefault(g, []).append(c)
        pairs = {(a, b) for cs in holding.values() for a, b in combinations(cs, 2)}
        out = []
        for a, b in sorted(pairs):
            shared = sets[a] & sets[b]
            if shared == sets[a] or shared == sets[b]:
                continue  # the subset rule's case
            t_a, t_b = constraints[a][1], constraints[b][1]
            own_a, own_b = sets[a] - shared, sets[b] - shared
            lo_a, hi_a = sum(lo[g] for g in own_a), sum(hi[g] for g in own_a)
            lo_b, hi_b = sum(lo[g] for g in own_b), sum(hi[g] for g in own_b)
            least = max(sum(lo[g] for g in shared), t_a - hi_a, t_b - hi_b)
            most = min(sum(hi[g] for g in shared), t_a - lo_a, t_b - lo_b)
            if least > most:
                raise InconsistentBoardError("two numbers disagree on the cells they share")
            if least == most:
                out.append((tuple(shared), least))
            for own, t, low, high in ((own_a, t_a, lo_a, hi_a), (own_b, t_b, lo_b, hi_b)):
                if t - most == high or t - least == low:
                    out.append((tuple(own), t - most if t - most == high else low))
        return out

    def _counting(self, constraints: list[Constraint]) -> Constraint | None:
        """Mine counting: the open cells outside disjoint numbers hold the rest of the total."""
        lo, hi = self.lo, self.hi
        open_groups = [g for g in range(len(lo)) if lo[g] < hi[g]]
        left = self.total[1] - sum(lo[g] for g in range(len(lo)) if lo[g] == hi[g])
        used: set[int] = set()
        held = 0
        # Most mines per cell first: they leave the fewest for the rest.
        by_density = sorted(
            constraints, key=lambda c: (-c[1] / sum(self.sizes[g] for g in c[0]), c[0])
        )
        for groups, t in by_density:
            if t > 0 and used.isdisjoint(groups):
                used.update(groups)
                held += t
        outside = tuple(g for g in open_groups if g not in used)
        return (outside, left - held) if used and outside else None

    def settled(self) -> Deduction:
        safe: list[Cell] = []
        mines: list[Cell] = []
        for g, cells in enumerate(self.cells):
            if self.hi[g] == 0:
                safe += cells
            elif self.lo[g] == self.sizes[g]:
                mines += cells
        return Deduction(sorted(safe), sorted(mines))


def deduce(
    board: Board,
    cases: bool = False,
    first_safe: bool = False,
    deadline: Deadline | None = None,
) -> Deduction:
    """The cells the rules of this module settle on ``board``.

    Args:
        board: The position.
        cases: Also try one assumption per open group: a group that cannot hold a mine
            without a contradiction is safe. Costs one run of the rules per open group.
        first_safe: With ``cases``, make no assumption once a group is known safe (a player
            about to guess needs one safe cell, not all of them).
        deadline: The rules stop with :class:`~mscsp.errors.SolverLimitError` when it has
            passed; the assumptions stop quietly, keeping what they settled.

    Raises:
        InconsistentBoardError: The numbers or the mine total contradict each other.
        SolverLimitError: The deadline passed before the rules (without the assumptions)
            were done.
    """
    rules = _Rules(board, deadline)
    rules.close()
    if not cases or (first_safe and 0 in rules.hi):
        return rules.settled()
    for g in range(len(rules.sizes)):
        if rules.lo[g] > 0 or rules.hi[g] == 0:
            continue  # already known to hold a mine, or settled safe
        trial = rules.copy()
        trial.lo[g] = 1
        try:
            trial.close()
        except SolverLimitError:
            break  # out of time: what is settled so far stands
        except InconsistentBoardError:
            rules.hi[g] = 0
            rules.close()
            if first_safe:
                break
    return rules.settled()
