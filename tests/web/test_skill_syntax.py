"""static/skill-syntax.js, the code editor's copy of the rules its colouring needs, read
the way the pipeline reads: role markers (`roles.marker_role`), fences
(`roles.FenceTracker`), the template line (`sections.split_template`) and `{{name}}`
placeholders with the `\\{{` escapes between them (`placeholders`). The JavaScript runs in
node, on fixed tricky lines and on seeded random ones; without node the test skips."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from webapp.pipeline.placeholders import ESCAPE, find_placeholders
from webapp.pipeline.roles import FenceTracker, marker_role
from webapp.pipeline.sections import split_template

SYNTAX = Path(__file__).resolve().parents[2] / "static" / "skill-syntax.js"
NODE = shutil.which("node")

LINES = [
    "system:", "user:", "assistant:", "SYSTEM:", "User:  ", "assistant:\t", "system: x",
    " system:", "system", "system:\r", "ſystem:", "assıstant:", "assİstant:", "USER:" + " " * 59,
    "USER:" + " " * 60, "user:\x0b", "", "{{a}}", "{{ a }}", "{{\ta\t}}", "{{a b}}", "{{}}",
    "\\{{a}}", "\\\\{{a}}", "x \\{{ literal", "{{a}}\\{{b}}", "\\{{{a}}", "{{{a}}}",
    "{{a}}{{b}}", "{{a\u00a0b}}", "{{a\u2003}}", "{{a\x1cb}}", "{{a\ufeffb}}", "{{a\x85}}",
    "{{é}} and {{😀}} {{x😀y}}", "{{a}", "{{a}}}", "}}{{", "{{ {{a}} }}", "\\{{\\{{",
    "```", "```py", "``` `x`", "~~~", "   ```", "    ```", "````", "~~~~ x", "``", "```\x1c",
    "---template---", "---template---  ", " ---template---", "---template--- x",
    "---template---\t", "# heading", "- item {{x}}",
]

DOCUMENTS = [
    ["system:", "```", "user:", "```", "user:", "---template---", "user:"],
    ["~~~~", "```", "~~~", "~~~~", "assistant:"],
    ["```", "---template---", "```", "---template---", "- section: a"],
    ["  ```", "user:", "  ```  ", "user:"],
    ["```py", "```\x1c", "system:", "```", "system:"],
    ["```", "````", "user:", "``` x", "user:"],
    [],
]

ALPHABET = ["{", "}", "{{", "}}", "\\", "\\{{", " ", "\t", "a", "b_c", "é", "😀", "\u00a0", "\x1c",
            "\ufeff", "`", "```", "~~~", ":", "system", "user", "USER", "assistant", "-", "#",
            "---template---", "\r", "\x85"]


def random_lines(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 8))) for _ in range(count)]


def python_tokens(line: str) -> list[list]:
    """What the pipeline reads in `line`: its placeholders, and the escapes that `unescape`
    turns into `{{` in the text between them (in code points)."""
    found, gap = [], 0

    def escapes(end: int) -> None:
        at = line.find(ESCAPE, gap)
        while at >= 0 and at + len(ESCAPE) <= end:
            found.append(["escape", at, at + len(ESCAPE), None])
            at = line.find(ESCAPE, at + len(ESCAPE))

    for ph in find_placeholders(line):
        escapes(ph.start)
        found.append(["placeholder", ph.start, ph.end, ph.name])
        gap = ph.end
    escapes(len(line))
    return found


def python_scan(lines: list[str]) -> dict:
    fence = FenceTracker()
    template = split_template(lines)
    end = template if template >= 0 else len(lines)
    fenced = [fence.feed(line) for line in lines[:end]]
    roles = [None if inside else marker_role(line)
             for line, inside in zip(lines[:end], fenced, strict=True)]
    return {"roles": roles, "fenced": fenced, "template": template}


RUNNER = r"""
const S = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
// Offsets in code points, as Python counts them.
const points = (line, i) => Array.from(line.slice(0, i)).length;
const out = {
  roles: input.lines.map(S.markerRole),
  templates: input.lines.map(S.isTemplateMarker),
  tokens: input.lines.map((line) => S.tokens(line).map(
    (t) => [t.kind, points(line, t.start), points(line, t.end), t.name])),
  scans: input.documents.map((lines) => {
    const scan = S.scan(lines);
    const end = scan.template >= 0 ? scan.template : lines.length;
    return {roles: scan.roles.slice(0, end), fenced: scan.fenced.slice(0, end),
            template: scan.template};
  }),
};
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def javascript():
    """Run skill-syntax.js in node on the lines and documents; its answers."""
    if NODE is None:
        pytest.skip("node is not installed")
    lines = LINES + random_lines(3000)
    documents = DOCUMENTS + [random_lines(30, seed) for seed in range(200)]
    result = subprocess.run([NODE, "-e", RUNNER, str(SYNTAX)], capture_output=True, text=True,
                            input=json.dumps({"lines": lines, "documents": documents}),
                            check=True, timeout=60)
    return lines, documents, json.loads(result.stdout)


def test_role_markers_are_the_pipeline_s(javascript):
    lines, _, out = javascript
    assert [(line, role) for line, role in zip(lines, out["roles"], strict=True)] == [
        (line, marker_role(line)) for line in lines]


def test_placeholders_and_escapes_are_the_pipeline_s(javascript):
    lines, _, out = javascript
    assert [(line, tokens) for line, tokens in zip(lines, out["tokens"], strict=True)] == [
        (line, python_tokens(line)) for line in lines]


def test_fences_roles_and_the_template_line_are_the_pipeline_s(javascript):
    lines, documents, out = javascript
    for line, is_marker in zip(lines, out["templates"], strict=True):
        assert is_marker == (split_template([line]) == 0), line
    for document, scan in zip(documents, out["scans"], strict=True):
        assert scan == python_scan(document), document


def test_the_samples_cover_what_matters():
    """The fixed samples hold each kind of answer, so a broken copy cannot pass by
    answering nothing."""
    assert {marker_role(line) for line in LINES} == {None, "system", "user", "assistant"}
    kinds = {token[0] for line in LINES for token in python_tokens(line)}
    assert kinds == {"placeholder", "escape"}
    assert any(python_scan(d)["template"] >= 0 for d in DOCUMENTS)
    assert any(any(python_scan(d)["fenced"]) for d in DOCUMENTS)
