"""The compiled probe behind ``best``'s look-ahead (numba; loaded by :mod:`mscsp.engine.compiled`).

:func:`probe` is :meth:`mscsp.players.best.BestPlayer.probe` for one cell, turn for turn:
for every number the cell could show (likeliest first), the outcome is counted by
conditioning the position's count (:mod:`mscsp.engine._condition`; else the outcome's board is
solved by the kernel, :func:`mscsp.engine._kernel.solve_flat`, the probability map in floating
point where exact counts would need Python integers), and the next click's safety is read
from it (:func:`_next_click`, ``BestPlayer.next_click``). Each outcome's probability is the ratio
of its weight to the position's, both in floating point with their binary exponents apart:
within about 1e-14 of the exact ratio, below the ties ``best`` allows (1e-12). Where the
kernel hands a position back (a component too large), the whole probe goes back to Python.
"""

from __future__ import annotations

import math

import numpy as np

from mscsp.board import COVERED, FLAG

from ._condition import condition, count_outcome, decode_base, fits, outcome_groups, outcome_map
from ._jit import njit
from ._kernel import solve_flat
from ._kernel_status import APPROX, DONE, FLOAT_MAP, INCONSISTENT, SURE_MINE, SURE_SAFE
from ._regions import _is_dead

_DR = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)
_DC = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)
#: Scores closer than this are ties (``mscsp.players.best._EPS``).
EPS = 1e-12
#: :func:`probe`'s status: done, or Python must probe this cell.
PROBED = 0
HANDED_BACK = 1
RESOLVE = 2


@njit(cache=True)
def _scaled(x, e):
    """``x * 2**e`` as a mantissa in [0.5, 1) and an exponent (exact)."""
    m, shift = math.frexp(x)
    return m, e + shift


@njit(cache=True)
def _binomials(n, lo, hi):
    """``comb(n, k)`` for ``k`` in ``lo..hi`` as mantissas and exponents (``x * 2**e``),
    by products of ratios: each within about ``(n + hi) * 1e-16`` (relative) of the exact
    value, where logarithms of factorials would lose about 1e-13."""
    count = hi - lo + 1
    mant = np.empty(count)
    expo = np.empty(count, dtype=np.int64)
    x, e = 1.0, 0
    for j in range(1, lo + 1):
        x, e = _scaled(x * (n - lo + j) / j, e)
    for k in range(lo, hi + 1):
        mant[k - lo], expo[k - lo] = x, e
        x, e = _scaled(x * (n - k) / (k + 1), e)
    return mant, expo


@njit(cache=True)
def _times_binomial(x, e, n, k):
    """``x * 2**e`` times ``comb(n, k)``, as :func:`_scaled` gives it."""
    mant, expo = _binomials(n, k, k)
    return _scaled(x * mant[0], e + expo[0])


@njit(cache=True)
def _mixed(every, e, counts):
    """``every * 2**e`` (layouts by mines) convolved with a component's ``counts`` by mines,
    scaled to a largest term in [0.5, 1) with the exponent kept apart."""
    mixed = np.zeros(len(every) + len(counts) - 1)
    for a in range(len(every)):
        for b in range(len(counts)):
            mixed[a + b] += every[a] * counts[b]
    _, shift = math.frexp(mixed.max())
    return mixed * 2.0**-shift, e + shift  # (exact)


@njit(cache=True)
def _with_free(x, e, every, n_free, left):
    """``x * 2**e`` times the layouts of the components (``every``, by mines) with the
    ``left`` mines they leave among the ``n_free`` cells next to no number."""
    lo = max(left - len(every) + 1, 0)
    hi = min(left, n_free)
    if lo > hi:
        return 0.0, 0
    mant, expo = _binomials(n_free, lo, hi)
    top = expo.max()
    weight = 0.0
    for k in range(lo, hi + 1):
        weight += every[left - k] * math.ldexp(mant[k - lo], int(expo[k - lo] - top))
    return _scaled(x * weight, e + top)


@njit(cache=True)
def weight_of(status, out):
    """The weight (layouts) of the kernel's answer in ``out`` as ``x * 2**e``.

    The groups fixed at some but not all of their cells count ``comb(size, mines)`` each;
    on :data:`DONE` the rest is the kernel's exact weight, else the components' counts
    (written in ``out``, see :func:`mscsp.engine.compiled.decode`) combined with the cells next to
    no number, in floating point with the binary exponent kept apart (relative error about
    1e-14).
    """
    x, e = 1.0, 0
    i = 4
    for _ in range(out[3]):  # groups fixed at neither none nor all of their cells
        x, e = _times_binomial(x, e, out[i + 1], out[i])
        i += 3 + out[i + 2]
    if status == DONE:
        return _scaled(x * out[2], e)
    for _ in range(2):  # the cells proven safe, then the proven mines
        i += 1 + out[i]
    n_comp = out[i]
    i += 1
    every = np.ones(1)
    for _ in range(n_comp):
        m = out[i]
        i += 1 + m
        n_cons = out[i]
        i += 1
        for _ in range(n_cons):
            i += out[i] + 2
        length = out[i]
        i += 1
        every, e = _mixed(every, e, out[i : i + length])
        i += length * (m + 1)
        for _ in range(m):
            i += out[i] + 2
    return _with_free(x, e, every, out[i], out[2])


@njit(cache=True)
def _next_click(cells, rows, cols, probs, sure_mine, free, blend):
    """``BestPlayer.next_click``: the blended safety of the next click, whether a living
    cell is certainly safe, and the single safest living cell (-1: none, tied or free)."""
    n = len(cells)
    mines = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        mines[i] = cells[i] == FLAG or (cells[i] == COVERED and probs[i] == 1.0)
    values = np.empty(n + 2)
    where = np.empty(n + 2, dtype=np.int64)
    count = 0
    n_free = 0
    fallback = 0.0
    for i in range(n):
        if cells[i] != COVERED or sure_mine[i]:
            continue
        value = 1.0 - probs[i]
        fallback = max(fallback, value)
        if free[i]:
            n_free += 1
            if n_free > 2:  # (free cells count twice at most: all alike, always living)
                continue
        values[count] = value
        where[count] = -1 if free[i] else i
        count += 1
    order = np.argsort(-values[:count], kind="mergesort")
    first = second = 0.0
    cell = -1
    living = 0
    for q in order:
        k = where[q]
        if k < 0 or not _is_dead(cells, mines, rows, cols, k):
            if living == 0:
                first, cell = values[q], k
            else:
                second = values[q]
            living += 1
            if living == 2:
                break
    if living == 0:
        return (fallback if fallback else 1.0), False, -1
    if living == 1:
        second = first
    elif not second < first - EPS:
        cell = -1
    return (1.0 - blend) * first + blend * second, first == 1.0, cell


@njit(cache=True)
def _numbers(cells, rows, cols, cell, now):
    """The numbers ``cell`` could show, likeliest first: nearest the expected number (a
    stable sort, as Python's)."""
    r, c = cell // cols, cell % cols
    known = 0
    open_ = 0
    expected = 0.0
    for d in range(8):
        rr, cc = r + _DR[d], c + _DC[d]
        if 0 <= rr < rows and 0 <= cc < cols:
            k = rr * cols + cc
            if cells[k] == FLAG:
                known += 1
            elif cells[k] == COVERED:
                open_ += 1
                expected += now[k]
    expected += known
    values = np.arange(known, known + open_ + 1)
    distance = np.abs(values - expected)
    return values[np.argsort(distance, kind="mergesort")]


@njit(cache=True)
def _outcome_weight(base, merged, counts, last, free_flat):
    """The weight of an outcome counted by conditioning (:func:`mscsp.engine._condition.
    outcome_map`'s counts) as ``x * 2**e``, as :func:`weight_of` weighs a solved one."""
    par_lo, par_start, _ = base[2]
    touched_par, taken = merged[2], merged[3]
    x, e = 1.0, 0
    for p in range(len(par_lo)):
        if not touched_par[p]:
            x, e = _times_binomial(x, e, par_start[p + 1] - par_start[p], par_lo[p])
    every = np.ones(1)
    for k in range(len(counts)):
        every, e = _mixed(every, e, counts[k, : last[k] + 1])
    return _with_free(x, e, every, free_flat.sum(), base[6] + taken)


@njit(cache=True)
def probe(
    cells,
    rows,
    cols,
    mines,
    cell,
    now,
    total,
    total_exp,
    beat,
    weight,
    blend,
    implied,
    scratch,
    base,
    conditioned,
):
    """``BestPlayer.probe`` of ``cell`` (flat index) on the flagged board ``cells``.

    Args:
        now: The position's probability map (flat), which orders the numbers.
        total, total_exp: The position's weight, ``total * 2**total_exp``.
        beat: Stop as soon as the score cannot exceed this (``nan``: never).
        weight: The score's weight of progress (``progress_weight``).
        blend: The next click's weight of the second-safest cell.
        implied: Written: the cells certainly safe after every outcome (before the first
            outcome: all).
        scratch: The kernel's arrays for this board (:func:`mscsp.engine.compiled.scratch`).
        base: The position's answer (:func:`mscsp.engine._condition.decode_base`).
        conditioned: Count the outcomes by conditioning ``base`` (:mod:`mscsp.engine._condition`)
            where the merged component allows; else solve each outcome's board.

    Returns:
        The status (:data:`PROBED`, :data:`HANDED_BACK` for Python to probe, or
        :data:`RESOLVE`: probe again with ``conditioned`` off), the chance of surviving two
        clicks, the chance of progress, whether every outcome was evaluated, how many
        outcomes had layouts, and the next cell shared by every outcome (-1: none, or not
        the same).
    """
    out, probs, free, odds = scratch
    n = rows * cols
    values = _numbers(cells, rows, cols, cell, now)
    parts, system, held, taken, touched, touched_par = condition(base, cells, rows, cols, cell)
    merged = (parts, touched, touched_par, taken)
    conditioned = conditioned and fits(parts)
    after = cells.copy()
    flat_probs = probs.reshape(-1)
    flat_free = free.reshape(-1)
    after[cell] = 0  # (not covered: the groups of the outcomes are the same for every number)
    common = outcome_groups(base, merged, after, flat_free)
    sure_mine = np.zeros(n, dtype=np.bool_)
    left = 1.0 - now[cell]
    survive = progress = 0.0
    results = 0
    shared = -1
    same = True
    complete = True
    for value in values:
        if beat == beat and survive + left + weight * (progress + left) <= beat + EPS:
            complete = False
            break
        after[cell] = value
        if conditioned:
            ok, counts, cell_counts = count_outcome(parts, system, value - held)
            if not ok:
                return RESOLVE, 0.0, 0.0, False, 0, -1
            if not counts.any():
                continue
            status, all_counts, last = outcome_map(
                base, merged, common, after, counts, cell_counts, flat_probs, odds, flat_free
            )
            if status == INCONSISTENT:
                continue
            if status != APPROX:
                return RESOLVE, 0.0, 0.0, False, 0, -1
            x, e = _outcome_weight(base, merged, all_counts, last, flat_free)
        else:
            status = solve_flat(after, rows, cols, mines, out, probs, free, odds, False, FLOAT_MAP)
            if status == INCONSISTENT:
                continue
            if status != DONE and status != APPROX:
                return HANDED_BACK, 0.0, 0.0, False, 0, -1
            x, e = weight_of(status, out)
        p = math.ldexp(x / total, int(e - total_exp))  # (int: Python's ldexp wants one)
        left -= p
        for i in range(n):
            if status == DONE:
                sure_mine[i] = odds[i] == odds[n + i]
                safe = odds[i] == 0
            else:
                sure_mine[i] = (odds[n + i] & SURE_MINE) != 0
                safe = (odds[n + i] & SURE_SAFE) != 0
            implied[i] &= after[i] == COVERED and safe
        safety, sure, nxt = _next_click(after, rows, cols, flat_probs, sure_mine, flat_free, blend)
        if results == 0:
            shared = nxt
        elif nxt != shared:
            same = False
        results += 1
        survive += p * safety
        if sure:
            progress += p
    if not same:
        shared = -1
    return PROBED, survive, progress, complete, results, shared


@njit(cache=True)
def position(cells, rows, cols, mines, scratch):
    """The position's answer for conditioning its probes' outcomes (:func:`mscsp.
    _condition.decode_base`), and whether there is one (else its outcomes are solved one
    by one)."""
    out, probs, free, odds = scratch
    status = solve_flat(cells, rows, cols, mines, out, probs, free, odds, False, FLOAT_MAP)
    usable = status == DONE or status == APPROX  # noqa: SIM109 (numba compiles no `in`)
    if not usable:
        out[:8] = 0  # (no groups, no components: nothing to condition)
    return decode_base(cells, mines, out), usable


@njit(cache=True)
def probe_cells(
    cells,
    rows,
    cols,
    mines,
    which,
    factors,
    now,
    total,
    total_exp,
    score,
    margin,
    weight,
    blend,
    found,
    implied,
    scratch,
    base,
    conditioned,
):
    """``BestPlayer.lookahead``'s probes of the cells ``which`` (flat indices), in turn.

    Each probe stops as soon as it cannot come within ``margin`` of the best score so far,
    as the look-ahead's do: a cell's score is ``factors[j]`` times its survival plus
    ``weight`` times its progress, and only complete probes of living cells (more than one
    outcome) count.

    Args:
        score: The best score before the first cell (``nan``: none yet).
        found: Written, a row per probed cell: the chance of surviving two clicks, of
            progress, whether every outcome was evaluated, how many outcomes had layouts
            and the next cell shared by every outcome (see :func:`probe`).
        implied: Written, a row per probed cell (see :func:`probe`).
        base, conditioned: The position's answer (:func:`position`, or
            :func:`mscsp.engine._condition.decode_base` of the kernel's answer at hand), and
            whether there is one; the probes' outcomes are then counted by conditioning it
            (:mod:`mscsp.engine._condition`) where they can be.
        Others: see :func:`probe`.

    Returns:
        How many cells were probed: ``len(which)``, or the index of the first cell the
        kernel hands back (for Python to probe), with the best score after them.
    """
    for j in range(len(which)):
        beat = (score - margin) / factors[j] if score == score else np.nan
        status = RESOLVE
        by_condition = conditioned
        while status == RESOLVE:  # (at most twice: the second time outcome by outcome)
            implied[j, :] = True
            status, survive, progress, complete, results, shared = probe(
                cells, rows, cols, mines, which[j], now, total, total_exp, beat, weight,
                blend, implied[j], scratch, base, by_condition,
            )  # fmt: skip
            by_condition = False
        if status != PROBED:
            return j, score
        found[j, 0] = survive
        found[j, 1] = progress
        found[j, 2] = complete
        found[j, 3] = results
        found[j, 4] = shared
        if complete and results > 1:
            value = factors[j] * (survive + weight * progress)
            if score != score or value > score + EPS:
                score = value
    return len(which), score
