"""The compiled game-tree search behind :func:`mscsp.players.endgame.solve_endgame` (numba;
loaded by :mod:`mscsp.engine.compiled`).

The same search, node for node: a set of layouts is a bitmask over their indices in
:data:`WORDS` words of :data:`BITS` bits (at most :data:`MAX_LAYOUTS` layouts), a layout a
bitmask over at most :data:`MAX_CELLS` unknown cells, and the memo a typed dictionary keyed
by (layouts, revealed cells). Every float is made by the same operations in the same order
as in Python, and the budget is spent as there, so the value, the chosen cell and the point
at which the search gives up are the same.
"""

from __future__ import annotations

import numpy as np

from ._jit import Dict, njit, types

#: Bits a word of a layout set holds (positive 64-bit integers throughout), and words a set.
BITS = 62
WORDS = 4
#: Most layouts and unknown cells the compiled search takes (Python searches the others).
MAX_LAYOUTS = BITS * WORDS
MAX_CELLS = BITS

_KEY = types.UniTuple(types.int64, WORDS + 1)
_VALUE = types.Tuple((types.float64, types.int64))


@njit(cache=True)
def _pop(x):
    """Set bits of ``x`` (``0 <= x < 2**63``)."""
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True)
def _low(x):
    """Index of the lowest set bit of ``x`` (non-zero)."""
    k = 0
    while not (x >> k) & 1:
        k += 1
    return k


@njit(cache=True)
def _outcomes(i, head):
    """What a click on ``i`` may show, over every layout where it is safe: per outcome the
    cells it opens (none revealed yet) and the set of those layouts. (Once cells are
    revealed, a click shows the same on the others: a revealed zero's neighbours are
    revealed, so no new cell is reached through one.)"""
    layouts, nbr_mask, nbr_start, nbr_list, base = head
    n_layouts = len(layouts)
    opened = np.zeros(n_layouts, dtype=np.int64)
    owner = np.full(n_layouts, -1, dtype=np.int64)
    reps = np.empty(n_layouts, dtype=np.int64)
    n_out = 0
    stack = np.empty(MAX_CELLS + 1, dtype=np.int64)
    one = np.int64(1)
    for k in range(n_layouts):
        layout = layouts[k]
        if (layout >> i) & 1:
            continue
        mask = one << i
        if base[i] + _pop(layout & nbr_mask[i]) == 0:
            stack[0] = i
            top = 1
            while top:
                top -= 1
                x = stack[top]
                if base[x] + _pop(layout & nbr_mask[x]) == 0:
                    for q in range(nbr_start[x], nbr_start[x + 1]):
                        y = nbr_list[q]
                        if not (mask >> y) & 1:
                            mask |= one << y
                            stack[top] = y
                            top += 1
        # The same outcome: the same cells opened, each showing the same number.
        for o in range(n_out):
            if opened[o] != mask:
                continue
            other = layouts[reps[o]]
            same = True
            rest = mask
            while rest and same:
                x = _low(rest)
                rest &= rest - 1
                same = _pop(layout & nbr_mask[x]) == _pop(other & nbr_mask[x])
            if same:
                owner[k] = o
                break
        if owner[k] < 0:
            opened[n_out] = mask
            reps[n_out] = k
            owner[k] = n_out
            n_out += 1
    sets = np.zeros((n_out, WORDS), dtype=np.int64)
    for k in range(n_layouts):
        if owner[k] >= 0:
            sets[owner[k], k // BITS] |= one << (k % BITS)
    return opened[:n_out].copy(), sets


@njit(cache=True)
def _split(i, states, revealed, ctx):
    """The layouts of ``states`` where ``i`` is safe, grouped by what clicking it shows:
    the cells revealed after (arrays of parts), the parts' layout sets, in the order of their
    first layouts. Spends the budget as Python does."""
    outcomes, spent = ctx[6], ctx[7]
    total = 0
    for w in range(WORDS):
        total += _pop(states[w])
    spent[0] += total
    opened, sets = outcomes[i]
    m = 0
    keep = np.empty(len(opened), dtype=np.int64)
    firsts = np.empty(len(opened), dtype=np.int64)
    for o in range(len(opened)):
        for w in range(WORDS):
            part = sets[o, w] & states[w]
            if part:  # (the first word with a layout of both: the part's first layout)
                keep[m] = o
                firsts[m] = w * BITS + _low(part)
                m += 1
                break
    order = np.argsort(firsts[:m])
    after = np.empty(m, dtype=np.int64)
    parts = np.empty((m, WORDS), dtype=np.int64)
    for q in range(m):
        o = keep[order[q]]
        after[q] = revealed | opened[o]
        for w in range(WORDS):
            parts[q, w] = sets[o, w] & states[w]
    return after, parts


@njit(cache=True)
def _value(states, revealed, ctx):
    """The chance of winning from (``states``, ``revealed``) and the cell to click (-1:
    won); ``(0.0, -1)`` once the budget is spent (the caller reads ``spent``)."""
    layouts, mined, spent, budget, full, memo = ctx[0], ctx[5], ctx[7], ctx[8], ctx[9], ctx[10]
    key = (states[0], states[1], states[2], states[3], revealed)
    if key in memo:
        return memo[key]
    all_mine = full
    any_mine = np.int64(0)
    total = 0
    for w in range(WORDS):
        rest = states[w]
        total += _pop(rest)
        while rest:
            layout = layouts[w * BITS + _low(rest)]
            rest &= rest - 1
            all_mine &= layout
            any_mine |= layout
    todo = full & ~revealed & ~all_mine
    if total == 1 or not todo:
        memo[key] = (1.0, np.int64(-1))
        return memo[key]
    certain = todo & ~any_mine
    if certain:
        i = np.int64(_low(certain))
        after, parts = _split(i, states, revealed, ctx)
        if spent[0] > budget:
            return 0.0, np.int64(-1)
        won = 0.0
        for q in range(len(after)):
            size = 0
            for w in range(WORDS):
                size += _pop(parts[q, w])
            won += size * _value(parts[q], after[q], ctx)[0]
            if spent[0] > budget:
                return 0.0, np.int64(-1)
        memo[key] = (won / total, i)
        return memo[key]
    # Safest first; exact ties in cell order.
    cells = np.empty(_pop(todo), dtype=np.int64)
    safes = np.empty(len(cells), dtype=np.int64)
    m = 0
    rest = todo
    while rest:
        i = _low(rest)
        rest &= rest - 1
        mines = 0
        for w in range(WORDS):
            mines += _pop(states[w] & mined[i, w])
        cells[m] = i
        safes[m] = total - mines
        m += 1
    order = np.argsort(-safes * (MAX_CELLS + 1) + cells)
    chosen = []
    for q in order:
        after, parts = _split(cells[q], states, revealed, ctx)
        if spent[0] > budget:
            return 0.0, np.int64(-1)
        if len(after) > 1:
            chosen.append((safes[q], cells[q], after, parts))
    if not chosen:  # every cell is dead: only survival is left to play for
        for q in order:
            after, parts = _split(cells[q], states, revealed, ctx)
            if spent[0] > budget:
                return 0.0, np.int64(-1)
            chosen.append((safes[q], cells[q], after, parts))
    best = -1.0
    best_i = chosen[0][1]
    for safe, i, after, parts in chosen:
        if safe <= best:
            break
        won = 0.0
        left = safe
        sizes = np.zeros(len(after), dtype=np.int64)
        for q in range(len(after)):
            for w in range(WORDS):
                sizes[q] += _pop(parts[q, w])
        complete = True
        for q in np.argsort(-sizes, kind="mergesort"):
            if won + left <= best:
                complete = False
                break
            won += sizes[q] * _value(parts[q], after[q], ctx)[0]
            if spent[0] > budget:
                return 0.0, np.int64(-1)
            left -= sizes[q]
        if complete and won > best:
            best, best_i = won, i
    memo[key] = (best / total, best_i)
    return memo[key]


@njit(cache=True)
def search(layouts, n, nbr_mask, nbr_start, nbr_list, base, budget):
    """``solve_endgame``'s search over ``layouts`` (bitmasks over ``n`` unknown cells):
    the chance of winning and the cell to click (-1: won), or ``(-1.0, -1)`` when the search
    outgrew ``budget``.

    ``nbr_mask[i]``: the unknown neighbours of cell ``i``; ``nbr_list[nbr_start[i]:
    nbr_start[i + 1]]`` the same as indices, in the board's neighbour order; ``base[i]``:
    its flagged neighbours.
    """
    one = np.int64(1)
    full = (one << n) - 1
    mined = np.zeros((n, WORDS), dtype=np.int64)
    states = np.zeros(WORDS, dtype=np.int64)
    for k in range(len(layouts)):
        states[k // BITS] |= one << (k % BITS)
        for i in range(n):
            if (layouts[k] >> i) & 1:
                mined[i, k // BITS] |= one << (k % BITS)
    head = (layouts, nbr_mask, nbr_start, nbr_list, base)
    outcomes = [_outcomes(i, head) for i in range(n)]
    spent = np.zeros(1, dtype=np.int64)
    memo = Dict.empty(key_type=_KEY, value_type=_VALUE)
    ctx = (layouts, nbr_mask, nbr_start, nbr_list, base, mined, outcomes, spent, budget, full, memo)
    win, cell = _value(states, np.int64(0), ctx)
    if spent[0] > budget:
        return -1.0, np.int64(-1)
    return win, cell


@njit(cache=True)
def layouts(cells, rows, cols, mines, any_count, limit, unknown, out):
    """:func:`mscsp.players.endgame.enumerate_layouts` on the board's flat cell codes: the
    same layouts in the same order (a depth-first search, constrained cells first, each
    cell safe before mined), as bitmasks over the unknown cells in row-major order.

    Args:
        any_count: Every number of mines is allowed (else exactly ``mines`` less the flags).
        unknown: Written: the unknown (covered) cells' flat indices, row-major.
        out: Written: the layouts; at least ``limit`` long.

    Returns:
        How many layouts there are, -1 beyond ``limit``, -2 with more unknown cells than
        :data:`MAX_CELLS` (Python enumerates those).
    """
    n_cells = rows * cols
    index = np.full(n_cells, -1, dtype=np.int64)
    n = 0
    flags = 0
    for k in range(n_cells):
        if cells[k] == -1:
            if n == MAX_CELLS:
                return -2
            index[k] = n
            unknown[n] = k
            n += 1
        elif cells[k] == -2:
            flags += 1
    remaining = mines - flags
    # The numbers next to an unknown cell, row-major: what each still needs, and how many
    # of its unknown cells are still open; each unknown cell's numbers, in that order.
    need = np.zeros(n_cells, dtype=np.int64)
    left = np.zeros(n_cells, dtype=np.int64)
    cons = np.empty((max(n, 1), 8), dtype=np.int64)
    n_cons = np.zeros(max(n, 1), dtype=np.int64)
    n_num = 0
    for k in range(n_cells):
        if cells[k] < 0:
            continue
        r, c = k // cols, k % cols
        around = 0
        flagged = 0
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                rr, cc = r + dr, c + dc
                if (dr or dc) and 0 <= rr < rows and 0 <= cc < cols:
                    j = rr * cols + cc
                    if cells[j] == -1:
                        around += 1
                    elif cells[j] == -2:
                        flagged += 1
        if not around:
            continue
        need[n_num] = cells[k] - flagged
        left[n_num] = around
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                rr, cc = r + dr, c + dc
                if (dr or dc) and 0 <= rr < rows and 0 <= cc < cols:
                    i = index[rr * cols + cc]
                    if i >= 0:
                        cons[i, n_cons[i]] = n_num
                        n_cons[i] += 1
        n_num += 1
    # Constrained cells first (row-major), then the others.
    order = np.empty(max(n, 1), dtype=np.int64)
    at = 0
    for constrained in (True, False):
        for i in range(n):
            if (n_cons[i] > 0) == constrained:
                order[at] = i
                at += 1
    assigned = np.zeros(max(n_num, 1), dtype=np.int64)
    state = np.zeros(n + 1, dtype=np.int64)  # choices tried at each depth (0, 1, 2)
    entered = np.zeros(n + 1, dtype=np.bool_)
    down = np.zeros(n + 1, dtype=np.bool_)  # a choice here was taken to the next depth
    mask = np.int64(0)
    used = 0
    count = 0
    depth = 0
    while depth >= 0:
        if not entered[depth]:
            entered[depth] = True
            if not any_count and (used > remaining or used + n - depth < remaining):
                entered[depth] = False
                depth -= 1
                continue
            if depth == n:
                if count == limit:
                    return -1
                out[count] = mask
                count += 1
                entered[depth] = False
                depth -= 1
                continue
        i = order[depth]
        if down[depth]:  # back from the next depth: undo the choice taken there
            mine = state[depth] - 1
            for q in range(n_cons[i]):
                assigned[cons[i, q]] -= mine
                left[cons[i, q]] += 1
            if mine:
                mask ^= np.int64(1) << i
            used -= mine
            down[depth] = False
        if state[depth] == 2:
            state[depth] = 0
            entered[depth] = False
            depth -= 1
            continue
        mine = state[depth]
        state[depth] += 1
        ok = True
        for q in range(n_cons[i]):
            j = cons[i, q]
            assigned[j] += mine
            left[j] -= 1
            if assigned[j] > need[j] or assigned[j] + left[j] < need[j]:
                ok = False
        if ok:
            if mine:
                mask |= np.int64(1) << i
            used += mine
            down[depth] = True
            depth += 1
        else:
            for q in range(n_cons[i]):
                assigned[cons[i, q]] -= mine
                left[cons[i, q]] += 1
    return count
