"""The numba kernel behind :mod:`mscsp.engine.compiled` (imported only where numba is installed).

Each stage mirrors the pure pipeline's module of the same job, on flat arrays of 64-bit
integers: :func:`solve_flat` is ``build_system``, ``reduce_system``, ``split_components``,
``dss``'s enumeration and ``combine`` in one call. Where the pure path would raise, it returns
:data:`INCONSISTENT`; where a component is beyond its limits, :data:`FALLBACK`; either way
it writes nothing that is used.
"""

from __future__ import annotations

import math

import numpy as np

from mscsp.board import COVERED, FLAG

from ._jit import lgamma, njit
from ._kernel_status import (
    APPROX,
    COUNTED,
    DONE,
    FALLBACK,
    FLOAT_TIED,
    INCONSISTENT,
    REDUCED,
    SURE_MINE,
    SURE_SAFE,
)
from ._kernel_ties import merge_ties

#: The 8 neighbour directions, in the order of ``constraints._DIRS``.
_DR = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)
_DC = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)

#: Most cells a component may have (and the frontier, for the combination here): every
#: count of one is below ``2**cells``, and a few more bits must stay free below ``2**63``.
_MAX_CELLS = 55
#: Search nodes one component's enumeration may visit before the pure path takes over
#: (whose merged search counts long chains in linear time): no component of 20 real games
#: per preset needs more, a 3x30 strip of numbers needs fewer, and giving up costs at
#: most about 0.08 ms (3x40 and 3x50 strips).
_MAX_NODES = 1 << 12
#: The same for a player's solves (``approx`` set: the engine's turns, the look-ahead's
#: probes), for which the pure path would first hand the turn back to Python: its merged
#: search there and the way back cost 10-100 times more than counting the components of
#: real games that need up to this many nodes (a few in a hundred expert games).
_MAX_NODES_PLAYING = 1 << 16
#: Largest weight whose counts convert to floats exactly (for the probability map).
_EXACT_FLOAT = 1 << 53
#: Floating-point terms below this may have lost digits to underflow (floats stop at about
#: 1e-308): odds made of them are not trusted to order cells.
_TINY = 1e-250
#: How far above the lowest odds on the floating-point map a cell may be and still tie with
#: it: far beyond the map's own error (about 1e-13 relative, from its sums and logarithms),
#: far below the gap between two different odds of a real position.
TIE = 1e-9
# Counters that reach a call start as np.int64(0), not 0: a variable first typed as the
# literal 0 makes numba compile every function it reaches twice (once for the literal).

#: Bits every intermediate number of the combination must stay under.
_SAFE_BITS = 61.0


@njit(cache=True)
def _touching(cs, cg, nc, n_groups):
    """For each group, the constraints holding it (CSR: starts, then the list)."""
    start = np.zeros(n_groups + 1, dtype=np.int64)
    for p in range(cs[nc]):
        start[cg[p] + 1] += 1
    for g in range(n_groups):
        start[g + 1] += start[g]
    fill = start[:-1].copy()
    items = np.empty(cs[nc], dtype=np.int64)
    for c in range(nc):
        for p in range(cs[c], cs[c + 1]):
            g = cg[p]
            items[fill[g]] = c
            fill[g] += 1
    return start, items


@njit(cache=True)
def _propagate(cs, cg, ct, nc, lo, hi, tstart, titems):
    """DSS bounds propagation to a fixpoint (``reduce.propagate``): 1 if a bound changed,
    0 if none did, -1 on a contradiction."""
    if nc == 0:
        return 0
    queued = np.ones(nc, dtype=np.bool_)
    queue = np.arange(nc)
    head = 0
    size = nc
    changed = 0
    while size:
        c = queue[head]
        head = (head + 1) % nc
        size -= 1
        queued[c] = False
        s_lo = 0
        s_hi = 0
        for p in range(cs[c], cs[c + 1]):
            s_lo += lo[cg[p]]
            s_hi += hi[cg[p]]
        t = ct[c]
        if t < s_lo or t > s_hi:
            return -1
        if s_lo == s_hi:
            continue
        below = t - s_hi
        above = t - s_lo
        for p in range(cs[c], cs[c + 1]):
            g = cg[p]
            low = lo[g]
            high = hi[g]
            least = below + high
            most = above + low
            if least > low or most < high:
                low = max(low, least)
                high = min(high, most)
                lo[g] = low
                hi[g] = high
                if low > high:
                    return -1
                changed = 1
                for q in range(tstart[g], tstart[g + 1]):
                    other = titems[q]
                    if not queued[other]:
                        queued[other] = True
                        queue[(head + size) % nc] = other
                        size += 1
    return changed


@njit(cache=True)
def _open_part(cs, cg, ct, nc, lo, hi):
    """Each constraint on its open groups, less its fixed groups' mines (``reduce.open_part``);
    constraints left without open groups are dropped."""
    ocs = np.zeros(nc + 1, dtype=np.int64)
    ocg = np.empty(cs[nc], dtype=np.int64)
    oct_ = np.empty(nc, dtype=np.int64)
    m = 0
    p_out = 0
    for c in range(nc):
        t = ct[c]
        begin = p_out
        for p in range(cs[c], cs[c + 1]):
            g = cg[p]
            if lo[g] < hi[g]:
                ocg[p_out] = g
                p_out += 1
            else:
                t -= lo[g]
        if p_out > begin:
            oct_[m] = t
            m += 1
            ocs[m] = p_out
    return ocs, ocg, oct_, m


@njit(cache=True)
def _less(cg, a0, a1, ta, b0, b1, tb):
    """Whether constraint a sorts before b as ``(groups tuple, mines)`` pairs do."""
    la = a1 - a0
    lb = b1 - b0
    for i in range(min(la, lb)):
        if cg[a0 + i] != cg[b0 + i]:
            return cg[a0 + i] < cg[b0 + i]
    if la != lb:
        return la < lb
    return ta < tb


@njit(cache=True)
def _binomial(n, k):
    if k < 0 or k > n:
        return 0
    k = min(k, n - k)
    value = 1
    for i in range(k):
        value = value * (n - i) // (i + 1)
    return value


@njit(cache=True)
def _log2_binomial(n, k):
    if k < 0 or k > n:
        return 0.0
    return (lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)) / math.log(2.0)


@njit(cache=True)
def _convolve(a, b):
    out = np.zeros(len(a) + len(b) - 1, dtype=np.int64)
    for i in range(len(a)):
        if a[i]:
            for j in range(len(b)):
                out[i + j] += a[i] * b[j]
    return out


@njit(cache=True)
def _enumerate(sizes, cs, cg, ct, nc, counts, cell_counts, budget):
    """Counts one component (``dss._enumerate``): every consistent assignment of mines to
    its groups, in group order, with the same DSS bounds. False past ``budget`` nodes."""
    m = len(sizes)
    # Each group's constraints, with the cells each still has in the groups after it.
    plan_n = np.zeros(m, dtype=np.int64)
    plan_c = np.empty((m, 8 * nc + 1), dtype=np.int64)
    plan_rest = np.empty((m, 8 * nc + 1), dtype=np.int64)
    for c in range(nc):
        after = 0
        for p in range(cs[c], cs[c + 1]):
            after += sizes[cg[p]]
        for p in range(cs[c], cs[c + 1]):
            g = cg[p]
            after -= sizes[g]
            plan_c[g, plan_n[g]] = c
            plan_rest[g, plan_n[g]] = after
            plan_n[g] += 1
    residual = ct[:nc].copy()
    cur = np.zeros(m, dtype=np.int64)
    top = np.zeros(m, dtype=np.int64)
    weight = np.ones(m + 1, dtype=np.int64)
    mines = np.zeros(m + 1, dtype=np.int64)
    nodes = 0
    d = 0
    while True:
        # Bounds of group d given the choices above it.
        low = 0
        high = sizes[d]
        for q in range(plan_n[d]):
            need = residual[plan_c[d, q]]
            if need - plan_rest[d, q] > low:
                low = need - plan_rest[d, q]
            if need < high:
                high = need
        cur[d] = low
        top[d] = high
        nodes += 1
        if nodes > budget:
            return False
        if d == m - 1 or low > high:
            for x in range(low, high + 1):  # at the last group, each x left is a solution
                layouts = weight[d] * _binomial(sizes[d], x)
                k = mines[d] + x
                counts[k] += layouts
                if x:
                    cell_counts[d, k] += layouts * x // sizes[d]
                for e in range(d):
                    if cur[e]:
                        # One given cell of that group is a mine in cur[e] / size of them.
                        cell_counts[e, k] += layouts * cur[e] // sizes[e]
            d = _back_up(d, cur, top, residual, plan_n, plan_c)
            if d < 0:
                return True
        # Take cur[d] and go one group down.
        x = cur[d]
        for q in range(plan_n[d]):
            residual[plan_c[d, q]] -= x
        weight[d + 1] = weight[d] * _binomial(sizes[d], x)
        mines[d + 1] = mines[d] + x
        d += 1


@njit(cache=True)
def _back_up(d, cur, top, residual, plan_n, plan_c):
    """Up to the deepest group above ``d`` with a choice left, taking it (-1: none left)."""
    while True:
        d -= 1
        if d < 0:
            return d
        x = cur[d]
        for q in range(plan_n[d]):
            residual[plan_c[d, q]] += x
        if x < top[d]:
            cur[d] = x + 1
            return d


@njit(cache=True)
def solve_flat(cells, rows, cols, mines, out, probs, free, odds, stop, approx):
    """Solves the board ``cells`` (flat ``int8`` codes, row-major) holding ``mines`` mines.

    Writes into ``out`` (see :func:`mscsp.engine.compiled.solve_small` for the layout), the
    probability map into ``probs``, each covered cell's exact odds into ``odds`` (its
    numerator, then its denominator: a flat array of twice the cells; only on
    :data:`DONE`) and the mask of covered cells next to no number into ``free``.

    Returns:
        :data:`DONE`, :data:`COUNTED`, :data:`FALLBACK` for the pure path to answer, or,
        when ``stop`` is set and the reduction settles safe cells, :data:`REDUCED` before
        anything is counted (as a player reveals those first); with ``approx``
        (:data:`FLOAT_TIED` or :data:`FLOAT_MAP`, :data:`EXACT`: none), :data:`APPROX` (the
        probability map in floating point, see :func:`_float_odds`) instead of
        :data:`COUNTED`.
    """
    n = rows * cols
    n_flags = 0
    for i in range(n):
        if cells[i] == FLAG:
            n_flags += 1
    remaining = mines - n_flags
    if remaining < 0:
        return INCONSISTENT

    # build_system: every number's open cells and the mines it still needs, checked, in one
    # pass; the numbers with no covered neighbour (most of them) are read no more.
    open_nb = np.zeros(n, dtype=np.int64)
    need = np.zeros(n, dtype=np.int64)
    near = np.empty(8 * n, dtype=np.int64)  # each number's neighbours, in _DIRS order
    n_near = np.zeros(n, dtype=np.int64)  # (0 for a number with no covered neighbour)
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            if cells[i] < 0:
                continue
            o = 0
            f = 0
            k = 8 * i
            for d in range(8):
                rr = r + _DR[d]
                cc = c + _DC[d]
                if 0 <= rr < rows and 0 <= cc < cols:
                    j = rr * cols + cc
                    w = cells[j]
                    if w == COVERED:
                        o += 1
                    elif w == FLAG:
                        f += 1
                    near[k] = j
                    k += 1
            t = cells[i] - f
            if t < 0 or t > o:
                return INCONSISTENT
            open_nb[i] = o
            need[i] = t
            if o:
                n_near[i] = k - 8 * i
    # The single-point rules, once: 1 a settled mine, 2 a settled safe cell.
    mark = np.zeros(n, dtype=np.int8)
    settled = False
    for i in range(n):
        if cells[i] < 0 or open_nb[i] == 0:
            continue
        rule = 1 if need[i] == open_nb[i] else (2 if need[i] == 0 else 0)
        if rule:
            settled = True
            for q in range(8 * i, 8 * i + n_near[i]):
                if cells[near[q]] == COVERED:
                    mark[near[q]] |= rule
    if settled:
        for i in range(n):
            if mark[i] == 3:
                return INCONSISTENT
        for i in range(n):
            if cells[i] < 0 or open_nb[i] == 0:
                continue
            o = 0
            for q in range(8 * i, 8 * i + n_near[i]):
                j = near[q]
                if cells[j] == COVERED:
                    if mark[j] == 1:
                        need[i] -= 1
                    elif mark[j] == 0:
                        o += 1
            if need[i] < 0 or need[i] > o:
                return INCONSISTENT
            open_nb[i] = o
    # The numbers with undecided cells, row-major: one constraint each; each undecided
    # cell's numbers, ascending.
    number_of = np.empty(n, dtype=np.int64)
    n_cons = 0
    seen_n = np.zeros(n, dtype=np.int64)
    seen = np.empty(8 * n, dtype=np.int64)
    for i in range(n):
        if cells[i] >= 0 and open_nb[i] > 0:
            number_of[n_cons] = i
            for q in range(8 * i, 8 * i + n_near[i]):
                j = near[q]
                if cells[j] == COVERED and mark[j] == 0:
                    seen[8 * j + seen_n[j]] = n_cons
                    seen_n[j] += 1
            n_cons += 1
    # Groups: cells with the same numbers, numbered by their first cell. Every cell of a
    # group touches the group's first number, so a group has at most 8 cells and is found
    # among the (at most 8) groups that begin with that number.
    key_n = np.zeros(n + 2, dtype=np.int64)
    key = np.empty(8 * n + 16, dtype=np.int64)
    size = np.zeros(n + 2, dtype=np.int64)
    group_cells = np.empty(8 * n + 16, dtype=np.int64)
    begins_n = np.zeros(n_cons, dtype=np.int64)
    begins = np.empty(8 * n_cons, dtype=np.int64)
    member_n = np.zeros(n_cons, dtype=np.int64)
    member = np.empty(8 * n_cons, dtype=np.int64)
    n_groups = np.int64(0)
    for j in range(n):
        if seen_n[j] == 0:
            continue
        first = seen[8 * j]
        g = -1
        for b in range(begins_n[first]):
            h = begins[8 * first + b]
            if key_n[h] == seen_n[j]:
                same = True
                for q in range(seen_n[j]):
                    if key[8 * h + q] != seen[8 * j + q]:
                        same = False
                        break
                if same:
                    g = h
                    break
        if g < 0:
            g = n_groups
            n_groups += 1
            key_n[g] = seen_n[j]
            for q in range(seen_n[j]):
                number = seen[8 * j + q]
                key[8 * g + q] = number
                member[8 * number + member_n[number]] = g
                member_n[number] += 1
            begins[8 * first + begins_n[first]] = g
            begins_n[first] += 1
        group_cells[8 * g + size[g]] = j
        size[g] += 1
    # Every group's cells in one list (row-major within a group): the frontier groups',
    # then the settled cells as up to two more groups, the safe ones, then the mines.
    cell_start = np.zeros(n_groups + 3, dtype=np.int64)
    cell_list = np.empty(n, dtype=np.int64)
    for g in range(n_groups):
        cell_start[g + 1] = cell_start[g] + size[g]
        for q in range(size[g]):
            cell_list[cell_start[g] + q] = group_cells[8 * g + q]
    safe_group = -1
    mine_group = -1
    for rule in (2, 1):
        end = cell_start[n_groups]
        for i in range(n):
            if mark[i] == rule:
                cell_list[end] = i
                end += 1
        if end > cell_start[n_groups]:
            if rule == 2:
                safe_group = n_groups
            else:
                mine_group = n_groups
            size[n_groups] = end - cell_start[n_groups]
            cell_start[n_groups + 1] = end
            n_groups += 1
    # Covered cells next to no number.
    next_to_number = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        for q in range(8 * i, 8 * i + n_near[i]):
            next_to_number[near[q]] = True
    free_flat = free.reshape(-1)
    for i in range(n):
        free_flat[i] = cells[i] == COVERED and not next_to_number[i]

    # reduce_system: propagation, the subset rule on what is left open, propagation again.
    lo = np.zeros(n_groups, dtype=np.int64)
    hi = size[:n_groups].copy()
    if mine_group >= 0:
        lo[mine_group] = size[mine_group]
    if safe_group >= 0:
        hi[safe_group] = 0
    cap = 9 * n_cons + 1
    cs = np.zeros(cap + 1, dtype=np.int64)
    cg = np.empty(72 * n_cons + 64, dtype=np.int64)
    ct = np.empty(cap, dtype=np.int64)
    for k in range(n_cons):
        cs[k + 1] = cs[k] + member_n[k]
        for q in range(member_n[k]):
            cg[cs[k] + q] = member[8 * k + q]
        ct[k] = need[number_of[k]]
    tstart, titems = _touching(cs, cg, n_cons, n_groups)
    changed = _propagate(cs, cg, ct, n_cons, lo, hi, tstart, titems)
    if changed < 0:
        return INCONSISTENT
    all_fixed = True
    for g in range(n_groups):
        if lo[g] < hi[g]:
            all_fixed = False
            break
    if not all_fixed:
        ocs, ocg, oct_, m = _open_part(cs, cg, ct, n_cons, lo, hi)
        ostart, oitems = _touching(ocs, ocg, m, n_groups)
        nc = n_cons
        for a in range(m):
            a0 = ocs[a]
            a1 = ocs[a + 1]
            g0 = ocg[a0]
            for q in range(ostart[g0], ostart[g0 + 1]):
                b = oitems[q]
                b0 = ocs[b]
                b1 = ocs[b + 1]
                if b1 - b0 <= a1 - a0:
                    continue
                # Groups ascending in both: a is a subset of b if a merge finds each.
                p = a0
                p_begin = cs[nc]
                for pb in range(b0, b1):
                    if p < a1 and ocg[p] == ocg[pb]:
                        p += 1
                    else:
                        cg[p_begin + (pb - b0) - (p - a0)] = ocg[pb]
                if p == a1:
                    cs[nc + 1] = p_begin + (b1 - b0) - (a1 - a0)
                    ct[nc] = oct_[b] - oct_[a]
                    nc += 1
        if nc > n_cons:
            tstart, titems = _touching(cs, cg, nc, n_groups)
            if _propagate(cs, cg, ct, nc, lo, hi, tstart, titems) < 0:
                return INCONSISTENT
    # The fixed groups, and the constraints left on the open ones.
    fixed_mines = np.int64(0)
    for g in range(n_groups):
        if lo[g] == hi[g]:
            fixed_mines += lo[g]
    rcs, rcg, rct, n_res = _open_part(cs, cg, ct, n_cons, lo, hi)

    # split_components: groups linked by a constraint; components by their first group.
    parent = np.arange(n_groups)
    for c in range(n_res):
        root = rcg[rcs[c]]
        while parent[root] != root:
            root = parent[root]
        for p in range(rcs[c] + 1, rcs[c + 1]):
            other = rcg[p]
            while parent[other] != other:
                other = parent[other]
            if other != root:
                if other < root:
                    parent[root] = other
                    root = other
                else:
                    parent[other] = root
    comp_of = np.full(n_groups, -1, dtype=np.int64)
    local = np.zeros(n_groups, dtype=np.int64)
    comp_n = np.zeros(n_groups, dtype=np.int64)
    comp_groups = np.empty(n_groups, dtype=np.int64)
    n_comp = np.int64(0)
    comp_id = np.full(n_groups, -1, dtype=np.int64)
    for g in range(n_groups):
        if lo[g] == hi[g]:
            continue
        root = g
        while parent[root] != root:
            root = parent[root]
        if comp_id[root] < 0:
            comp_id[root] = n_comp
            n_comp += 1
        comp_of[g] = comp_id[root]
    comp_start = np.zeros(n_comp + 1, dtype=np.int64)
    for g in range(n_groups):
        if comp_of[g] >= 0:
            comp_start[comp_of[g] + 1] += 1
    for k in range(n_comp):
        comp_start[k + 1] += comp_start[k]
    for g in range(n_groups):
        k = comp_of[g]
        if k >= 0:
            local[g] = comp_n[k]
            comp_groups[comp_start[k] + comp_n[k]] = g
            comp_n[k] += 1

    # Header, then the fixed groups: partly mined ones, the safe cells, the mines.
    p = 3
    n_partial = 0
    for g in range(n_groups):
        if lo[g] == hi[g] and 0 < lo[g] < size[g]:
            n_partial += 1
    out[p] = n_partial
    p += 1
    for g in range(n_groups):
        if lo[g] == hi[g] and 0 < lo[g] < size[g]:
            out[p] = lo[g]
            out[p + 1] = size[g]
            out[p + 2] = size[g]
            p += 3
            p = _write_cells(out, p, g, cell_start, cell_list)
    n_safe = 0
    for mined in (0, 1):
        count_at = p
        p += 1
        for g in range(n_groups):
            if lo[g] == hi[g] and (
                (mined == 0 and lo[g] == 0) or (mined == 1 and lo[g] == size[g])
            ):
                p = _write_cells(out, p, g, cell_start, cell_list)
        out[count_at] = p - count_at - 1
        if mined == 0:
            n_safe = out[count_at]
    if stop and n_safe:
        out[1] = p
        return REDUCED
    groups = (size[:n_groups], lo, hi, cell_start, cell_list)
    residual = (rcs, rcg, rct, n_res)
    comps = (n_comp, comp_start, comp_groups, local, comp_of)
    return _finish(
        out, p, probs, odds, free, cells, remaining - fixed_mines, groups, residual, comps, approx
    )


@njit(cache=True)
def _write_cells(out, p, g, cell_start, cell_list):
    """Writes group ``g``'s cells at ``out[p:]``; returns the position after them."""
    for q in range(cell_start[g], cell_start[g + 1]):
        out[p] = cell_list[q]
        p += 1
    return p


@njit(cache=True)
def _finish(out, p, probs, odds, free, cells, left, groups, residual, comps, approx):
    """Counts the components, combines them and writes the rest of the answer.

    ``groups``: each group's size, bounds and cells; ``residual``: the constraints left
    (CSR); ``comps``: the components (count, CSR of their groups, each group's index in
    its component and its component).
    """
    size, lo, hi, cell_start, cell_list = groups
    rcs, rcg, rct, n_res = residual
    n_comp, comp_start, comp_groups, local, comp_of = comps
    flat_probs = probs.reshape(-1)
    free_flat = free.reshape(-1)
    n_free = np.int64(0)
    for i in range(len(cells)):
        n_free += free_flat[i]
    n_groups = len(lo)
    length = _MAX_CELLS + 1
    num_at = np.zeros(n_groups, dtype=np.int64)
    comp_counts = np.zeros((max(n_comp, 1), length), dtype=np.int64)
    group_counts = np.zeros((n_groups, length), dtype=np.int64)
    comp_cells = np.zeros(max(n_comp, 1), dtype=np.int64)
    # Each component's constraints on local group indices, sorted and without repeats.
    cons_of = np.empty(n_res, dtype=np.int64)
    cons_n = np.zeros(max(n_comp, 1), dtype=np.int64)
    cons_start = np.zeros(n_comp + 1, dtype=np.int64)
    for c in range(n_res):
        cons_start[comp_of[rcg[rcs[c]]] + 1] += 1
    for k in range(n_comp):
        cons_start[k + 1] += cons_start[k]
    for c in range(n_res):
        k = comp_of[rcg[rcs[c]]]
        cons_of[cons_start[k] + cons_n[k]] = c
        cons_n[k] += 1
    for k in range(n_comp):
        # Insertion sort of the component's constraints (a handful) as tuples sort.
        for a in range(cons_start[k] + 1, cons_start[k + 1]):
            c = cons_of[a]
            b = a - 1
            while b >= cons_start[k] and _less(
                rcg,
                rcs[c],
                rcs[c + 1],
                rct[c],
                rcs[cons_of[b]],
                rcs[cons_of[b] + 1],
                rct[cons_of[b]],
            ):
                cons_of[b + 1] = cons_of[b]
                b -= 1
            cons_of[b + 1] = c
    out[p] = n_comp
    p += 1
    for k in range(n_comp):
        # Local statement, repeats dropped (two numbers on the same groups must agree).
        g0 = comp_start[k]
        m = comp_start[k + 1] - g0
        sizes = np.empty(m, dtype=np.int64)
        for q in range(m):
            sizes[q] = size[comp_groups[g0 + q]]
            comp_cells[k] += sizes[q]
        lcs = np.zeros(cons_n[k] + 1, dtype=np.int64)
        lcg = np.empty(8 * cons_n[k] + 1, dtype=np.int64)
        lct = np.empty(cons_n[k] + 1, dtype=np.int64)
        nc = 0
        for a in range(cons_start[k], cons_start[k + 1]):
            c = cons_of[a]
            if a > cons_start[k]:
                prev = cons_of[a - 1]
                same = rcs[c + 1] - rcs[c] == rcs[prev + 1] - rcs[prev]
                if same:
                    for q in range(rcs[c + 1] - rcs[c]):
                        if rcg[rcs[c] + q] != rcg[rcs[prev] + q]:
                            same = False
                            break
                if same:
                    if rct[c] != rct[prev]:
                        return INCONSISTENT
                    continue
            for q in range(rcs[c], rcs[c + 1]):
                lcg[lcs[nc] + q - rcs[c]] = local[rcg[q]]
            lcs[nc + 1] = lcs[nc] + rcs[c + 1] - rcs[c]
            lct[nc] = rct[c]
            nc += 1
        cell_counts = np.zeros((m, length), dtype=np.int64)
        if comp_cells[k] > _MAX_CELLS:
            return FALLBACK
        budget = _MAX_NODES_PLAYING if approx else _MAX_NODES
        if not _enumerate(sizes, lcs, lcg, lct, nc, comp_counts[k], cell_counts, budget):
            return FALLBACK
        for q in range(m):
            group_counts[comp_groups[g0 + q]] = cell_counts[q]
        if p + 8 + 10 * (m + nc) + (comp_cells[k] + 1) * (m + 1) > len(out):
            return FALLBACK  # more than the room given (never on real boards)
        # Written now; the cells' numerators follow the combination below.
        out[p] = m
        p += 1
        for q in range(m):
            out[p + q] = sizes[q]
        p += m
        out[p] = nc
        p += 1
        for c in range(nc):
            out[p] = lcs[c + 1] - lcs[c]
            p += 1
            for q in range(lcs[c], lcs[c + 1]):
                out[p] = lcg[q]
                p += 1
            out[p] = lct[c]
            p += 1
        out[p] = comp_cells[k] + 1
        p += 1
        for x in range(comp_cells[k] + 1):
            out[p + x] = comp_counts[k, x]
        p += comp_cells[k] + 1
        for q in range(m):
            for x in range(comp_cells[k] + 1):
                out[p + x] = cell_counts[q, x]
            p += comp_cells[k] + 1
        for q in range(m):
            g = comp_groups[g0 + q]
            out[p] = size[g]
            p = _write_cells(out, p + 1, g, cell_start, cell_list)
            num_at[g] = p  # the numerator, filled in below
            p += 1

    out[p] = n_free
    out[p + 1] = 0  # the free cells' numerator, filled in below
    out[1] = p + 2
    first = np.zeros(max(n_comp, 1), dtype=np.int64)
    last = np.zeros(max(n_comp, 1), dtype=np.int64)
    for k in range(n_comp):
        first[k] = -1
        for x in range(comp_cells[k] + 1):
            if comp_counts[k, x]:
                if first[k] < 0:
                    first[k] = x
                last[k] = x
        if first[k] < 0:  # a component without solutions
            return INCONSISTENT
    if left < 0:
        return INCONSISTENT

    # combine: each component a polynomial in its mines; the cells next to no number take
    # the mines left over. Every number below counts layouts of at most the open cells
    # (times a few more bits), or of the open frontier's cells: both are bounded first, and
    # where 64 bits might not hold them, Python integers do this part.
    n_open = n_free
    for k in range(n_comp):
        n_open += comp_cells[k]
    widest = min(left, n_open // 2)
    bits = _log2_binomial(n_open, widest) + math.log2(n_open + 1.0) + math.log2(left + 1.0)
    fits = bits <= _SAFE_BITS and n_open - n_free <= _MAX_CELLS
    lowest = np.int64(0)
    everything = np.ones(1, dtype=np.int64)
    free_ways = np.empty(0, dtype=np.int64)
    weight = np.int64(0)
    free_num = np.int64(0)
    if fits:
        for k in range(n_comp):
            lowest += first[k]
            everything = _convolve(everything, comp_counts[k, first[k] : last[k] + 1])
        free_ways = np.empty(len(everything), dtype=np.int64)
        for s in range(len(everything)):
            free_ways[s] = _binomial(n_free, left - lowest - s)
            layouts = everything[s] * free_ways[s]
            weight += layouts
            free_num += layouts * (left - lowest - s)
        if weight == 0:
            return INCONSISTENT
    # Beyond 64 bits, or beyond exact floats: Python makes the probability map (or, for
    # estimates, floating point does).
    if not fits or weight >= _EXACT_FLOAT:
        out[2] = left
        if approx:
            groups_and_counts = (groups, comps, comp_counts, group_counts, first, last)
            tied = approx == FLOAT_TIED
            return _float_odds(
                flat_probs, odds, cells, free_flat, left, bits, groups_and_counts, tied
            )
        return COUNTED
    for k in range(n_comp):
        others = np.ones(1, dtype=np.int64)
        for j in range(n_comp):
            if j != k:
                others = _convolve(others, comp_counts[j, first[j] : last[j] + 1])
        ways = np.zeros(last[k] - first[k] + 1, dtype=np.int64)
        for x in range(len(ways)):
            for j in range(len(others)):
                ways[x] += others[j] * free_ways[x + j]
        for q in range(comp_start[k], comp_start[k + 1]):
            g = comp_groups[q]
            num = np.int64(0)
            for x in range(len(ways)):
                num += group_counts[g, first[k] + x] * ways[x]
            out[num_at[g]] = num
            _paint(flat_probs, odds, g, num, weight, cell_start, cell_list)
    if n_free:
        free_num //= n_free
    out[p + 1] = free_num
    out[2] = weight
    # The rest of the probability map: revealed cells, flags, fixed groups, free cells.
    _paint_rest(flat_probs, cells, free_flat, free_num / weight, groups)
    n = len(cells)
    for i in range(n):
        if cells[i] == COVERED and free_flat[i]:
            odds[i] = free_num
            odds[n + i] = weight
    for g in range(n_groups):
        if lo[g] == hi[g]:
            _paint(flat_probs, odds, g, lo[g], size[g], cell_start, cell_list)
    return DONE


@njit(cache=True)
def _paint_rest(flat_probs, cells, free_flat, free_p, groups):
    """The probability map outside the components: flags, revealed cells, the cells next to
    no number (``free_p``) and the fixed groups."""
    size, lo, hi, cell_start, cell_list = groups
    for i in range(len(cells)):
        v = cells[i]
        if v == FLAG:
            flat_probs[i] = 1.0
        elif v != COVERED:
            flat_probs[i] = np.nan
        elif free_flat[i]:
            flat_probs[i] = free_p
    for g in range(len(lo)):
        if lo[g] == hi[g]:
            for c in range(cell_start[g], cell_start[g + 1]):
                flat_probs[cell_list[c]] = lo[g] / size[g]


@njit(cache=True)
def _convolve_float(a, b):
    """``a`` convolved with ``b`` in floating point, scaled to a largest term of 1."""
    out = np.zeros(len(a) + len(b) - 1)
    for i in range(len(a)):
        for j in range(len(b)):
            out[i + j] += a[i] * b[j]
    return out / out.max() if out.max() > 0 else out


@njit(cache=True)
def _support(a, b):
    """Which sums of a term of ``a`` and a term of ``b`` have layouts (both non-zero)."""
    out = np.zeros(len(a) + len(b) - 1, dtype=np.bool_)
    for i in range(len(a)):
        if a[i]:
            for j in range(len(b)):
                out[i + j] |= b[j]
    return out


@njit(cache=True)
def _float_odds(flat_probs, odds, cells, free_flat, left, bits, groups_and_counts, tied):
    """The probability map of :func:`_finish`'s combination in floating point (binomials
    by their logarithms, every product scaled), where exact integers would not fit.

    With it, ``odds`` says of every covered cell outside the flags which cells share its
    exact odds (``odds[i]``: its group, or ``n_groups`` for the cells next to no number; -1
    where a term of its sums fell below :data:`_TINY`, where floating point may have lost
    it) and what is certain of them (``odds[n + i]``: :data:`SURE_SAFE`, :data:`SURE_MINE`,
    else 0), found exactly from which counts are non-zero: a player can then act on the map
    as on the exact odds (see :func:`mscsp.engine._game_loop.play`). Without ``tied``, the classes
    are left as they are, each group its own (a look-ahead reads the map and what is
    certain only, and finding equal odds among the safest costs more than the rest).
    """
    groups, comps, comp_counts, group_counts, first, last = groups_and_counts
    size, lo, hi, cell_start, cell_list = groups
    n_comp, comp_start, comp_groups, local, comp_of = comps
    n = len(cells)
    n_free = np.int64(0)
    for i in range(n):
        n_free += free_flat[i]
    lowest = np.int64(0)
    everything = np.ones(1)
    reach = np.ones(1, dtype=np.bool_)  # the frontier's mine counts with layouts
    for k in range(n_comp):
        lowest += first[k]
        everything = _convolve_float(everything, comp_counts[k, first[k] : last[k] + 1] * 1.0)
        reach = _support(reach, comp_counts[k, first[k] : last[k] + 1] > 0)
    logs = np.empty(len(everything))
    for s in range(len(everything)):
        m = left - lowest - s
        if 0 <= m <= n_free:
            logs[s] = lgamma(n_free + 1) - lgamma(m + 1) - lgamma(n_free - m + 1)
        else:
            logs[s] = -np.inf
    if logs.max() == -np.inf:
        return INCONSISTENT
    # (Term by term: numpy's own exp of an array, run uncompiled, differs in the last bits.)
    top = logs.max()
    free_ways = np.empty(len(logs))
    for s in range(len(logs)):
        free_ways[s] = math.exp(logs[s] - top)
    fits = logs > -np.inf  # exactly where the binomial is not zero
    weight = 0.0
    free_num = 0.0
    free_safe = True
    free_mine = True
    free_class = len(lo)
    for s in range(len(everything)):
        weight += everything[s] * free_ways[s]
        free_num += everything[s] * free_ways[s] * (left - lowest - s)
        if reach[s] and fits[s]:
            free_safe &= left - lowest - s == 0
            free_mine &= left - lowest - s == n_free
            if everything[s] * free_ways[s] < _TINY:
                free_class = -1
    if weight <= 0.0:
        return FALLBACK
    for k in range(n_comp):
        others = np.ones(1)
        others_reach = np.ones(1, dtype=np.bool_)
        for j in range(n_comp):
            if j != k:
                others = _convolve_float(others, comp_counts[j, first[j] : last[j] + 1] * 1.0)
                others_reach = _support(others_reach, comp_counts[j, first[j] : last[j] + 1] > 0)
        # (others carries a scale of its own: the component's numerators are divided by the
        # same combination, made with that scale.)
        ways = np.zeros(last[k] - first[k] + 1)
        ways_reach = np.zeros(len(ways), dtype=np.bool_)
        total = 0.0
        for x in range(len(ways)):
            for j in range(len(others)):
                ways[x] += others[j] * free_ways[x + j]
                ways_reach[x] |= others_reach[j] and fits[x + j]
            total += comp_counts[k, first[k] + x] * ways[x]
        lost = False
        for x in range(len(ways)):
            lost |= ways_reach[x] and comp_counts[k, first[k] + x] > 0 and ways[x] < _TINY
        for q in range(comp_start[k], comp_start[k + 1]):
            g = comp_groups[q]
            num = 0.0
            sure = SURE_SAFE | SURE_MINE
            for x in range(len(ways)):
                num += group_counts[g, first[k] + x] * ways[x]
                if ways_reach[x] and comp_counts[k, first[k] + x]:
                    if group_counts[g, first[k] + x]:
                        sure &= ~SURE_SAFE
                    if group_counts[g, first[k] + x] != comp_counts[k, first[k] + x]:
                        sure &= ~SURE_MINE
            for c in range(cell_start[g], cell_start[g + 1]):
                flat_probs[cell_list[c]] = num / total
                odds[cell_list[c]] = -1 if lost else g
                odds[n + cell_list[c]] = sure
    _paint_rest(flat_probs, cells, free_flat, free_num / n_free / weight if n_free else 0.0, groups)
    for i in range(n):
        if cells[i] == COVERED and free_flat[i]:
            odds[i] = free_class
            odds[n + i] = SURE_SAFE if free_safe else SURE_MINE if free_mine else 0
    for g in range(len(lo)):
        if lo[g] == hi[g]:
            for c in range(cell_start[g], cell_start[g + 1]):
                odds[cell_list[c]] = g
                odds[n + cell_list[c]] = SURE_SAFE if lo[g] == 0 else 0
                if lo[g] == size[g]:
                    odds[n + cell_list[c]] = SURE_MINE
    # The classes whose odds are within TIE of the lowest: those equal exactly share one.
    if not tied:
        return APPROX
    low = np.inf
    for i in range(n):
        if cells[i] == COVERED:
            if odds[i] < 0:
                return APPROX
            low = min(low, flat_probs[i])
    near = np.zeros(len(lo) + 1, dtype=np.bool_)
    cls = np.empty(len(lo) + 1, dtype=np.int64)
    found = 0
    for i in range(n):
        if cells[i] == COVERED and flat_probs[i] <= low * (1.0 + TIE) and not near[odds[i]]:
            near[odds[i]] = True
            cls[found] = odds[i]
            found += 1
    if found > 1:
        count = (groups, comps, comp_counts, group_counts, first, last)
        same = merge_ties(cls[:found], bits, n_free, left, lowest, count)
        if len(same):
            to = np.arange(len(lo) + 1)
            for c in range(found):
                to[cls[c]] = cls[same[c]]
            for i in range(n):
                if cells[i] == COVERED and odds[i] >= 0:
                    odds[i] = to[odds[i]]
    return APPROX


@njit(cache=True)
def _paint(flat_probs, odds, g, num, den, cell_start, cell_list):
    """Sets the odds ``num / den`` of every cell of group ``g`` (exact, and as a float)."""
    n = len(flat_probs)
    value = num / den
    for q in range(cell_start[g], cell_start[g + 1]):
        flat_probs[cell_list[q]] = value
        odds[cell_list[q]] = num
        odds[n + cell_list[q]] = den
