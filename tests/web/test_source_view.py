"""The Source table built in Python is the template loop it replaced, byte for byte, lets
nothing from the document through unescaped, and a keystroke builds only the runs it changed."""

from __future__ import annotations

import dataclasses
from html import unescape
from html.parser import HTMLParser
from typing import NamedTuple

import pytest
from flask import url_for
from markupsafe import Markup

from tests.support.workspaces import SIMON, many_skills
from tests.support.xss import EVIL_TAG, XSS, xss_bundle
from webapp.bounds.lru import LRU
from webapp.pipeline import Origin, Skill, Workspace, load_bundle
from webapp.render import guard, highlight, highlight_markdown_lines
from webapp.render.blocks import source_blocks
from webapp.views import source_table as source_view
from webapp.views.preview import Choice, build_preview, run


class SourceLine(NamedTuple):
    """A line of the Source table, as the template loop below was given it."""

    number: int
    html: Markup
    origin: str
    mine: bool
    skill: str | None
    skill_line: int | None


def source_lines(context, d_tag: str) -> list[SourceLine]:
    """The document's lines, highlighted, each with the origin the pipeline recorded."""
    lines = highlight_markdown_lines(context.document)
    provenance = context.provenance
    result = []
    for i, html in enumerate(lines):
        origin = provenance[i] if i < len(provenance) else None
        if origin:
            result.append(SourceLine(i + 1, html, origin.label, origin.skill == d_tag,
                                     origin.skill, origin.line))
        else:
            result.append(SourceLine(i + 1, html, "", False, None, None))
    return result


# The template loops the Python-built table replaced, as they were in _preview.html and
# _agent_preview.html.
_LINK = ("<a href=\"{{ url_for('editor.edit', agent=agent, d_tag=line.skill, **choice_args) }}"
         '#L{{ line.skill_line }}"')
_EDITOR_ORIGIN = ('<td class="origin">{% if line.skill and line.skill_line %}' + _LINK
                  + ' data-skill="{{ line.skill }}" data-line="{{ line.skill_line }}">'
                  "{{ line.origin }}</a>{% else %}{{ line.origin }}{% endif %}</td>")
_AGENT_ORIGIN = ('<td class="origin">{% if line.skill and line.skill_line %}' + _LINK
                 + ">{{ line.origin }}</a>{% else %}{{ line.origin }}{% endif %}</td>")
EDITOR_LOOP = """<table class="source highlight">
        {% for line in source %}
          <tr class="{{ 'mine' if line.mine }}">
            """ + _EDITOR_ORIGIN + """
            <td class="num">{{ line.number }}</td>
            <td class="code">{{ line.html }}</td>
          </tr>
        {% endfor %}
      </table>"""
AGENT_LOOP = """<table class="source highlight">
        {% for line in source %}
          <tr>
            """ + _AGENT_ORIGIN + """
            <td class="num">{{ line.number }}</td>
            <td class="code">{{ line.html }}</td>
          </tr>
        {% endfor %}
      </table>"""
# How the templates put the Python-built rows in.
TABLE = """<table class="source highlight">
        {% for run in rows %}{{ run }}{% endfor %}
      </table>"""

AGENT = "A&B <agent>"
CHOICE_ARGS = {"scenario": "x & \"y\" <z>", "trigger": "dm"}
#: Text that `%`-formatting would take for its own.
PERCENT = "Rates: 50% off, %s, %d, %(name)s, %% and 100%"


def _link(d_tag: str) -> str:
    return url_for("editor.edit", agent=AGENT, d_tag=d_tag, **CHOICE_ARGS)


def _tables(app, workspace: Workspace, choice: Choice, d_tag: str | None) -> tuple[str, str]:
    """The table as the old template loop wrote it, and as the templates write it now."""
    context = run(workspace, choice)
    with app.test_request_context():
        env = app.jinja_env
        old = env.from_string(EDITOR_LOOP if d_tag is not None else AGENT_LOOP).render(
            source=source_lines(context, d_tag or ""), agent=AGENT, choice_args=CHOICE_ARGS)
        rows = source_view.source_rows(context.document, context.provenance, d_tag, _link)
        return old, env.from_string(TABLE).render(rows=rows)


def _hostile_workspace() -> Workspace:
    workspace = load_bundle(xss_bundle())
    percent = Skill(d_tag="100%_sure", content=f"{PERCENT}\n\n{{{{evil}}}}\n{{{{payload}}}}",
                    triggers=("dm",))
    return dataclasses.replace(workspace, skills=(*workspace.skills, percent))


def test_the_demo_workspace_gives_the_old_table(app):
    workspace = load_bundle(SIMON)
    for scenario in workspace.scenarios:
        for trigger in (None, *workspace.triggers):
            choice = Choice(scenario=scenario.name, trigger=trigger)
            for d_tag in (None, *(skill.d_tag for skill in workspace.skills)):
                old, new = _tables(app, workspace, choice, d_tag)
                assert new == old, (scenario.name, trigger, d_tag)


@pytest.mark.parametrize("d_tag", [None, "evil", EVIL_TAG, "100%_sure"])
def test_a_hostile_document_gives_the_old_table(app, d_tag):
    old, new = _tables(app, _hostile_workspace(), Choice(), d_tag)
    assert "&lt;script&gt;" in new and "100%_sure" in new and "%(name)s" in new
    assert new == old


def test_an_empty_document_gives_the_old_table(app):
    workspace = dataclasses.replace(load_bundle(SIMON), skills=())
    old, new = _tables(app, workspace, Choice(trigger="nothing"), "chat")
    assert new == old


class _Cells(HTMLParser):
    """Every tag and attribute of the table, and the class and text of each cell."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.cells: list[list[str]] = []
        self._in_cell = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "td":
            self.cells.append([dict(attrs)["class"] or "", ""])
            self._in_cell = True

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        if self._in_cell:
            self.cells[-1][1] += data

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_cell = False


@pytest.mark.parametrize("d_tag", [None, "evil"])
def test_nothing_from_the_document_gets_through_unescaped(app, d_tag):
    workspace = _hostile_workspace()
    context = run(workspace, Choice())
    with app.test_request_context():
        rows = "".join(source_view.source_rows(context.document, context.provenance, d_tag, _link))
    parser = _Cells()
    parser.feed(f"<table>{rows}</table>")
    allowed = {"table": set(), "tr": {"class"} if d_tag else set(), "td": {"class"},
               "span": {"class"},
               "a": {"href", "data-skill", "data-line"} if d_tag else {"href"}}
    for tag, attrs in parser.tags:
        assert tag in allowed and set(attrs) <= allowed[tag], (tag, attrs)
    links = [attrs["href"] for tag, attrs in parser.tags if tag == "a"]
    assert links and all(href.startswith("/agents/") for href in links)
    # The text of the cells is the document and its labels, character for character.
    lines = context.document.splitlines()
    code = [text for kind, text in parser.cells if kind == "code"]
    assert code == lines
    labels = [text for kind, text in parser.cells if kind == "origin"]
    assert labels == [origin.label for origin in context.provenance[:len(lines)]]
    assert [int(text) for kind, text in parser.cells if kind == "num"] == \
        list(range(1, len(lines) + 1))
    assert any(EVIL_TAG in label for label in labels)
    assert all(payload.split("\n")[0] in context.document for payload in XSS)
    assert unescape(rows).count("<script>alert('script')</script>") >= 1  # as text, escaped


def _typed(workspace: Workspace, d_tag: str, text: str) -> Skill:
    skill = workspace.skills_by_tag[d_tag]
    return dataclasses.replace(skill, content=f"{skill.content}\n\n## Typed just now\n{text}")


def test_a_keystroke_builds_only_the_edited_skills_rows(app, monkeypatch):
    built: list[set[str | None]] = []
    build_run = source_view._run_html

    def run_html(marked, mine, href, origins, lines):
        built.append({origin.skill for origin in origins})
        return build_run(marked, mine, href, origins, lines)

    monkeypatch.setattr(source_view, "_run_html", run_html)
    monkeypatch.setattr(source_view, "_runs", LRU("test", 10**8))
    workspace = many_skills(30)
    with app.test_request_context():
        build_preview(workspace, _typed(workspace, "skill_15", "A lin"), Choice(), link=_link,
                      whole=True).window.source()
        assert len(built) > 30
        for text in ("A line", "A line\nand one more\n\nthen a paragraph"):
            built.clear()
            preview = build_preview(workspace, _typed(workspace, "skill_15", text), Choice(),
                                    link=_link, whole=True)
            rows = preview.window.source()
            # Lines added above the later skills only shift their numbers.
            assert built == [{"skill_15"}]
            old = app.jinja_env.from_string(EDITOR_LOOP).render(
                source=source_lines(preview.context, preview.d_tag), agent=AGENT,
                choice_args=CHOICE_ARGS)
            assert app.jinja_env.from_string(TABLE).render(rows=rows) == old


def test_numbers_follow_the_run_where_it_is_shown():
    key = (True, False, None, (Origin("role"), Origin("title")), (Markup("a"), Markup("100%")))
    run = source_view._build(key)
    first = run.numbered(0)
    assert '"num">1<' in first and '"num">2<' in first and "100%<" in first
    assert run.numbered(0) is first
    moved = run.numbered(40)
    assert '"num">41<' in moved and '"num">42<' in moved and '"num">1<' not in moved


@pytest.mark.parametrize("text", [
    "# Title\n\nA line.\n\n```\ncode\n```\n\nLast.\n",
    "one\ntwo\rthree\u2028four\n\nfive\n",
    "\n\n\n",
    "".join(f"line {i} of one long block\n" for i in range(3000)),
], ids=["blocks", "separators", "blank lines", "one long block"])
def test_a_window_of_the_source_is_the_whole_one_where_it_shows(text, monkeypatch):
    """With spans (a window of the Source table), the lines shown are the whole source's
    lines; a block holding none of them is empty lines, not highlighted."""
    whole = highlight_markdown_lines(text)
    spans = [(1, 3), (len(whole) - 2, len(whole) + 5)]
    asked = []
    made = highlight._made
    monkeypatch.setattr(highlight, "_made", lambda judged: asked.extend(judged) or made(judged))
    window = highlight_markdown_lines(text, spans)
    assert len(window) == len(whole)
    for at, (line, shown) in enumerate(zip(whole, window, strict=True)):
        inside = any(a <= at < b for a, b in spans)
        assert shown == line if inside else shown in (line, Markup("")), at
    asked.clear()
    highlight_markdown_lines(text, [(0, 1)])
    assert [block for block, _ in asked] in ([], source_blocks(text)[:1])  # the first alone
    # A block too long to highlight (priced out here): only the lines shown are escaped.
    monkeypatch.setattr(highlight, "highlight_cost", lambda block: guard.BLOCK_BUDGET * 2)
    asked.clear()
    plain = highlight_markdown_lines(text, spans)
    assert not asked
    assert [line for line in plain if line] == [
        line for at, line in enumerate(highlight.plain_lines(text))
        if any(a <= at < b for a, b in spans) and line]
