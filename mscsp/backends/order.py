"""A sweep order of a component's groups that keeps few constraints open at once."""

from __future__ import annotations

from ..constraints import Component


def sweep_order(component: Component) -> list[int]:
    """Groups in breadth-first order from a pseudo-peripheral group.

    The start is the last group a breadth-first search from group 0 reaches (an end of a
    long path through the component), so the sweep crosses it along its length and the
    frontier of the sweep, the constraints open at once, stays narrow. Each constraint's
    groups are chained and a group's neighbours are visited by index.

    Args:
        component: The component.
    """
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(component.n_groups))
    for groups, _ in component.constraints:
        graph.add_edges_from(zip(groups, groups[1:], strict=False))
    start = list(nx.bfs_tree(graph, 0))[-1]
    order = list(nx.bfs_tree(graph, start))
    # A component is connected, but keep any stray group rather than drop it.
    seen = set(order)
    return order + [g for g in range(component.n_groups) if g not in seen]


def ranked_order(component: Component) -> list[int]:
    """The sweep ``dss`` uses: breadth-first from a pseudo-peripheral group, where every two
    groups under one constraint are neighbours and a group's neighbours are visited in order
    of how few constraints they are under.

    Pure Python (no graph library): it is on the hot path of every ``dss`` count. Which of
    this sweep and :func:`sweep_order` keeps fewer states depends on the instance.

    Args:
        component: The component.
    """
    n = component.n_groups
    nbrs: list[set[int]] = [set() for _ in range(n)]
    under = [0] * n
    for groups, _ in component.constraints:
        for g in groups:
            nbrs[g].update(groups)
            under[g] += 1
    ranked = [sorted(nb, key=under.__getitem__) for nb in nbrs]

    def bfs(start: int) -> list[int]:
        order = [start]
        seen = [False] * n
        seen[start] = True
        for g in order:
            for h in ranked[g]:
                if not seen[h]:
                    seen[h] = True
                    order.append(h)
        return order

    order = bfs(bfs(0)[-1]) if n > 1 else list(range(n))
    # A component is connected, but keep any stray group rather than drop it.
    if len(order) < n:
        seen = set(order)
        order += [g for g in range(n) if g not in seen]
    return order


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
