"""The options that choose a snapshot on the command line, the same for every command that
reads one (`assemble`, `export`, `nostr export`, `nostr publish`): `--published` is what
the `production` label gives, what the runtime API serves; `--label NAME` another
label's; `--snapshot N` a number. The store answers which snapshot a label gives
(`store.resolve`); this module only reads the options (and imports no database, so the
pipeline's commands stay light).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

Command = TypeVar("Command", bound=Callable[..., object])


def snapshot_options(*, published_flag: bool = True) -> Callable[[Command], Command]:
    """`--label NAME` and `--snapshot N`, and `--published` unless the command reads a
    snapshot in any case (`nostr publish`)."""
    def add(command: Command) -> Command:
        command = click.option(
            "--snapshot", type=click.IntRange(min=1), metavar="N",
            help="Published snapshot N (implies --published).")(command)
        command = click.option(
            "--label", "label", metavar="NAME",
            help="The snapshot label NAME gives (implies --published).")(command)
        if published_flag:
            command = click.option(
                "--published", is_flag=True,
                help="The snapshot the 'production' label gives (what the runtime API "
                     "serves), not the draft.")(command)
        return command
    return add


def snapshot_ref(published: bool, label: str | None, snapshot: int | None) -> str | None:
    """The reference the options give (`store.resolve` reads it), or None for the draft.
    Raises `click.UsageError` for both `--label` and `--snapshot`."""
    if label is not None and snapshot is not None:
        raise click.UsageError("give --label NAME or --snapshot N, not both")
    if snapshot is not None:
        return str(snapshot)
    if label is not None:
        return label
    if not published:
        return None
    from webapp.store.labels import PRODUCTION  # here: a pipeline command needs no store

    return PRODUCTION
