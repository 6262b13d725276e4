"""Account commands for the `skill-editor` CLI: `user add`, `list`, `set-role`, `passwd`,
`disable` and `enable`.

Whoever can run these can read the database, so they need no sign-in: they are how the
first admin account is made, and how an admin who lost their password gets back in.
Every rule (names, roles, password length, the last admin) is `store.accounts`'s; the
web's admin pages call the same functions and show the same messages.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from typing import NoReturn, TypeVar

import click
from sqlalchemy.orm import Session

from webapp import store
from webapp.schema import db, models

from .database import database_url_option

Value = TypeVar("Value", str, bool)

password_stdin_option = click.option(
    "--password-stdin", is_flag=True,
    help="Read the password from the first line of stdin instead of prompting.")


@click.group("user")
def user_group() -> None:
    """Manage accounts (with none, the app is a single-user tool for this machine)."""


@user_group.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(store.ROLES), required=True,
              help="viewer, author, reviewer or admin (the first account must be an admin).")
@click.option("--display-name", default="", help="The name shown in the app.")
@password_stdin_option
@database_url_option
def add_cmd(name: str, role: str, display_name: str, password_stdin: bool,
            database_url: str | None) -> None:
    """Add the account NAME."""
    password = _password(password_stdin)
    with db.session_scope(database_url) as session:
        first = not store.accounts.has_accounts(session)
        try:
            user = store.accounts.create_user(session, store.NewUser(
                username=name, role=role, password=password, display_name=display_name))
        except store.ValidationError as exc:  # AlreadyExists included
            _refuse(exc)
        click.echo(f"added {user.username!r} ({user.role})", err=True)
        if first:
            click.echo("The app now asks everyone to sign in; it may be served on other "
                       "addresses than this machine's.", err=True)


@user_group.command("list")
@database_url_option
def list_cmd(database_url: str | None) -> None:
    """List the accounts: name, role, state, display name, created and last sign-in."""
    with db.session_scope(database_url) as session:
        users = store.accounts.list_users(session)
        if not users:
            click.echo("no accounts: the app is a single-user tool for this machine "
                       "(skill-editor user add NAME --role admin)", err=True)
            return
        rows = [("USERNAME", "ROLE", "STATE", "DISPLAY NAME", "CREATED", "LAST SIGN-IN")]
        rows += [(user.username, user.role, "disabled" if user.disabled else "enabled",
                  user.display_name or "-", _when(user.created_at), _when(user.last_login_at))
                 for user in users]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            click.echo("  ".join(cells).rstrip())


@user_group.command("set-role")
@click.argument("name")
@click.argument("role", type=click.Choice(store.ROLES))
@database_url_option
def set_role_cmd(name: str, role: str, database_url: str | None) -> None:
    """Give the account NAME the role ROLE (the last enabled admin stays one)."""
    with db.session_scope(database_url) as session:
        user = _do(store.accounts.set_role, session, name, role)
        click.echo(f"{user.username!r} is now {user.role}", err=True)


@user_group.command("passwd")
@click.argument("name")
@password_stdin_option
@database_url_option
def passwd_cmd(name: str, password_stdin: bool, database_url: str | None) -> None:
    """Set the password of NAME (its sessions end)."""
    password = _password(password_stdin)
    with db.session_scope(database_url) as session:
        user = _do(store.accounts.set_password, session, name, password)
        click.echo(f"password of {user.username!r} changed", err=True)


@user_group.command("disable")
@click.argument("name")
@database_url_option
def disable_cmd(name: str, database_url: str | None) -> None:
    """Disable the account NAME: it can no longer sign in, its sessions end."""
    _set_disabled(name, True, database_url)


@user_group.command("enable")
@click.argument("name")
@database_url_option
def enable_cmd(name: str, database_url: str | None) -> None:
    """Enable the account NAME again."""
    _set_disabled(name, False, database_url)


def _set_disabled(name: str, disabled: bool, database_url: str | None) -> None:
    with db.session_scope(database_url) as session:
        user = _do(store.accounts.set_disabled, session, name, disabled)
        click.echo(f"{user.username!r} is {'disabled' if user.disabled else 'enabled'}", err=True)


def _do(action: Callable[[Session, str, Value], models.User], session: Session, name: str,
        value: Value) -> models.User:
    """`action` on the account `name`; a missing account or a refused change exits 1."""
    try:
        return action(session, name, value)
    except store.NotFound as exc:
        raise click.ClickException(str(exc)) from None
    except store.ValidationError as exc:
        _refuse(exc)


def _password(from_stdin: bool) -> str:
    """The new password: stdin's first line (without its line break), or typed twice."""
    if from_stdin:
        return sys.stdin.readline().removesuffix("\n").removesuffix("\r")
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


def _refuse(exc: store.ValidationError) -> NoReturn:
    """Print each problem as `FIELD: MESSAGE` and exit 1 (nothing was written)."""
    for field, message in exc.problems:
        click.echo(f"error: {field}: {message}", err=True)
    raise SystemExit(1)


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "-"
