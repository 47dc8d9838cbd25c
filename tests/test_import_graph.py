"""No import circle among the modules of ``mscsp`` and ``learners``.

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

The learned systems are plugins: :mod:`learners.registry` names each player's module as data
(``"module:callable"``) and imports it only on request, the way a backend's optional package
is named by ``requires``. Those names are not edges; :func:`test_registry_names_real_code`
checks them instead. So ``mscsp`` reaches ``learners`` through the registry alone (and the
``mscsp learn`` commands, the top layer), and ``learners`` depends on ``mscsp``, never the
other way round.
"""

from __future__ import annotations

import ast
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


def test_mscsp_and_learners_have_no_import_circle() -> None:
    graph = import_graph(ROOT)
    assert graph.number_of_nodes() > 50  # the tree was found
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == [], f"import circles: {cycles}"


def test_mscsp_reaches_learners_through_the_registry_only() -> None:
    graph = import_graph(ROOT)
    into = {
        (a, b)
        for a, b in graph.edges
        if a.startswith("mscsp") and b.startswith("learners") and not a.startswith("mscsp.cli")
    }
    assert into == {("mscsp.players", "learners"), ("mscsp.players", "learners.registry")}
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
