"""The clients an agent's skills are written for, and what each reads of a SKILL.md.

One row a client: its name, the frontmatter keys it reads (a key it does not read is kept,
and ignored there), and how it lists skills before any is used (its catalogue budget).
Where each figure comes from is written beside it and in docs/folders.md; a figure a
client does not publish is not invented here.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The keys of the Agent Skills specification (agentskills.io/specification), which its
#: reference validator (`skills-ref validate`) allows and no other.
SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")


@dataclass(frozen=True, slots=True)
class Client:
    """A client of Agent Skills folders: `id`, the name shown, the keys it reads, and its
    catalogue: the share of the context window its listing may take (`budget_share`; 0 when
    it publishes none), the characters it falls back to (`budget_fallback`), how many
    characters of one entry it keeps (`entry_cap`, 0: all), and where the figures come from."""

    id: str
    name: str
    keys: tuple[str, ...]
    source: str
    budget_share: float = 0.0
    budget_fallback: int = 0
    entry_cap: int = 0
    budget_source: str = ""


CLIENTS: dict[str, Client] = {client.id: client for client in (
    Client("agentskills", "Agent Skills specification", SPEC_KEYS,
           "https://agentskills.io/specification and the skills-ref validator "
           "(github.com/agentskills/agentskills, skills-ref/src/skills_ref/validator.py)"),
    Client("claude-code", "Claude Code",
           SPEC_KEYS + ("when_to_use", "argument-hint", "disable-model-invocation",
                        "user-invocable", "model", "effort", "context", "agent", "hooks",
                        "paths", "shell"),
           "https://code.claude.com/docs/en/skills (frontmatter reference); the name and "
           "description rules of Claude's Agent Skills: "
           "https://platform.claude.com/docs/en/agents-and-tools/agent-skills/overview",
           budget_share=0.01, budget_fallback=8_000, entry_cap=1_536,
           budget_source="https://code.claude.com/docs/en/skills: skill descriptions are "
                         "listed within 1% of the context window (8,000 characters when it is "
                         "unknown), each entry cut at 1,536 characters"),
    Client("codex", "Codex", ("name", "description", "metadata"),
           "github.com/openai/codex, codex-rs/core/src/skills/loader.rs (MAX_NAME_LEN 64, "
           "MAX_DESCRIPTION_LEN 1024, MAX_SHORT_DESCRIPTION_LEN 500; an invalid SKILL.md is "
           "skipped; the first of two skills with one name is kept)",
           budget_share=0.02, budget_fallback=8_000,
           budget_source="github.com/openai/codex pull requests 18298 and 20112: the skills "
                         "section is kept within 2% of the context window (about 4 characters "
                         "a token; 8,000 characters when it is unknown), descriptions cut "
                         "first, then skills left out"),
    Client("vscode-copilot", "VS Code Copilot",
           ("name", "description", "argument-hint", "user-invocable", "disable-model-invocation",
            "license", "compatibility", "metadata"),
           "https://code.visualstudio.com/docs/copilot/customization/agent-skills (name 1-64 "
           "characters, lowercase letters, digits and hyphens, the folder's name; description "
           "at most 1,024)"),
    Client("gemini-cli", "Gemini CLI", ("name", "description"),
           "https://geminicli.com/docs/cli/skills and google-gemini/gemini-cli "
           "packages/core/src/skills/skillManager.ts (of two skills with one name, the later "
           "overrides the earlier)"),
)}

#: The client every agent is written for unless it says otherwise.
DEFAULT_CLIENTS = ("agentskills",)


def client_problem(clients: object) -> str | None:
    """Why `clients` cannot be an agent's target clients, or None: a list naming at least
    one known client, each once."""
    if not isinstance(clients, (list, tuple)) or not all(isinstance(c, str) for c in clients):
        return "must be a list of client names"
    unknown = [c for c in clients if c not in CLIENTS]
    if unknown:
        return (f"names no client {unknown[0]!r} (the clients: {', '.join(CLIENTS)})")
    if not clients:
        return "must name at least one client"
    if len(set(clients)) != len(clients):
        return "names a client twice"
    return None
