"""The local single-user mode (no account) answers only its own machine: a `Host` naming
it (DNS rebinding: a page elsewhere whose name points at 127.0.0.1 sends its own name),
no forwarding header whatever `PROXY_FIX` says, and a session bound to the host it was
made at. Runs on SQLite and, in the suite's second pass, on PostgreSQL."""

from __future__ import annotations

import re

import pytest

from tests.support.pages import HTMX, TOKEN, is_page
from webapp import store
from webapp.schema import db
from webapp.web import access

OWN_HOSTS = ["localhost", "localhost:5000", "127.0.0.1", "127.0.0.1:5000", "[::1]",
             "[::1]:8080", "127.0.0.2:5000"]
OTHER_HOSTS = ["rebind.attacker.test", "rebind.attacker.test:5000", "127.0.0.1.nip.io:5000",
               "localhost.attacker.test", "0.0.0.0:5000", "192.168.1.5", "[::2]:5000",
               "[::1", "::1", "localhost:http", "127.1:5000", "localhost:5000:5000"]
AGENT = "Relay Watch"


@pytest.fixture
def agent(app, relay_watch) -> str:
    return relay_watch


class ClientAt:
    """A client on this machine (127.0.0.1) whose every request names `host` in its `Host`
    header and carries `cookie` (by default, a session holding the CSRF token `TOKEN`).
    The cookie is sent by hand: the test client's cookie jar knows no IPv6 host."""

    def __init__(self, app, host: str, cookie: str | None = None):
        self.client, self.host = app.test_client(use_cookies=False), host
        self.cookie = cookie or app.session_interface.get_signing_serializer(app).dumps(
            {"csrf_token": TOKEN})

    def get(self, url: str, headers: dict[str, str] | None = None):
        return self.client.get(url, headers=self.headers(headers))

    def post(self, url: str, data: dict[str, str], headers: dict[str, str] | None = None):
        return self.client.post(url, data=data, headers=self.headers(headers))

    def headers(self, extra: dict[str, str] | None) -> dict[str, str]:
        return {"Host": self.host, "Cookie": f"session={self.cookie}", **(extra or {})}


@pytest.mark.parametrize(("host", "local"), [*((host, True) for host in OWN_HOSTS),
                                             ("LocalHost:5000", True), ("[::1]:5000", True),
                                             *((host, False) for host in OTHER_HOSTS),
                                             ("", False), ("localhost" + "1" * 10_000, False)])
def test_which_hosts_name_this_machine(host, local):
    assert access.local_host(host) is local


def test_a_host_naming_this_machine_is_answered(app, agent):
    for host in OWN_HOSTS:
        client = ClientAt(app, host)
        page = client.get("/")
        assert page.status_code == 200 and is_page(page) and AGENT in page.get_data(as_text=True)
        assert client.get("/", headers=HTMX).status_code == 200
        # Let in: the settings form itself answers (an empty one is not valid).
        sent = client.post(f"/agents/{AGENT}/settings", data={"csrf_token": TOKEN})
        assert sent.status_code == 422, host
    trashed = ClientAt(app, "127.0.0.1:5000").post(f"/agents/{AGENT}/delete",
                                                    data={"csrf_token": TOKEN})
    assert trashed.status_code == 303


@pytest.mark.parametrize("host", OTHER_HOSTS)
def test_another_host_name_gets_a_421_and_nothing_else(app, agent, host):
    client = ClientAt(app, host)
    reads = ["/", f"/agents/{AGENT}/bundle", f"/agents/{AGENT}/skills/identity", "/login",
             "/static/app.css"]
    for url in reads:
        for headers in ({}, HTMX):
            response = client.get(url, headers=headers)
            body = response.get_data(as_text=True)
            assert response.status_code == 421, (url, response.status_code)
            assert "DNS rebinding" in body and "127.0.0.1" in body
            assert AGENT not in body and "Set-Cookie" not in response.headers
    trashed = client.post(f"/agents/{AGENT}/delete", data={"csrf_token": TOKEN})
    assert trashed.status_code == 421 and "Set-Cookie" not in trashed.headers
    with app.app_context():
        store.get_agent(db.get_session(), AGENT)  # not in the trash


@pytest.mark.parametrize("header", access.FORWARDING_HEADERS)
@pytest.mark.parametrize("proxy_fix", [0, 1], ids=["no-proxy-fix", "proxy-fix"])
def test_every_forwarding_header_refuses_whatever_proxy_fix_says(app, agent, header, proxy_fix):
    if proxy_fix:
        app.config["PROXY_FIX"] = 1
        access.init_app(app)  # ProxyFix wraps the app as configured
    client = ClientAt(app, "127.0.0.1:5000")
    # A proxy's own address for the client, as a forger would send it.
    value = "for=127.0.0.1" if header == "Forwarded" else "127.0.0.1"
    for url in ("/", f"/agents/{AGENT}/bundle"):
        response = client.get(url, headers={header: value})
        body = response.get_data(as_text=True)
        # 421 when ProxyFix made the forged header the request's host.
        assert response.status_code in (403, 421), (header, url)
        assert "skill-editor user add NAME --role admin" in body or "DNS rebinding" in body
        assert AGENT not in body
    trashed = client.post(f"/agents/{AGENT}/delete", data={"csrf_token": TOKEN},
                          headers={header: value})
    assert trashed.status_code in (403, 421)
    with app.app_context():
        store.get_agent(db.get_session(), AGENT)  # not in the trash


def test_a_session_and_its_token_serve_only_the_host_they_were_made_at(app, agent):
    page = ClientAt(app, "localhost:5000", cookie="none").get("/")
    cookie = re.search(r"session=([^;]+)", page.headers["Set-Cookie"])[1]
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page.get_data(as_text=True))[1]
    form = {"csrf_token": token}
    elsewhere = ClientAt(app, "127.0.0.1:5000", cookie)
    # Read there, the session is an empty one: no token to match.
    assert elsewhere.post(f"/agents/{AGENT}/settings", data=form).status_code == 400
    made_at = ClientAt(app, "localhost:5000", cookie)
    assert made_at.post(f"/agents/{AGENT}/settings", data=form).status_code == 422


def test_the_session_cookie_is_host_only(app, agent):
    app.config["SESSION_COOKIE_DOMAIN"] = "example.test"
    cookie = app.test_client().get("/login").headers["Set-Cookie"]
    assert cookie.startswith("session=") and "domain=" not in cookie.lower()
