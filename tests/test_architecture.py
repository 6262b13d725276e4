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


def _unresolved(name: str) -> list[str]:
    """The `webapp` modules that module `name` imports and that do not exist (an import
    inside a function fails only when it runs)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if _is_package(name) else name.rpartition(".")[0]
    missing = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                source = ".".join(base[:len(base) - node.level + 1]
                                  + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.startswith("webapp") and source not in MODULES:
                missing.append(f"{name}:{node.lineno} {source}")
        elif isinstance(node, ast.Import):
            missing += [f"{name}:{node.lineno} {alias.name}" for alias in node.names
                        if alias.name.startswith("webapp.") and alias.name not in MODULES]
    return missing


def test_every_import_names_a_module():
    assert [found for name in MODULES for found in _unresolved(name)] == []


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


#: Every package of `webapp/` (and the app factory) with its layer, lowest first: a module
#: imports from its own layer or lower ones (docs/architecture.md, "The packages").
LAYERS = {
    "pipeline": 0,
    "bounds": 1, "nostr": 1,
    "agentskills": 2, "tokens": 2, "render": 2, "textdiff": 2,
    "schema": 3,
    "store": 4,
    "outbound": 5, "views": 5, "demo": 5,
    "web": 6, "mcp_server": 6,
    "cli": 7, "app": 7,
}
#: The imports up a layer, each for a reason: the store checks webhook and relay URLs
#: with the one address rule, which lives with the rest of the outside world
#: (`outbound.addresses`, the only module the package's `__init__` imports).
UPWARD = {("webapp.store.webhooks", "webapp.outbound")}


def test_every_package_has_a_layer():
    packages = {_layer(name) for name in MODULES} - {""}
    assert packages == set(LAYERS), "give each package a layer in LAYERS"


def test_layers_import_downwards_only():
    """pipeline <- bounds, nostr <- agentskills, tokens, render, textdiff <- schema <- store
    <- outbound, views, demo <- web, mcp_server <- cli, app: no module imports a higher
    layer than its own, but for the imports `UPWARD` names."""
    offenders = [f"{name} imports {target}" for name, targets in GRAPH.items() if _layer(name)
                 for target in targets if _layer(target)
                 and LAYERS[_layer(target)] > LAYERS[_layer(name)]
                 and (name, target) not in UPWARD]
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
    not would be refused to everyone. Only Flask's static view goes without."""
    undeclared = sorted(endpoint for endpoint, view in app.view_functions.items()
                        if not hasattr(view, "required_role"))
    assert undeclared == ["static"]


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


def test_the_roles_and_the_default_models_have_one_owner():
    """The roles tuple and the default model names are written in `pipeline.workspace`
    alone (`ROLES`, `DEFAULT_MODEL`, `DEFAULT_ANTHROPIC_MODEL`; the windows table names
    each model once more, as a key)."""
    _the_one("webapp.pipeline.workspace",
             _literal_collections(lambda items: items == {"system", "user", "assistant"}))
    for model in ("gpt-4o", "claude-sonnet-4-5"):
        places = [_where(node, name) for name, tree in TREES.items() for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and node.value == model]
        assert {place.partition(":")[0] for place in places} == {"webapp.pipeline.workspace"}
        assert len(places) == 2, places  # the default, and its key in MODEL_WINDOWS


def test_digits_are_read_by_one_owner():
    """`str.isdigit()` is true for `²`, which `int()` refuses: a whole number is read from
    text by `pipeline.whole_number` (ASCII digits, bounded, `is_digits`; the forms and
    the store's rules call it) and nowhere else asks a string whether it is digits."""
    places = [_where(node, name) for name, tree in TREES.items() for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("isdigit", "isdecimal", "isnumeric")]
    _the_one("webapp.pipeline.untrusted", places)


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


# -- the tests themselves: one home for helpers, no clock in an assertion, no fixed sleep

TESTS = Path(__file__).resolve().parent
SUPPORT = TESTS / "support"
TEST_FILES = sorted(TESTS.rglob("*.py"))
#: The clocks that measure a duration (`time.time` too; a timestamp such as
#: `datetime.now()` passed as a logical "now" is no duration).
CLOCKS = {"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns",
          "process_time", "process_time_ns", "timeit", "repeat"}
#: What waits for a length of time rather than for a condition.
SLEEPS = {"sleep", "wait_for_timeout"}


def _test_module(path: Path) -> str:
    parts = path.relative_to(TESTS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_test_modules(source: str, package: str) -> set[str]:
    """The `tests` modules `source`, a module of `package`, imports (relative imports
    resolved)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                found.add(".".join(base + ([node.module] if node.module else [])))
            else:
                found.add(node.module or "")
    return {name for name in found if name == "tests" or name.startswith("tests.")}


def _package(path: Path) -> str:
    module = _test_module(path)
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def test_tests_import_helpers_from_tests_support_only():
    """A suite's test modules and conftest are no library: what suites share is in
    tests/support (see its docstring)."""
    offenders = [f"{_test_module(path)} imports {name}" for path in TEST_FILES
                 for name in sorted(_imported_test_modules(path.read_text(encoding="utf-8"),
                                                           _package(path)))
                 if not name.startswith("tests.support")]
    assert offenders == []


def test_the_import_reader_resolves_relative_imports():
    source = ("from .conftest import HTMX\nfrom tests.hostile.test_sweep import VALUES\n"
              "from tests.support.pages import is_page\nimport webapp\n")
    assert _imported_test_modules(source, "tests.web") == {
        "tests.web.conftest", "tests.hostile.test_sweep", "tests.support.pages"}


def _clock_call(node: ast.AST) -> bool:
    """Whether `node` is a call of a clock: `time.perf_counter()`, `monotonic()`,
    `datetime.now()`, `timeit.timeit(...)` ..."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in CLOCKS and not (name == "time" and isinstance(func, ast.Name))


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a module or function, without those of the functions it defines."""
    nodes, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        nodes.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return nodes


def _pairs(node: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """Each target of an assignment with the value it gets (`a, b = x, y` pairs them)."""
    value = node.value
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    pairs = []
    for target in targets:
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
                and len(target.elts) == len(value.elts):
            pairs.extend(zip(target.elts, value.elts, strict=True))
        else:
            pairs.append((target, value))
    return pairs


def _reads_clock(expression: ast.AST, timed: set[str]) -> bool:
    return any(_clock_call(part) or (isinstance(part, ast.Name) and part.id in timed)
               for part in ast.walk(expression))


def timed_assertions(source: str) -> list[int]:
    """The lines of the asserts of `source` that involve a clock's reading: a clock called
    in the assert, or a name whose value was computed from one (through any chain of
    assignments in the same function, or at module level)."""
    tree = ast.parse(source)
    found: set[int] = set()
    scopes = [tree, *(n for n in ast.walk(tree)
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        nodes = _own_nodes(scope)
        timed: set[str] = set()
        changed = True
        while changed:  # names computed from a clock, or from a name computed from one
            changed = False
            for node in nodes:
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) \
                        and node.value is not None:
                    for target, value in _pairs(node):
                        if not _reads_clock(value, timed):
                            continue
                        for name in ast.walk(target):
                            if isinstance(name, ast.Name) and name.id not in timed:
                                timed.add(name.id)
                                changed = True
        found.update(node.lineno for node in nodes
                     if isinstance(node, ast.Assert) and _reads_clock(node.test, timed))
    return sorted(found)


def test_the_clock_reader_finds_timed_assertions():
    assert timed_assertions("import time\nstart = time.perf_counter()\nwork()\n"
                            "elapsed = time.perf_counter() - start\nassert elapsed < 3\n") == [5]
    assert timed_assertions("def t():\n    s = monotonic()\n    assert monotonic() - s < 1\n"
                            ) == [3]
    assert timed_assertions("def t():\n    s = timeit.timeit(f, number=3)\n    x = s / 3\n"
                            "    assert x < 0.1\n") == [4]
    assert timed_assertions("def t():\n    when = datetime(2026, 1, 1)\n    assert when\n") == []
    assert timed_assertions("def t():\n    s, n = time.monotonic(), 0\n    assert n == 0\n") == []


def test_no_test_asserts_on_elapsed_time():
    """A loaded machine makes a timed assertion lie: tests count work or bound sizes, and
    the figures are in `make bench`."""
    offenders = [f"{path.relative_to(TESTS)}:{line}" for path in TEST_FILES
                 if path.name != "test_architecture.py"
                 for line in timed_assertions(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_tests_wait_for_conditions_not_for_time():
    """`time.sleep` and Playwright's `wait_for_timeout` only in tests/support, where each
    sits in a helper that says what it waits for (`waiting.wait_until`, the code editor's
    completion delay)."""
    offenders = []
    for path in TEST_FILES:
        if path.is_relative_to(SUPPORT) or path.name == "test_architecture.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in SLEEPS:
                    offenders.append(f"{path.relative_to(TESTS)}:{node.lineno} {name}")
    assert offenders == []


def test_webapp_holds_the_app_factory_and_packages_only():
    """Every module has a package that says its subject and layer; `webapp/` itself keeps
    the app factory alone."""
    loose = {path.stem for path in PACKAGE.glob("*.py")}
    assert loose == {"__init__", "app"}, f"give these a package: {sorted(loose)}"


#: A helper this size or more (nodes of its body, docstring aside) written twice is a copy.
COPY_NODES = 12


def helper_copies(files: dict[str, str]) -> list[list[str]]:
    """The helpers (top-level functions and fixtures that are not tests) whose arguments and
    body, docstring aside, are written in more than one place of `files` (name -> source)."""
    seen: dict[str, list[str]] = {}
    for name, source in files.items():
        for node in ast.parse(source).body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("test_"):
                continue
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            module = ast.Module(body=body, type_ignores=[])
            if sum(1 for _ in ast.walk(module)) >= COPY_NODES:
                seen.setdefault(ast.dump(node.args) + ast.dump(module), []).append(
                    f"{name}:{node.lineno} {node.name}")
    return [places for places in seen.values() if len(places) > 1]


def test_the_copy_finder_finds_a_copy():
    helper = "def f(x):\n    '''Doc.'''\n    return [d.code for d in x.diagnostics if d]\n"
    assert helper_copies({"a": helper, "b": helper.replace("Doc.", "Other.")}) == [
        ["a:1 f", "b:1 f"]]
    assert helper_copies({"a": helper, "b": "def test_f(x):\n    return 1\n"}) == []


def test_test_helpers_have_one_home():
    """A helper two test files need lives in tests/support (or is a fixture of a conftest),
    not copied between them."""
    files = {str(path.relative_to(TESTS)): path.read_text(encoding="utf-8")
             for path in TEST_FILES if not path.is_relative_to(SUPPORT)}
    assert helper_copies(files) == []
