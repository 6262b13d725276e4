"""The docs kept honest: what they list of the code is read from the code, and a table, a
route, a package or a suite added without its line in the docs fails here. See the
README's "Documentation" and "Layout", docs/storage.md's "Tables", docs/web.md's "Every
route" and docs/architecture.md."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
TESTS = ROOT / "tests"
#: A variable part of a route, with its converter.
CONVERTER = re.compile(r"<[a-z_]+:([a-z_]+)>")
#: Blueprints whose GET addresses answer no HTML page: the runtime API (docs/api.md).
NOT_PAGES = {"api", "api_mcp", "static"}


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The body of the `## heading` section of a markdown text (empty when there is none)."""
    return text.partition(f"\n## {heading}\n")[2].partition("\n## ")[0]


def _table_rows(section: str) -> list[list[str]]:
    """A markdown table's body rows, cell by cell (its header and rule left out)."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in section.splitlines() if line.startswith("| ")]
    return rows[1:]


def _packages() -> list[str]:
    """The packages of `webapp/`: each folder with an `__init__.py`."""
    return sorted(path.parent.name for path in (ROOT / "webapp").glob("*/__init__.py"))


def _suites() -> list[str]:
    """The folders under tests/: a suite each, and tests/support."""
    return sorted(path.name for path in TESTS.iterdir()
                  if path.is_dir() and not path.name.startswith(("_", ".")))


def _address(rule: str) -> str:
    """A route as docs/web.md writes it: `<path:d_tag>` is `<d_tag>`."""
    return CONVERTER.sub(r"<\1>", rule)


def _blueprint(rule) -> str:
    return rule.endpoint.partition(".")[0]


def test_storage_lists_every_table_once():
    """docs/storage.md's Tables names every table of the schema, and none twice."""
    import webapp.schema.api_models  # noqa: F401 -- the runtime API's tables, on the same metadata
    import webapp.schema.kept_models  # noqa: F401 -- rows kept to be read again, the same
    from webapp.schema.models import Base

    names = [row[0].strip("`") for row in _table_rows(_section(_text(DOCS / "storage.md"),
                                                              "Tables"))
             if row[0].startswith("`")]
    assert [name for name, count in Counter(names).items() if count > 1] == []
    assert set(names) == set(Base.metadata.tables) and len(names) >= 18


def test_web_lists_every_blueprint_and_page_route(app):
    """docs/web.md's "Every route" has a row per blueprint, and each GET address of a
    blueprint (but the runtime API's) is written in its blueprint's row."""
    rows = {row[0].strip("`"): " ".join(row[1:])
            for row in _table_rows(_section(_text(DOCS / "web.md"), "Every route"))}
    assert set(rows) == set(app.blueprints)
    missing = [f"{rule.endpoint}: {rule.rule}" for rule in app.url_map.iter_rules()
               if "GET" in rule.methods and _blueprint(rule) not in NOT_PAGES
               and f"`{_address(rule.rule)}`" not in rows[_blueprint(rule)]]
    assert missing == []


def test_readme_links_every_doc():
    """The README's Documentation section links every docs/*.md."""
    section = _section(_text(ROOT / "README.md"), "Documentation")
    linked = set(re.findall(r"\]\(docs/([^)#]+\.md)\)", section))
    assert linked == {path.name for path in DOCS.glob("*.md")}


def test_readme_layout_lists_every_package():
    """The README's Layout names every package of webapp/ and the other folders of code."""
    layout = _section(_text(ROOT / "README.md"), "Layout")
    folders = [f"webapp/{name}/" for name in _packages()]
    folders += ["client/", "benchmarks/", "tests/", "migrations/"]
    assert [folder for folder in folders if folder not in layout] == []


def test_architecture_names_every_package_and_suite():
    """docs/architecture.md names every package of webapp/ and every folder under tests/."""
    text = _text(DOCS / "architecture.md")
    named = [f"webapp/{name}/" for name in _packages()] + [f"tests/{name}/"
                                                           for name in _suites()]
    assert len(named) >= 20 and [name for name in named if name not in text] == []
