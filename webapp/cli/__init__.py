"""The `skill-editor` command: the pipeline, the database and the web app from a shell."""

from __future__ import annotations

import json
import logging
import sys

import click

from webapp.cli.snapshots import snapshot_options, snapshot_ref
from webapp.pipeline import (
    SEVERITIES,
    BundleError,
    Context,
    Workspace,
    assemble,
    count_severities,
    dumps_json,
    json_to_markdown,
    load_bundle,
    loads_json,
)
from webapp.tokens.window import budget_of, budget_problem
from webapp.views.wording import counted

FORMATS = ("markdown", "messages", "json", "log")


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def _load(bundle: str | None, agent: str | None, database_url: str | None,
          ref: str | None = None) -> tuple[Workspace, str]:
    """The workspace from a bundle file or from the database (the draft, or the snapshot
    `ref` gives: `cli.snapshots.snapshot_ref`), and what it is: `draft`, `published N` (a
    context-log entry's source) or `bundle`; exits 1 with every problem."""
    if bool(bundle) == bool(agent):
        _fail("give either --bundle FILE or --agent NAME")
    if ref is not None and not agent:
        _fail("--published, --label and --snapshot need --agent NAME")
    if bundle:
        try:
            return load_bundle(bundle), "bundle"
        except BundleError as exc:
            _fail(str(exc))
    from webapp import store  # the database is only needed for --agent
    from webapp.schema import db

    with db.session_scope(database_url) as session:
        try:
            if ref is not None:
                # One read for the workspace and its number, so a log entry names the
                # snapshot it was assembled from even if a label moves meanwhile.
                row = store.labelled_snapshot(session, agent, ref)
                return store.snapshot_workspace(row), store.published_source(row.number)
            return store.load_workspace(session, agent), store.DRAFT
        except store.NotFound as exc:
            _fail(str(exc))
    raise AssertionError("unreachable")


def _log(agent: str, database_url: str | None, context: Context, source: str) -> None:
    """Append `context` to the agent's context log, saying what it was assembled from."""
    from webapp import store
    from webapp.cli.database import act_as
    from webapp.schema import db

    with db.session_scope(database_url) as session:
        act_as(session)
        try:
            entry = store.log_context(session, agent, context, source=source)
        except (store.ValidationError, store.NotFound) as exc:
            _fail(str(exc))
        click.echo(f"logged as context-log entry #{entry.id} ({source})", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="skill-editor")
@click.option("--as", "acting", metavar="NAME", envvar="SKILL_EDITOR_AS",
              help="Record this command's changes (import, publish, a logged assemble) as the "
                   "account NAME's [env SKILL_EDITOR_AS; default: local].")
def main(acting: str | None) -> None:
    """Skill Editor: edit agent skills and preview the context they assemble into."""
    _show_database_notices()


class _Notices(logging.Handler):
    """The database's notices on stderr: which database a command creates (`webapp.schema.db`)."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(f"skill-editor: {record.getMessage()}", err=True)


def _show_database_notices() -> None:
    notices = logging.getLogger("webapp.schema.db")  # by name: pipeline commands load no database
    notices.setLevel(logging.INFO)
    if not any(isinstance(handler, _Notices) for handler in notices.handlers):
        notices.addHandler(_Notices())


@main.command("json2md")
@click.argument("file", default="-", type=click.File("r", encoding="utf-8"))
@click.option("--max-items", default=8, show_default=True, type=click.IntRange(min=0),
              help="Show at most this many array items (0: all).")
def json2md(file, max_items: int) -> None:
    """Print FILE (or standard input) converted from JSON to markdown; exits 1 when it is
    not JSON (saying where)."""
    text = file.read()
    try:
        loads_json(text)  # the conversion itself passes text that is not JSON through
    except json.JSONDecodeError as exc:
        _fail(f"{file.name} is not JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}")
    click.echo(json_to_markdown(text, max_items=max_items))


@main.command("assemble")
@click.option("--bundle", type=click.Path(dir_okay=False), help="A skill-workspace/1 bundle file.")
@click.option("--agent", help="An agent in the database (instead of --bundle).")
@snapshot_options()
@click.option("--scenario", help="Scenario name (default: the first).")
@click.option("--trigger", help="Use this trigger instead of the scenario's.")
@click.option("--message", help="Use this incoming message instead of the scenario's.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="markdown", show_default=True)
@click.option("--log", "append_log", is_flag=True,
              help="With --agent: append the context to the agent's context log.")
@click.option("--database-url", envvar="DATABASE_URL", help="Database for --agent.")
def assemble_cmd(bundle, agent, published, label, snapshot, scenario, trigger, message, fmt,
                 append_log, database_url) -> None:
    """Assemble a scenario's context; diagnostics go to stderr.

    Exits 0 when there is no error-severity diagnostic, 1 otherwise.
    """
    if append_log and not agent:
        _fail("--log needs --agent NAME")
    workspace, source = _load(bundle, agent, database_url,
                              snapshot_ref(published, label, snapshot))
    context = assemble(workspace, scenario, trigger=trigger, message=message)
    if fmt == "markdown":
        click.echo(context.document, nl=False)
    elif fmt == "messages":
        click.echo(dumps_json(context.messages, indent=2))
    elif fmt == "json":
        click.echo(dumps_json(context.to_dict(), indent=2))
    else:
        click.echo(context.log_entry, nl=False)
    for diagnostic in context.diagnostics:
        click.echo(str(diagnostic), err=True)
    if append_log:
        _log(agent, database_url, context, source)
    sys.exit(1 if context.has_errors else 0)


@main.command("check")
@click.option("--bundle", type=click.Path(dir_okay=False), help="A skill-workspace/1 bundle file.")
@click.option("--agent", help="An agent in the database (instead of --bundle).")
@click.option("--database-url", envvar="DATABASE_URL", help="Database for --agent.")
def check(bundle, agent, database_url) -> None:
    """List the diagnostics of every scenario, and of every trigger no scenario covers."""
    workspace, _ = _load(bundle, agent, database_url)
    runs: list[tuple[str | None, str]] = [(s.name, s.trigger) for s in workspace.scenarios]
    covered = {trigger for _, trigger in runs}
    runs += [(None, t) for t in workspace.triggers if t not in covered]
    # With no scenario and no trigger, the agent is still assembled once: its problems
    # (a broken reference, a budget) are there whatever triggers it.
    runs = runs or [(None, "")]
    totals = dict.fromkeys(SEVERITIES, 0)
    for scenario, trigger in runs:
        context = assemble(workspace, scenario, trigger=trigger)
        label = f"scenario {scenario!r}" if scenario else "(first scenario's inputs)"
        # The context window is a budget too (webapp.tokens.window): over it is an error.
        verdict = budget_problem(budget_of(context.document, workspace.agent))
        problems = [*context.diagnostics, *([verdict] if verdict else [])]
        counts = count_severities(problems)
        click.echo(f"{label}, trigger {trigger!r}: {_counts(counts)}")
        for diagnostic in problems:
            click.echo(f"  {diagnostic}")
        totals = {key: totals[key] + counts[key] for key in totals}
    click.echo(f"checked {counted(len(runs), 'run')}: {_counts(totals)}")
    sys.exit(1 if totals["error"] else 0)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(counted(counts[key], key) for key in SEVERITIES)


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
def serve(host: str, port: int) -> None:
    """Upgrade the database, seed the demo workspace if empty, and serve the editor, with
    a webhook worker beside it.

    With no account in the database only this machine's addresses are served: create the
    first one with `skill-editor user add NAME --role admin` before serving a team.
    """
    from webapp.app import RefusedAddress
    from webapp.app import serve as run_server

    try:
        run_server(host=host, port=port)
    except RefusedAddress as exc:
        _fail(str(exc))


def _register_store_commands() -> None:
    from webapp.cli.api_keys import api_key_group
    from webapp.cli.database import db_group, export_cmd, import_cmd, label_cmd, publish_cmd
    from webapp.cli.mcp import mcp_cmd
    from webapp.cli.nostr import nostr_group
    from webapp.cli.skills import skills_group
    from webapp.cli.testing import test_cmd
    from webapp.cli.users import user_group
    from webapp.cli.webhooks import webhook_group, worker_cmd

    main.add_command(db_group, "db")
    main.add_command(user_group, "user")
    main.add_command(api_key_group, "api-key")
    main.add_command(import_cmd, "import")
    main.add_command(export_cmd, "export")
    main.add_command(publish_cmd, "publish")
    main.add_command(label_cmd, "label")
    main.add_command(webhook_group, "webhook")
    main.add_command(worker_cmd, "worker")
    main.add_command(test_cmd, "test")
    main.add_command(nostr_group, "nostr")
    main.add_command(skills_group, "skills")
    main.add_command(mcp_cmd, "mcp")


_register_store_commands()

if __name__ == "__main__":  # pragma: no cover
    main()
