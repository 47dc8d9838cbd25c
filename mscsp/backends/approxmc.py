"""``approxmc``: approximate counts with PAC guarantees (ApproxMC) and sampled marginals.

For components too wide for any exact method. Every result is flagged approximate
(:attr:`ComponentCount.exact` is false, and the backend's :attr:`exact` is false).

* **Counts by mine total.** The component becomes the cell-level CNF shared with ``ganak``;
  the mine totals that occur are bracketed by two SAT searches (fewest and most mines, the
  same incremental search the ``sat`` backend decides with); each total ``k`` in between
  is counted by ApproxMC with "exactly ``k`` mines" added, projected on the cells. Each
  ``counts[k]`` is within a factor ``1 + epsilon`` of the truth with probability at least
  ``1 - delta`` (ApproxMC's guarantee; it counts exactly when there are few solutions).
* **Marginals.** Per total ``k``, ``samples`` near-uniform solutions with ``k`` mines from
  UniGen (near-uniform within ``1 + epsilon``); the share of them that mine a group's
  cell, times ``counts[k]``, estimates ``cell_counts[g][k]``. This error is statistical,
  about ``1 / (2 sqrt(samples))`` on a probability at worst.

Options: ``epsilon`` (default 0.8), ``delta`` (0.2), ``samples`` (300), ``seed`` (1).
"""

from __future__ import annotations

from ..constraints import Component, ComponentCount
from ..errors import InvalidInputError
from ..formats.cnf import cell_cnf
from .base import Backend
from .decision import decide_by_search
from .native import run_native

#: Default option values.
DEFAULTS: dict[str, float] = {"epsilon": 0.8, "delta": 0.2, "samples": 300, "seed": 1}


class ApproxmcBackend(Backend):
    """ApproxMC per mine total, UniGen samples for the per-group split (approximate); with a
    time limit, in a child process killed at it (see :mod:`~mscsp.backends.native`)."""

    name = "approxmc"
    extra = "approx"
    exact = False
    description = "approximate: ApproxMC (epsilon, delta) counts per mine total, UniGen marginals"
    requires = ("pyapproxmc", "pyunigen", "pysat.card", "pysat.solvers")
    distribution = "pyapproxmc"
    options_allowed = ("epsilon", "delta", "samples", "seed")

    def __init__(self, time_limit: float | None = None, max_solutions: int | None = None, **opts):
        super().__init__(time_limit, max_solutions, **opts)
        try:
            values = {k: float(opts.get(k, v)) for k, v in DEFAULTS.items()}
        except (TypeError, ValueError):
            raise InvalidInputError("approxmc options must be numbers") from None
        if not (values["epsilon"] > 0 and 0 < values["delta"] < 1 and values["samples"] >= 1):
            raise InvalidInputError("approxmc needs epsilon > 0, 0 < delta < 1, samples >= 1")
        self.epsilon, self.delta = values["epsilon"], values["delta"]
        self.samples, self.seed = int(values["samples"]), int(values["seed"])

    def count(self, component: Component) -> ComponentCount:
        options = (self.epsilon, self.delta, self.samples, self.seed)
        return run_native(
            approx_counts, component, *options, end=self._deadline(), on_limit=self._limit_error
        )


def approx_counts(
    component: Component, epsilon: float, delta: float, samples: int, seed: int
) -> ComponentCount:
    """The component's approximate counts and sampled marginals (see module doc)."""
    from pyapproxmc import Counter
    from pysat.card import CardEnc, EncType
    from pyunigen import Sampler

    from .sat import SatBackend

    n = component.n_cells
    clauses, top, first = cell_cnf(component)
    cells = list(range(1, n + 1))
    # Fewest and most mines: exact, by the sat backend's incremental search.
    span = decide_by_search(component, SatBackend()._finder(component, 0, None))
    counts = [0] * (n + 1)
    rows = [[0] * (n + 1) for _ in first]
    for k in range(span.fewest, span.most + 1):
        card = CardEnc.equals(cells, bound=k, top_id=top, encoding=EncType.seqcounter).clauses
        counter = Counter(seed=seed, epsilon=epsilon, delta=delta)
        counter.add_clauses(clauses)
        counter.add_clauses(card)
        cell_count, hashes = counter.count(cells)
        counts[k] = cell_count * 2**hashes
        if not counts[k]:
            continue
        sampler = Sampler(seed=seed, epsilon=epsilon, delta=delta)
        for clause in (*clauses, *card):
            sampler.add_clause(clause)
        _, _, found = sampler.sample(num=samples, sampling_set=cells)
        for g, v in enumerate(first):
            share = sum(v in sample for sample in found) / len(found)
            rows[g][k] = round(counts[k] * share)
    return ComponentCount(tuple(counts), tuple(tuple(r) for r in rows), exact=False)
