"""``mcmc``: Markov chain Monte Carlo over the layouts that keep every number and the total.

The state of a chain is a mine count per open group of the factor graph
(:func:`mscsp.estimators.bp.factor_graph`: exact propagation first) and, implied by the
total, the mines among the unconstrained cells. A state stands for ``prod C(size, x)``
cell layouts times ``C(free cells, free mines)``, so a chain whose stationary weights are
these samples cell layouts uniformly.

**Moves.** Each move is a block Gibbs update: a block of groups is grown from a random
number across neighbouring numbers (sometimes joined by a second, random number anywhere,
so that mines can move between parts of the frontier when no unconstrained cell can take
them), every assignment of the block that keeps each number's sum and leaves the
unconstrained cells between 0 and all of their mines is enumerated, and one is drawn with
probability proportional to its cell layouts. A swap of a mine between two cells of the
frontier, or between the frontier and the unconstrained cells, is one such assignment; so
only consistent layouts are ever visited and no move is rejected. A block with too many
assignments (over :data:`MAX_ASSIGNMENTS`, or :data:`MAX_NODES` partial ones visited) is
left as it is: the caps depend only on the state outside the block, so the chain keeps its
stationary distribution.

**Start.** Each chain starts from its own consistent layout: a short randomised
depth-first search over the groups (numbers checked as groups are set), else a
min-conflicts local search, then block moves that bring the total to the mines left. If
none is found within the time limit the estimator says so
(:class:`~mscsp.errors.SolverLimitError`).

**Estimate.** Several chains (seeds spawned from one ``seed``) run side by side, one sweep
each in turn; the first quarter of each is warm-up. A group's probability is the mean of
``x / size`` over the kept sweeps; the unconstrained cells are exchangeable, so theirs is
the mean of ``free mines / free cells``: the total is accounted for exactly. The split
R-hat of every group (and of the free cells) over the chains is computed and its largest
value reported (:attr:`McmcEstimator.report`). It stops at its time limit (checked before
every move) with the sweeps done so far; under a seed and without a limit it is
deterministic.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from ..board import Board
from ..errors import InconsistentBoardError, SolverLimitError
from ..runtime.deadline import Deadline
from .base import Estimator, EstimatorKind, whole_arg
from .bp import FactorGraph, factor_graph

#: Sweeps per chain when the spec gives no ``SWEEPS``.
DEFAULT_SWEEPS = 400
#: Most sweeps a spec may ask for: the trace holds every sweep of every chain.
MAX_SWEEPS = 1_000_000
#: Chains run side by side.
CHAINS = 4
#: Largest block of groups a move grows to.
MAX_BLOCK = 16
#: A block with more assignments than this is left unchanged by its move.
MAX_ASSIGNMENTS = 4096
#: Rounds of search for a start (each a depth-first and a min-conflicts search, each
#: round with twice the steps of the last) before it gives up.
ROUNDS = 16
#: A block whose enumeration visits more partial assignments than this is left unchanged.
MAX_NODES = 5_000
#: Sweeps of repair moves a start may take to meet the total (then it gives up).
REPAIR_SWEEPS = 2000


@dataclass(frozen=True)
class McmcReport:
    """How one MCMC run ended.

    Attributes:
        chains: Chains run.
        starts: Chains that found their own start (the rest copied one).
        sweeps: Sweeps per chain done (warm-up included); a sweep is one move per number.
        kept: Sweeps per chain averaged (after the warm-up).
        moves: Block moves made over all chains.
        rhat: Largest split R-hat over the groups and the free cells (1.0: nothing to mix).
        finished: Whether every sweep asked for ran (False: the time limit stopped it).
    """

    chains: int
    starts: int
    sweeps: int
    kept: int
    moves: int
    rhat: float
    finished: bool


class _Chains:
    """The factor graph in the lists the moves read, and the chains' states."""

    def __init__(self, graph: FactorGraph):
        self.sizes = graph.sizes.tolist()
        self.factors = [list(groups) for groups, _ in graph.factors]
        self.targets = [t for _, t in graph.factors]
        self.n_free, self.left = graph.n_free, graph.left
        self.firsts = [(int(cells[0, 0]), int(cells[0, 1])) for cells in graph.cells]
        self.of_group: list[list[int]] = [[] for _ in self.sizes]
        for f, groups in enumerate(self.factors):
            for g in groups:
                self.of_group[g].append(f)
        self.near = [
            sorted({h for g in groups for h in self.of_group[g]} - {f})
            for f, groups in enumerate(self.factors)
        ]
        self.log_free = [_log_comb(self.n_free, k) for k in range(self.n_free + 1)]
        self.log_ways = [[_log_comb(s, x) for x in range(s + 1)] for s in self.sizes]

    def start(self, rng: random.Random, deadline: Deadline) -> list[int]:
        """A state meeting every number (and often the total): rounds of a randomised
        depth-first search (it settles small frontiers at once, and proves a
        contradiction there) and a min-conflicts search (it scales to large loopy
        frontiers where depth-first search thrashes), each restarted afresh with twice
        the steps of the round before: both take heavy-tailed times, which restarts cut.

        Raises:
            InconsistentBoardError: A whole search ended without one.
            SolverLimitError: The time limit passed first.
        """
        for round_ in range(ROUNDS):
            found = self._search(rng, deadline, 256 << round_)
            if found is None:
                found = self._local_search(rng, deadline, (64 << round_) * len(self.sizes))
            if found is not None:
                return found
        raise SolverLimitError(
            f"mcmc found no consistent starting layout in {ROUNDS} rounds of search "
            "(the board may be inconsistent)"
        )

    def _local_search(self, rng: random.Random, deadline: Deadline, steps: int) -> list[int] | None:
        """Min-conflicts search for a state meeting every number and the total (for large
        loopy frontiers where depth-first search thrashes): from a random state, a group
        of a number that is off (or any group while only the total is) takes the count
        that puts its numbers and the total least off, or with chance 1/10 a random one.

        Returns ``None`` when ``steps`` steps found none.

        Raises:
            SolverLimitError: The time limit passed.
        """
        x = [rng.randint(0, s) for s in self.sizes]
        sums = [sum(x[g] for g in groups) for groups in self.factors]
        off = [f for f in range(len(self.factors)) if sums[f] != self.targets[f]]
        where = {f: i for i, f in enumerate(off)}
        free = self.left - sum(x)
        for step in range(steps):
            if not off and not self.excess(free):
                return x
            if step % 256 == 0:
                _check(deadline, "found no consistent starting layout")
            if off:
                g = rng.choice(self.factors[off[rng.randrange(len(off))]])
            else:
                g = rng.randrange(len(self.sizes))
            old = x[g]
            if rng.random() < 0.1:
                v = rng.randint(0, self.sizes[g])
            else:
                costs = []
                for v in range(self.sizes[g] + 1):
                    cost = self.excess(free + old - v)
                    for f in self.of_group[g]:
                        cost += abs(sums[f] - old + v - self.targets[f])
                    costs.append(cost)
                best = min(costs)
                v = rng.choice([v for v, c in enumerate(costs) if c == best])
            x[g] = v
            free += old - v
            for f in self.of_group[g]:
                sums[f] += v - old
                bad = sums[f] != self.targets[f]
                if bad and f not in where:
                    where[f] = len(off)
                    off.append(f)
                elif not bad and f in where:  # swap it with the last, then drop it
                    i, last = where.pop(f), off.pop()
                    if last != f:
                        off[i], where[last] = last, i
        return None

    def _search(self, rng: random.Random, deadline: Deadline, budget: int) -> list[int] | None:
        """One depth-first search of :meth:`start` (``None``: it took ``budget`` steps)."""
        order = self._search_order(rng)
        need = list(self.targets)
        room = [sum(self.sizes[g] for g in groups) for groups in self.factors]
        x = [0] * len(self.sizes)
        stack: list[tuple[int, list[int]]] = []
        depth = 0
        tries = 0
        while depth < len(order):
            g = order[depth]
            if len(stack) == depth:  # first visit: the values to try, in random order
                values = list(range(self.sizes[g] + 1))
                rng.shuffle(values)
                stack.append((g, values))
                for f in self.of_group[g]:
                    room[f] -= self.sizes[g]
            else:  # back from a dead end: undo this group's value
                v = x[g]
                for f in self.of_group[g]:
                    need[f] += v
                x[g] = 0
            values = stack[-1][1]
            while values:
                v = values.pop()
                if self._fits(g, v, need, room):
                    break
            else:  # no value fits: back up
                stack.pop()
                for f in self.of_group[g]:
                    room[f] += self.sizes[g]
                depth -= 1
                if depth < 0:
                    raise InconsistentBoardError(
                        "no placement of the mines left satisfies the numbers"
                    )
                continue
            x[g] = v
            for f in self.of_group[g]:
                need[f] -= v
            depth += 1
            tries += 1
            if tries % 256 == 0:
                _check(deadline, "found no consistent starting layout")
            if tries > budget:
                return None
        return x

    def _fits(self, g: int, v: int, need: list[int], room: list[int]) -> bool:
        """Whether group ``g`` may hold ``v`` mines given the groups set before it (its
        numbers only: the total is met afterwards, by :meth:`repair`)."""
        for f in self.of_group[g]:
            left = need[f] - v
            if left < 0 or left > room[f]:
                return False
        return True

    def _search_order(self, rng: random.Random) -> list[int]:
        """Groups in a sweep across the board: by the row, or the column, of their first
        cell, forwards or backwards (drawn at random). A sweep keeps the groups set but not
        yet closed by all their numbers to about one line of the board, so a dead end is
        found soon after the choice that caused it."""
        by_column = rng.random() < 0.5
        keys = [(c, r) if by_column else (r, c) for r, c in self.firsts]
        order = sorted(range(len(self.sizes)), key=keys.__getitem__)
        return order[::-1] if rng.random() < 0.5 else order

    def block(self, rng: random.Random) -> list[int]:
        """The groups a move resamples: grown from a random number over its neighbours."""
        if not self.factors:
            return [rng.randrange(len(self.sizes))]
        target = rng.randint(1, MAX_BLOCK)
        f = rng.randrange(len(self.factors))
        chosen = dict.fromkeys(self.factors[f])
        visited = {f}
        frontier = list(self.near[f])
        while len(chosen) < target and frontier:
            f = frontier.pop(rng.randrange(len(frontier)))
            if f in visited:
                continue
            visited.add(f)
            chosen.update(dict.fromkeys(self.factors[f]))
            frontier.extend(h for h in self.near[f] if h not in visited)
        if rng.random() < 0.25:  # a far number too: mines may move between parts
            chosen.update(dict.fromkeys(self.factors[rng.randrange(len(self.factors))]))
        return list(chosen)

    def excess(self, free: int) -> int:
        """How far ``free`` (mines left for the unconstrained cells) is from fitting them."""
        return max(-free, free - self.n_free, 0)

    def repair(self, x: list[int], rng: random.Random, deadline: Deadline) -> None:
        """Block moves on ``x`` (it meets every number) until it meets the total too.

        Raises:
            SolverLimitError: Still off after :data:`REPAIR_SWEEPS` sweeps, or the time
                limit passed first.
        """
        free = self.left - sum(x)
        for i in range(REPAIR_SWEEPS * max(len(self.factors), 1)):
            if not self.excess(free):
                return
            if i % 16 == 0:
                _check(deadline, "found no layout meeting the numbers and the total")
            free = self.move(x, free, rng, repair=True)
        if self.excess(free):
            raise SolverLimitError(
                f"mcmc found no layout meeting the numbers and the total in {REPAIR_SWEEPS} "
                "sweeps of repair (the board may be inconsistent)"
            )

    def move(self, x: list[int], free: int, rng: random.Random, repair: bool = False) -> int:
        """One block Gibbs move on ``x`` (in place); returns the new free mines.

        With ``repair``, ``x`` may miss the total: the move then takes an assignment that
        brings it closest (by :meth:`excess`), ties weighted by their layouts."""
        block = self.block(rng)
        touching = sorted({f for g in block for f in self.of_group[g]})
        slot = {f: i for i, f in enumerate(touching)}
        need = [0] * len(touching)
        room = [0] * len(touching)
        for g in block:
            for f in self.of_group[g]:
                need[slot[f]] += x[g]  # a consistent state: the block keeps these sums
                room[slot[f]] += self.sizes[g]
        old = sum(x[g] for g in block)
        lo, hi = old - (self.n_free - free), old + free  # block mines keeping 0..n_free free
        if repair:
            lo, hi = -math.inf, math.inf
        spare = sum(self.sizes[g] for g in block)
        found: list[tuple[list[int], float]] = []
        values = [0] * len(block)
        slots = [[slot[f] for f in self.of_group[g]] for g in block]

        nodes = [0]

        def walk(i: int, total: int, spare: int, weight: float) -> bool:
            nodes[0] += 1
            if len(found) > MAX_ASSIGNMENTS or nodes[0] > MAX_NODES:
                return False
            if i == len(block):
                if repair:
                    found.append((list(values), weight - 1e3 * self.excess(free + old - total)))
                elif lo <= total <= hi:
                    found.append((list(values), weight + self.log_free[free + old - total]))
                return True
            g = block[i]
            size = self.sizes[g]
            spare -= size
            for v in range(size + 1):
                if total + v > hi:
                    break
                if total + v + spare < lo:
                    continue
                ok = True
                for s in slots[i]:
                    need[s] -= v
                    room[s] -= size
                for s in slots[i]:
                    if need[s] < 0 or need[s] > room[s]:
                        ok = False
                if ok:
                    values[i] = v
                    if not walk(i + 1, total + v, spare, weight + self.log_ways[g][v]):
                        ok = None
                for s in slots[i]:
                    need[s] += v
                    room[s] += size
                if ok is None:
                    return False
            return True

        if not walk(0, 0, spare, 0.0) or not found:
            return free
        top = max(w for _, w in found)
        pick = rng.choices(range(len(found)), [math.exp(w - top) for _, w in found])[0]
        chosen = found[pick][0]
        for g, v in zip(block, chosen, strict=True):
            x[g] = v
        return free + old - sum(chosen)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _check(deadline: Deadline, what: str) -> None:
    if deadline.remaining() == 0.0:
        raise SolverLimitError(f"mcmc {what} within the time limit of {deadline.seconds} s")


def split_rhat(trace: np.ndarray) -> float:
    """The largest split R-hat over the units of ``trace`` (chains, draws, units).

    Each chain is cut in two halves; a unit constant within every half scores 1.0 when the
    halves agree and infinity when they do not.
    """
    chains, draws, _ = trace.shape
    half = draws // 2
    if half < 2:
        return math.inf
    parts = np.concatenate([trace[:, :half], trace[:, half : 2 * half]])
    means = parts.mean(axis=1)
    within = parts.var(axis=1, ddof=1).mean(axis=0)
    between = half * means.var(axis=0, ddof=1)
    pooled = (half - 1) / half * within + between / half
    with np.errstate(divide="ignore", invalid="ignore"):
        rhat = np.where(within > 0, np.sqrt(pooled / within), np.where(between > 0, np.inf, 1.0))
    return float(rhat.max(initial=1.0))


def _starts(
    state: _Chains, rngs: list[random.Random], deadline: Deadline
) -> tuple[list[list[int]], int]:
    """A consistent state per chain, each searched for with its own generator, and how
    many were found (the others are copies).

    Under a time limit each chain's search gets an equal share of half the time left; a
    chain whose search runs out starts from a copy of another chain's start (the split
    R-hat is then weaker evidence of mixing: :attr:`McmcReport.starts` says how many
    starts were found).

    Raises:
        SolverLimitError: No chain found a start in time.
    """
    found: list[list[int] | None] = []
    for i, rng in enumerate(rngs):
        left = deadline.remaining()
        share = None if left is None else left / (2 * (len(rngs) - i))
        own = Deadline(share)
        try:
            x = state.start(rng, own)
            state.repair(x, rng, own)
        except SolverLimitError:
            if deadline.remaining() == 0.0 or left is None:
                raise
            x = None
        found.append(x)
    starts = [x for x in found if x is not None]
    if not starts:
        raise SolverLimitError(
            f"mcmc found no consistent starting layout within the time limit of "
            f"{deadline.seconds} s"
        )
    xs = [list(x) if x is not None else list(starts[i % len(starts)]) for i, x in enumerate(found)]
    return xs, len(starts)


def run_mcmc(
    graph: FactorGraph,
    sweeps: int = DEFAULT_SWEEPS,
    chains: int = CHAINS,
    seed: int = 0,
    deadline: Deadline | None = None,
) -> tuple[np.ndarray, float, McmcReport]:
    """MCMC over the layouts of ``graph``: each open group's mine probability, the free
    cells' and the report.

    Raises:
        InconsistentBoardError: No layout fits (found while searching for a start).
        SolverLimitError: The time limit passed before every chain had a start and one
            sweep.
    """
    deadline = deadline or Deadline(None)
    state = _Chains(graph)
    rngs = [
        random.Random(int(s.generate_state(1)[0]))
        for s in np.random.SeedSequence(seed).spawn(chains)
    ]
    xs, starts = _starts(state, rngs, deadline)
    frees = [graph.left - sum(x) for x in xs]
    per_sweep = max(len(state.factors), 1)
    sizes = graph.sizes.astype(float)
    # The trace grows as sweeps finish (doubling), so memory follows the work done, not
    # the sweeps asked for: a clock that stops a run early leaves no unused rows behind.
    trace = np.zeros((chains, min(sweeps, 1024), len(sizes) + 1))
    done, moves, finished = 0, 0, True
    while done < sweeps:
        if done == trace.shape[1]:
            more = np.zeros((chains, min(done, sweeps - done), len(sizes) + 1))
            trace = np.concatenate((trace, more), axis=1)
        for c in range(chains):
            for _ in range(per_sweep):
                if deadline.remaining() == 0.0:
                    finished = False
                    break
                frees[c] = state.move(xs[c], frees[c], rngs[c])
                moves += 1
            if not finished:
                break
            trace[c, done, :-1] = np.array(xs[c]) / sizes
            trace[c, done, -1] = frees[c] / graph.n_free if graph.n_free else 0.0
        if not finished:
            break
        done += 1
    if done == 0:
        raise SolverLimitError(
            f"mcmc ran no whole sweep within the time limit of {deadline.seconds} s"
        )
    warm = done // 4
    kept = trace[:, warm:done]
    report = McmcReport(chains, starts, done, done - warm, moves, split_rhat(kept), finished)
    mean = kept.mean(axis=(0, 1))
    return mean[:-1], float(mean[-1]), report


class McmcEstimator(Estimator):
    """The chains' mean; :attr:`report` describes the last board's run.

    Args:
        kind: Its registry entry.
        sweeps: Sweeps per chain.
        time_limit: Seconds per board (the chains stop there).
        seed: Seeds every chain (spawned from it).
        chains: Chains run side by side.
    """

    def __init__(
        self,
        kind: EstimatorKind,
        sweeps: int,
        time_limit: float | None = None,
        seed: int = 0,
        chains: int = CHAINS,
    ):
        super().__init__(kind, f"{kind.name}:{sweeps}")
        self.sweeps, self.time_limit, self.seed, self.chains = sweeps, time_limit, seed, chains
        self.report: McmcReport | None = None

    def estimate(self, board: Board) -> np.ndarray:
        deadline = Deadline(self.time_limit)
        graph = factor_graph(board, deadline)
        if len(graph.sizes) == 0:  # nothing open: the free cells share what is left
            self.report = McmcReport(self.chains, 0, 0, 0, 0, 1.0, True)
            return graph.paint(board, np.zeros(0), graph.left / max(graph.n_free, 1))
        group_p, free_p, self.report = run_mcmc(
            graph, self.sweeps, self.chains, self.seed, deadline
        )
        return graph.paint(board, group_p, free_p)


def build(kind: EstimatorKind, arg: str, time_limit: float | None) -> McmcEstimator:
    """``mcmc`` or ``mcmc:SWEEPS``."""
    return McmcEstimator(kind, whole_arg(kind, arg, DEFAULT_SWEEPS, MAX_SWEEPS), time_limit)


KIND = EstimatorKind(
    name="mcmc",
    family="approximate",
    exact=False,
    extra=None,
    description=f"{CHAINS} chains of block Gibbs moves over consistent layouts, split R-hat "
    f"(mcmc:SWEEPS per chain, default {DEFAULT_SWEEPS}, at most {MAX_SWEEPS})",
    arg="SWEEPS",
    batches=False,
    available=lambda: True,
    build=build,
    # (docs/estimators.md, "Measured on the hard corpus": 2 s a position, defaults)
    measured=(
        ("lattice", 0.0492),
        ("band", 0.0298),
        ("toollib", 0.0012),
        ("strip", 0.0282),
        ("dense", 0.0005),
        ("large", 0.0),
    ),
)
