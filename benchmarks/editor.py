"""`python -m benchmarks.editor`: the code editor in Debian's chromium. The bundle's bytes
(raw and gzipped), the time to mount the editor, and keystroke-to-repaint: from a key's
`keydown` to the end of the first frame painted after it (a `requestAnimationFrame`
callback, then a task), for typing at the end of the demo's `chat` and of a generated
2,000-line skill. Not part of `python -m benchmarks` (it needs the browser); the figures
are in docs/performance.md.
"""

from __future__ import annotations

import gzip
import logging
import statistics
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from werkzeug.serving import make_server

from webapp import store
from webapp.app import create_app
from webapp.schema.db import get_session

from .__main__ import machine

STATIC = Path(__file__).resolve().parents[1] / "static" / "vendor"
CHROMIUM = "/usr/bin/chromium"
KEYS = 60

#: Installed before a key is pressed: `window.measured` becomes the time from the key's
#: keydown to the end of the frame painted after it.
MEASURE = """() => { window.measured = new Promise((resolve) => {
  document.addEventListener("keydown", () => {
    const start = performance.now();
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
  }, {capture: true, once: true});
}); }"""


def big_skill(lines: int = 2000) -> str:
    """A long skill: headings, role markers, `{{names}}`, lists and fences, its lines
    numbered (so they differ, as an author's do)."""
    block = ["# Section {n}", "Text {n} with {{agent_npub}} and *emphasis* and `code`.",
             "- item {n}: {{message}}", "user:", "Question {n} about {{identity}}?",
             "assistant:", "```", "fenced {n} {{not_a_name}}", "```"]
    out: list[str] = []
    while len(out) < lines:
        out += [line.replace("{n}", str(len(out))) for line in block]
    return "\n".join(["system:", *out[:lines]]) + "\n"


@contextmanager
def served() -> Iterator[str]:
    """The app with the demo workspace and a `big` skill for Simon, on a free port."""
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE_URL": f"sqlite:///{folder}/bench.db", "SEED_DEMO": True,
                          "SECRET_KEY": "bench", "TESTING": False})
        with app.app_context():
            store.create_skill(get_session(), "Simon", "big", content=big_skill(), name="Big",
                               layer=2, triggers=[])
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
        server = make_server("127.0.0.1", 0, app, threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_port}"
        finally:
            server.shutdown()
            thread.join(timeout=10)


def keystrokes(page, url: str, keys: int = KEYS) -> list[float]:
    """Milliseconds from keydown to the next paint, for `keys` letters typed at the end."""
    page.goto(url)
    page.get_by_role("textbox", name="Content", exact=True).click()
    page.keyboard.press("Control+End")
    samples = []
    for i in range(keys + 5):
        page.evaluate(MEASURE)
        page.keyboard.type("abcdefghij"[i % 10])
        elapsed = page.evaluate("window.measured")
        if i >= 5:  # warm-up first
            samples.append(elapsed)
    return samples


def mount_ms(page, url: str) -> float:
    """From the start of navigation to the editor's first paint, in the page's clock."""
    page.goto(url)
    page.wait_for_selector(".cm-editor")
    return page.evaluate("""() => new Promise((resolve) => requestAnimationFrame(() =>
        resolve(performance.now())))""")


def main() -> None:
    from playwright.sync_api import sync_playwright

    bundle = next(STATIC.glob("codemirror-bundle-*.min.js"))
    raw = bundle.read_bytes()
    print(f"machine: {machine()}")
    print(f"{bundle.name}: {len(raw):,} bytes, {len(gzip.compress(raw, 9)):,} gzipped")
    with served() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--headless", "--no-sandbox"])
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        print(f"chromium {browser.version}")
        for d_tag in ("chat", "big"):
            url = f"{base}/agents/Simon/skills/{d_tag}"
            mounted = statistics.median(mount_ms(page, url) for _ in range(5))
            report(f"{d_tag}: editor painted {mounted:.0f} ms after navigation; keystroke to "
                   "repaint", keystrokes(page, url))
            page.once("dialog", lambda dialog: dialog.accept())
        # The same typing in the bare textarea (code-editor.js not loaded), for comparison.
        bare = browser.new_page(viewport={"width": 1440, "height": 900})
        bare.route("**/code-editor.js", lambda route: route.abort())
        for d_tag in ("chat", "big"):
            report(f"{d_tag}, bare textarea: keystroke to repaint",
                   keystrokes(bare, f"{base}/agents/Simon/skills/{d_tag}"))
            bare.once("dialog", lambda dialog: dialog.accept())
        browser.close()


def report(label: str, samples: list[float]) -> None:
    times = sorted(samples)
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"{label} median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, "
          f"max {times[-1]:.1f} ms ({len(times)} keys)")


if __name__ == "__main__":
    sys.exit(main())
