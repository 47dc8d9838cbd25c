"""A probe's outcomes by conditioning the position's count (numba; loaded with
:mod:`mscsp.engine._probe`).

The layouts of an outcome of a probe (the cell clicked safe, showing ``v``) are exactly the
position's layouts with that cell safe and ``v`` mines around it. So instead of solving each
outcome's board afresh (:func:`mscsp.engine._kernel.solve_flat` reads, groups and propagates the
whole board and counts every component: about 20 us an outcome on expert), the position is
solved once and its answer read back (:func:`decode_base`); per probed cell only the
components its neighbourhood touches are counted again (:func:`condition`), as one
component with the cell's number as one more constraint (each group split where the
neighbourhood cuts it), once per number. The other components keep their counts, and the
map and what is certain follow from the counts as the kernel's floating-point map does
(:func:`mscsp.engine._kernel._float_odds`). Where the merged component is beyond the kernel's
limits, the caller solves the outcomes one by one instead.
"""

from __future__ import annotations

import numpy as np

from mscsp.board import COVERED, FLAG

from ._jit import njit
from ._kernel import _MAX_CELLS, _MAX_NODES_PLAYING, _enumerate, _float_odds
from ._kernel_status import FALLBACK

#: What each covered cell of the position is (:func:`decode_base`'s ``kind``).
OTHER = 0  # not covered
IN_GROUP = 1  # in a component's group (``ident``: the group)
IN_PARTIAL = 2  # in a group fixed at some but not all of its mines (``ident``: which)
FREE = 3  # next to no number
SAFE = 4  # proven safe
MINE = 5  # proven a mine (not flagged)
#: Counts by mines: every component has at most ``_MAX_CELLS`` cells.
LENGTH = _MAX_CELLS + 1


@njit(cache=True)
def decode_base(cells, mines, out):
    """The kernel's answer ``out`` (status ``DONE`` or ``APPROX``) for the board
    ``cells`` as arrays (see :func:`mscsp.engine.compiled.decode` for the layout); the proven mines
    of the answer may be flagged in ``cells`` since.

    Returns:
        A tuple: each cell's ``kind`` and ``ident``; the partly fixed groups (mines, cells
        as CSR); the components' groups (sizes, cells as CSR, component), the components
        (their first group, first constraint, counts by mines, each group's mine counts)
        and constraints (groups local to their component, as CSR, and targets); and the
        mines left to the components and the cells next to no number.
    """
    n = len(cells)
    kind = np.zeros(n, dtype=np.int64)
    ident = np.full(n, -1, dtype=np.int64)
    n_par = out[3]
    par_lo = np.empty(n_par, dtype=np.int64)
    par_start = np.zeros(n_par + 1, dtype=np.int64)
    par_cells = np.empty(n, dtype=np.int64)
    i = 4
    fixed = np.int64(0)
    for p in range(n_par):
        par_lo[p] = out[i]
        count = out[i + 2]
        i += 3
        for q in range(count):
            kind[out[i + q]] = IN_PARTIAL
            ident[out[i + q]] = p
            par_cells[par_start[p] + q] = out[i + q]
        par_start[p + 1] = par_start[p] + count
        i += count
        fixed += par_lo[p]
    for code in (SAFE, MINE):
        count = out[i]
        for q in range(count):
            kind[out[i + 1 + q]] = code
        if code == MINE:
            fixed += count
        i += 1 + count
    n_comp = out[i]
    i += 1
    # One pass for the sizes of the arrays, one to fill them.
    n_groups = np.int64(0)
    n_cons = np.int64(0)
    n_items = np.int64(0)
    j = i
    for _ in range(n_comp):
        m = out[j]
        n_groups += m
        j += 1 + m
        n_cons += out[j]
        nc = out[j]
        j += 1
        for _ in range(nc):
            n_items += out[j]
            j += out[j] + 2
        length = out[j]
        j += 1 + length * (m + 1)
        for _ in range(m):
            j += out[j] + 2
    grp_size = np.empty(n_groups, dtype=np.int64)
    grp_start = np.zeros(n_groups + 1, dtype=np.int64)
    grp_cells = np.empty(n, dtype=np.int64)
    grp_comp = np.empty(n_groups, dtype=np.int64)
    comp_gstart = np.zeros(n_comp + 1, dtype=np.int64)
    comp_cstart = np.zeros(n_comp + 1, dtype=np.int64)
    con_start = np.zeros(n_cons + 1, dtype=np.int64)
    con_groups = np.empty(n_items, dtype=np.int64)
    con_target = np.empty(n_cons, dtype=np.int64)
    comp_counts = np.zeros((max(n_comp, 1), LENGTH), dtype=np.int64)
    group_counts = np.zeros((max(n_groups, 1), LENGTH), dtype=np.int64)
    g0 = 0
    c0 = 0
    for k in range(n_comp):
        m = out[i]
        i += 1 + m  # (the sizes are read with the cells below)
        nc = out[i]
        i += 1
        for c in range(c0, c0 + nc):
            length = out[i]
            for q in range(length):
                con_groups[con_start[c] + q] = out[i + 1 + q]
            con_start[c + 1] = con_start[c] + length
            con_target[c] = out[i + 1 + length]
            i += length + 2
        length = out[i]
        i += 1
        comp_counts[k, :length] = out[i : i + length]
        i += length
        for q in range(m):
            group_counts[g0 + q, :length] = out[i : i + length]
            i += length
        for g in range(g0, g0 + m):
            count = out[i]
            grp_size[g] = count
            grp_comp[g] = k
            for q in range(count):
                kind[out[i + 1 + q]] = IN_GROUP
                ident[out[i + 1 + q]] = g
                grp_cells[grp_start[g] + q] = out[i + 1 + q]
            grp_start[g + 1] = grp_start[g] + count
            i += count + 2
        g0 += m
        c0 += nc
        comp_gstart[k + 1] = g0
        comp_cstart[k + 1] = c0
    flags = np.int64(0)
    for q in range(n):
        if cells[q] == FLAG:
            # (A mine the answer proves in a group, flagged since, is counted there; one
            # of the cells next to no number is counted here, no longer among those.)
            flags += kind[q] == OTHER
        elif cells[q] == COVERED and kind[q] == OTHER:
            kind[q] = FREE
    left = mines - flags - fixed
    partial = (par_lo, par_start, par_cells)
    groups = (grp_size, grp_start, grp_cells, grp_comp)
    comps = (comp_gstart, comp_cstart, comp_counts, group_counts)
    constraints = (con_start, con_groups, con_target)
    return kind, ident, partial, groups, comps, constraints, left


@njit(cache=True)
def _split(cells_of, start, end, near, cell, part_start, part_cells, part_near, n_parts, at):
    """Adds the cells ``cells_of[start:end]`` (less ``cell``) as up to two parts, those in
    ``near`` then the others; returns the parts made (-1: none) and the new counts."""
    made = np.full(2, -1, dtype=np.int64)
    for side in range(2):
        begin = at
        for q in range(start, end):
            k = cells_of[q]
            if k != cell and near[k] == (side == 0):
                part_cells[at] = k
                at += 1
        if at > begin:
            made[side] = n_parts
            part_near[n_parts] = side == 0
            part_start[n_parts + 1] = at
            n_parts += 1
    return made, n_parts, at


@njit(cache=True)
def condition(base, cells, rows, cols, cell):
    """The outcomes of clicking ``cell`` (flat) safe on the position ``base`` describes
    (:func:`decode_base`), as a system to count once per number (:func:`outcome`).

    The components and partly fixed groups that the cell or its covered neighbours belong
    to become one component: each of their groups split into its cells next to ``cell``
    and the others (``cell`` itself left out: it is safe), the cells next to no number
    around ``cell`` one more part, their constraints on the parts, and last the cell's
    number on the parts next to it (its target set per outcome).

    Returns:
        The parts (sizes, whether next to ``cell``, cells as CSR; see :func:`fits`), the
        constraints (CSR, targets, count), the mines the cell's neighbours hold already
        (flags and proven mines), the mines the merged component takes from the partly
        fixed groups, and which components and partly fixed groups it absorbs.
    """
    kind, ident, partial, groups, comps, constraints, left = base
    par_lo, par_start, par_cells = partial
    grp_size, grp_start, grp_cells, grp_comp = groups
    comp_gstart, comp_cstart, comp_counts, group_counts = comps
    con_start, con_groups, con_target = constraints
    n = rows * cols
    r, c = cell // cols, cell % cols
    near = np.zeros(n, dtype=np.bool_)
    n_comp = len(comp_gstart) - 1
    touched = np.zeros(n_comp, dtype=np.bool_)
    touched_par = np.zeros(len(par_lo), dtype=np.bool_)
    held = np.int64(0)
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            rr, cc = r + dr, c + dc
            if (dr or dc) and 0 <= rr < rows and 0 <= cc < cols:
                k = rr * cols + cc
                if cells[k] == FLAG or kind[k] == MINE:
                    held += 1
                elif cells[k] == COVERED:
                    near[k] = True
    for k in range(n):
        if near[k] or k == cell:
            if kind[k] == IN_GROUP:
                touched[grp_comp[ident[k]]] = True
            elif kind[k] == IN_PARTIAL:
                touched_par[ident[k]] = True
    # The parts: each touched group's cells next to ``cell``, then its others.
    bound = 2 * (len(grp_size) + len(par_lo)) + 1
    part_start = np.zeros(bound + 1, dtype=np.int64)
    part_cells = np.empty(n, dtype=np.int64)
    part_near = np.zeros(bound, dtype=np.bool_)
    parts_of = np.full((len(grp_size), 2), -1, dtype=np.int64)
    n_parts = np.int64(0)
    at = np.int64(0)
    for k in range(n_comp):
        if touched[k]:
            for g in range(comp_gstart[k], comp_gstart[k + 1]):
                made, n_parts, at = _split(
                    grp_cells, grp_start[g], grp_start[g + 1], near, cell,
                    part_start, part_cells, part_near, n_parts, at,
                )  # fmt: skip
                parts_of[g] = made
    par_parts = np.full((len(par_lo), 2), -1, dtype=np.int64)
    taken = np.int64(0)  # the partly fixed groups' mines, now counted in the component
    for p in range(len(par_lo)):
        if touched_par[p]:
            made, n_parts, at = _split(
                par_cells, par_start[p], par_start[p + 1], near, cell,
                part_start, part_cells, part_near, n_parts, at,
            )  # fmt: skip
            par_parts[p] = made
            taken += par_lo[p]
    begin = at
    for k in range(n):
        if near[k] and kind[k] == FREE:
            part_cells[at] = k
            at += 1
    if at > begin:
        part_near[n_parts] = True
        part_start[n_parts + 1] = at
        n_parts += 1
    sizes = np.empty(n_parts, dtype=np.int64)
    for q in range(n_parts):
        sizes[q] = part_start[q + 1] - part_start[q]
    # The constraints on the parts (ascending in each, as the enumeration wants them).
    n_cons = np.int64(1) + touched_par.sum()
    for k in range(n_comp):
        if touched[k]:
            n_cons += comp_cstart[k + 1] - comp_cstart[k]
    cs = np.zeros(n_cons + 1, dtype=np.int64)
    cg = np.empty(2 * len(con_groups) + 2 * n + 1, dtype=np.int64)
    ct = np.empty(n_cons, dtype=np.int64)
    nc = 0
    for k in range(n_comp):
        if touched[k]:
            for con in range(comp_cstart[k], comp_cstart[k + 1]):
                p = cs[nc]
                for q in range(con_start[con], con_start[con + 1]):
                    for side in range(2):
                        part = parts_of[comp_gstart[k] + con_groups[q], side]
                        if part >= 0:
                            cg[p] = part
                            p += 1
                cs[nc + 1] = p
                ct[nc] = con_target[con]
                nc += 1
    for q in range(len(par_lo)):
        if touched_par[q]:
            p = cs[nc]
            for side in range(2):
                if par_parts[q, side] >= 0:
                    cg[p] = par_parts[q, side]
                    p += 1
            cs[nc + 1] = p
            ct[nc] = par_lo[q]
            nc += 1
    p = cs[nc]
    for q in range(n_parts):
        if part_near[q]:
            cg[p] = q
            p += 1
    cs[nc + 1] = p
    ct[nc] = 0  # (the cell's number, set per outcome)
    nc += 1
    parts = (sizes, part_near[:n_parts], part_start[: n_parts + 1], part_cells)
    system = (cs, cg, ct, nc)
    return parts, system, held, taken, touched, touched_par


@njit(cache=True)
def _add_group(groups_of, g, at, cells_of, start, end, mines):
    """Group ``g``: the cells ``cells_of[start:end]`` from ``at`` in the cell list, its mines
    fixed at ``mines`` (-1: open). Returns where its cells end."""
    size, lo, hi, cell_start, cell_list = groups_of
    for q in range(start, end):
        cell_list[at] = cells_of[q]
        at += 1
    cell_start[g + 1] = at
    size[g] = end - start
    lo[g] = max(mines, 0)
    hi[g] = mines if mines >= 0 else size[g]
    return at


@njit(cache=True)
def outcome_groups(base, merged, cells, free_flat):
    """What every outcome of the probe shares: the groups (the components' that the probe
    leaves as they are, the merged component's parts, then the fixed groups, painted but
    not counted), the components and their counts (the merged one's rows left to
    :func:`outcome_map`), as :func:`mscsp.engine._kernel._float_odds` reads them. ``free_flat`` is
    written: the cells next to no number after the click."""
    kind, ident, partial, groups, comps, constraints, left = base
    par_lo, par_start, par_cells = partial
    grp_size, grp_start, grp_cells, grp_comp = groups
    comp_gstart, comp_cstart, comp_counts, group_counts = comps
    parts, touched, touched_par, taken = merged
    sizes, part_near, part_start, part_cells = parts
    n = len(cells)
    for k in range(n):
        free_flat[k] = cells[k] == COVERED and kind[k] == FREE
    for q in range(part_start[-1]):
        free_flat[part_cells[q]] = False
    n_comp = len(comp_gstart) - 1
    kept = n_comp - touched.sum()
    n_groups = len(sizes) + len(par_lo) - touched_par.sum() + 2
    for k in range(n_comp):
        if not touched[k]:
            n_groups += comp_gstart[k + 1] - comp_gstart[k]
    size = np.empty(n_groups, dtype=np.int64)
    lo = np.zeros(n_groups, dtype=np.int64)
    hi = np.empty(n_groups, dtype=np.int64)
    cell_start = np.zeros(n_groups + 1, dtype=np.int64)
    cell_list = np.empty(n, dtype=np.int64)
    groups_of = (size, lo, hi, cell_start, cell_list)
    comp_start = np.zeros(kept + 2, dtype=np.int64)
    comp_groups = np.arange(n_groups)
    all_counts = np.empty((kept + 1, LENGTH), dtype=np.int64)
    all_cells = np.empty((n_groups, LENGTH), dtype=np.int64)
    g = 0
    at = 0
    k2 = 0
    for k in range(n_comp):
        if touched[k]:
            continue
        all_counts[k2] = comp_counts[k]
        for h in range(comp_gstart[k], comp_gstart[k + 1]):
            at = _add_group(groups_of, g, at, grp_cells, grp_start[h], grp_start[h + 1], -1)
            all_cells[g] = group_counts[h]
            g += 1
        k2 += 1
        comp_start[k2] = g
    for q in range(len(sizes)):  # (the merged component's rows: per outcome)
        at = _add_group(groups_of, g, at, part_cells, part_start[q], part_start[q + 1], -1)
        g += 1
    comp_start[kept + 1] = g
    for p in range(len(par_lo)):
        if not touched_par[p]:
            at = _add_group(groups_of, g, at, par_cells, par_start[p], par_start[p + 1], par_lo[p])
            g += 1
    for code in (SAFE, MINE):
        for k in range(n):
            if kind[k] == code and cells[k] == COVERED:
                cell_list[at] = k
                at += 1
        size[g] = max(at - cell_start[g], 1)  # (an empty group paints nothing)
        lo[g] = 0 if code == SAFE else size[g]
        hi[g] = lo[g]
        cell_start[g + 1] = at
        g += 1
    comps_of = (kept + 1, comp_start, comp_groups, comp_groups, comp_groups)
    return groups_of, comps_of, all_counts, all_cells


@njit(cache=True)
def outcome_map(base, merged, common, cells, counts, cell_counts, flat_probs, odds, free_flat):
    """The probability map and what is certain (``odds``, as :func:`mscsp.engine._kernel.
    _float_odds` writes them) of one outcome: the position with the clicked cell showing
    its number (``cells``), the merged component counted (``counts``, ``cell_counts``),
    the rest as :func:`outcome_groups` found it (``common``, ``free_flat``).

    Returns:
        The status (:data:`mscsp.engine._kernel_status.APPROX`; else the outcome has no layouts or
        floating point cannot weigh it), and the components' counts by mines (the merged
        one last) with their last non-zero terms, for the outcome's weight.
    """
    groups_of, comps_of, all_counts, all_cells = common
    kept = comps_of[0] - 1
    comp_start = comps_of[1]
    all_counts[kept] = counts
    for q in range(len(cell_counts)):
        all_cells[comp_start[kept] + q] = cell_counts[q]
    first = np.empty(kept + 1, dtype=np.int64)
    last = np.empty(kept + 1, dtype=np.int64)
    for k in range(kept + 1):
        first[k] = -1
        for x in range(LENGTH):
            if all_counts[k, x]:
                if first[k] < 0:
                    first[k] = x
                last[k] = x
        if first[k] < 0:
            return FALLBACK, all_counts, last
    counted = (groups_of, comps_of, all_counts, all_cells, first, last)
    left = base[6] + merged[3]
    status = _float_odds(flat_probs, odds, cells, free_flat, left, 0.0, counted, False)
    return status, all_counts, last


@njit(cache=True)
def count_outcome(parts, system, target):
    """The merged component's counts for one outcome (its number's ``target`` on the parts
    next to the cell) by mines, and each part's; first False past the enumeration's
    budget."""
    sizes = parts[0]
    cs, cg, ct, nc = system
    ct[nc - 1] = target
    counts = np.zeros(LENGTH, dtype=np.int64)
    cell_counts = np.zeros((len(sizes), LENGTH), dtype=np.int64)
    ok = _enumerate(sizes, cs, cg, ct, nc, counts, cell_counts, _MAX_NODES_PLAYING)
    return ok, counts, cell_counts


@njit(cache=True)
def fits(parts):
    """Whether the merged component is within the kernel's limits (cells, and at least one
    part: a cell with nothing around it to count is solved outcome by outcome)."""
    sizes = parts[0]
    return len(sizes) > 0 and sizes.sum() <= _MAX_CELLS
