"""What the agents' pages show and read: the home page's rows, and the new-agent and
settings form (the fields as typed, the values the store is given, the errors).

The store's rules decide what an agent may be (`store.create_agent`, `update_agent`);
this module only reads the form's text into typed values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from webapp import store
from webapp.agentskills import CLIENTS, DEFAULT_CLIENTS
from webapp.pipeline import (
    DEFAULT_HISTORY_LABELS,
    DEFAULT_MODEL,
    MESSAGE_MODES,
    MODEL_WINDOWS,
    Diagnostic,
    assemble,
)
from webapp.schema import models

#: The history roles a form always offers a label for (others the agent has are kept).
LABEL_ROLES = ("user", "assistant")
_LABEL_PREFIX = "label_"


@dataclass
class AgentRow:
    """One agent on the home page."""

    name: str
    skills: int
    changed: datetime
    errors: int
    warnings: int


def agent_rows(session: Session) -> list[AgentRow]:
    """Every agent with its skill count, its last change and its distinct problems over
    every scenario (the problems the editor's skill list counts)."""
    rows = []
    for agent in store.list_agents(session):
        skills = store.list_skills(session, agent)
        changed = max([agent.created_at, *(s.updated_at for s in skills)])
        problems = workspace_problems(store.load_workspace(session, agent))
        rows.append(AgentRow(agent.name, len(skills), changed,
                             sum(d.severity == "error" for d in problems),
                             sum(d.severity == "warning" for d in problems)))
    return rows


def workspace_problems(workspace: Any) -> set[Diagnostic]:
    """The distinct errors and warnings of every scenario's assembly."""
    names = [sc.name for sc in workspace.scenarios] or [None]
    return {d for name in names for d in assemble(workspace, name).diagnostics
            if d.severity in ("error", "warning")}


@dataclass
class AgentForm:
    """The agent form as typed (`values`, text), as the store takes it (`fields`), and
    what is wrong with it (`errors`, by field name)."""

    values: dict[str, str]
    fields: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    #: The clients the agent's skills are written for (its settings only; None: the form
    #: sent no choice of them, and they stay as they are).
    clients: tuple[str, ...] | None = DEFAULT_CLIENTS

    @classmethod
    def blank(cls) -> AgentForm:
        """A new agent's form: the store's defaults."""
        labels = dict(DEFAULT_HISTORY_LABELS)
        return cls({"name": "", "title": "{name}", "message_mode": "grouped",
                    "max_array_items": "8", "model": DEFAULT_MODEL, "context_window": "0",
                    "builtin_tests": "on", **_label_values(labels)})

    @classmethod
    def of(cls, agent: models.Agent) -> AgentForm:
        """The form of a saved agent."""
        return cls({"name": agent.name, "title": agent.title,
                    "message_mode": agent.message_mode,
                    "max_array_items": str(agent.max_array_items), "model": agent.model,
                    "context_window": str(agent.context_window),
                    "builtin_tests": "on" if agent.builtin_tests else "",
                    **_label_values(agent.history_labels)}, clients=tuple(agent.skill_clients))

    @property
    def labels(self) -> list[tuple[str, str]]:
        """`(role, label)` for each history label the form shows."""
        return [(key.removeprefix(_LABEL_PREFIX), value) for key, value in self.values.items()
                if key.startswith(_LABEL_PREFIX)]

    @property
    def all_clients(self) -> dict[str, str]:
        """Every client a skill may be written for, by id, with its name."""
        return {client.id: client.name for client in CLIENTS.values()}

    @property
    def modes(self) -> tuple[str, ...]:
        return MESSAGE_MODES

    @property
    def models(self) -> dict[str, int]:
        """The models whose context window is known, and their windows."""
        return MODEL_WINDOWS


def _label_values(labels: Mapping[str, Any]) -> dict[str, str]:
    roles = [*LABEL_ROLES, *(role for role in labels if role not in LABEL_ROLES)]
    return {f"{_LABEL_PREFIX}{role}": str(labels.get(role, "")) for role in roles}


def parse_agent_form(data: Mapping[str, Any]) -> AgentForm:
    """Read the posted agent form. Text fields are taken as typed (the store checks them);
    the array limit must be a whole number; a blank history label is left out."""
    text = {key: str(data.get(key, "")) for key in ("name", "title", "message_mode",
                                                    "max_array_items", "model",
                                                    "context_window")}
    labels = {key: str(value) for key, value in data.items()
              if key.startswith(_LABEL_PREFIX) and len(key) > len(_LABEL_PREFIX)}
    # The checkboxes send nothing when none is checked: the form says it showed them.
    clients = (tuple(str(c) for c in data.getlist("skill_clients"))
               if data.get("skill_clients_shown") and hasattr(data, "getlist") else None)
    form = AgentForm({**text, "builtin_tests": "on" if data.get("builtin_tests") else "",
                      **labels}, clients=clients)
    limit, problem = store.parse_integer("max_array_items", text["max_array_items"])
    if problem:
        form.errors["max_array_items"] = problem
    window, problem = store.parse_integer("context_window", text["context_window"] or "0")
    if problem:
        form.errors["context_window"] = problem
    form.fields = {
        "name": text["name"], "title": text["title"], "message_mode": text["message_mode"],
        "max_array_items": limit, "model": text["model"].strip() or DEFAULT_MODEL,
        "context_window": window,
        "builtin_tests": bool(data.get("builtin_tests")),
        "history_labels": {key.removeprefix(_LABEL_PREFIX): value
                           for key, value in labels.items() if value.strip()},
    }
    return form
