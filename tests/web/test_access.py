"""Who may use which route: one table of route × method × role → expected answer.

`EXPECTED` below is written out by hand, apart from the roles the views declare
(`access.requires`), so that a change to who may do what shows here as a failing row and
not as a silent edit of one decorator. Every
route of the URL map must be in it (and nothing else): a new route fails until someone
decides who may use it.

For each role (anonymous, viewer, author, reviewer, admin), every row, and every wrong
answer is listed at once:
- anonymous, on a route that needs a role: a browser is sent to the sign-in page (303),
  htmx gets a 401 naming it, and neither is given a byte of the workspace;
- a role below the one needed: a 403 page naming the role;
- the role needed or a higher one: anything but 401 and 403 (and never a 5xx). The
  request carries an empty form, so a change answers 422 or 400 more often than 200.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import pytest

from tests.support.pages import sign_in
from tests.support.routes import AGENT, route_url, routes, seed
from tests.support.workspaces import RELAY_WATCH
from webapp import store
from webapp.pipeline import load_bundle
from webapp.web import access

ANYONE, VIEWER, AUTHOR, REVIEWER, ADMIN = "anyone", *store.ROLES
#: The runtime API: no session counts, the route asks for an API key (tests/api/).
API_KEY = "api key"
ROLES = ("anonymous", *store.ROLES)
TOKEN = "access-csrf-token"

#: (endpoint, method) -> the least role that may use it.
EXPECTED: dict[tuple[str, str], str] = {
    ("auth.login", "GET"): ANYONE,
    ("api.snapshots", "GET"): API_KEY,
    ("api.snapshot", "GET"): API_KEY,
    ("api.skill_files", "GET"): API_KEY,
    ("api.skill_file", "GET"): API_KEY,
    ("api.skill_zip", "GET"): API_KEY,
    ("api.blob", "GET"): API_KEY,
    ("api.assemble", "POST"): API_KEY,
    ("api.log", "POST"): API_KEY,
    ("api_mcp.mcp", "GET"): API_KEY,
    ("api_mcp.mcp", "POST"): API_KEY,
    ("editor.approve_test", "POST"): AUTHOR,
    ("help.tests", "GET"): VIEWER,
    ("help.context", "GET"): VIEWER,
    ("help.folders", "GET"): VIEWER,
    ("api.openapi", "GET"): ANYONE,
    ("api_keys.index", "GET"): ADMIN,
    ("api_keys.create", "POST"): ADMIN,
    ("api_keys.revoke", "POST"): ADMIN,
    ("webhooks.index", "GET"): ADMIN,
    ("webhooks.add", "POST"): ADMIN,
    ("webhooks.deliveries", "GET"): ADMIN,
    ("webhooks.send_test", "POST"): ADMIN,
    ("webhooks.redeliver", "POST"): ADMIN,
    ("webhooks.set_active", "POST"): ADMIN,
    ("webhooks.remove", "POST"): ADMIN,
    ("nostr.index", "GET"): VIEWER,
    ("nostr.save", "POST"): AUTHOR,
    ("nostr.events", "GET"): REVIEWER,
    ("nostr.publish", "POST"): REVIEWER,
    ("nostr.import_form", "GET"): VIEWER,
    ("nostr.preview", "POST"): AUTHOR,
    ("nostr.apply", "POST"): AUTHOR,
    ("help.nostr", "GET"): VIEWER,
    ("auth.sign_in", "POST"): ANYONE,
    ("auth.logout", "POST"): ANYONE,
    ("auth.account", "GET"): VIEWER,
    ("auth.change_password", "POST"): VIEWER,
    ("auth.users", "GET"): ADMIN,
    ("auth.add_user", "POST"): ADMIN,
    ("auth.update_user", "POST"): ADMIN,
    ("activity.agent", "GET"): VIEWER,
    ("activity.admin", "GET"): ADMIN,
    ("agents.index", "GET"): VIEWER,
    ("agents.new", "GET"): AUTHOR,
    ("agents.create", "POST"): AUTHOR,
    ("agents.settings", "GET"): VIEWER,
    ("agents.update", "POST"): AUTHOR,
    ("agents.confirm_delete", "GET"): ADMIN,
    ("agents.delete", "POST"): ADMIN,
    ("agents.restore", "POST"): ADMIN,
    ("agents.confirm_purge", "GET"): ADMIN,
    ("agents.purge", "POST"): ADMIN,
    ("agent_preview.show", "GET"): VIEWER,
    ("agent_preview.compare", "GET"): VIEWER,
    ("agent_preview.compare_lines", "GET"): VIEWER,
    ("agent_preview.lines", "GET"): VIEWER,
    ("agent_preview.lines", "POST"): VIEWER,
    ("agent_preview.stage_rows", "GET"): VIEWER,
    ("agent_preview.stage_rows", "POST"): VIEWER,
    ("agent_preview.body", "GET"): VIEWER,
    ("agent_preview.body", "POST"): VIEWER,
    ("agent_preview.append_log", "POST"): AUTHOR,
    ("pipeline_steps.index", "GET"): VIEWER,
    ("pipeline_steps.show", "GET"): VIEWER,
    ("editor.agent", "GET"): VIEWER,
    ("editor.edit", "GET"): VIEWER,
    ("editor.names", "GET"): VIEWER,
    ("editor.skill_list", "GET"): VIEWER,
    ("editor.preview_saved", "GET"): VIEWER,
    ("editor.preview", "POST"): VIEWER,
    ("editor.save", "POST"): AUTHOR,
    ("editor.append_log", "POST"): AUTHOR,
    ("editor.move", "POST"): AUTHOR,
    ("editor.order", "POST"): AUTHOR,
    ("editor.toggle", "POST"): AUTHOR,
    ("help.show", "GET"): VIEWER,
    ("help.api", "GET"): VIEWER,
    ("history.index", "GET"): VIEWER,
    ("history.revision", "GET"): VIEWER,
    ("history.restore", "POST"): AUTHOR,
    ("log.index", "GET"): VIEWER,
    ("log.entry", "GET"): VIEWER,
    ("log.download", "GET"): VIEWER,
    ("log.delete_confirm", "GET"): ADMIN,
    ("log.delete", "POST"): ADMIN,
    ("publish.changes", "GET"): VIEWER,
    ("publish.scenario", "GET"): VIEWER,
    ("publish.download", "GET"): VIEWER,
    ("publish.publish", "POST"): REVIEWER,
    ("publish.republish", "POST"): REVIEWER,
    ("publish.move_label", "POST"): REVIEWER,
    ("snapshots.show", "GET"): VIEWER,
    ("snapshots.skill_zip", "GET"): VIEWER,
    ("snapshots.scenario", "GET"): VIEWER,
    ("snapshots.lines", "GET"): VIEWER,
    ("snapshots.compare", "GET"): VIEWER,
    ("snapshots.compare_scenario", "GET"): VIEWER,
    ("snapshots.compare_skill", "GET"): VIEWER,
    ("scenarios.index", "GET"): VIEWER,
    ("scenarios.edit", "GET"): VIEWER,
    ("scenarios.check", "POST"): VIEWER,
    ("scenarios.create", "POST"): AUTHOR,
    ("scenarios.update", "POST"): AUTHOR,
    ("scenarios.confirm_delete", "GET"): AUTHOR,
    ("scenarios.delete", "POST"): AUTHOR,
    ("skills.new", "GET"): AUTHOR,
    ("skills.check", "POST"): VIEWER,
    ("skills.create", "POST"): AUTHOR,
    ("skills.duplicate", "POST"): AUTHOR,
    ("tools.index", "GET"): VIEWER,
    ("tools.edit", "GET"): VIEWER,
    ("tools.preview", "POST"): VIEWER,
    ("tools.create", "POST"): AUTHOR,
    ("tools.update", "POST"): AUTHOR,
    ("tools.confirm_delete", "GET"): AUTHOR,
    ("tools.delete", "POST"): AUTHOR,
    ("catalogue.show", "GET"): VIEWER,
    ("files.index", "GET"): VIEWER,
    ("files.raw", "GET"): VIEWER,
    ("files.save", "POST"): AUTHOR,
    ("files.delete", "POST"): AUTHOR,
    ("frontmatter.show", "GET"): VIEWER,
    ("frontmatter.save", "POST"): AUTHOR,
    ("public_files.blob", "GET"): ANYONE,
    ("transfer.index", "GET"): VIEWER,
    ("transfer.import_address", "GET"): VIEWER,
    ("transfer.export_bundle", "GET"): VIEWER,
    ("transfer.export_skill", "GET"): VIEWER,
    ("transfer.export_skills", "GET"): VIEWER,
    ("transfer.import_bundle", "POST"): AUTHOR,
    ("transfer.import_skill", "POST"): AUTHOR,
    ("transfer.preview_skills", "POST"): AUTHOR,
    ("trash.index", "GET"): VIEWER,
    ("trash.delete_confirm", "GET"): AUTHOR,
    ("trash.delete", "POST"): AUTHOR,
    ("trash.restore", "POST"): AUTHOR,
    ("trash.restore_item", "POST"): AUTHOR,
    ("uses.show", "GET"): VIEWER,
    ("variables.index", "GET"): VIEWER,
    ("variables.show", "GET"): VIEWER,
    ("variables.preview", "POST"): VIEWER,
    ("variables.create", "POST"): AUTHOR,
    ("variables.update", "POST"): AUTHOR,
    ("variables.confirm_delete", "GET"): AUTHOR,
    ("variables.delete", "POST"): AUTHOR,
}


@pytest.fixture
def signed_in(app, team) -> dict[str, Any]:
    """Relay Watch (with a log entry and a snapshot) and one client per role, each signed
    in as that role's account (`anonymous`: not signed in); and the path arguments."""
    values = seed(app)
    clients = {"anonymous": app.test_client()}
    for role in team:
        clients[role] = sign_in(app.test_client(), role, TOKEN)
    return {"values": values, "clients": clients}


def call(client: Any, method: str, url: str, htmx: bool = False) -> Any:
    headers = {"HX-Request": "true"} if htmx else {}
    if method == "GET":
        return client.get(url, headers=headers)
    return client.post(url, data={"csrf_token": TOKEN}, headers=headers)


def rows(app: Any) -> list[tuple[str, str]]:
    return sorted((rule.endpoint, method) for method in ("GET", "POST")
                  for rule in routes(app, method))


def test_the_table_names_every_route_and_nothing_else(app):
    assert set(EXPECTED) == set(rows(app))


def test_the_roles_the_views_declare_are_this_table_s(app):
    # The same facts seen from the app: a row that differs names the endpoint.
    actual = {(endpoint, method): access.needed_role(app, endpoint, method)
              for endpoint, method in EXPECTED}
    assert actual == EXPECTED


def in_safe_order() -> list[tuple[str, str]]:
    """The table's rows, reads first, then changes, the ones that delete last: so a change
    an allowed role makes does not take away what a later row reads."""
    return sorted(EXPECTED, key=lambda row: (
        row[1] == "POST", any(word in row[0] for word in ("delete", "purge")), row))


def judge(app: Any, client: Any, role: str, endpoint: str, method: str, url: str) -> str:
    """What is wrong with `role`'s answer from this row's route ('' when it is right)."""
    least = EXPECTED[(endpoint, method)]
    response = call(client, method, url)
    if endpoint == "auth.logout" and role != "anonymous":
        # Signing out ends every session of the account: sign in again for the rows after.
        sign_in(client, role, TOKEN)
    code, what = response.status_code, f"{method} {url} as {role}"
    if code >= 500:
        return f"{what}: {code}"
    if least == API_KEY:
        # A session is no key, whatever its role.
        return "" if code == 401 else f"{what}: {code}, not a 401 asking for an API key"
    if least == ANYONE:
        # Signing in with an empty form is a 401 of its own: a wrong name or password.
        if code == 403 or response.headers.get("Location", "").startswith("/login?next="):
            return f"{what}: {code}, refused"
    elif role == "anonymous":
        htmx = call(client, method, url, htmx=True)
        if code != 303 or not response.headers["Location"].startswith("/login?next="):
            return f"{what}: {code}, not sent to the sign-in page"
        if htmx.status_code != 401 or not htmx.headers.get("X-Sign-In", "").startswith("/login"):
            return f"{what} (htmx): {htmx.status_code}, not a 401 naming the sign-in page"
    elif not store.has_role(role, least):
        if code != 403 or f"needs the {least} role" not in response.get_data(as_text=True):
            return f"{what}: {code}, not a 403 naming the {least} role"
    elif code in (401, 403):
        return f"{what}: {code}, refused: {response.get_data(as_text=True)[:200]}"
    return ""


@pytest.mark.parametrize("role", ROLES)
def test_every_route_answers_each_role_as_the_table_says(app, signed_in, role):
    client = signed_in["clients"][role]
    wrong = [judge(app, client, role, endpoint, method,
                   route_url(rule_of(app, endpoint, method), signed_in["values"]))
             for endpoint, method in in_safe_order()]
    assert [problem for problem in wrong if problem] == []


def rule_of(app: Any, endpoint: str, method: str) -> Any:
    return next(rule for rule in app.url_map.iter_rules()
                if rule.endpoint == endpoint and method in rule.methods)


def test_an_anonymous_crawl_finds_no_data(app, signed_in):
    """Every GET route, as page and as fragment, and every POST route, anonymously: the
    answers are the sign-in page or a refusal, with nothing of the workspace in them."""
    workspace = load_bundle(RELAY_WATCH)
    secrets = {AGENT, "relay", *(skill.d_tag for skill in workspace.skills),
               *(tool.name for tool in workspace.tools),
               *(variable.name for variable in workspace.variables),
               *(scenario.name for scenario in workspace.scenarios),
               *(line for skill in workspace.skills for line in skill.content.splitlines()
                 if len(line) > 20)}
    client = signed_in["clients"]["anonymous"]
    seen = 0
    for method in ("GET", "POST"):
        for rule in routes(app, method):
            url = route_url(rule, signed_in["values"])
            for htmx in (False, True):
                response = call(client, method, url, htmx=htmx)
                if response.status_code == 303:
                    response = client.get(response.headers["Location"])
                body = response.get_data(as_text=True)
                # The sign-in page may name the address asked for (to come back to it).
                leaked = sorted(secret for secret in secrets if secret.lower() in body.lower()
                                and secret.lower() not in unquote(url).lower())
                assert not leaked, f"{method} {url} (htmx={htmx}): {leaked}"
                seen += 1
    assert seen >= 2 * len(EXPECTED) - 10


def test_replacing_an_agent_by_import_needs_an_admin(app, signed_in):
    bundle = RELAY_WATCH.read_text(encoding="utf-8")
    form = {"csrf_token": TOKEN, "bundle_text": bundle, "replace": "1"}
    author = signed_in["clients"]["author"].post("/transfer/bundle", data=form)
    assert author.status_code == 403
    assert "needs the admin role" in author.get_data(as_text=True)
    admin = signed_in["clients"]["admin"].post("/transfer/bundle", data=form)
    assert admin.status_code == 303, admin.get_data(as_text=True)[:300]
    # Without `replace`, an author imports it as a new agent.
    form = {"csrf_token": TOKEN, "bundle_text": bundle, "agent_name": "Relay Copy"}
    assert signed_in["clients"]["author"].post("/transfer/bundle", data=form).status_code == 303


# -- the local single-user mode: no account at all


#: What needs an account to act on, with none: signing in fails as a wrong password would,
#: and there is no password of one's own to change.
NO_ACCOUNT_TO_USE = {"auth.sign_in": 401, "auth.change_password": 403}


def test_without_accounts_this_machine_may_do_everything(app, local_values, local_client):
    wrong = []
    for endpoint, method in in_safe_order():
        if EXPECTED[(endpoint, method)] == API_KEY:
            continue  # a key is asked for in the local mode too (tests/api/)
        url = route_url(rule_of(app, endpoint, method), local_values)
        with local_client.session_transaction() as session:
            session["csrf_token"] = TOKEN  # signing out (a row of its own) clears it
        code = call(local_client, method, url).status_code
        expected = NO_ACCOUNT_TO_USE.get(endpoint)
        if code >= 500 or (code != expected if expected else code in (401, 403)):
            wrong.append(f"{method} {url}: {code}")
    assert wrong == []


@pytest.mark.parametrize("endpoint", ["agents.index", "editor.edit", "transfer.export_bundle",
                                      "log.download", "editor.preview", "editor.save"])
def test_without_accounts_another_machine_is_refused_and_told_how_to_share(
        app, local_values, endpoint):
    method = "POST" if endpoint in ("editor.preview", "editor.save") else "GET"
    rule = rule_of(app, endpoint, method)
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "203.0.113.5"
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    for htmx in (False, True):
        response = call(client, method, route_url(rule, local_values), htmx=htmx)
        body = response.get_data(as_text=True)
        assert response.status_code == 403
        assert "skill-editor user add NAME --role admin" in body
        assert "Relay Watch" not in body


def test_without_accounts_another_machine_still_gets_static_files_and_the_login_page(app):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "203.0.113.5"
    assert client.get("/static/app.css").status_code == 200
    login = client.get("/login")
    assert login.status_code == 200
    assert "there is nothing to sign in to" in login.get_data(as_text=True)


@pytest.fixture
def local_values(app) -> dict[str, str]:
    """Relay Watch seeded as in `signed_in`, with no account at all."""
    return seed(app)


@pytest.fixture
def local_client(app) -> Any:
    """A client on this machine (127.0.0.1) with a known CSRF token."""
    client = app.test_client()
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    return client


@pytest.mark.parametrize("header", ["X-Forwarded-For", "Forwarded", "X-Real-IP"])
def test_without_accounts_a_request_a_proxy_forwarded_is_another_machine_s(app, header):
    client = app.test_client()
    response = client.get("/", headers={header: "203.0.113.5"})
    assert response.status_code == 403
    assert "skill-editor user add NAME --role admin" in response.get_data(as_text=True)


def test_a_view_cannot_declare_a_role_that_does_not_exist():
    with pytest.raises(ValueError, match="No role 'editor'"):
        access.requires("editor")
