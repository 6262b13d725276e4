"""Where a preview's placeholders lead: a panel not sent (`lazy` in `_macros.html`) and a
fold of a large document (`_preview_folds.html`) and a request body whole, for the
editor and the agent preview; and the steps of the pipeline explained (`step_links`).

With JavaScript a panel's placeholder and a fold load in place with htmx; these addresses
are what a page without JavaScript follows, and what htmx asks. The editor's panels and
folds are posted with the form, so they show the draft's document; the agent preview has
no draft and gets them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import url_for

from webapp.views.document_window import Fold


def skill_link(agent: str, args: dict[str, str]) -> Callable[[str], str]:
    """The URL of a skill's editor keeping the picker's `args`: where the Source tab links."""
    return lambda d_tag: url_for("editor.edit", agent=agent, d_tag=d_tag, **args)


def editor_links(agent: str, d_tag: str, args: dict[str, str]) -> dict[str, Any]:
    """The template variables of the editor's preview of skill `d_tag`, for the picker's
    `args`: `panel_url(panel)` (the saved skill's panel, for a page without JavaScript),
    `panel_post` (where a panel's placeholder posts the draft to load it), `fold_url(fold)`,
    `fold_method`, `body_url(body)` (a request body whole, posted with the draft) and
    `stage_url(fold)` (the rows of a Pipeline stage's fold, `diff_window.DiffFold`)."""
    return {
        "panel_post": url_for("editor.preview", agent=agent, d_tag=d_tag),
        "panel_url": lambda panel: url_for("editor.preview_saved", agent=agent, d_tag=d_tag,
                                           shown=panel, **args),
        "fold_url": lambda fold: fold_url(agent, fold, args, skill=d_tag),
        "fold_method": "post",
        "body_url": lambda body: url_for("agent_preview.body", agent=agent, skill=d_tag,
                                         provider=body.slug, **args),
        "stage_url": lambda fold: url_for("agent_preview.stage_rows", agent=agent, skill=d_tag,
                                          stage=fold.which, layout=fold.layout,
                                          rows=fold.rows, **args),
    }


def agent_links(agent: str, args: dict[str, str]) -> dict[str, Any]:
    """The same for the agent preview (no skill is edited: its folds and panels are GETs)."""
    return {
        "panel_url": lambda panel: url_for("agent_preview.show", agent=agent, shown=panel,
                                           **args),
        "fold_url": lambda fold: fold_url(agent, fold, args),
        "fold_method": "get",
        "panel_post": None,
        "body_url": lambda body: url_for("agent_preview.body", agent=agent,
                                         provider=body.slug, **args),
    }


def fold_url(agent: str, fold: Fold, args: dict[str, str], skill: str | None = None) -> str:
    """The address of `fold`'s lines (`agent_preview.lines`)."""
    return url_for("agent_preview.lines", agent=agent, skill=skill, view=fold.view,
                   lines=fold.lines, **args)


#: The presentation layout's `view` on a step page (larger text, one step a screen).
PRESENT = "present"


def step_links(agent: str, args: dict[str, str], present: bool = False) -> Callable[..., str]:
    """`url(step, skill=None, present=...)`: the address of a step of the pipeline
    explained (`pipeline_steps.show`) for the picker's `args` (`pipeline_args`: the
    scenario always named), `step` None for the list of every step."""
    def url(step: str | None, skill: str | None = None, present: bool = present) -> str:
        extra = {key: value for key, value in (("skill", skill),
                                               ("view", PRESENT if present else None))
                 if value}
        if step is None:
            return url_for("pipeline_steps.index", agent=agent, **args, **extra)
        return url_for("pipeline_steps.show", agent=agent, step=step, **args, **extra)
    return url
