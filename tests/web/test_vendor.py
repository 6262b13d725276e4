"""The vendored front-end files are the pinned ones: each is listed in
static/vendor/README.md with its sha256 and licence, and nothing else is there."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "static"
VENDOR = STATIC / "vendor"
TEMPLATES = STATIC.parent / "templates"
ROW = re.compile(r"^\| `(?P<file>[^`]+)` \|.*\| [^|]*`(?P<licence>[^`]+-LICENSE\.txt)`[^|]*\| "
                 r"`(?P<sha256>[0-9a-f]{64})` \|$", re.MULTILINE)


def listed() -> dict[str, tuple[str, str]]:
    text = (VENDOR / "README.md").read_text(encoding="utf-8")
    return {m["file"]: (m["sha256"], m["licence"]) for m in ROW.finditer(text)}


def test_every_vendored_file_is_listed_with_its_hash_and_licence():
    rows = listed()
    assert set(rows) == {"htmx-2.0.4.min.js", "sortablejs-1.15.7.min.js"}
    licences = {licence for _, licence in rows.values()}
    on_disk = {p.name for p in VENDOR.iterdir()}
    assert on_disk == set(rows) | licences | {"README.md"}
    for name, (sha256, _) in rows.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == sha256, name


def test_templates_load_only_listed_vendor_files():
    used = set()
    for template in TEMPLATES.glob("*.html"):
        used |= set(re.findall(r"filename='vendor/([^']+)'", template.read_text(encoding="utf-8")))
    assert used == set(listed())
