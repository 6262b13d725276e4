"""`skill-editor test`: an agent's (or a bundle's) context tests, a line each, a summary,
exit 0 when all pass, 1 when any fails, 2 for a usage or bundle error; `--junit FILE`
writes the JUnit XML CI systems read; `--update-snapshots` approves every failing
snapshot test (recorded with `--as`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from webapp import store
from webapp.pipeline import BundleError, TestResult, Workspace, assemble, bundle_text, dump_bundle
from webapp.pipeline import load_bundle as read_bundle
from webapp.schema import db
from webapp.store import context_tests

from .database import act_as, database_url_option


@click.command("test")
@click.option("--agent", "agent_name", metavar="NAME", help="Test this agent's draft.")
@click.option("--bundle", "bundle_path", metavar="FILE", help="Test a bundle file.")
@click.option("--scenario", help="Only this scenario's tests.")
@click.option("--junit", "junit_path", metavar="FILE", help="Write JUnit XML here.")
@click.option("--update-snapshots", is_flag=True,
              help="Approve the current output of every failing snapshot test.")
@database_url_option
def test_cmd(agent_name: str | None, bundle_path: str | None, scenario: str | None,
             junit_path: str | None, update_snapshots: bool, database_url: str | None) -> None:
    """Run the context tests of an agent or a bundle."""
    if bool(agent_name) == bool(bundle_path):
        raise click.UsageError("give either --agent NAME or --bundle FILE")
    workspace = _workspace(agent_name, bundle_path, database_url)
    if scenario is not None and scenario not in workspace.scenarios_by_name:
        raise click.UsageError(f"no scenario {scenario!r}")
    run = context_tests.run(workspace, scenario)
    if update_snapshots:
        workspace = _approve(workspace, run, agent_name, bundle_path, database_url)
        run = context_tests.run(workspace, scenario)
    for result in run.results:
        click.echo(_line(result))
    click.echo(run.summary)
    if junit_path:
        context_tests.junit(run, workspace.agent.name).write(junit_path)
    sys.exit(1 if run.failures else 0)


def _workspace(agent: str | None, bundle: str | None, database_url: str | None) -> Workspace:
    if bundle:
        try:
            return read_bundle(bundle)
        except (BundleError, OSError) as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
    with db.session_scope(db.resolve_url(database_url)) as session:
        try:
            return store.load_workspace(session, agent or "")
        except store.NotFound as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)


def _approve(workspace: Workspace, run: context_tests.TestRun, agent: str | None,
             bundle: str | None, database_url: str | None) -> Workspace:
    """Approve each failing snapshot test: in the database (one change a scenario, by
    `--as`) or in the bundle file."""
    by = click.get_current_context().find_root().params.get("acting")
    for result in run.failures:
        if result.index is None:
            continue
        sc = workspace.scenarios_by_name[result.scenario]
        if "snapshot" not in sc.expect[result.index]:
            continue
        entry = assemble(workspace, sc).log_entry
        expect = context_tests.approve(workspace, sc.name, result.index, entry, by)
        workspace = context_tests.with_expect(workspace, sc.name, expect)
        if agent:
            with db.session_scope(db.resolve_url(database_url)) as session:
                act_as(session)
                store.update_scenario(session, agent, sc.name, expect=expect)
        click.echo(f"approved {sc.name} › {result.name}", err=True)
    if bundle:
        Path(bundle).write_text(bundle_text(dump_bundle(workspace)), encoding="utf-8")
    return workspace


def _line(result: TestResult) -> str:
    head = f"{'PASS' if result.passed else 'FAIL'}  {result.scenario} › {result.name}"
    return head if result.passed else f"{head}: {result.message}"
