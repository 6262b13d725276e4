"""Database commands for the `skill-editor` CLI: `db upgrade`, `import`, `export` and
`publish`.

`webapp.cli` adds them to its group (`main.add_command(db_group)` etc.). The database
is `--database-url`, else `$DATABASE_URL`, else the default SQLite file in the user's
data folder (`db.default_url`), the same whatever the current folder; a command that
creates a database says so. Every command upgrades the schema first, so a new
database needs no setup.

`import` is checked by the store's rules, so it refuses what the web import refuses,
with the same JSON paths and messages.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click
from sqlalchemy.orm import Session

from webapp import store
from webapp.pipeline import BundleError, Problem, Workspace, bundle_text, load_bundle, parse_json
from webapp.schema import db
from webapp.views.wording import counted

from .snapshots import snapshot_options, snapshot_ref

database_url_option = click.option(
    "--database-url", envvar="DATABASE_URL", metavar="URL",
    help="SQLAlchemy database URL [env DATABASE_URL; default: skill-editor.sqlite in "
         "$XDG_DATA_HOME/skill-editor, else ~/.local/share/skill-editor]")


@click.group("db")
def db_group() -> None:
    """Manage the database."""


@db_group.command("upgrade")
@database_url_option
@click.option("--revision", default="head", show_default=True, help="Migration to upgrade to.")
def upgrade_cmd(database_url: str | None, revision: str) -> None:
    """Create or upgrade the schema (the app does this by itself on start)."""
    url = db.resolve_url(database_url)
    db.upgrade(url, revision)
    click.echo(f"database at {db.current_revision(url)}: {_display(url)}", err=True)


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--replace", is_flag=True,
              help="Overwrite an agent of the same name (its skills keep their history).")
@click.option("--agent-name", metavar="NAME", help="Import under this name instead.")
@database_url_option
def import_cmd(file: str, replace: bool, agent_name: str | None, database_url: str | None) -> None:
    """Import a skill-workspace/1 bundle FILE ('-' for stdin) as an agent."""
    try:
        workspace = _load(file)
    except BundleError as exc:
        _fail(file, [(problem.path, problem.message) for problem in exc.problems])
    with db.session_scope(database_url) as session:
        act_as(session)
        try:
            agent = store.import_bundle(session, workspace, replace=replace, agent_name=agent_name)
        except store.ValidationError as exc:  # the store's rules, as the web import shows them
            _fail(file, exc.problems)
        except store.StoreError as exc:
            raise click.ClickException(str(exc)) from None
        counts = ", ".join(counted(len(items), noun) for items, noun in (
            (workspace.skills, "skill"), (workspace.tools, "tool"),
            (workspace.variables, "variable"), (workspace.scenarios, "scenario")))
        click.echo(f"imported {agent.name!r}: {counts}", err=True)


@click.command("export")
@click.option("--agent", "agent_name", metavar="NAME",
              help="The agent to export (needed when there are several).")
@snapshot_options()
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Write the bundle here instead of stdout.")
@database_url_option
def export_cmd(agent_name: str | None, published: bool, label: str | None,
               snapshot: int | None, output: str, database_url: str | None) -> None:
    """Export an agent as a skill-workspace/1 bundle (JSON): the draft, or a snapshot as it
    was published."""
    ref = snapshot_ref(published, label, snapshot)
    with db.session_scope(database_url) as session:
        if agent_name is None:
            names = [agent.name for agent in store.list_agents(session)]
            if len(names) != 1:
                listing = ", ".join(names) if names else "none"
                raise click.UsageError(f"name the agent with --agent (agents: {listing})")
            agent_name = names[0]
        try:
            if ref is not None:
                # The snapshot's own text: the bytes its digest was taken of.
                text = store.labelled_snapshot(session, agent_name, ref).bundle
            else:
                text = bundle_text(store.export_bundle(session, agent_name))
        except store.NotFound as exc:
            raise click.ClickException(str(exc)) from None
    if output == "-":
        click.echo(text, nl=False)
    else:
        Path(output).write_text(text, encoding="utf-8")
        click.echo(f"exported {agent_name!r} to {output}", err=True)


@click.command("publish")
@click.option("--agent", "agent_name", metavar="NAME", required=True, help="The agent to publish.")
@click.option("--note", default="", help="Why: what changes for the agent.")
@click.option("--label", default=store.labels.PRODUCTION, show_default=True,
              help="The label moved to the new snapshot.")
@click.option("--override", metavar="WHY", default=None,
              help="Publish although context tests fail (an admin's, with --as): why.")
@database_url_option
def publish_cmd(agent_name: str, note: str, label: str, override: str | None,
                database_url: str | None) -> None:
    """Publish the agent's workspace as it is as its next snapshot, once its context tests
    pass (`skill-editor test`).

    Exits 1 when a context test fails (naming each), nothing changed since the latest
    snapshot, or another publish won.
    """
    with db.session_scope(database_url) as session:
        act_as(session)
        try:
            latest = store.latest_snapshot(session, agent_name)
            snapshot = store.publish(session, agent_name, note,
                                     expected_latest=latest.number if latest else 0,
                                     label=label, override=override)
        except (store.ValidationError, store.PublishConflict) as exc:
            click.echo(f"error: {exc}", err=True)
            raise SystemExit(1) from None
        except store.NotFound as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"published {agent_name!r} as snapshot #{snapshot.number} "
                   f"(sha256 {snapshot.digest})", err=True)


@click.command("label")
@click.option("--agent", "agent_name", metavar="NAME", required=True, help="The agent.")
@click.argument("label")
@click.argument("number", type=click.IntRange(min=1, max=store.MAX_ID))
@database_url_option
def label_cmd(agent_name: str, label: str, number: int, database_url: str | None) -> None:
    """Point LABEL at snapshot NUMBER (to an older one: the rollback, no new number)."""
    with db.session_scope(database_url) as session:
        act_as(session)
        try:
            store.move_label(session, agent_name, label, number)
        except (store.ValidationError, store.NotFound) as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"{label} of {agent_name!r} now points at snapshot #{number}", err=True)


def act_as(session: Session) -> None:
    """Make the account the command's `--as` names (if any) the author of its changes;
    exits 1 when no enabled account has that name. Without `--as` where accounts exist,
    the command says it acts as the machine's owner (whoever can run it can read the
    database), with no role checked."""
    root = click.get_current_context().find_root()
    name = root.params.get("acting")
    if not name:
        if store.accounts.has_accounts(session):
            click.echo("note: no --as NAME: acting as this machine's owner, every role allowed "
                       "and no author recorded", err=True)
        return
    try:
        # Until the command ends: the next command in this process acts as its own `--as`.
        root.with_resource(store.acting_as(store.accounts.acting_account(session, name)))
    except store.NotFound as exc:
        raise click.ClickException(f"--as: {exc}") from None
    except store.ValidationError as exc:
        raise click.ClickException(f"--as: {exc.problems[0][1]}") from None


def _load(file: str) -> Workspace:
    """The bundle in `file`, or on stdin for `-`; raises `BundleError`."""
    if file != "-":
        return load_bundle(file)
    data = parse_json(sys.stdin.read())
    if not isinstance(data, dict):
        raise BundleError([Problem("$", "must be an object")])
    return load_bundle(data)


def _fail(file: str, problems: list[tuple[str, str]]) -> NoReturn:
    """Print each problem as `FILE: PATH: MESSAGE` to stderr and exit 1 (nothing written)."""
    for path, message in problems:
        click.echo(f"{file}: {path}: {message}", err=True)
    raise SystemExit(1)


def _display(url: str) -> str:
    return db.normalize_url(url).render_as_string(hide_password=True)
