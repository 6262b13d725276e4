"""The data the code editor (`static/code-editor.js`) reads from the page: what each
`{{name}}` is and gives (`names_data`: `#editor-names` of the editor page, and the names
route), and the edited skill's problems in its lines (`diagnostics_data`:
`#editor-diagnostics` of every preview).

Both are JSON in the `data-json` attribute of a hidden element, escaped like any
attribute: inert markup, nothing the CSP has to allow. (A `<script type="application/json">`
data block would be too, but htmx removes every `<script>` from what it swaps in, as
configured: `allowScriptTags` is false.) The rules stay in the pipeline
(`resolvable_names`, the diagnostics of assembly); the editor only lays them out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from webapp.pipeline import Diagnostic, Vocabulary


def names_data(vocabulary: Vocabulary, skill_url: Callable[[str], str]) -> dict[str, Any]:
    """What `#editor-names` holds: every resolvable name with its kind, what it is and its value for
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
    """What a preview's `#editor-diagnostics` holds: the problems in lines of skill
    `d_tag`, each with its line, the `{{name}}` it is about and the names suggested for it;
    and the scenario the preview was assembled for (the editor fetches the names' values
    again when it changes)."""
    return {
        "skill": d_tag,
        "scenario": scenario,
        "diagnostics": [
            {"severity": d.severity, "code": d.code, "message": d.message, "line": d.line,
             "name": d.name, "suggestions": list(d.suggestions)}
            for d in problems if d.skill == d_tag and d.line],
    }
