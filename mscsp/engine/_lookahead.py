"""The compiled guess of ``csp-lookahead`` and ``best`` (numba; loaded with
:mod:`mscsp.engine._game_loop`).

:func:`guess` is :meth:`mscsp.players.lookahead.LookaheadPlayer.guess` on the engine's
arrays, for the position the engine stopped at: the same candidates (living cells near the
safest, a few unconstrained representatives), the same probes (:func:`mscsp.engine._probe.
probe_cells`) and the same choice (the best score, then a safer cell the chosen one implies
safe or shares as the next click). Where a probe needs Python (a component too large for
the kernel), it hands the whole guess back. With ``best``'s rules on (:data:`RULES`), it
hands back every position where one of ``best``'s rules before its look-ahead may apply
(:func:`rules_may_apply`); in the others ``best`` guesses as ``csp-lookahead`` does.

Exact odds order the candidates where the kernel counted the position in 64 bits; where the
counts needed Python integers, its floating-point map does (within about 1e-14 of the exact
odds), so two cells whose exact odds differ by less than that may be ordered apart from
the Python player.
"""

from __future__ import annotations

import numpy as np

from mscsp.board import COVERED, FLAG

from ._condition import decode_base
from ._jit import njit
from ._kernel import TIE
from ._kernel_status import APPROX, DONE, SURE_MINE
from ._probe import EPS, probe_cells, weight_of
from ._regions import _is_dead, boxes, fewest_covered, isolated_labels, pairs

# The look-ahead's settings, in the array the engine is given (``params``).
TOLERANCE = 0
WEIGHT = 1  # the score's weight of progress
BLEND = 2  # the next click's weight of the second-safest cell
RULES = 3  # 1: best's rules (:func:`rules_may_apply`); 0: csp-lookahead, none
LAYOUTS = 4  # best's endgame search runs at most at this many layouts
#: How near 1/2 a cell's floating-point odds make it a possible 50/50 (exact halves are
#: within about 1e-14 of it).
HALF = 1e-9
#: Unconstrained cells probed as representatives of all of them (as ``best``'s).
REPRESENTATIVES = 3
#: :func:`guess`'s answer where Python must guess.
PYTHON = -1
#: Positions with at most this many cells not covered (numbers and flags) are remembered
#: with their guess (``memo``): every game starts in a few of them.
MEMO_OPEN = 16
#: Slots of the memory (positions remembered, at most three quarters of them).
MEMO_SLOTS = 4096


@njit(cache=True)
def _candidates(cells, rows, cols, safety, free, bound, mines):
    """``LookaheadPlayer.candidates``: the living constrained cells at least ``bound``
    safe, safest first (row-major among equals), with a few unconstrained representatives
    where they are that safe; else every living cell; else the safest constrained cell.
    Empty where nothing is covered (never in a guess)."""
    n = rows * cols
    ranked = np.flatnonzero((safety >= 0.0) & ~free)
    ranked = ranked[np.argsort(-safety[ranked], kind="mergesort")]  # (stable: row-major)
    living = np.empty(len(ranked), dtype=np.int64)
    n_living = 0
    for k in ranked:
        if not _is_dead(cells, mines, rows, cols, k):
            living[n_living] = k
            n_living += 1
    living = living[:n_living]
    some_free = False
    free_safety = -1.0
    for i in range(n):
        if free[i] and safety[i] >= 0.0:
            some_free = True
            free_safety = safety[i]
    reps = np.empty(REPRESENTATIVES, dtype=np.int64)
    n_reps = 0
    if some_free:
        n_reps = fewest_covered(cells, free & (safety >= 0.0), rows, cols, reps)
    chosen = living[safety[living] >= bound]
    if some_free and free_safety >= bound:
        at = 0
        for k in chosen:
            at += safety[k] > free_safety
        return np.concatenate((chosen[:at], reps[:n_reps], chosen[at:]))
    if len(chosen):
        return chosen
    if n_living or n_reps:
        return np.concatenate((living, reps[:n_reps]))
    return ranked[:1]


@njit(cache=True)
def _open_corner(free, rows, cols, cell):
    """Whether ``cell`` is a corner of the board whose 3 x 3 block is all unconstrained
    covered cells (``free``)."""
    r, c = cell // cols, cell % cols
    if rows < 6 or cols < 6 or (r != 0 and r != rows - 1) or (c != 0 and c != cols - 1):
        return False
    for dr in range(3):
        for dc in range(3):
            rr = r + dr if r == 0 else r - dr
            cc = c + dc if c == 0 else c - dc
            if not free[rr * cols + cc]:
                return False
    return True


@njit(cache=True)
def _without_twins(which, free, rows, cols):
    """``which`` without the open corners (:func:`_open_corner`) after the first. Probing
    one open corner is probing any: the board around each is the same up to a reflection,
    and nothing within reach of its number differs, so every outcome is as likely, as
    safe after and as informative; their scores tie (to rounding far below the look-ahead's
    ties), and a tie goes to the first."""
    keep = np.ones(len(which), dtype=np.bool_)
    seen = False
    for j in range(len(which)):
        if _open_corner(free, rows, cols, which[j]):
            keep[j] = not seen
            seen = True
    return which[keep]


@njit(cache=True)
def _memo_key(cells):
    """The position's key: how many cells are not covered, then each as ``16 * cell +
    code + 2``; empty where more than :data:`MEMO_OPEN` are."""
    key = np.zeros(MEMO_OPEN + 1, dtype=np.int64)
    for i in range(len(cells)):
        if cells[i] != COVERED:
            key[0] += 1
            if key[0] > MEMO_OPEN:
                return key[:0]
            key[key[0]] = 16 * i + np.int64(cells[i]) + 2  # (int8 cells: no wrap-around)
    return key


@njit(cache=True)
def _memo_slot(keys, key):
    """The slot of ``key`` in the memory (open addressing): where it is, or the empty slot
    where it goes (-1: the memory is full)."""
    h = np.int64(1469598103934665603)  # (FNV-1a; int64 products wrap around)
    for q in range(key[0] + 1):
        h = (h ^ key[q]) * np.int64(1099511628211)
    slot = (h & np.int64(0x7FFFFFFFFFFFFFFF)) % len(keys)
    for _ in range(len(keys)):
        if keys[slot, 0] == 0:
            return slot
        same = True
        for q in range(key[0] + 1):
            same &= keys[slot, q] == key[q]
        if same:
            return slot
        slot = (slot + 1) % len(keys)
    return -1


@njit(cache=True)
def guess(exact, scratch, known, rows, cols, mines, looking, probe_scratch):
    """The look-ahead's guess (a flat cell) where the engine stopped at one, or
    :data:`PYTHON`.

    Args:
        exact: Whether the kernel's answer in ``scratch`` is exact (``DONE``; else its
            floating-point map, ``APPROX``).
        scratch: The engine's arrays (:func:`mscsp.engine._game_loop.play`), the kernel's answer for
            the position and the board it solved.
        known: The proven mines, completed here from the answer.
        looking: The look-ahead's settings (:data:`TOLERANCE`, ...) and its memory of the
            guesses in positions with few cells uncovered (keys and cells, see
            :func:`_memo_key`), one per board size and mine count.
        probe_scratch: The kernel's arrays for the probes (:func:`mscsp.engine.compiled.scratch`).
    """
    params, keys, remembered = looking
    out, probs, free_cells, odds, flagged = scratch[:5]
    n = rows * cols
    cells = flagged.copy()
    for i in range(n):
        if cells[i] == COVERED:
            proven = odds[i] == odds[n + i] if exact else (odds[n + i] & SURE_MINE) != 0
            if proven:
                known[i] = 1
                cells[i] = FLAG
    # (The guess depends on the position alone: the flagged board, the mines, the settings.
    # A position remembered passed the rules' test, which depends on it alone too.)
    key = _memo_key(cells)
    slot = _memo_slot(keys, key) if len(key) else -1
    if slot >= 0 and keys[slot, 0]:
        return remembered[slot]
    now, free = probs.reshape(-1), free_cells.reshape(-1)
    if params[RULES] and rules_may_apply(exact, out, now, cells, rows, cols, params[LAYOUTS]):
        return PYTHON
    cell = _choose(exact, out, now, odds, free, cells, rows, cols, mines, params, probe_scratch)
    if slot >= 0 and cell != PYTHON and 4 * _memo_used(keys) < 3 * len(keys):
        keys[slot] = key
        remembered[slot] = cell
    return cell


@njit(cache=True)
def rules_may_apply(exact, out, now, cells, rows, cols, layouts):
    """Whether one of ``best``'s rules before its look-ahead may apply to the position
    (``cells``, its proven mines flagged; ``now``, its probability map; ``out``, the
    kernel's answer, exact or not): its endgame search (at most ``layouts`` layouts left),
    an isolated region, a pseudo 50/50 (any pair or box pattern), a looming 50/50 (a pair
    with one soft outer cell, both at 1/2) or a forced one (a cell at 1/2 whose covered
    neighbours are all at 1/2). A cheap test that may say yes where no rule applies, never
    no where one does (:class:`mscsp.players.best.BestPlayer` then guesses in Python)."""
    x, e = weight_of(DONE if exact else APPROX, out)
    if x * 2.0 ** min(e, 1100) <= layouts * (1.0 + 1e-9) + 1.0:  # (x * 2**e; inf past 2**1024)
        return True
    n = rows * cols
    if isolated_labels(cells, rows, cols, np.empty(n, dtype=np.int64)):
        return True
    found = np.empty((2 * n, 2), dtype=np.int64)
    if pairs(cells, rows, cols, 0, found) or boxes(cells, rows, cols, np.empty(n, np.int64)):
        return True
    half = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        half[i] = cells[i] == COVERED and abs(now[i] - 0.5) < HALF
    for j in range(pairs(cells, rows, cols, 1, found)):
        if half[found[j, 0]] and half[found[j, 1]]:
            return True
    for i in range(n):
        if half[i]:
            alone = True
            r, c = i // cols, i % cols
            for rr in range(max(r - 1, 0), min(r + 2, rows)):
                for cc in range(max(c - 1, 0), min(c + 2, cols)):
                    k = rr * cols + cc
                    alone &= k == i or cells[k] != COVERED or half[k]
            if alone:
                return True
    return False


@njit(cache=True)
def _memo_used(keys):
    """Slots of the memory in use (counted at each store: stores are few)."""
    used = 0
    for slot in range(len(keys)):
        used += keys[slot, 0] != 0
    return used


@njit(cache=True)
def _float_blurred(safety, bound, top):
    """Whether the floating-point map may order the cells that matter otherwise than
    their exact odds do: two covered cells of unequal safety within :data:`TIE` (relative)
    of each other, at or above the candidates' ``bound``, or one just below it. The map's
    rounding differs from one computation to another (compiled or not), while its cells of
    one class share one value (see :func:`_choose`): unequal values that close may be equal
    odds, whose order (the candidates, and the first among tied probes) exact odds decide."""
    blur = TIE * top
    near = np.sort(safety[safety >= bound - blur])
    for k in range(len(near)):
        if near[k] < bound or (k and 0.0 < near[k] - near[k - 1] <= blur):
            return True
    return False


@njit(cache=True)
def _choose(exact, out, now, odds, free_cells, cells, rows, cols, mines, params, probe_scratch):
    """:func:`guess` on the board ``cells`` with its proven mines flagged (``now``: the
    probability map, ``free_cells``: the cells next to no number)."""
    n = rows * cols
    free = free_cells.copy()
    safety = np.full(n, -1.0)
    top = -1.0
    mines_now = np.zeros(n, dtype=np.bool_)
    # On the floating-point map, cells the kernel found to have exactly equal odds (one
    # class, ``odds[i]``) take one value, so that they tie as they do on exact odds.
    shared = np.full(n + 1, -1.0)
    for i in range(n):
        if cells[i] == COVERED:
            safety[i] = 1.0 - now[i]
            if not exact and odds[i] >= 0:
                if shared[odds[i]] < 0.0:
                    shared[odds[i]] = safety[i]
                safety[i] = shared[odds[i]]
            top = max(top, safety[i])
            mines_now[i] = now[i] == 1.0
        else:
            free[i] = False
            mines_now[i] = cells[i] == FLAG
    bound = (1.0 - params[TOLERANCE]) * top
    if not exact and _float_blurred(safety, bound, top):
        return PYTHON
    which = _candidates(cells, rows, cols, safety, free, bound, mines_now)
    if len(which) == 0:
        return PYTHON
    which = _without_twins(which, free, rows, cols)
    if len(which) == 1 and top <= safety[which[0]] + EPS:
        # A lone candidate that nothing is safer than is played whatever its probe says:
        # the rules that could put another cell first want a safer one.
        return which[0]
    x, e = weight_of(DONE if exact else APPROX, out)
    found = np.empty((len(which), 5))
    implied = np.empty((len(which), n), dtype=np.bool_)
    weight, blend = params[WEIGHT], params[BLEND]
    base = decode_base(cells, mines, out)
    done, _ = probe_cells(
        cells, rows, cols, mines, which, np.ones(len(which)), now, x, e, np.nan, 0.0, weight,
        blend, found, implied, probe_scratch, base, True,
    )  # fmt: skip
    if done < len(which):
        return PYTHON  # (Python probes the cell the kernel handed back)
    chosen = -1
    score = 0.0
    for j in range(len(which)):
        if found[j, 2] and found[j, 3] > 1:  # complete, and living
            value = found[j, 0] + weight * found[j, 1]
            if chosen < 0 or value > score + EPS:
                chosen, score = j, value
    if chosen < 0:  # only dead cells: the first
        return which[0]
    cell = which[chosen]
    # A safer cell that the chosen one being safe implies safe goes first, the safest
    # (row-major among equals); else the chosen click's one safest next cell, if safer.
    safer = -1
    for i in range(n):
        better = implied[chosen, i] and i != cell and safety[i] > safety[cell] + EPS
        if better and (safer < 0 or safety[i] > safety[safer]):
            safer = i
    if safer >= 0:
        return safer
    following = int(found[chosen, 4])
    if following >= 0 and safety[following] > safety[cell] + EPS:
        return following
    return cell
