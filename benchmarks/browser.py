"""The browser section: what a keystroke costs the author, measured in Debian's chromium.

The app runs in a thread on a free port of 127.0.0.1 over a throw-away SQLite database
(the demo workspace, and a 200-skill workspace from `workspaces.scale_workspace`). The
page is the editor of one skill; each keystroke is typed into the Content field, and the
figure is the time from the key to the end of htmx's swap of `#preview` (the debounce
included), with the size of the preview answer (as sent, and uncompressed); and the load
of the editor and of the comparison page at 200 skills (`PAGES`). Skipped,
with a row that says why, when /usr/bin/chromium or Playwright is missing.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
from pathlib import Path

from werkzeug.serving import make_server

from webapp import store
from webapp.schema.db import session_scope

from .web import Row, _app
from .workspaces import scale_workspace

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Sets `window.__swap`: a promise of the time from now to the end of the next swap of
# #preview (after the browser has painted it).
_NEXT_SWAP = """() => { window.__swap = new Promise(resolve => {
  const start = performance.now();
  const done = (event) => {
    if (event.detail.target && event.detail.target.id === "preview") {
      document.removeEventListener("htmx:afterSettle", done);
      requestAnimationFrame(() => resolve(performance.now() - start));
    }
  };
  document.addEventListener("htmx:afterSettle", done);
}); }"""


def browser_rows(quick: bool = False) -> list[Row]:
    """(figure, measured, target) rows: keystroke to repaint and bytes per keystroke."""
    if not CHROMIUM.exists():
        return [("browser: keystroke to repaint", "skipped", f"{CHROMIUM} is missing")]
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return [("browser: keystroke to repaint", "skipped", "Playwright is not installed")]
    keys = 3 if quick else 8
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as folder:
        app = _app(Path(folder) / "browser.sqlite", seed_demo=True)
        with session_scope(app.config["DATABASE_URL"]) as session:
            store.import_bundle(session, scale_workspace(200))
        server = make_server("127.0.0.1", 0, app, threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{server.server_port}"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
                for label, path, target in (
                        ("demo workspace", "/agents/Simon/skills/chat", "<= 150 ms"),
                        ("200 skills of ~2 KB", "/agents/Bench/skills/skill_100", "<= 250 ms")):
                    rows += _measure(browser, base + path, label, target, keys)
                for label, path in PAGES:
                    rows += _page_load(browser, base + path, label, 2 if quick else 5)
                browser.close()
        finally:
            server.shutdown()
            thread.join(timeout=10)
    return rows


#: The pages whose load is measured, at 200 skills: the editor, and the comparison of
#: every skill (trigger dm) with none (trigger cron), whose diff is the whole document.
PAGES = (("editor page, 200 skills", "/agents/Bench/skills/skill_100"),
         ("compare page, 200 skills, dm -> cron",
          "/agents/Bench/preview/compare?a=bench&b=bench&b_trigger=cron"))

# Navigation start to the end of the load event, and the HTML the page's DOM holds then.
_LOADED = """() => { const nav = performance.getEntriesByType("navigation")[0];
  return [nav.loadEventEnd - nav.startTime, nav.transferSize, nav.decodedBodySize,
          document.documentElement.outerHTML.length]; }"""


def _page_load(browser, url: str, label: str, loads: int) -> list[Row]:
    """Navigation to load (the median of `loads` after a first, warming one) and bytes."""
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    figures = []
    for _ in range(loads + 1):
        page.goto(url, wait_until="load")
        figures.append(page.evaluate(_LOADED))
    page.close()
    figures = figures[1:]
    load = statistics.median(f[0] for f in figures)
    sent, body, dom = (statistics.median(f[i] for f in figures) for i in (1, 2, 3))
    return [(f"browser: {label}, navigation to load", f"{load:.0f} ms", "<= 1000 ms"),
            (f"browser: {label}, HTML", f"{body / 1000:,.0f} KB",
             f"sent as {sent / 1000:,.0f} KB; the DOM holds {dom / 1000:,.0f} KB")]


def _measure(browser, url: str, label: str, target: str, keys: int) -> list[Row]:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    sizes: list[tuple[int, int]] = []

    def on_response(response) -> None:
        if response.request.method == "POST" and response.url.endswith("/preview"):
            sent = int(response.headers.get("content-length") or 0)
            sizes.append((sent, len(response.body())))

    page.on("response", on_response)
    page.goto(url)
    page.get_by_label("Content", exact=True).click()
    page.keyboard.press("Control+End")
    times = []
    for i in range(keys):
        page.evaluate(_NEXT_SWAP)
        page.keyboard.type("x" if i % 2 else "y")
        times.append(page.evaluate("window.__swap"))
    page.close()
    sent = statistics.median(s for s, _ in sizes) if sizes else 0
    whole = statistics.median(w for _, w in sizes) if sizes else 0
    return [(f"browser: keystroke to repaint, {label}", f"{statistics.median(times):.0f} ms",
             f"{target} (debounce included)"),
            (f"browser: preview answer per keystroke, {label}",
             f"{whole / 1000:,.0f} KB", f"sent as {sent / 1000:,.0f} KB (compressed)")]


if __name__ == "__main__":
    # `python -m benchmarks.browser [--quick]`: this section alone.
    import sys

    for figure, measured, target in browser_rows(quick="--quick" in sys.argv[1:]):
        print(f"{figure:<60}  {measured:>10}  {target}")
