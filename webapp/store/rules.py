"""Every rule a write must obey, written once: the web forms, the bundle import (web and
CLI), the SKILL.md import and the store's own functions all check fields here.

- the bundle loader's rules for one item (`pipeline.check_item`), so what can be saved
  can always be exported and imported again;
- no NUL (U+0000) in text: PostgreSQL cannot store one;
- no string longer than its column: SQLite would store it, PostgreSQL refuses it, so a
  workspace could not move between them. The lengths are read from the models once;
- an agent's name has no `/`: the agent's pages could not be addressed.

`item_problems` reports with paths relative to the item (`d_tag`,
`results_by_args[1].args`), `bundle_problems` with JSON paths (`$.skills[0].d_tag`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webapp import models
from webapp.pipeline import ITEM_SECTIONS, check_item, item_field

from .errors import ValidationError

NUL_MESSAGE = "must not contain NUL characters (U+0000)"
AGENT_NAME_SLASH_MESSAGE = "must not contain '/' (the agent's pages could not be addressed)"

_MODELS = {"agent": models.Agent, "skills": models.Skill, "tools": models.Tool,
           "variables": models.Variable, "scenarios": models.Scenario}

#: The longest string each bounded column of each bundle section can hold.
COLUMN_LENGTHS: dict[str, dict[str, int]] = {
    section: {column.name: column.type.length for column in model.__table__.columns
              if getattr(column.type, "length", None)}
    for section, model in _MODELS.items()}


def item_problems(section: str, item: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every problem with one item of bundle `section` (or the `agent`), as `(path, message)`
    with paths relative to the item; "" is the item as a whole."""
    problems = [(p.path, p.message) for p in check_item(section, dict(item))]
    lengths = COLUMN_LENGTHS[section]
    for key, value in item.items():
        if not isinstance(value, str):  # JSON values are stored escaped: no NUL, no bound
            continue
        if "\x00" in value:
            problems.append((key, NUL_MESSAGE))
        if key in lengths and len(value) > lengths[key]:
            problems.append((key, f"must be at most {lengths[key]} characters, "
                                  f"not {len(value)}"))
    name = item.get("name")
    if section == "agent" and isinstance(name, str) and "/" in name:
        problems.append(("name", AGENT_NAME_SLASH_MESSAGE))
    return problems


def check(section: str, item: Mapping[str, Any]) -> None:
    """Raise `ValidationError` (by field name) unless `item` obeys every rule of `section`."""
    problems = item_problems(section, item)
    if problems:
        raise ValidationError([(item_field(path), message) for path, message in problems])


def bundle_problems(bundle: Mapping[str, Any], *, agent_name: str | None = None
                    ) -> list[tuple[str, str]]:
    """Every problem with a bundle dict (as `dump_bundle` writes one), with JSON paths.

    With `agent_name` (an import under another name) the agent is checked under that
    name, and a problem with it has the path `agent_name`.
    """
    agent = dict(bundle["agent"])
    if agent_name:
        agent["name"] = agent_name
    problems = []
    for path, message in item_problems("agent", agent):
        if agent_name and item_field(path) == "name":
            problems.append(("agent_name", message))
        else:
            problems.append((_join("$.agent", path), message))
    for section in ITEM_SECTIONS:
        for index, item in enumerate(bundle.get(section, ())):
            problems += [(_join(f"$.{section}[{index}]", path), message)
                         for path, message in item_problems(section, item)]
    return problems


def check_bundle(bundle: Mapping[str, Any], *, agent_name: str | None = None) -> None:
    """Raise `ValidationError` (by JSON path) with every problem `bundle_problems` finds."""
    problems = bundle_problems(bundle, agent_name=agent_name)
    if problems:
        raise ValidationError(problems)


def _join(prefix: str, path: str) -> str:
    if not path:
        return prefix
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"
