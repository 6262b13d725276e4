"""The shape of `webapp/`, checked: imports flow one way and every module stays small.

The import graph is read from the source with `ast` (imports inside functions count:
a cycle hidden behind a lazy import is still a cycle). See docs/architecture.md.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "webapp"
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _bound_names(package: str) -> set[str]:
    """The names a package's `__init__` binds itself (imports, definitions, assignments):
    `from package import name` gets those, not a submodule of the same name."""
    tree = ast.parse(MODULES[package].read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _imports(name: str) -> set[str]:
    """The `webapp` modules that module `name` imports."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if _is_package(name) else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # `from webapp import store` imports the module `webapp.store`; a name the
            # package binds itself (`from webapp.pipeline import assemble`) is the package's.
            bound = _bound_names(source) if source in MODULES and _is_package(source) else set()
            submodules = {f"{source}.{alias.name}" for alias in node.names
                          if alias.name not in bound and f"{source}.{alias.name}" in MODULES}
            found |= submodules
            if len(submodules) < len(node.names):
                found.add(source)
    return {module for module in found if module in MODULES and module != name}


GRAPH = {name: _imports(name) for name in MODULES}


def _layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_graph_is_read():
    """A sanity check on the reader itself: known edges are found."""
    assert "webapp.pipeline" in GRAPH["webapp.web.editor"]
    assert "webapp.store" in GRAPH["webapp.web.editor"]
    assert "webapp.pipeline.assemble" in GRAPH["webapp.pipeline"]


def test_no_import_cycle():
    """Depth-first search over the graph; a back edge is a cycle."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(GRAPH[name]):
            if state.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[name] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name)


def test_only_the_pipelines_public_api_is_imported_from_outside():
    offenders = [f"{name} imports {target}" for name, targets in GRAPH.items()
                 if _layer(name) != "pipeline"
                 for target in targets if target.startswith("webapp.pipeline.")]
    assert offenders == []


def test_the_pipeline_imports_nothing_else_of_the_app():
    offenders = [f"{name} imports {target}" for name, targets in GRAPH.items()
                 if _layer(name) == "pipeline"
                 for target in targets if _layer(target) != "pipeline"]
    assert offenders == []


@pytest.mark.parametrize("lower, higher", [("store", "web"), ("store", "cli"),
                                           ("pipeline", "store"), ("store", "app"),
                                           ("views", "web"), ("textdiff", "web"),
                                           ("textdiff", "views"), ("store", "views")])
def test_layers_import_downwards_only(lower, higher):
    """pipeline <- store <- views <- web / cli: a lower layer never imports a higher one
    (`textdiff` is under `views`)."""
    offenders = [f"{name} imports {target}" for name, targets in GRAPH.items()
                 if _layer(name) == lower for target in targets if _layer(target) == higher]
    assert offenders == []


def test_view_data_imports_no_flask():
    """`webapp.views` and `webapp.textdiff` build what a page shows without a request, as
    Flask keeps `sansio` apart: importing every module of them loads no Flask."""
    names = sorted(name for name in MODULES if _layer(name) in ("views", "textdiff"))
    assert "webapp.views.preview" in names and "webapp.textdiff.lines" in names
    code = (f"import sys, importlib; [importlib.import_module(m) for m in {names!r}]; "
            "print(sorted(m for m in ('flask', 'flask_login', 'werkzeug') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _blueprints() -> set[str]:
    return {name for name in MODULES if name.startswith("webapp.web.")
            and "Blueprint(" in MODULES[name].read_text(encoding="utf-8")}


def test_blueprints_import_no_other_blueprint_nor_the_app():
    blueprints = _blueprints()
    assert "webapp.web.editor" in blueprints
    offenders = [f"{name} imports {target}" for name in blueprints for target in GRAPH[name]
                 if target in blueprints or target == "webapp.app"]
    assert offenders == []


def test_every_view_declares_its_role(app):
    """Each view says beside its route who may use it (`access.requires`); one that does
    not would be refused to everyone. Only Flask's static view and the item pages that
    `access.ITEM_ROLES` still holds go without."""
    from webapp.web import access

    undeclared = sorted(endpoint for endpoint, view in app.view_functions.items()
                        if not hasattr(view, "required_role"))
    assert undeclared == sorted(["static", *access.ITEM_ROLES])


def test_no_module_is_over_the_size_limit():
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines())
             for name, path in MODULES.items()}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_no_benchmark_code_in_the_package():
    assert [name for name in MODULES if "bench" in name.rpartition(".")[2]] == []
