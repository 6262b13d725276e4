"""The preview's panels, one table read by the server and the page.

A live preview renders the panel that is open and sends every other one as a
placeholder: a 200-skill document's Source table, diffs and request bodies are
megabytes, and a keystroke needs one of them. The request names the open panel in its
`shown` field (`diff`, `document:source`, `pipeline:split`: a tab, and for a tab with two
views the view); the server renders what `shown_panels` says, and a placeholder
(`lazy` in `_macros.html`) loads its part with htmx when its tab is opened or it is seen,
into the element the table names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Panel:
    """A part of the preview a request may ask for alone."""

    #: The tab, and for a tab with two views the view: `document:source`.
    name: str
    #: The id of the element that holds it, which its placeholder loads in place.
    element: str
    #: Sent as a placeholder unless asked for (else always rendered, as Problems is:
    #: its counts are the tab's badge).
    lazy: bool = True

    @property
    def tab(self) -> str:
        return self.name.partition(":")[0]


PANELS = (
    Panel("document:rendered", "panel-document-rendered"),
    Panel("document:source", "panel-document-source"),
    Panel("diff", "panel-diff"),
    Panel("messages", "panel-messages"),
    Panel("log", "panel-log"),
    Panel("problems", "panel-problems", lazy=False),
    Panel("tests", "panel-tests"),
    Panel("pipeline:unified", "panel-pipeline"),
    Panel("pipeline:split", "panel-pipeline"),
    Panel("budget", "panel-budget"),
)
BY_NAME = {panel.name: panel for panel in PANELS}
ALWAYS_SENT = frozenset(panel.name for panel in PANELS if not panel.lazy)
#: Each tab and the panels it shows: a tab with two views, both.
TABS: dict[str, tuple[str, ...]] = {}
for _panel in PANELS:
    TABS.setdefault(_panel.tab, ())
    TABS[_panel.tab] += (_panel.name,)


def asked_panel(data: Any) -> Any:
    """The `shown` field of a request's data: the last that names something. A page
    without JavaScript posts the form's empty field and, after it, the value of the
    "Show this panel" button that was pressed (`lazy` in `_macros.html`)."""
    values = data.getlist("shown") if hasattr(data, "getlist") else [data.get("shown")]
    named = [value for value in values if value]
    return named[-1] if named else data.get("shown")


def shown_panels(value: Any) -> frozenset[str] | None:
    """The panels and tabs a live preview asks for (its `shown` field), or None for all of
    them (no field, or one that names no panel: a page without JavaScript shows every
    panel, one after another). A tab named without a view is sent with both."""
    if not isinstance(value, str):
        return None
    if value in BY_NAME:
        return frozenset({value, BY_NAME[value].tab})
    if value in TABS:
        return frozenset({value, *TABS[value]})
    return None


#: What the page of a large document renders before the author opens another panel: the
#: Document's rendered view, the tab a page opens on.
LARGE_PAGE = shown_panels("document:rendered")


def element_of(name: str) -> str:
    """The id of the element that holds panel `name` (for a placeholder to load)."""
    return BY_NAME[name].element
