"""Reading the editor's requests: the skill form, the scenario picker, JSON bodies.

Each parser returns plain values plus a `{field: reason}` dict of errors; the routes
answer 422 with those reasons and change nothing. Requests may be form-encoded (the
browser) or JSON (scripts); both go through the same parsers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import abort, request
from werkzeug.exceptions import BadRequest

from webapp.pipeline import Skill, Workspace

from .preview import Choice

_TRUE = {"1", "true", "on", "yes"}
_FALSE = {"0", "false", "off", "no", ""}


@dataclass
class SkillForm:
    """The skill as the author submitted it, the version they started from, and any errors."""

    draft: Skill
    version: int | None
    errors: dict[str, str] = field(default_factory=dict)


def request_data() -> tuple[Mapping[str, Any], bool]:
    """The request's fields and whether they came from a form (else a JSON object).

    A body that claims to be JSON but is not answers 422 naming the position.
    """
    if not request.is_json:
        return request.form, True
    try:
        data = request.get_json()
    except BadRequest as exc:  # its description names the line and column
        abort(422, description=f"body: not valid JSON ({exc.description})")
    if not isinstance(data, dict):
        abort(422, description="body: must be a JSON object")
    return data, False


def whole_number(value: Any, name: str) -> int:
    """`value` as an integer of at least 1, else a 422 naming the field."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        what = "is required" if value in (None, "") else f"must be a whole number, not {value!r}"
        abort(422, description=f"{name}: {what}")
    if number < 1:
        abort(422, description=f"{name}: must be at least 1, not {number}")
    return number


def parse_skill_form(data: Mapping[str, Any], saved: Skill, *, from_form: bool) -> SkillForm:
    """Read the skill fields; missing ones keep `saved`'s values.

    In an HTML form an unchecked box sends nothing, so there `enabled` missing means false.
    """
    errors: dict[str, str] = {}

    d_tag = _text(data.get("d_tag", saved.d_tag)).strip()
    if not d_tag:
        errors["d_tag"] = "must not be empty"
    elif any(ch.isspace() or ch in "{}" for ch in d_tag):
        errors["d_tag"] = "must not contain whitespace or braces"

    layer: Any = data.get("layer", saved.layer)
    try:
        layer = int(layer)
        if layer not in (1, 2):
            raise ValueError
    except (TypeError, ValueError):
        errors["layer"] = f"must be 1 or 2, not {layer!r}"
        layer = saved.layer

    triggers = data.get("triggers", list(saved.triggers))
    if isinstance(triggers, str):
        triggers = [t.strip() for t in triggers.split(",")]
    if not isinstance(triggers, list) or not all(isinstance(t, str) for t in triggers):
        errors["triggers"] = "must be trigger names separated by commas"
        triggers = list(saved.triggers)
    triggers = tuple(t.strip() for t in triggers if t.strip())

    enabled = data.get("enabled", False if from_form else saved.enabled)
    if isinstance(enabled, str):
        if enabled.lower() not in _TRUE | _FALSE:
            errors["enabled"] = f"must be true or false, not {enabled!r}"
        enabled = enabled.lower() in _TRUE
    elif not isinstance(enabled, bool):
        errors["enabled"] = "must be true or false"
        enabled = saved.enabled

    content = data.get("content", saved.content)
    if not isinstance(content, str):
        errors["content"] = "must be text"
        content = saved.content
    # Browsers send CRLF line ends from a textarea; the pipeline and the diffs want LF.
    content = content.replace("\r\n", "\n")

    version: Any = data.get("version")
    if version is not None:
        try:
            version = int(version)
        except (TypeError, ValueError):
            errors["version"] = f"must be a whole number, not {version!r}"
            version = None

    draft = Skill(d_tag=d_tag or saved.d_tag, content=content,
                  name=_text(data.get("name", saved.name)), layer=layer, triggers=triggers,
                  enabled=bool(enabled))
    return SkillForm(draft, version, errors)


def parse_choice(data: Mapping[str, Any], workspace: Workspace) -> tuple[Choice, dict[str, str]]:
    """Read the scenario picker; blank fields mean "the scenario's own"."""
    errors: dict[str, str] = {}
    names = [sc.name for sc in workspace.scenarios]
    scenario = _blank_to_none(data.get("scenario"))
    if scenario is not None and scenario not in names:
        errors["scenario"] = f"no scenario named {scenario!r}"
        scenario = None
    if scenario is None and names:
        scenario = names[0]
    return Choice(
        scenario=scenario,
        trigger=_stripped(data.get("trigger")),
        message=_blank_to_none(data.get("message")),
        provider=_stripped(data.get("provider")),
    ), errors


def choice_args(choice: Choice, workspace: Workspace) -> dict[str, str]:
    """The picker as URL query arguments, leaving out what equals the defaults."""
    args = {"scenario": choice.scenario, "trigger": choice.trigger,
            "message": choice.message, "provider": choice.provider}
    if workspace.scenarios and choice.scenario == workspace.scenarios[0].name:
        args["scenario"] = None
    return {key: value for key, value in args.items() if value}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _blank_to_none(value: Any) -> str | None:
    if value is None:
        return None
    text = _text(value)
    return text if text.strip() else None


def _stripped(value: Any) -> str | None:
    text = _blank_to_none(value)
    return text.strip() if text is not None else None
