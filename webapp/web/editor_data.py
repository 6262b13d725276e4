"""The data the code editor (`static/code-editor.js`) reads from the page: what each
`{{name}}` is and gives (`names_data`, the `#editor-names` block and the names route), and
the edited skill's problems in its lines (`diagnostics_data`, the `#editor-diagnostics`
block of every preview).

Both are JSON in `<script type="application/json">` blocks: not executed, so the CSP's
`script-src 'self'` does not apply to them, and `tojson` escapes `<`, `>`, `&` and `'`, so
no text can close the block. The rules stay in the pipeline (`resolvable_names`, the
diagnostics of assembly); the editor only lays them out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from webapp.pipeline import Diagnostic, Vocabulary


def names_data(vocabulary: Vocabulary, skill_url: Callable[[str], str]) -> dict[str, Any]:
    """The names block: every resolvable name with its kind, what it is and its value for
    the scenario (a skill's with the address of its editor), and the template's words."""
    names = []
    for n in vocabulary.names:
        entry = {"name": n.name, "kind": n.kind, "detail": n.detail, "summary": n.summary,
                 "value": n.value}
        if n.title:
            entry["title"] = n.title
        if n.hides:
            entry["hides"] = list(n.hides)
        if n.kind == "skill":
            entry["url"] = skill_url(n.name)
        names.append(entry)
    return {
        "scenario": vocabulary.scenario,
        "names": names,
        "template": {"keys": list(vocabulary.section_keys),
                     "roles": list(vocabulary.section_roles),
                     "tools": list(vocabulary.tools),
                     "formats": list(vocabulary.formats)},
    }


def diagnostics_data(problems: Iterable[Diagnostic], d_tag: str,
                     scenario: str | None) -> dict[str, Any]:
    """The diagnostics block of a preview: the problems in lines of skill `d_tag`, each with
    its line, the `{{name}}` it is about and the names suggested for it; and the scenario
    the preview was assembled for (the editor fetches the names' values again when it
    changes)."""
    return {
        "skill": d_tag,
        "scenario": scenario,
        "diagnostics": [
            {"severity": d.severity, "code": d.code, "message": d.message, "line": d.line,
             "name": d.name, "suggestions": list(d.suggestions)}
            for d in problems if d.skill == d_tag and d.line],
    }
