"""Untrusted work runs in worker processes under a deadline (`webapp.bounds.deadlines`): a
worker that overruns is killed and replaced, what it did not finish is shown escaped with
the guard's notice, and the process's other requests are served meanwhile.

No assertion here reads a clock: the tests count what the pool did (workers killed, items
sent) and rely on the pool's kill to end the hostile work.
"""

from __future__ import annotations

import html as html_module
import http.cookiejar
import re
import subprocess
import sys
import threading
import urllib.parse
import urllib.request

import pytest

from tests.support.pages import HTMX
from tests.support.server import serve
from tests.support.waiting import wait_until
from tests.support.work import fails, spins, waits
from webapp.bounds import deadlines
from webapp.bounds.lru import LRU
from webapp.render import highlight as highlighting
from webapp.render import highlight_markdown_lines, markdown_to_html
from webapp.render import html as render_html
from webapp.textdiff import lines as diffing

#: Pygments' devicetree lexer on a run of `;` (35 s for 16,000 when it was found): the guard
#: prices a fenced block by its fence lines, so it lets this one through.
HOSTILE_FENCE = "```devicetree\n" + ";" * 16_000 + "\n```\n"


def test_an_overrunning_item_is_killed_and_the_items_before_it_kept(monkeypatch):
    monkeypatch.setitem(deadlines.DEADLINES, "markdown", 0.5)
    killed = deadlines.stats().killed
    outcome = deadlines.run("markdown", spins, ["a", "b", "stall", "c"])
    assert outcome.results == ["A", "B", deadlines.OVERRUN, deadlines.OVERRUN]
    assert outcome.culprit == 2
    assert deadlines.stats().killed == killed + 1
    # The pool replaced the worker: the next call is served.
    assert deadlines.run("markdown", spins, ["d"]).results == ["D"]


def test_a_worker_that_waits_is_judged_by_its_cpu_time_up_to_the_wall_cap(monkeypatch):
    monkeypatch.setitem(deadlines.DEADLINES, "markdown", 0.1)
    killed = deadlines.stats().killed
    # Six times the deadline of waiting, little CPU time: done, not killed.
    assert deadlines.WALL_FACTOR * 0.1 > 0.6
    assert deadlines.run("markdown", waits, [0.6]).results == [0.6]
    assert deadlines.stats().killed == killed
    # Past WALL_FACTOR times the deadline of waiting: killed all the same.
    assert deadlines.WALL_FACTOR * 0.1 < 2.0
    assert deadlines.run("markdown", waits, [2.0]).results == [deadlines.OVERRUN]
    assert deadlines.stats().killed == killed + 1


def test_an_exception_in_the_work_is_raised_in_the_caller_and_the_worker_kept():
    killed = deadlines.stats().killed
    with pytest.raises(ValueError, match="bad item x"):
        deadlines.run("markdown", fails, ["x"])
    assert deadlines.stats().killed == killed
    assert deadlines.run("markdown", spins, ["e"]).results == ["E"]


def test_a_spent_request_budget_starts_no_work(sent_to_workers):
    token = deadlines.request_budget(0.0)
    try:
        outcome = deadlines.run("markdown", spins, ["a", "b"])
    finally:
        deadlines.end_request(token)
    assert outcome.results == [deadlines.OVERRUN, deadlines.OVERRUN]
    assert outcome.culprit is None  # nothing was tried, so nothing is remembered


def test_a_hostile_block_is_shown_escaped_once_and_remembered(monkeypatch, sent_to_workers):
    monkeypatch.setitem(deadlines.DEADLINES, "markdown", 0.5)
    monkeypatch.setattr(render_html, "_rendered", LRU("test", 10**7))
    text = "# Before\n\nCode:\n" + HOSTILE_FENCE + "\nAfter *this*.\n"
    killed = deadlines.stats().killed
    html = markdown_to_html(text)
    assert deadlines.stats().killed == killed + 1
    assert html.startswith("<h1>Before</h1>")
    assert render_html.NOTICE in html
    assert ";" * 16_000 in html  # the block's text, escaped, in full
    assert "<em>this</em>" not in html  # after the culprit: not tried in this call
    sent_to_workers["markdown"].clear()
    again = markdown_to_html(text)
    # The culprit is remembered as plain text; only the block never tried is sent.
    assert sent_to_workers["markdown"] == ["After *this*.\n"]
    assert "<em>this</em>" in again
    assert deadlines.stats().killed == killed + 1


def test_hostile_source_is_shown_escaped_line_by_line(monkeypatch):
    monkeypatch.setitem(deadlines.DEADLINES, "highlight", 0.0)
    monkeypatch.setattr(highlighting, "_highlighted", LRU("test", 10**7))
    text = "# Title\n\n<b>bold</b>\n"
    lines = highlight_markdown_lines(text)
    assert [str(line) for line in lines] == ["# Title", "", "&lt;b&gt;bold&lt;/b&gt;"]


def test_json_that_overran_is_shown_escaped(monkeypatch):
    monkeypatch.setitem(deadlines.DEADLINES, "highlight", 0.0)
    html = highlighting.highlight_json({"<b>": "x"})
    assert "&lt;b&gt;" in html and "<b>" not in html and 'class="nt"' not in html


def test_a_diff_that_overran_is_rough_and_says_so(monkeypatch):
    monkeypatch.setitem(deadlines.DEADLINES, "diff", 0.0)
    old, new = "a\nb\nc\nd\n", "a\nB\nc\nd\ne\n"
    diff = diffing.diff_lines(old, new)
    assert diff.rough and diff.notice == diffing.ROUGH_NOTICE
    assert [line.text for line in diff.hunks[0].lines if line.kind != "context"] == [
        "b", "c", "d", "B", "c", "d", "e"]
    assert (diff.added, diff.removed) == (4, 3)
    monkeypatch.setitem(deadlines.DEADLINES, "diff", 1.0)
    assert diffing.diff_lines(old, new) == diffing.exact_diff(old, new)


@pytest.mark.parametrize("old, new", [
    ("", ""), ("", "x\n"), ("x\n", ""), ("x\n", "x\n"), ("a\nb\n", "a\n"), ("a\n", "b\na\n"),
    ("same\n" * 5, "same\n" * 6), ("p\nq\nr\n", "p\nX\nr\n"),
])
def test_a_rough_diff_changes_what_lies_between_the_common_ends(old, new):
    diff = diffing.rough_diff(old, new)
    lines = [line for hunk in diff.hunks for line in hunk.lines]
    dels = [line for line in lines if line.kind == "del"]
    adds = [line for line in lines if line.kind == "add"]
    a, b = old.splitlines(), new.splitlines()
    assert diff.changed == (a != b) and (diff.removed, diff.added) == (len(dels), len(adds))
    if a != b:
        start = (dels[0].old_no if dels else adds[0].new_no) - 1
        assert a[:start] == b[:start]
        assert [line.text for line in dels] == a[start:start + len(dels)]
        assert [line.text for line in adds] == b[start:start + len(adds)]
        assert a[start + len(dels):] == b[start + len(adds):]


def test_the_rough_notice_is_on_the_page(client, simon, csrf, skill_form, monkeypatch):
    monkeypatch.setitem(deadlines.DEADLINES, "diff", 0.0)
    data = skill_form("a changed chat skill\n")
    data["shown"] = "diff"
    response = client.post("/agents/Simon/skills/chat/preview", data=data, headers=HTMX)
    assert response.status_code == 200
    assert html_module.escape(diffing.ROUGH_NOTICE, quote=False) in response.data.decode()


def _session(base: str) -> tuple[urllib.request.OpenerDirector, str]:
    """A cookie-keeping client of the served app and the CSRF token of its session."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    page = opener.open(f"{base}/agents/Simon/skills/chat").read().decode()
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    return opener, token.group(1)


def test_a_request_past_its_deadline_does_not_hold_another(app, simon, monkeypatch):
    # A long deadline, so the other request is surely served while the hostile one waits.
    monkeypatch.setitem(deadlines.DEADLINES, "markdown", 3.0)
    app.config["UNTRUSTED_WORK_SECONDS"] = 3.0
    render_html._rendered.clear()
    server = serve(app)
    base = next(server)
    try:
        _hostile_and_ordinary_requests(base)
    finally:
        server.close()


def _hostile_and_ordinary_requests(base: str) -> None:
    opener, token = _session(base)
    form = {"csrf_token": token, "version": "1", "d_tag": "chat", "name": "Chat",
            "layer": "1", "triggers": "dm", "enabled": "1", "shown": "document:rendered",
            "content": "Hostile.\n\n" + HOSTILE_FENCE}
    answer: dict[str, bytes] = {}

    def hostile() -> None:
        request = urllib.request.Request(
            f"{base}/agents/Simon/skills/chat/preview",
            data=urllib.parse.urlencode(form).encode(), headers=HTMX)
        answer["body"] = opener.open(request).read()

    killed, busy = deadlines.stats().killed, deadlines.stats().busy
    thread = threading.Thread(target=hostile)
    thread.start()
    wait_until(lambda: deadlines.stats().busy != busy or not thread.is_alive(),
               "the hostile work to reach a worker")
    assert thread.is_alive()
    assert opener.open(f"{base}/login").status == 200
    assert opener.open(f"{base}/agents/Simon").status == 200
    # Both answered while the hostile work was still running, not killed yet.
    assert thread.is_alive() and deadlines.stats().killed == killed
    thread.join()
    assert deadlines.stats().killed == killed + 1
    assert render_html.NOTICE in answer["body"].decode()


def test_the_compared_in_part_notice_is_on_the_page(client, simon, csrf, skill_form):
    """A draft that differs over more than `COMPARED_LINES` lines is compared in part, and
    the preview's diff says so."""
    lines = diffing.COMPARED_LINES + 500
    data = skill_form("".join(f"line {n} of a long draft\n" for n in range(lines)))
    data["shown"] = "diff"
    response = client.post("/agents/Simon/skills/chat/preview", data=data, headers=HTMX)
    assert response.status_code == 200
    notice = diffing.WINDOW_NOTICE.format(lines=diffing.COMPARED_LINES)
    assert html_module.escape(notice, quote=False) in response.data.decode()


#: A process that warms the pool twice, waits for the worker, then gives it work.
WARMED = """
from tests.support.waiting import wait_until
from tests.support.work import spins
from webapp.bounds import deadlines
deadlines.warm()
deadlines.warm()
wait_until(lambda: deadlines.stats().idle == 1, "the warmed worker")
assert deadlines.run("markdown", spins, ["a"]).results == ["A"]
print(deadlines.stats().started, deadlines.stats().idle)
"""


def test_a_process_warms_one_worker_and_its_first_work_finds_it_ready():
    """`warm` (each process's first request calls it) starts one worker, once a process,
    and the first work uses it: no second worker is started."""
    done = subprocess.run([sys.executable, "-c", WARMED], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "1"]


#: A process of the app that answers the runtime API, then a page.
API_THEN_PAGE = """
import sys
from webapp.app import create_app
from webapp.bounds import deadlines
app = create_app({"DATABASE_URL": "sqlite:///" + sys.argv[1], "SEED_DEMO": False,
                  "SECRET_KEY": "warm"})
client = app.test_client()
print(client.get("/api/v1/agents/Nobody/snapshots/production").status_code,
      deadlines.stats().warmed)
print(client.get("/").status_code, deadlines.stats().warmed)
"""


def test_a_page_warms_the_pool_and_the_runtime_api_does_not(tmp_path):
    """A process that serves only the runtime API starts a worker when it needs one: its
    requests warm nothing; a page's does."""
    done = subprocess.run([sys.executable, "-c", API_THEN_PAGE, str(tmp_path / "w.sqlite")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["401", "False", "200", "True"]
