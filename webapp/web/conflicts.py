"""The conflict page: a save or restore that started from a version no longer current.

Shared by the editor and the history pages, which both answer a `store.Conflict` with it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from flask import Response

from webapp import store
from webapp.pipeline import Agent, Skill, Workspace
from webapp.schema.db import get_session
from webapp.textdiff.lines import SHOWN_ROWS, diff_lines

from .forms import choice_args, picker_choice
from .responses import page_or_fragment


def conflict_response(agent: str, d_tag: str, mine: Skill, your_version: int,
                      exc: store.Conflict, data: Mapping[str, Any]) -> Response:
    """HTTP 409: the author's text, the saved text and their diff; nothing is lost.

    `exc.where` says where the skill went: renamed (Keep mine saves under its new d_tag,
    unless the author renamed it too), in the trash or deleted (the text can be copied,
    and the skill restored or made again).
    """
    saved = exc.saved
    try:
        workspace = store.load_workspace(get_session(), agent)
    except store.NotFound:  # the agent is gone too: the text is all there is to show
        workspace = Workspace(agent=Agent(name=agent))
    choice, _ = picker_choice(data, workspace)
    moved_to = exc.current.get("d_tag") if exc.where == "renamed" else None
    if moved_to and mine.d_tag == d_tag:
        mine = dataclasses.replace(mine, d_tag=moved_to)
    return page_or_fragment(
        "conflict.html", "_conflict.html", 409,
        agent=agent, current=d_tag, mine=mine, saved=saved, your_version=your_version,
        saved_version=exc.current.get("version") or 0, where=exc.where, moved_to=moved_to,
        diff=diff_lines(saved.content, mine.content, limit=SHOWN_ROWS),
        choice_args=choice_args(choice, workspace))
