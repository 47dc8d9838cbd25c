"""A sweep order of a component's groups that keeps few constraints open at once."""

from __future__ import annotations

from itertools import combinations

from ..constraints import Component


def sweep_order(component: Component, ranked: bool = False) -> list[int]:
    """Groups in breadth-first order from a pseudo-peripheral group.

    The start is the last group a breadth-first search from group 0 reaches (an end of a
    long path through the component), so the sweep crosses it along its length and the
    frontier of the sweep, the constraints open at once, stays narrow.

    Args:
        component: The component.
        ranked: Take every two groups under one constraint as neighbours and visit a
            group's neighbours in order of how few constraints they are under (as ``dss``
            does), instead of chaining each constraint's groups and visiting by index.
            Which of the two sweeps keeps fewer states depends on the instance.
    """
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(component.n_groups))
    under = [0] * component.n_groups
    for groups, _ in component.constraints:
        if ranked:
            graph.add_edges_from(combinations(groups, 2))
        else:
            graph.add_edges_from(zip(groups, groups[1:], strict=False))
        for g in groups:
            under[g] += 1
    rank = (lambda nbrs: sorted(nbrs, key=under.__getitem__)) if ranked else None
    start = list(nx.bfs_tree(graph, 0, sort_neighbors=rank))[-1]
    order = list(nx.bfs_tree(graph, start, sort_neighbors=rank))
    # A component is connected, but keep any stray group rather than drop it.
    seen = set(order)
    return order + [g for g in range(component.n_groups) if g not in seen]


def open_constraints(component: Component) -> int:
    """Most constraints open at once along :func:`sweep_order`.

    A constraint is open from its first group to its last. This is the width of the state a
    left-to-right counter such as ``dss`` carries (a path-width bound), which is what makes
    a component hard for it, whatever its number of cells.
    """
    place = {g: i for i, g in enumerate(sweep_order(component))}
    opened = [0] * (component.n_groups + 1)
    for groups, _ in component.constraints:
        spots = [place[g] for g in groups]
        opened[min(spots)] += 1
        opened[max(spots)] -= 1
    width = running = 0
    for delta in opened:
        running += delta
        width = max(width, running)
    return width
