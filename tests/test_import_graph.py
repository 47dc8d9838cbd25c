"""No import circle among the modules of ``mscsp`` and ``learners``, and no arrow back up.

What "no import circle" means here, precisely. The graph has one node per module (a package is
its ``__init__``) and an edge ``A -> B`` whenever A's source imports B, wherever the statement
stands: at module level, in a function or method, in a ``try`` block. The edges are

* ``import B`` and ``from B import name`` (relative forms resolved); ``from P import n`` is
  an edge to ``P.n`` too when ``P.n`` is a module;
* ``importlib.import_module("B")``, the argument a literal or a module-level string constant;
* the packages enclosing B, whose ``__init__`` runs first when B is imported, unless they
  enclose A as well (they are then already being initialised).

Two kinds of statement are left out: imports under ``if TYPE_CHECKING:`` (they never run),
and a package ``__init__`` importing its own submodules (a package presenting its parts is
Python's package mechanism, not a dependency between modules; a submodule may then import
from its package). Every other edge counts, and the graph must be acyclic.

The learned systems are plugins: ``learners`` registers its table under the ``mscsp.learners``
entry points (``pyproject.toml``), which :mod:`mscsp.players.plugins` reads from the package
metadata, and :mod:`learners.registry` names each player's module as data
(``"module:callable"``) and imports it only on request, the way a backend's optional package
is named by ``requires``. Those names are not edges; :func:`test_registry_names_real_code`
checks them instead. So no module of ``mscsp`` imports ``learners`` (but the ``mscsp learn``
commands, the top layer), and ``learners`` depends on ``mscsp``, never the other way round.

Above the modules, the rooms: :data:`ROOMS` files every module in one, :data:`LAYERS` orders
them bottom to top, and an import runs down to a lower layer or stays in its room, never up
or sideways (:func:`test_no_import_runs_back_up`); ``docs/architecture.md`` draws them
(``docs/img/architecture.py``).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mscsp", "learners")


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, tuple[Path, bool]]:
    """``{dotted name: (file, is a package)}`` for every module of ``packages``."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _run_time_nodes(tree: ast.Module) -> list[ast.AST]:
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:``."""
    out, todo = [], [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def imported_names(name: str, is_package: bool, tree: ast.Module) -> set[str]:
    """Dotted names module ``name`` imports (candidates: not all of them are modules)."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    out = set()
    for node in _run_time_nodes(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            arg = node.args[0]
            if called == "import_module":
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.add(arg.value)
                elif isinstance(arg, ast.Name) and arg.id in constants:
                    out.add(constants[arg.id])
    return out


def import_graph(root: Path, packages: tuple[str, ...] = PACKAGES) -> nx.DiGraph:
    """The module graph of ``packages`` under ``root``, by the rules of this module's doc."""
    modules = module_files(root, packages)
    graph = nx.DiGraph()
    for name, (path, is_package) in modules.items():
        graph.add_node(name)
        enclosing = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 2)}
        for target in imported_names(name, is_package, ast.parse(path.read_text())):
            if target not in modules or target == name:
                continue
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                step = ".".join(parts[:i])
                own_part = is_package and step.startswith(f"{name}.")
                if step in modules and step not in enclosing and not own_part:
                    graph.add_edge(name, step)
    return graph


#: Every room and the modules it holds, each module by its first two dotted names: a top-level
#: module of ``mscsp`` by its own (``mscsp`` alone is the package's face, ``mscsp/__init__``),
#: a subpackage by its name for all its modules.
ROOMS: dict[str, tuple[str, ...]] = {
    # Errors and argument checks, under everything.
    "base": ("mscsp.errors", "mscsp.validate"),
    # Deadlines, memory limits, interrupts, output locks, executors, run logs.
    "runtime": ("mscsp.runtime",),
    # The trust boundary: escaping, bounded reads, safe files, names allow-list.
    "trust": ("mscsp.trust",),
    # The problem itself: boards, constraints, their reduction, counts to probabilities.
    "model": (
        "mscsp.board",
        "mscsp.constraints",
        "mscsp.reduce",
        "mscsp.probabilities",
        "mscsp.bigint",
        "mscsp.primes",
        "mscsp.game",
        "mscsp.reference",
        "mscsp.deduce",
    ),
    # The numba engine (the compiled kernel and game loop).
    "engine": ("mscsp.engine",),
    # The counting backends, and the counters run as programs on top of them.
    "backends": ("mscsp.backends",),
    "counters": ("mscsp.counters",),
    # The solver competitions' instance formats, written by backends and export alike.
    "formats": ("mscsp.formats",),
    # mscsp.solve and what is built straight on it.
    "solve": (
        "mscsp",
        "mscsp.solver",
        "mscsp.session",
        "mscsp.explain",
        "mscsp.contradiction",
        "mscsp.layouts",
    ),
    "display": ("mscsp.display",),
    "players": ("mscsp.players",),
    "estimators": ("mscsp.estimators",),
    "noguess": ("mscsp.noguess",),
    "env": ("mscsp.env",),
    # Screenshots in: the recogniser's board, checked against the image and the rules.
    "screen": ("mscsp.screen",),
    "evaluation": ("mscsp.evaluation",),
    "export": ("mscsp.export",),
    "replay": ("mscsp.replay",),
    "learners": (
        "learners",
        "learners.registry",
        "learners.artefacts",
        "learners.nets",
        "learners.classic",
        "learners.qlearning",
        "learners.guess",
        "learners.graph",
    ),
    # What the command line and the web decide alike (fallbacks, stopped counts).
    "policy": ("mscsp.policy",),
    "web": ("mscsp.web",),
    "cli": ("mscsp.cli", "mscsp.__main__"),
}

#: The rooms' layers, bottom to top. An import runs down to a lower layer or stays in its
#: room; rooms of one layer do not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("base",),
    ("trust",),
    ("runtime",),  # its run logs are read and written through the trust boundary
    ("model",),
    ("formats",),
    ("engine", "backends"),
    ("solve", "display"),
    ("players",),
    ("estimators",),  # an estimator may wrap a player (csp-limited's traversal, the learned)
    ("noguess", "env", "screen"),
    ("evaluation",),
    ("export", "replay", "learners", "policy"),
    ("counters",),  # a counter program; it counts through export's readers
    ("web",),
    ("cli",),
)

#: The imports that run up today, ``(module, room it reaches)``, each with why: the lead's
#: list to empty (each belongs to a file another change owns). Adding to it needs a reason.
BACK_EDGES: dict[tuple[str, str], str] = {
    # None today. An import that must run up a layer is listed here, as (module, room):
    # reason, with its file and line in a comment, until it is fixed.
}


def room_key(module: str) -> str:
    """What :data:`ROOMS` files ``module`` under: its first two dotted names."""
    return ".".join(module.split(".")[:2])


def rooms_of(graph: nx.DiGraph, rooms: dict[str, tuple[str, ...]] = ROOMS) -> dict[str, str | None]:
    """``{module: its room}`` for every module of ``graph`` (``None``: filed nowhere)."""
    filed = {key: room for room, keys in rooms.items() for key in keys}
    return {module: filed.get(room_key(module)) for module in graph.nodes}


def back_edges(
    graph: nx.DiGraph,
    rooms: dict[str, tuple[str, ...]] = ROOMS,
    layers: tuple[tuple[str, ...], ...] = LAYERS,
) -> set[tuple[str, str]]:
    """``(module, room)`` for each import of ``graph`` running up a layer or sideways."""
    room = rooms_of(graph, rooms)
    layer = {name: i for i, names in enumerate(layers) for name in names}
    return {
        (a, room[b])
        for a, b in graph.edges
        if room[a] != room[b] and layer[room[b]] >= layer[room[a]]
    }


def room_graph(graph: nx.DiGraph, rooms: dict[str, tuple[str, ...]] = ROOMS) -> nx.DiGraph:
    """The rooms and the imports between them, ``count`` on each edge (module pairs)."""
    room = rooms_of(graph, rooms)
    out = nx.DiGraph()
    out.add_nodes_from(rooms)
    for a, b in graph.edges:
        if room[a] != room[b]:
            count = out.get_edge_data(room[a], room[b], {"count": 0})["count"]
            out.add_edge(room[a], room[b], count=count + 1)
    return out


def test_mscsp_and_learners_have_no_import_circle() -> None:
    graph = import_graph(ROOT)
    assert graph.number_of_nodes() > 50  # the tree was found
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == [], f"import circles: {cycles}"


def test_mscsp_reaches_learners_through_entry_points_only() -> None:
    graph = import_graph(ROOT)
    into = {
        (a, b)
        for a, b in graph.edges
        if a.startswith("mscsp") and b.startswith("learners") and not a.startswith("mscsp.cli")
    }
    assert into == set()
    # The way in is the package metadata: one entry, the registry's table, in this install too.
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    group = pyproject["project"]["entry-points"]["mscsp.learners"]
    assert group == {"learners": "learners.registry:SYSTEMS"}
    from learners.registry import SYSTEMS
    from mscsp.players.plugins import GROUP, learned_systems

    assert GROUP == "mscsp.learners" and list(learned_systems()) == list(SYSTEMS)
    # The registry itself imports no learner, and nothing it imports reaches one.
    assert not any(m.startswith("learners.") for m in nx.descendants(graph, "learners.registry"))
    # The on-policy loop imports the data it writes, never the reverse.
    assert nx.has_path(graph, "learners.nets.onpolicy", "learners.nets.data")
    assert not nx.has_path(graph, "learners.nets.data", "learners.nets.onpolicy")


def test_registry_names_real_code() -> None:
    from learners.registry import SYSTEMS

    modules = module_files(ROOT, ("learners",))
    for system in SYSTEMS.values():
        assert f"learners.{system.family}" in modules, system.name
        for target in filter(None, (system.player, system.trainer)):
            module, _, attr = target.partition(":")
            assert module.startswith(f"learners.{system.family}."), target
            tree = ast.parse(modules[module][0].read_text())
            defined = {
                n.name
                for n in tree.body
                if isinstance(n, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
            }
            assert attr in defined, target


def test_a_circle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from . import a\n")  # its own submodule: allowed
    (package / "a.py").write_text("import pkg.sub.b\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .. import a\n"
    )
    assert nx.is_directed_acyclic_graph(import_graph(tmp_path, ("pkg",)))
    (package / "sub" / "b.py").write_text("def late():\n    from ..a import x\n")
    cycles = list(nx.simple_cycles(import_graph(tmp_path, ("pkg",))))
    assert sorted(map(sorted, cycles)) == [["pkg.a", "pkg.sub.b"]]


def test_every_module_has_one_room_and_every_room_one_layer() -> None:
    graph = import_graph(ROOT)
    unfiled = sorted(m for m, room in rooms_of(graph).items() if room is None)
    assert unfiled == [], f"modules in no room (file them in ROOMS): {unfiled}"
    layered = [name for names in LAYERS for name in names]
    assert sorted(layered) == sorted(ROOMS) and len(set(layered)) == len(layered)


def test_no_import_runs_back_up() -> None:
    found = back_edges(import_graph(ROOT))
    assert found - BACK_EDGES.keys() == set(), "imports running up (or sideways) a layer"
    assert BACK_EDGES.keys() - found == set(), "fixed: remove them from BACK_EDGES"


def test_an_import_up_a_layer_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "top").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("import os\n")
    (package / "mid.py").write_text("from . import low\n")
    (package / "top" / "__init__.py").write_text("")
    (package / "top" / "run.py").write_text("from .. import low\n")
    rooms = {"low": ("pkg", "pkg.low"), "mid": ("pkg.mid",), "top": ("pkg.top",)}
    layers = (("low",), ("mid",), ("top",))
    assert back_edges(import_graph(tmp_path, ("pkg",)), rooms, layers) == set()
    # Up a layer, from inside a function: no circle, but an arrow back up.
    (package / "mid.py").write_text(
        "from . import low\n\ndef late():\n    from .top.run import y\n"
    )
    graph = import_graph(tmp_path, ("pkg",))
    assert nx.is_directed_acyclic_graph(graph)
    assert back_edges(graph, rooms, layers) == {("pkg.mid", "top")}
    # Sideways, between two rooms of one layer, counts too; with top below mid, it runs down.
    assert back_edges(graph, rooms, (("low",), ("mid", "top"))) == {("pkg.mid", "top")}
    assert back_edges(graph, rooms, (("low",), ("top",), ("mid",))) == set()
    # The edge counts module pairs: pkg.top's face runs first, then pkg.top.run.
    assert room_graph(graph, rooms).edges["mid", "top"]["count"] == 2
