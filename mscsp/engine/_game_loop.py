"""The compiled game loop behind :mod:`mscsp.players.compiled_play` (numba; imported only there).

It plays as :class:`~mscsp.players.csp.CspPlayer` does through the harness, turn for turn:
the single-point rules to a fixpoint (their safe cells clicked row-major), else the
reduction of :func:`~mscsp.engine._kernel.solve_flat` (its safe cells), else the exact count (its
safe cells, else the guess), every click counted as the harness counts it. It hands a turn
back to Python where the kernel does (numbers beyond 64 bits, components too large) and,
when asked, at every guess.
"""

from __future__ import annotations

import numpy as np

from mscsp.board import COVERED, FLAG

from ._jit import njit
from ._kernel import TIE, solve_flat
from ._kernel_status import APPROX, COUNTED, DONE, FLOAT_TIED, REDUCED, SURE_MINE, SURE_SAFE
from ._lookahead import PYTHON, guess

_DR = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)
_DC = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)

# The game's counters, one array shared with Python (``mscsp.players.compiled_play``).
MOVES = 0  # cells clicked, as the harness counts them (already uncovered ones included)
GUESSES = 1  # turns whose click was a guess
REVEALED = 2  # safe cells uncovered
SAFE_CELLS = 3  # safe cells on the board
STATE = 4  # PLAYING, WON or LOST
EXPLODED = 5  # the mine clicked, on a loss
CLICKS = 6  # cells in the click record
FIELDS = 7

PLAYING = 0
WON = 1
LOST = 2

#: Returned when the game is over; any other value is the kernel's status on a turn that
#: Python must decide (or :data:`GUESS` when asked to stop at guesses).
OVER = -1
GUESS = -2


@njit(cache=True)
def _uncover(view, numbers, cols, i, stack):
    """``Game.reveal`` on the flat view: the cells uncovered (a zero opens its region and
    its border), or -1 on a mine."""
    if view[i] != COVERED:
        return 0
    if numbers[i] < 0:
        return -1
    rows = len(view) // cols
    view[i] = numbers[i]
    opened = 1
    if numbers[i] != 0:
        return opened
    stack[0] = i
    top = 1
    while top:
        top -= 1
        j = stack[top]
        r = j // cols
        c = j - r * cols
        for d in range(8):
            rr = r + _DR[d]
            cc = c + _DC[d]
            if 0 <= rr < rows and 0 <= cc < cols:
                k = rr * cols + cc
                if view[k] == COVERED:
                    view[k] = numbers[k]
                    opened += 1
                    if numbers[k] == 0:
                        stack[top] = k
                        top += 1
    return opened


@njit(cache=True)
def click(view, numbers, cols, i, st, clicks, stack):
    """One click as the harness makes it (counted even on an uncovered cell); whether the
    game is over after it."""
    st[MOVES] += 1
    if view[i] != COVERED:
        return False
    clicks[st[CLICKS]] = i
    st[CLICKS] += 1
    opened = _uncover(view, numbers, cols, i, stack)
    if opened < 0:
        st[STATE] = LOST
        st[EXPLODED] = i
        return True
    st[REVEALED] += opened
    if st[REVEALED] == st[SAFE_CELLS]:
        st[STATE] = WON
        return True
    return False


@njit(cache=True)
def _need(view, known, cols, i):
    """The mines number ``i`` still needs, and its unknown neighbours."""
    rows = len(view) // cols
    r = i // cols
    c = i - r * cols
    need = view[i]
    unknown = 0
    for d in range(8):
        rr = r + _DR[d]
        cc = c + _DC[d]
        if 0 <= rr < rows and 0 <= cc < cols:
            k = rr * cols + cc
            if known[k]:
                need -= 1
            elif view[k] == COVERED:
                unknown += 1
    return need, unknown


@njit(cache=True)
def _mark_around(view, known, cols, i, marks):
    """Marks the unknown neighbours of number ``i``; how many were not marked yet."""
    rows = len(view) // cols
    r = i // cols
    c = i - r * cols
    found = 0
    for d in range(8):
        rr = r + _DR[d]
        cc = c + _DC[d]
        if 0 <= rr < rows and 0 <= cc < cols:
            k = rr * cols + cc
            if view[k] == COVERED and not known[k] and not marks[k]:
                marks[k] = 1
                found += 1
    return found


@njit(cache=True)
def _single_point(view, known, cols, safe, settled):
    """The single-point rules to a fixpoint: numbers needing all their unknown cells make
    them known mines, then the unknown cells next to a satisfied number are marked in
    ``safe``; returns how many. ``settled`` marks the numbers left with no unknown cell
    (they never have one again): most of a board's numbers, skipped from then on."""
    n = len(view)
    changed = True
    while changed:
        changed = False
        for i in range(n):
            if view[i] > 0 and not settled[i]:
                need, unknown = _need(view, known, cols, i)
                if unknown and need == unknown:
                    _mark_around(view, known, cols, i, known)
                    changed = True
                    unknown = 0
                if not unknown:
                    settled[i] = 1
    found = 0
    safe[:] = 0
    for i in range(n):
        if view[i] > 0 and not settled[i]:
            need, unknown = _need(view, known, cols, i)
            if unknown and need == 0:
                found += _mark_around(view, known, cols, i, safe)
    return found


@njit(cache=True)
def _click_marked(view, numbers, cols, marked, st, clicks, stack):
    """Clicks every marked cell, row-major; whether the game ended."""
    for i in range(len(view)):
        if marked[i] and click(view, numbers, cols, i, st, clicks, stack):
            return True
    return False


@njit(cache=True)
def _lowest(flagged, odds, nbrs):
    """``Solution.best_move`` from the kernel's exact odds: the covered cell of lowest
    odds, then fewest neighbours, then first row-major."""
    n = len(flagged)
    best = -1
    for i in range(n):
        if flagged[i] != COVERED:
            continue
        if best < 0:
            best = i
            continue
        # Odds share the weight as denominator (below 2**53), or one of them is a fixed
        # group's (its size, at most 8): then both products fit 64 bits.
        if odds[n + i] == odds[n + best]:
            left = odds[i]
            right = odds[best]
        else:
            left = odds[i] * odds[n + best]
            right = odds[best] * odds[n + i]
        if left < right or (left == right and nbrs[i] < nbrs[best]):
            best = i
    return best


@njit(cache=True)
def _lowest_float(flagged, probs, nbrs):
    """:func:`_lowest` on the floating-point map (``approx``)."""
    best = -1
    for i in range(len(flagged)):
        if flagged[i] != COVERED:
            continue
        if best < 0 or probs[i] < probs[best] or (probs[i] == probs[best] and nbrs[i] < nbrs[best]):
            best = i
    return best


@njit(cache=True)
def _lowest_certain(flagged, probs, odds, nbrs):
    """:func:`_lowest` from the floating-point map where it must give the same cell: the
    cells within :data:`TIE` of the lowest odds all share their exact odds (one group, or
    the cells next to no number), so the lowest exact odds are theirs and the fewest
    neighbours, then row-major order, decide. -1 where the map cannot tell (Python compares
    the exact odds)."""
    n = len(flagged)
    low = np.inf
    for i in range(n):
        if flagged[i] == COVERED:
            if odds[i] < 0:
                return -1
            low = min(low, probs[i])
    if not 0.0 < low < np.inf:
        return -1
    limit = low * (1.0 + TIE)
    best = -1
    for i in range(n):
        if flagged[i] == COVERED and probs[i] <= limit:
            if best < 0:
                best = i
            elif odds[i] != odds[best]:
                return -1
            elif nbrs[i] < nbrs[best]:
                best = i
    return best


@njit(cache=True)
def play(view, numbers, cols, mines, known, st, clicks, nbrs, stop_at_guess, approx, scratch):
    """Plays from the current position until the game ends (:data:`OVER`) or Python must
    decide a turn (the kernel's status, or :data:`GUESS` with ``stop_at_guess``).

    With ``approx``, positions whose exact odds need Python integers are played on the
    kernel's floating-point odds instead (for rollouts: near csp-minprob, not exactly it).

    ``view`` is the game's flat view, written in place; ``numbers`` its numbers (-1 on
    mines); ``known`` the proven mines, kept from turn to turn. On a returned turn, the
    flagged board, the kernel's answer, probability map and odds are in ``scratch``.
    """
    out, probs, free, odds, flagged, safe, stack, settled = scratch
    n = len(view)
    # True and FLOAT_TIED, typed as a run-time bool and integer: literals would make numba
    # compile solve_flat (half the kernel's compile time) a second time, for them.
    yes = n >= 0
    tied = np.int64(FLOAT_TIED)
    rows = n // cols
    while True:
        if _single_point(view, known, cols, safe, settled):
            if _click_marked(view, numbers, cols, safe, st, clicks, stack):
                return OVER
            continue
        for i in range(n):
            flagged[i] = FLAG if known[i] else view[i]
        status = solve_flat(flagged, rows, cols, mines, out, probs, free, odds, yes, tied)
        if status == REDUCED:
            # Past the header and the groups fixed at neither none nor all of their cells:
            # the safe cells, then the mines.
            p = 4
            for _ in range(out[3]):
                p += 3 + out[p + 2]
            safe[:] = 0
            for q in range(p + 1, p + 1 + out[p]):
                safe[out[q]] = 1
            p += 1 + out[p]
            for q in range(p + 1, p + 1 + out[p]):
                known[out[q]] = 1
            if _click_marked(view, numbers, cols, safe, st, clicks, stack):
                return OVER
            continue
        if status == APPROX and approx:
            flat = probs.reshape(-1)
            found = 0
            for i in range(n):
                safe[i] = flagged[i] == COVERED and flat[i] == 0.0
                found += safe[i]
            if found:
                if _click_marked(view, numbers, cols, safe, st, clicks, stack):
                    return OVER
                continue
            st[GUESSES] += 1
            if click(view, numbers, cols, _lowest_float(flagged, flat, nbrs), st, clicks, stack):
                return OVER
            continue
        if status == APPROX:
            # Exact play on the floating-point map: what it says is certain is exact, and
            # the guess is the exact one where the map can tell it; else Python decides
            # (from the counts the kernel wrote, as for COUNTED), before any cell is marked.
            found = 0
            for i in range(n):
                safe[i] = flagged[i] == COVERED and odds[n + i] == SURE_SAFE
                found += safe[i]
            cell = -1
            if not found and not stop_at_guess:
                cell = _lowest_certain(flagged, probs.reshape(-1), odds, nbrs)
                if cell < 0:
                    return COUNTED
            elif not found:
                return COUNTED
            for i in range(n):
                if flagged[i] == COVERED and odds[n + i] == SURE_MINE:
                    known[i] = 1
            if found:
                if _click_marked(view, numbers, cols, safe, st, clicks, stack):
                    return OVER
                continue
            st[GUESSES] += 1
            if click(view, numbers, cols, cell, st, clicks, stack):
                return OVER
            continue
        if status != DONE:
            return status
        found = 0
        for i in range(n):
            safe[i] = 0
            if flagged[i] == COVERED:
                if odds[i] == 0:
                    safe[i] = 1
                    found += 1
                elif odds[i] == odds[n + i]:
                    known[i] = 1
        if found:
            if _click_marked(view, numbers, cols, safe, st, clicks, stack):
                return OVER
            continue
        if stop_at_guess:
            return GUESS
        st[GUESSES] += 1
        if click(view, numbers, cols, _lowest(flagged, odds, nbrs), st, clicks, stack):
            return OVER


@njit(cache=True)
def play_looking(view, numbers, cols, mines, known, st, clicks, nbrs, looking, scratch):
    """Plays as :func:`play` does, guessing by the look-ahead of ``csp-lookahead``
    (:func:`mscsp.engine._lookahead.guess`, its settings and memory ``looking``), until the game
    ends
    (:data:`OVER`) or Python must decide a turn (the kernel's status; on a guess it hands
    back, :data:`DONE` or :data:`COUNTED` with the position's answer in ``scratch``)."""
    n = len(view)
    rows = n // cols
    probe_scratch = (
        np.empty(8 * n + 1024, dtype=np.int64),
        np.empty((rows, cols)),
        np.empty((rows, cols), dtype=np.bool_),
        np.empty(2 * n, dtype=np.int64),
    )
    yes = n >= 0  # (run-time bools: see play's)
    no = n < 0
    while True:
        status = play(view, numbers, cols, mines, known, st, clicks, nbrs, yes, no, scratch)
        if status != GUESS and status != COUNTED:
            return status
        exact = status == GUESS
        cell = guess(exact, scratch, known, rows, cols, mines, looking, probe_scratch)
        if cell == PYTHON:
            return DONE if exact else COUNTED
        st[GUESSES] += 1
        if click(view, numbers, cols, cell, st, clicks, scratch[6]):
            return OVER


@njit(cache=True)
def _lay_out(mine_cells, numbers, cols):
    """``numbers`` for a layout (the mines' cells): -1 on a mine, else its neighbours'."""
    numbers[:] = 0
    rows = len(numbers) // cols
    for i in mine_cells:
        numbers[i] = -100  # (stays negative whatever its neighbours add)
    for i in mine_cells:
        r = i // cols
        c = i - r * cols
        for d in range(8):
            rr = r + _DR[d]
            cc = c + _DC[d]
            if 0 <= rr < rows and 0 <= cc < cols:
                numbers[rr * cols + cc] += 1
    for i in mine_cells:
        numbers[i] = -1


@njit(cache=True)
def play_games(layouts, firsts, cols, cursor, results, game, nbrs, scratch, looking):
    """Plays the games of a batch as :func:`play` does (as :func:`play_looking` does with
    the look-ahead's ``looking``; its settings empty: not), one after the other, until all are
    over (:data:`OVER`) or Python must decide a turn (the kernel's status; the game stays in
    ``game`` and the call after Python's move goes on with it).

    ``layouts[g]``: game ``g``'s mines (row-major cells); ``firsts[g]``: its first click;
    ``cursor``: the game in progress and whether it has started; ``results[g]``: won, safe
    cells uncovered, cells clicked (the first included), guesses. ``game``: the view,
    numbers, known mines, counters and click record of the game in progress.
    """
    view, numbers, known, st, clicks = game
    n = len(view)
    while cursor[0] < len(layouts):
        g = cursor[0]
        if not cursor[1]:
            _lay_out(layouts[g], numbers, cols)
            view[:] = COVERED
            known[:] = 0
            scratch[7][:] = 0  # (the numbers settled)
            st[:] = 0
            st[SAFE_CELLS] = n - layouts.shape[1]
            cursor[1] = 1
            over = click(view, numbers, cols, firsts[g], st, clicks, scratch[6])
        else:  # (resumed after Python's move, which may have ended it)
            over = st[STATE] != PLAYING
        if not over:
            mines = layouts.shape[1]
            no = mines < 0  # (False, typed as a run-time bool: see play's ``yes``)
            if len(looking[0]):
                status = play_looking(
                    view, numbers, cols, mines, known, st, clicks, nbrs, looking, scratch
                )
            else:
                status = play(view, numbers, cols, mines, known, st, clicks, nbrs, no, no, scratch)
            if status != OVER:
                return status
        results[g, 0] = st[STATE] == WON
        results[g, 1] = st[REVEALED]
        results[g, 2] = st[MOVES]
        results[g, 3] = st[GUESSES]
        cursor[0] += 1
        cursor[1] = 0
    return OVER
