"""The vendored front-end files are the pinned ones: each is listed in
static/vendor/README.md with its sha256 and licence, and nothing else is there. The
CodeMirror bundle was built from the lock file's versions and loads only where text is
edited."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "static"
VENDOR = STATIC / "vendor"
SOURCE = STATIC / "editor-src"
TEMPLATES = STATIC.parent / "templates"
ROW = re.compile(r"^\| `(?P<file>[^`]+)` \|.*\| [^|]*`(?P<licence>[^`]+-LICENSES?\.txt)`[^|]*\| "
                 r"`(?P<sha256>[0-9a-f]{64})` \|$", re.MULTILINE)
VERSION = json.loads((SOURCE / "package.json").read_text(encoding="utf-8"))["version"]
BUNDLE = VENDOR / f"codemirror-bundle-{VERSION}.min.js"
LICENCES = VENDOR / f"codemirror-bundle-{VERSION}-LICENSES.txt"
HEADER = re.compile(r"/\*! codemirror-bundle-(?P<version>[^:]+): .* "
                    r"with esbuild@(?P<esbuild>\S+)\. "
                    r"Packages: (?P<packages>\S+@\S+(?: \S+@\S+)*)\. "
                    r"Licences: (?P<licences>\S+) \*/")


def listed() -> dict[str, tuple[str, str]]:
    text = (VENDOR / "README.md").read_text(encoding="utf-8")
    return {m["file"]: (m["sha256"], m["licence"]) for m in ROW.finditer(text)}


def locked() -> dict[str, str]:
    """package-lock.json's version of each package, by name."""
    lock = json.loads((SOURCE / "package-lock.json").read_text(encoding="utf-8"))
    return {path.removeprefix("node_modules/"): entry["version"]
            for path, entry in lock["packages"].items() if path}


def header() -> re.Match[str]:
    first = BUNDLE.read_text(encoding="utf-8").split("\n", 1)[0]
    match = HEADER.fullmatch(first)
    assert match, first[:300]
    return match


def test_every_vendored_file_is_listed_with_its_hash_and_licence():
    rows = listed()
    assert set(rows) == {"htmx-2.0.4.min.js", "sortablejs-1.15.7.min.js", BUNDLE.name}
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


def test_the_bundle_names_the_lock_file_s_versions():
    match = header()
    assert match["version"] == VERSION and match["licences"] == LICENCES.name
    versions = locked()
    assert match["esbuild"] == versions["esbuild"]
    packages = dict(entry.rsplit("@", 1) for entry in match["packages"].split(" "))
    assert packages == {name: versions[name] for name in packages}
    # What is bundled is CodeMirror and what it needs, nothing the lock file does not hold.
    assert {"@codemirror/view", "@codemirror/state", "@codemirror/autocomplete",
            "@codemirror/lint", "@codemirror/search"} <= set(packages)


def test_package_json_pins_exactly_what_the_lock_file_holds():
    pinned = json.loads((SOURCE / "package.json").read_text(encoding="utf-8"))["devDependencies"]
    versions = locked()
    for name, version in pinned.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), (name, version)  # no ranges
        assert versions[name] == version, name


def test_the_licences_file_has_every_bundled_package_s_licence():
    packages = header()["packages"].split(" ")
    text = LICENCES.read_text(encoding="utf-8")
    named = re.findall(r"^(\S+@\d\S*) \((\w[\w.-]*)\)$", text, re.MULTILINE)
    assert [entry for entry, _ in named] == packages
    assert {licence for _, licence in named} == {"MIT"}
    assert text.count("Permission is hereby granted") == len(packages)


def test_the_bundle_is_small_and_loads_only_where_text_is_edited():
    assert BUNDLE.stat().st_size < 400_000
    loading = {t.name for t in TEMPLATES.glob("*.html")
               if "_code_editor_scripts.html" in t.read_text(encoding="utf-8")}
    assert loading == {"editor.html", "items.html"}
    assert "layout.html" not in loading
