"""docs/api.md's Python examples, each run as it is written against a live server on
127.0.0.1 with a key made for it: an example that no longer works fails here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import serve

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", API_MD.read_text(encoding="utf-8"), re.DOTALL)
#: What each example prints, in their order: snapshot #2 with its label, a 304, a turn
#: of snapshot #2, the document's paths.
PRINTS = [r"^2 [0-9a-f]{12} \['production'\]\n1 [0-9a-f]{12} \[\]$", r"^304$", r"^2 \d+ \d+$",
          r"'/api/v1/agents/\{agent\}/assemble'"]


@pytest.fixture
def server(app, published) -> Iterator[str]:
    """The app with Simon published, served on 127.0.0.1."""
    yield from serve(app)


def test_every_endpoint_has_an_example():
    text = "\n".join(EXAMPLES)
    assert len(EXAMPLES) == 4
    assert all(path in text for path in ("/snapshots\"", "/snapshots/production",
                                         "/assemble", "/openapi.json"))


@pytest.mark.parametrize(("example", "prints"), zip(EXAMPLES, PRINTS, strict=True),
                         ids=["snapshots", "revalidate", "assemble", "openapi"])
def test_the_example_runs(server, token, example, prints):
    key = token("read", "assemble")["Authorization"].removeprefix("Bearer ")
    result = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "SKILL_EDITOR_URL": server,
                                             "SKILL_EDITOR_TOKEN": key})
    assert result.returncode == 0, result.stderr
    assert re.search(prints, result.stdout.strip()), result.stdout
