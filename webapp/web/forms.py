"""Reading the editor's requests: the skill form, the scenario picker, the skill list's
filter and order, JSON bodies.

Each parser returns plain values plus a `{field: reason}` dict of errors; the routes
answer 422 with those reasons and change nothing. Requests may be form-encoded (the
browser) or JSON (scripts); both go through the same parsers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import abort, request, session
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from webapp import store
from webapp.pipeline import Skill, Workspace, flag_word, lf_line_ends, loads_json
from webapp.schema.db import get_session
from webapp.views.preview import Choice

#: The session key of the scenario last picked for each agent (in its editor or agent
#: preview): `[agent, scenario]` pairs, the newest last, for at most `PICKED_AGENTS` agents
#: (the session is a cookie of about 4 KB, and a name may have 200 characters).
PICKED_KEY = "picked_scenarios"
PICKED_AGENTS = 6
#: The longest skill-list filter kept (that of a d_tag or a name); the rest of a longer
#: one is dropped, so the page never echoes more than this.
MAX_QUERY = store.NAME_LENGTH


@dataclass
class SkillForm:
    """The skill as the author submitted it, the version they started from, and any errors."""

    draft: Skill
    version: int | None
    errors: dict[str, str] = field(default_factory=dict)
    #: What the author says of this save (the revision's note, on History); None for none.
    note: str | None = None


def request_data() -> tuple[Mapping[str, Any], bool]:
    """The request's fields and whether they came from a form (else a JSON object).

    A body that claims to be JSON but is not (a syntax error, a number Python cannot
    read, `Infinity`, nesting too deep) answers 422 naming the problem, and so does
    one holding a lone surrogate (a `\\ud800` escape), naming the field. (A form cannot
    hold one: Werkzeug decodes it as UTF-8, an invalid byte becoming U+FFFD.)
    """
    if not request.is_json:
        return request.form, True
    data = json_body(request.get_data(cache=True, as_text=False))
    if not isinstance(data, dict):
        abort(422, description="body: must be a JSON object")
    where = store.surrogate_path(data)
    if where is not None:
        abort(422, description=f"{where or 'body'}: {store.SURROGATE_MESSAGE}")
    return data, False


def json_body(raw: bytes) -> Any:
    """A request body parsed as JSON (`loads_json`: depth bounded, numbers exact), or a
    422 naming what is wrong with it."""
    try:
        return loads_json(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        abort(422, description="body: not valid JSON (not UTF-8 text)")
    except json.JSONDecodeError as exc:
        abort(422, description=f"body: not valid JSON ({exc.msg}: line {exc.lineno}, "
                               f"column {exc.colno})")


def whole_number(value: Any, name: str, rule: str | None = None) -> int:
    """`value` as a whole number within the range the store's rules give `rule` (by default
    `name`; see `store.INTEGER_RANGES`), else a 422 naming the field."""
    number, problem = store.parse_integer(rule or name, value)
    if problem:
        abort(422, description=f"{name}: {problem}")
    return number


class IdConverter(IntegerConverter):
    """`<id:name>` in a route: an id, version or entry number from 1 to `store.MAX_ID`; a
    number no row can have is a 404 before the database is asked."""

    def to_python(self, value: str) -> int:
        # Raised here rather than refused as a non-match: Werkzeug would then answer a
        # POST with 405 because the same path takes GET.
        number, problem = store.parse_integer("id", value)
        if problem:
            raise NotFound(f"There is no number {value[:20]} here: it {problem}.")
        return number


def parse_skill_form(data: Mapping[str, Any], saved: Skill, *, from_form: bool) -> SkillForm:
    """Read the skill fields; missing ones keep `saved`'s values.

    In an HTML form an unchecked box sends nothing, so there `enabled` missing means false.
    """
    errors: dict[str, str] = {}

    d_tag = _text(data.get("d_tag", saved.d_tag)).strip()
    if problem := store.skill_d_tag_problem(d_tag):
        errors["d_tag"] = problem

    layer, problem = store.parse_integer("layer", data.get("layer", saved.layer))
    if problem:
        errors["layer"] = problem
        layer = saved.layer

    triggers = _triggers(data, saved, from_form=from_form)
    if triggers is None:
        errors["triggers"] = "must be trigger names, one per line"
        triggers = saved.triggers

    enabled = data.get("enabled", False if from_form else saved.enabled)
    if isinstance(enabled, str):
        word = flag_word(enabled)
        if word is None:
            errors["enabled"] = f"must be true or false, not {enabled!r}"
        enabled = word is True
    elif not isinstance(enabled, bool):
        errors["enabled"] = "must be true or false"
        enabled = saved.enabled

    content = data.get("content", saved.content)
    if not isinstance(content, str):
        errors["content"] = "must be text"
        content = saved.content
    # Browsers send CRLF line ends from a textarea; the one line-end rule applies
    # to the draft the preview shows as to what is saved.
    content = lf_line_ends(content)

    version: Any = data.get("version")
    if version is not None:
        version, problem = store.parse_integer("version", version)
        if problem:
            errors["version"] = problem

    description = data.get("description", saved.description)
    if not isinstance(description, str):
        errors["description"] = "must be text"
        description = saved.description

    note = data.get("note")
    if note is not None and not isinstance(note, str):
        errors["note"] = "must be text"
        note = None

    draft = Skill(d_tag=d_tag or saved.d_tag, content=content,
                  name=_text(data.get("name", saved.name)), layer=layer, triggers=triggers,
                  enabled=bool(enabled), description=lf_line_ends(description))
    return SkillForm(draft, version, errors, (note or "").strip() or None)


def parse_choice(data: Mapping[str, Any], workspace: Workspace, default: str | None = None
                 ) -> tuple[Choice, dict[str, str]]:
    """Read the scenario picker; blank fields mean "the scenario's own". Without a
    scenario, the choice is `default` if the workspace has it, else its first."""
    errors: dict[str, str] = {}
    names = [sc.name for sc in workspace.scenarios]
    scenario = _blank_to_none(data.get("scenario"))
    if scenario is not None and scenario not in names:
        errors["scenario"] = f"no scenario named {scenario!r}"
        scenario = None
    if scenario is None and names:
        scenario = default if default in names else names[0]
    return Choice(
        scenario=scenario,
        trigger=_stripped(data.get("trigger")),
        message=_blank_to_none(data.get("message")),
        provider=_stripped(data.get("provider")),
    ), errors


def picker_choice(data: Mapping[str, Any], workspace: Workspace) -> tuple[Choice, dict[str, str]]:
    """The picker of the editor and the agent preview: `parse_choice`, remembering per
    agent (in the session) the scenario a request names, and choosing the remembered one
    when a request names none, so a skill opened from a link without the picker's
    arguments keeps the scenario picked last."""
    agent = workspace.agent.name
    picked = session.get(PICKED_KEY)
    pairs = [tuple(pair) for pair in picked if _is_pair(pair)] if isinstance(picked, list) else []
    remembered = dict(pairs).get(agent)
    choice, errors = parse_choice(data, workspace, default=remembered)
    named = _blank_to_none(data.get("scenario"))
    if named is not None and "scenario" not in errors and named != remembered:
        pairs = [pair for pair in pairs if pair[0] != agent] + [(agent, named)]
        session[PICKED_KEY] = [list(pair) for pair in pairs[-PICKED_AGENTS:]]
    return choice, errors


def _is_pair(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2
            and all(isinstance(item, str) for item in value))
def filter_query(data: Mapping[str, Any]) -> str:
    """The skill list's filter (`q`), cut to `MAX_QUERY` characters; blank unless text."""
    query = data.get("q")
    return query[:MAX_QUERY] if isinstance(query, str) else ""


def order_field(data: Mapping[str, Any], *, from_form: bool) -> Any:
    """The new adoption order: every `order` field of a form, or a JSON body's `order`
    (checked by the store, which says what is wrong with it)."""
    if from_form and isinstance(data, MultiDict):
        return data.getlist("order")
    return data.get("order")


#: The longest message override a link carries: a link's address is part of a request line,
#: which gunicorn caps at 4,094 bytes, and a page repeats it in every fold and panel link.
#: A longer message stays in the editor's form, which its folds are posted with.
LINK_MESSAGE_CHARS = 1_000


def choice_args(choice: Choice, workspace: Workspace) -> dict[str, str]:
    """The picker as URL query arguments, leaving out what equals the defaults and a
    message longer than `LINK_MESSAGE_CHARS`."""
    message = choice.message if len(choice.message or "") <= LINK_MESSAGE_CHARS else None
    args = {"scenario": choice.scenario, "trigger": choice.trigger,
            "message": message, "provider": choice.provider}
    if workspace.scenarios and choice.scenario == workspace.scenarios[0].name:
        args["scenario"] = None
    return {key: value for key, value in args.items() if value}


def pipeline_args(choice: Choice, workspace: Workspace) -> dict[str, str]:
    """`choice_args` with the scenario always named: a step of the pipeline explained opens
    the same scenario whatever the viewer picked last (`picker_choice` remembers it)."""
    args = choice_args(choice, workspace)
    if choice.scenario:
        args["scenario"] = choice.scenario
    return args


def _triggers(data: Mapping[str, Any], saved: Skill, *, from_form: bool
              ) -> tuple[str, ...] | None:
    """The triggers: one per line of text (so a trigger may hold a comma), the lines of
    every `triggers` field of a form, or a JSON list; None when they are not text."""
    if "triggers" not in data:
        return saved.triggers
    if from_form and isinstance(data, MultiDict):
        values: Any = data.getlist("triggers")
    else:
        values = data.get("triggers")
        values = [values] if isinstance(values, str) else values
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return None
    if from_form or isinstance(data.get("triggers"), str):
        values = [line for value in values for line in lf_line_ends(value).split("\n")]
    return tuple(t.strip() for t in values if t.strip())


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


def load_workspace(agent: str) -> Workspace:
    """The agent's saved workspace (a missing agent is a 404 via `store.NotFound`)."""
    return store.load_workspace(get_session(), agent)


def load_trash(agent: str) -> tuple[Skill, ...]:
    """The agent's skills in the trash, most recently deleted first."""
    return tuple(store.skill_of(row) for row in store.list_trash(get_session(), agent))
