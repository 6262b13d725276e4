"""What the Variables page shows of a binding: the row's form as submitted (checked with
the store's rules, a known tool and format, a unique name; each field's text kept as
typed) and what the binding gives for the scenario."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webapp import store
from webapp.pipeline import (
    BUILTIN_TOOL_NAMES,
    FORMATTERS,
    Scenario,
    Use,
    Variable,
    Workspace,
    call_binding,
    dumps_json,
    variable_uses,
)
from webapp.render import highlight_markdown_lines, markdown_to_html

from .workspace import (
    Errors,
    FieldError,
    ItemForm,
    check_item,
    json_field,
    optional_text,
    replace_in,
    text_field,
)

FIELDS = ("name", "tool", "args", "result_field", "path", "format", "limit")


VariableForm = ItemForm[Variable]


@dataclass
class Row:
    """One row of the table: the form, what the binding gives for the scenario, its users."""

    original: str | None
    form: VariableForm
    text: str = ""
    html: Any = ""
    source: list[Any] = field(default_factory=list)
    problems: tuple[Any, ...] = ()
    uses: list[Use] = field(default_factory=list)

    @property
    def errors(self) -> Errors:
        return self.form.errors


def known_tools(workspace: Workspace) -> list[str]:
    return [*workspace.tools_by_name, *BUILTIN_TOOL_NAMES]


def saved_form(variable: Variable) -> VariableForm:
    texts = {
        "name": variable.name, "tool": variable.tool,
        "args": "" if variable.args is None else dumps_json(variable.args),
        "result_field": variable.result_field, "path": variable.path or "",
        "format": variable.format or "",
        "limit": "" if variable.limit is None else str(variable.limit),
    }
    return ItemForm(variable, texts)


def blank_form() -> VariableForm:
    form = saved_form(Variable(name="", tool=""))
    form.texts["result_field"] = ""
    return form


def parse_variable_form(data: Any, workspace: Workspace, original: str | None, *,
                        from_form: bool) -> VariableForm:
    """Read and check a binding: bundle rules, a known tool and format, a unique name."""
    errors: Errors = {}
    saved = workspace.variables_by_name.get(original or "") or Variable(name="", tool="")
    name = text_field(data, "name", saved.name).strip()
    tool = text_field(data, "tool", saved.tool).strip()
    args = json_field(data, "args", errors, from_form=from_form) if "args" in data else saved.args
    result_field = optional_text(data, "result_field") if "result_field" in data else (
        saved.result_field)
    path = optional_text(data, "path") if "path" in data else saved.path
    format_name = optional_text(data, "format") if "format" in data else saved.format
    limit: Any = data.get("limit", saved.limit)
    if isinstance(limit, str):
        limit = limit.strip() or None
        if limit is not None:
            limit, problem = store.parse_integer("limit", limit)
            if problem:
                errors["limit"] = FieldError(problem)
    item = {"name": name, "tool": tool, "args": args, "result_field": result_field or "content",
            "path": path, "format": format_name, "limit": limit}
    check_item("variables", item, errors)
    if tool and tool not in known_tools(workspace):
        known = ", ".join(known_tools(workspace))
        errors.setdefault("tool", FieldError(
            f"no mock tool or built-in tool is named {tool!r} (known: {known})"))
    if format_name is not None and format_name not in FORMATTERS:
        errors.setdefault("format", FieldError(
            f"unknown format {format_name!r} (known: {', '.join(sorted(FORMATTERS))})"))
    if name != original and name in workspace.variables_by_name:
        errors.setdefault("name", FieldError(f"a binding named {name!r} already exists"))
    variable = Variable(name=name, tool=tool, args=args, result_field=result_field or "content",
                        path=path, format=format_name,
                        limit=limit if isinstance(limit, int) and not isinstance(limit, bool)
                        else None)
    texts = saved_form(variable).texts
    if from_form:
        texts.update({key: text_field(data, key) for key in FIELDS if key in data})
    return ItemForm(variable, texts, errors)


def make_row(workspace: Workspace, scenario: Scenario, original: str | None,
             form: VariableForm) -> Row:
    """A table row: the binding's output for `scenario` (unless its fields are invalid)."""
    row = Row(original, form, uses=variable_uses(workspace, original) if original else [])
    if form.errors:
        return row
    variable = form.item
    draft = Variable(variable.name or "new_variable", variable.tool, variable.args,
                     variable.result_field, variable.path, variable.format, variable.limit)
    text, problems = call_binding(replace_in(workspace, "variables", original, draft),
                                  scenario, draft)
    row.text, row.problems = text, problems
    row.html, row.source = markdown_to_html(text), highlight_markdown_lines(text)
    return row
