"""The tools, variables and scenarios pages' forms, as plain data: JSON fields, checks and
the drafts they make.

- `json_field` reads a JSON textarea; a syntax error names its line and column and the
  value is never saved.
- `check_item` applies the store's rules (`store.item_problems`: the bundle loader's
  rules, NUL, column lengths) to one tool, binding or scenario, so the pages can say
  what is wrong while the author types; the store applies the same rules when saving.
- `replace_in` puts a draft item in a workspace, to preview it.

Which skills use a name, and what a binding gives, are the pipeline's analyses
(`tool_uses`, `variable_uses`, `call_binding`); renaming a tool or binding with what
uses it is the store's (`rename_tool`, `rename_variable`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from webapp import store
from webapp.pipeline import (
    BundleError,
    HistoryEntry,
    Scenario,
    Tool,
    Variable,
    Workspace,
    dump_scenario,
    dump_tool,
    dump_variable,
    dumps_json,
    item_field,
    lf_line_ends,
    parse_json,
)

_POSITION = re.compile(r"line (\d+), column (\d+)")


@dataclass(frozen=True, slots=True)
class FieldError:
    """Why a field is not valid, and where in its text when it is JSON with a syntax error."""

    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        return self.message


Errors = dict[str, FieldError]

T = TypeVar("T", Tool, Variable, Scenario)

#: How each kind of item is written for the store: its bundle dict.
_DUMPS: dict[type, Callable[[Any], dict[str, Any]]] = {
    Tool: dump_tool, Variable: dump_variable, Scenario: dump_scenario}


@dataclass
class ItemForm(Generic[T]):
    """A tool, binding or scenario as submitted: the draft item, the text of each field as
    typed (shown back to the author), and the errors."""

    item: T
    texts: dict[str, str]
    errors: Errors = field(default_factory=dict)

    def store_fields(self) -> dict[str, Any]:
        """The fields the store's write functions take."""
        return _DUMPS[type(self.item)](self.item)


def json_field(data: Mapping[str, Any], name: str, errors: Errors, *, default: Any = None,
               from_form: bool = True) -> Any:
    """The JSON value of field `name`: text in a form, any value in a JSON body.

    Blank text is `default`. Invalid JSON records an error with its line and column and
    returns `default`.
    """
    if name not in data:
        return default
    raw = data.get(name)
    if not from_form:
        return raw
    if not isinstance(raw, str):
        errors[name] = FieldError("must be JSON text")
        return default
    if not raw.strip():
        return default
    try:
        value = parse_json(raw, name)
    except BundleError as exc:
        message = exc.problems[0].message
        match = _POSITION.search(message)
        line, column = (int(match[1]), int(match[2])) if match else (None, None)
        errors[name] = FieldError(message, line, column)
        return default
    # A `\ud800` escape gives text no page could show (a body's surrogates are refused
    # when it is read: `forms.json_body`).
    inner = store.surrogate_path(value)
    if inner is not None:
        errors[name] = FieldError(f"{inner + ': ' if inner else ''}{store.SURROGATE_MESSAGE}")
        return default
    return value


def json_text(value: Any) -> str:
    """A JSON value as a form's textarea shows it: indented, non-ASCII kept."""
    return dumps_json(value, indent=2)


def text_field(data: Mapping[str, Any], name: str, default: str = "") -> str:
    """A text field with LF line ends (`lf_line_ends`: a browser's textarea sends CRLF)."""
    value = data.get(name, default)
    if value is None:
        return default
    return lf_line_ends(value if isinstance(value, str) else str(value))


def optional_text(data: Mapping[str, Any], name: str) -> str | None:
    """A text field where blank means "not set" (None)."""
    value = text_field(data, name).strip()
    return value or None


def check_item(section: str, item: dict[str, Any], errors: Errors) -> None:
    """Record the store's problems with one entry of `section` (by field name)."""
    for path, message in store.item_problems(section, item):
        field = item_field(path)
        # Say where inside a JSON field the problem is: `results_by_args[1].args`.
        errors.setdefault(field, FieldError(message if path == field else f"{path}: {message}"))


def store_errors(exc: store.ValidationError) -> Errors:
    """A store `ValidationError` (also `AlreadyExists`) as field errors."""
    return {field: FieldError(message) for field, message in exc.errors.items()}


def rename_message(renamed: store.RenamedItem) -> str:
    """What a rename changed besides the item itself, for the flash."""
    moved = ([f"binding {b}" for b in renamed.bindings]
             + [f"skill {s}" for s in renamed.skills])
    return f" Renamed it in {', '.join(moved)}." if moved else ""


def with_replaced(items: tuple[Any, ...], old_name: str | None, new: Any) -> tuple[Any, ...]:
    """`items` with the one named `old_name` replaced by `new` (or `new` added)."""
    out = list(items)
    for i, item in enumerate(out):
        if item.name == old_name:
            out[i] = new
            return tuple(out)
    return (*out, new)


def replace_in(workspace: Workspace, section: str, old_name: str | None, new: Any) -> Workspace:
    """`workspace` with one tool, variable or scenario replaced by a draft."""
    return dataclasses.replace(workspace, **{section: with_replaced(
        getattr(workspace, section), old_name, new)})


def expectations_text(expect: Any) -> str:
    """A scenario's tests as the form shows them: a JSON list, one expectation a line."""
    if not expect:
        return "[]"
    return "[\n" + ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in expect) + "\n]"


def history_dicts(entries: Any) -> list[dict[str, Any]]:
    """A scenario's history as its JSON field holds it."""
    return [{"role": h.role, "content": h.content, "created_at": h.created_at}
            if isinstance(h, HistoryEntry) else h for h in entries]
