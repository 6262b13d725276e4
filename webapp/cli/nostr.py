"""Nostr commands for the `skill-editor` CLI: `nostr key|export|publish|import`.

Signing happens here, with a secret key the command is given (`--nsec-file FILE` or
`NOSTR_NSEC`, an nsec or hex) and never stores; the server never holds one. Events are
written by `nostr_sync` and checked, on the way in, by `webapp.nostr.read_agent`; the
store plans and applies an import (docs/nostr.md).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from webapp import store
from webapp.nostr import NostrKeyError, address, new_keys, npub, secret_keys, sign
from webapp.outbound import nostr_sync, relays
from webapp.schema import db
from webapp.store.nostr import NostrSettings, read_settings

from .database import act_as, database_url_option
from .snapshots import snapshot_options, snapshot_ref

agent_option = click.option("--agent", "agent_name", metavar="NAME", required=True,
                            help="The agent.")
relay_option = click.option("--relay", "relay_urls", multiple=True, metavar="URL",
                            help="A relay (wss://; repeat). Default: the agent's relays.")
NSEC_ENV = "NOSTR_NSEC"
#: Said (on stderr) with a generated secret key.
NSEC_WARNING = (
    "Its secret key (nsec) follows, shown this once: Skill Editor keeps no copy. Store it now "
    "in a password manager or a file only you can read (give it back with --nsec-file or "
    f"${NSEC_ENV}). Anyone who has it can sign as the agent; without it, nothing can be "
    "published as the agent again.")
nsec_option = click.option("--nsec-file", type=click.Path(dir_okay=False, exists=True),
                           help=f"A file holding the secret key (nsec or hex); "
                                f"else ${NSEC_ENV}.")


@click.group("nostr")
def nostr_group() -> None:
    """Skills as signed Nostr events: set the key, export, publish, import."""


@nostr_group.command("key")
@agent_option
@click.option("--npub", "key", metavar="NPUB", help="The agent's public key (npub or hex).")
@click.option("--generate", is_flag=True,
              help="Make a new key pair: the agent gets its npub, and its nsec is printed "
                   "once on stdout (never kept).")
@relay_option
@database_url_option
def key_cmd(agent_name: str, key: str | None, generate: bool, relay_urls: tuple[str, ...],
            database_url: str | None) -> None:
    """Show the agent's Nostr key and relays, or set them (--npub or --generate, --relay)."""
    if generate and key is not None:
        raise click.UsageError("give --npub or --generate, not both")
    nsec = None
    with db.session_scope(database_url) as session:
        act_as(session)
        current = _call(store.nostr.nostr_settings, session, agent_name)
        if generate:
            if current.pubkey:
                raise click.ClickException(
                    f"the agent already has a key ({npub(current.pubkey)}); to replace it, "
                    f"clear it first with --npub ''")
            key, nsec = new_keys()
        if key is not None or relay_urls:
            kinds = {name: getattr(current.kinds, name)
                     for name in ("skill", "embedded", "adoption", "settings")}
            wanted = _call(read_settings, key if key is not None else current.pubkey,
                           list(relay_urls or current.relays), kinds)
            _call(store.nostr.set_nostr, session, agent_name, wanted)
            current = wanted
    if nsec is None:
        click.echo(_describe(current))
        return
    # stdout holds the secret alone, so `> agent.nsec` makes a file for --nsec-file.
    click.echo(f"The agent's key is now {npub(current.pubkey)}.", err=True)
    click.echo(NSEC_WARNING, err=True)
    click.echo(nsec)


def _describe(settings: NostrSettings) -> str:
    key = npub(settings.pubkey) if settings.pubkey else "(no key)"
    return "\n".join([key, *settings.relays])


@nostr_group.command("export")
@agent_option
@snapshot_options()
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write here instead of standard output.")
@nsec_option
@database_url_option
def export_cmd(agent_name: str, published: bool, label: str | None, snapshot: int | None,
               output: Path | None, nsec_file: str | None, database_url: str | None) -> None:
    """Write the agent's events, signed, one JSON per line: of the draft, or of a published
    snapshot (--published: the production label's)."""
    ref = snapshot_ref(published, label, snapshot)
    keys = _keys(nsec_file)
    with db.session_scope(database_url) as session:
        prepared = _call(nostr_sync.events_to_sign, session, agent_name, ref)
    lines = "".join(json.dumps(_sign(event, keys), ensure_ascii=False) + "\n"
                    for event in prepared.events)
    if output is None:
        click.echo(lines, nl=False)
    else:
        output.write_text(lines, encoding="utf-8")
    click.echo(f"{len(prepared.events)} events of {prepared.source}", err=True)


@nostr_group.command("publish")
@agent_option
@snapshot_options(published_flag=False)
@relay_option
@click.option("--timeout", type=click.FloatRange(0.1, 120), default=relays.TIMEOUT_SECONDS,
              show_default=True, help="Seconds a relay may take.")
@nsec_option
@database_url_option
def publish_cmd(agent_name: str, label: str | None, snapshot: int | None,
                relay_urls: tuple[str, ...], timeout: float, nsec_file: str | None,
                database_url: str | None) -> None:
    """Sign a published snapshot's events (the production label's, unless --label or
    --snapshot chooses another) and send them to each relay; print what each relay said
    of each event. Exits 1 unless every relay accepted every event."""
    ref = snapshot_ref(True, label, snapshot)
    keys = _keys(nsec_file)
    with db.session_scope(database_url) as session:
        act_as(session)
        _call(store.nostr.may_publish, session)
        prepared = _call(nostr_sync.events_to_sign, session, agent_name, ref)
        urls = list(relay_urls or prepared.settings.relays)
        if not urls:
            raise click.ClickException(f"{agent_name} has no relays: give --relay URL")
        urls = _call(store.nostr.check_relays, urls)
        signed = [_sign(event, keys) for event in prepared.events]
        outcomes = nostr_sync.send(urls, signed, prepared.settings.pubkey,
                                   prepared.settings.kinds, timeout=timeout)
        accepted = sum(1 for outcome in outcomes if outcome.status in nostr_sync.HELD)
        _call(store.nostr.record_publish, session, agent_name, prepared.source, len(urls),
              accepted, len(outcomes))
    kinds = {event["id"]: event["kind"] for event in signed}
    for outcome in outcomes:
        click.echo(f"{outcome.relay}  kind {kinds[outcome.event_id]}  {outcome.event_id[:12]}  "
                   f"{outcome.status}{': ' + outcome.message if outcome.message else ''}")
    click.echo(f"{accepted} of {len(outcomes)} on the relays, accepted or held already "
               f"({len(signed)} events, {len(urls)} relays)", err=True)
    if accepted != len(outcomes):
        sys.exit(1)


@nostr_group.command("import")
@click.option("--npub", "where", metavar="NPUB|NADDR", help="The agent's key or an naddr.")
@click.option("--file", "path", type=click.File("r", encoding="utf-8"),
              help="A file of events, one JSON per line (as export writes).")
@relay_option
@click.option("--agent-name", metavar="NAME", help="Import under this name.")
@click.option("--trash-dropped", is_flag=True,
              help="Move skills the list no longer adopts to the trash (else they stay).")
@click.option("--dry-run", is_flag=True, help="Print what would change; change nothing.")
@click.option("--timeout", type=click.FloatRange(0.1, 120), default=relays.TIMEOUT_SECONDS,
              show_default=True, help="Seconds a relay may take.")
@database_url_option
def import_cmd(where: str | None, path, relay_urls: tuple[str, ...], agent_name: str | None,
               trash_dropped: bool, dry_run: bool, timeout: float,
               database_url: str | None) -> None:
    """Read an agent's skills from relays (or a file), verify every event, print what the
    import changes, and apply it as one change. Exits 1 if anything blocks it."""
    if (where is None) == (path is None):
        raise click.UsageError("give --npub NPUB|NADDR or --file FILE")
    with db.session_scope(database_url) as session:
        act_as(session)
        reading = _read(session, where, path, relay_urls, agent_name, timeout)
        if reading.blocked:
            raise click.ClickException("nothing imported")
        workspace = reading.workspace
        assert workspace is not None  # not blocked
        plan = _call(store.nostr.plan_import, session, workspace, reading.authors)
        _print_plan(plan)
        if dry_run:
            click.echo("dry run: nothing changed", err=True)
            return
        dropped = [c.d_tag for c in plan.skills if c.status == store.nostr.DROPPED]
        _call(store.nostr.apply_import, session, workspace, reading.authors,
              pubkey=reading.pubkey,
              relays=list(relay_urls), trash=dropped if trash_dropped else ())
        click.echo(f"imported {plan.name}", err=True)


def _read(session, where: str | None, path, relay_urls: tuple[str, ...],
          agent_name: str | None, timeout: float) -> nostr_sync.Reading:
    kinds = _kinds(session, agent_name)
    if path is not None:
        pubkey = _call(address, where).pubkey if where else None
        try:
            reading = nostr_sync.read_file(path, pubkey, kinds, agent_name=agent_name,
                                           session=session)
        except ValueError as exc:
            raise click.ClickException(f"{path.name}: {exc}") from None
    else:
        found = _call(address, where)
        urls = list(relay_urls or found.relays)
        if not urls:
            raise click.UsageError("give --relay URL (the address names no relay)")
        urls = _call(store.nostr.check_relays, urls)
        fetched = nostr_sync.fetch_agent(found, urls, kinds, agent_name=agent_name,
                                         session=session,
                                         timeout=timeout)
        for answer in fetched.answers:
            if answer.status != relays.ANSWERED:
                click.echo(f"{answer.relay} ({answer.asked}): {answer.status}: {answer.message}",
                           err=True)
        reading = fetched.reading
    for problem in reading.problems:
        prefix = "refused" if problem.blocking else "skipped"
        click.echo(f"{prefix}: {problem}", err=True)
    return reading


def _print_plan(plan: store.nostr.ImportPlan) -> None:
    click.echo(f"{'update' if plan.exists else 'new agent'} {plan.name}")
    for key, old, new in plan.settings:
        click.echo(f"  setting {key}: {json.dumps(old)} -> {json.dumps(new)}")
    for change in plan.skills:
        by = f" (by {npub(change.author)})" if change.author else ""
        click.echo(f"  {change.status:<18} {change.d_tag}{by}")


def _kinds(session, agent_name: str | None):
    return nostr_sync.import_kinds(session, agent_name)


def _keys(nsec_file: str | None):
    text = os.environ.get(NSEC_ENV, "")
    if nsec_file:
        text = Path(nsec_file).read_text(encoding="utf-8")
    if not text.strip():
        raise click.UsageError(f"give the secret key: --nsec-file FILE or {NSEC_ENV}")
    return _call(secret_keys, text)


def _sign(event, keys):
    return _call(sign, event, keys)


def _call(function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except (store.ValidationError, store.NotFound, store.AlreadyExists, store.Conflict) as exc:
        raise click.ClickException(str(exc)) from None
    except NostrKeyError as exc:
        raise click.ClickException(f"key: {exc}") from None
