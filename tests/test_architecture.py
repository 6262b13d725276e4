"""The shape of `webapp/`, checked: imports flow one way and every module stays small.

The import graph is read from the source with `ast` (imports inside functions count:
a cycle hidden behind a lazy import is still a cycle). See docs/architecture.md.
"""

from __future__ import annotations

import ast
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
                                           ("pipeline", "store"), ("store", "app")])
def test_layers_import_downwards_only(lower, higher):
    """pipeline <- store <- web / cli: a lower layer never imports a higher one."""
    offenders = [f"{name} imports {target}" for name, targets in GRAPH.items()
                 if _layer(name) == lower for target in targets if _layer(target) == higher]
    assert offenders == []


def _blueprints() -> set[str]:
    return {name for name in MODULES if name.startswith("webapp.web.")
            and "Blueprint(" in MODULES[name].read_text(encoding="utf-8")}


def test_blueprints_import_no_other_blueprint_nor_the_app():
    blueprints = _blueprints()
    assert "webapp.web.editor" in blueprints
    offenders = [f"{name} imports {target}" for name in blueprints for target in GRAPH[name]
                 if target in blueprints or target == "webapp.app"]
    assert offenders == []


def test_no_module_is_over_the_size_limit():
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines())
             for name, path in MODULES.items()}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_no_benchmark_code_in_the_package():
    assert [name for name in MODULES if "bench" in name.rpartition(".")[2]] == []


# -- each rule has one owner: a second definition of it anywhere in the package fails


def _trees() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


TREES = _trees()


def _strings(node: ast.AST) -> list[str] | None:
    """The items of a literal tuple, list or set when all are strings, or the keys of a
    literal table (a dict of constants, as `{"error": 0, ...}`)."""
    items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
    if not isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)) or not items:
        return None
    if isinstance(node, ast.Dict) and not all(isinstance(v, ast.Constant) for v in node.values):
        return None  # a dict of computed values names the severities, it orders nothing
    if all(isinstance(item, ast.Constant) and isinstance(item.value, str) for item in items):
        return [item.value for item in items]  # type: ignore[union-attr]
    return None


def _where(found: ast.AST, name: str) -> str:
    return f"{name}:{getattr(found, 'lineno', 0)}"


def _literal_collections(test: object) -> list[str]:
    """Where a literal collection of strings passing `test` is written."""
    return [_where(node, name) for name, tree in TREES.items() for node in ast.walk(tree)
            if (items := _strings(node)) is not None and test(set(items))]  # type: ignore[operator]


def _the_one(owner: str, places: list[str]) -> None:
    assert len(places) == 1 and places[0].startswith(f"{owner}:"), places


def test_the_line_end_rule_has_one_owner():
    """Only `lf_line_ends` replaces a CR: no other module rewrites line ends its own way."""
    places = [_where(node, name) for name, tree in TREES.items() for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "replace" and node.args
              and isinstance(node.args[0], ast.Constant) and "\r" in str(node.args[0].value)]
    assert {place.partition(":")[0] for place in places} == {"webapp.pipeline.typed"}, places


def test_the_severity_order_has_one_owner():
    """The three severities are listed once, worst first (`SEVERITIES`); everything that
    orders or counts them reads that."""
    _the_one("webapp.pipeline.result",
             _literal_collections(lambda items: items == {"error", "warning", "info"}))


def test_the_flag_words_have_one_owner():
    """The words for yes and for no are written once (`TRUE_WORDS`, `FALSE_WORDS`)."""
    _the_one("webapp.pipeline.typed", _literal_collections(lambda items: {"true", "yes"} <= items))
    _the_one("webapp.pipeline.typed", _literal_collections(lambda items: {"false", "no"} <= items))


def test_the_name_token_message_has_one_owner():
    """A d_tag (or any `{{name}}`) with a space or a brace is refused in one place, with one
    message: the form, the imports and the store all report the bundle's."""
    places = [_where(node, name) for name, tree in TREES.items() for node in ast.walk(tree)
              if isinstance(node, ast.Constant) and isinstance(node.value, str)
              and "must not contain whitespace or braces" in node.value]
    _the_one("webapp.pipeline.bundle", places)


def _caches() -> set[str]:
    """The names of the package's caches: each `LRU("name", ...)` and each `@memo` function."""
    found = set()
    for tree in TREES.values():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "LRU" and isinstance(node.args[0], ast.Constant)):
                found.add(node.args[0].value)
            elif isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and getattr(d.func, "id", None) == "memo"
                    for d in node.decorator_list):
                found.add(node.name)
    return found


def test_every_cache_is_in_the_architecture_table():
    """docs/architecture.md lists every cache (name, class, bound, why), and no other."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.partition("\n## Caches\n")[2].partition("\n## ")[0]
    rows = {line.split("|")[1].strip().strip("`") for line in table.splitlines()
            if line.startswith("| ") and not line.startswith(("| name", "|---"))}
    caches = _caches()
    assert len(caches) >= 12 and rows == caches
