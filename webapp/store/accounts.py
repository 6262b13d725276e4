"""Accounts: the one owner of every rule about users, passwords, roles and signing in.

The web app (`/login`, `/account`, `/admin/users`) and the CLI (`skill-editor user ...`)
both call these functions, so a username, a password or a role is judged the same way
whichever door it comes in by.

- **Roles** are ordered: viewer < author < reviewer < admin (`ROLES`); `has_role` says
  whether a role includes another. The last enabled admin cannot be demoted or disabled,
  and the first account must be an admin, so an instance always has someone who can
  manage it.
- **Passwords** are hashed with argon2id (argon2-cffi's `PasswordHasher`, `HASHER`); a
  hash made with other parameters is rehashed on the next successful sign-in.
- **Signing in** (`authenticate`) is throttled (`webapp.store.throttling`): a short wait
  after repeated failures, never a lock. An unknown username and a wrong password fail
  alike, and cost alike (the password is checked against a dummy hash).
- **Sessions** name their account by a token (`session_token`) that holds the account's
  `session_version`; raising it (`end_sessions`: signing out, disabling, enabling, a new
  password) ends every session of the account, server-side.
- Accounts are never deleted, only disabled: the names on revisions and activity stay
  someone's, and "no account exists" (the local single-user mode) can only be true of a
  database nobody has set up yet.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from webapp.pipeline import whole_number
from webapp.schema import models
from webapp.schema.models import utcnow

from .actor import LOCAL, current_actor
from .errors import AlreadyExists, NotFound, StoreError, ValidationError
from .throttling import Throttled, record_failure, throttled_until
from .transactions import change, insert, rows

#: The roles, least first: each includes everything the ones before it may do.
ROLES = ("viewer", "author", "reviewer", "admin")
#: Lowercase letters, digits and `.`, `_`, `-`, starting with a letter or digit: a name
#: that reads the same in a URL, a log line and a shell.
USERNAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9._-]*")
USERNAME_LENGTH = models.USERNAME_LENGTH
#: NIST SP 800-63B asks for at least 8; a passphrase of a few words is easily 12.
PASSWORD_MIN_LENGTH = 12
#: Past this a password is a way to make the server hash megabytes, not a password.
PASSWORD_MAX_LENGTH = 1024
DISPLAY_NAME_LENGTH = models.NAME_LENGTH

#: OWASP's argon2id configuration (19 MiB, 2 passes, 1 lane): argon2-cffi's default
#: (64 MiB, 4 lanes) took 0.5 s a sign-in on a shared two-core machine, and every
#: sign-in attempt, including a guesser's, costs the server that much.
HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)



class SignInFailed(StoreError):
    """A wrong username or password (the same answer for both, and for a disabled account)."""

    def __init__(self) -> None:
        super().__init__("wrong username or password")


@dataclass(frozen=True)
class NewUser:
    """The fields of an account being added, checked by `create_user`."""

    username: str
    role: str
    password: str
    display_name: str = ""


def has_role(role: str, least: str) -> bool:
    """Whether `role` may do what `least` may (an unknown role may do nothing)."""
    return role in ROLES and ROLES.index(role) >= ROLES.index(least)


def require_role(session: Session, least: str, field: str, what: str) -> None:
    """Refuse (`ValidationError` on `field`) a change `what` needs role `least` for when
    the account making it (`current_actor()`) has a lesser role. The web checks roles
    before its routes; this holds every other path (the CLI's `--as`) to the same rule.
    The local mode, with no account, may do everything."""
    actor = current_actor()
    if actor is None:
        return
    user = session.scalar(select(models.User).where(models.User.username == actor))
    if user is None or not has_role(user.role, least):
        raise ValidationError([(field, f"{what} needs the {least} role")])


def normalize_username(typed: str) -> str:
    """A username as typed, the way it is stored and looked up: trimmed, lowercase."""
    return typed.strip().lower()


def username_problem(username: str) -> str | None:
    """What is wrong with `username` (already normalized) as a new account's name, or None."""
    if not username:
        return "is required"
    if len(username) > USERNAME_LENGTH:
        return f"must be at most {USERNAME_LENGTH} characters"
    if username == LOCAL:
        return f"{LOCAL!r} is kept for the changes made without an account"
    if not USERNAME_PATTERN.fullmatch(username):
        return ("may hold only lowercase letters, digits, '.', '_' and '-', and must start "
                "with a letter or a digit")
    return None


def password_problem(password: str) -> str | None:
    """What is wrong with `password` as a new password, or None."""
    if len(password) < PASSWORD_MIN_LENGTH:
        return f"must be at least {PASSWORD_MIN_LENGTH} characters"
    if len(password) > PASSWORD_MAX_LENGTH:
        return f"must be at most {PASSWORD_MAX_LENGTH} characters"
    if "\x00" in password:
        return "must not contain NUL characters (U+0000)"
    return None


def role_problem(role: str) -> str | None:
    """What is wrong with `role`, or None."""
    return None if role in ROLES else f"must be one of {', '.join(ROLES)}"


def has_accounts(session: Session) -> bool:
    """Whether any account exists: if not, the app is the local single-user tool."""
    return session.scalar(select(models.User.id).limit(1)) is not None


def list_users(session: Session) -> list[models.User]:
    """Every account, by username."""
    return list(session.scalars(rows(models.User).order_by(models.User.username)))


def get_user(session: Session, username: str) -> models.User:
    """The account named `username` (as typed); raises `NotFound`."""
    name = normalize_username(username)
    # A name no account can have (NUL, which PostgreSQL text cannot even hold) is looked
    # up nowhere.
    user = None if username_problem(name) else session.scalar(
        rows(models.User).where(models.User.username == name))
    if user is None:
        raise NotFound(f"no account {name!r}")
    return user


@change
def create_user(session: Session, new: NewUser) -> models.User:
    """Add an account; raises `ValidationError` (or `AlreadyExists`) with every problem."""
    username = normalize_username(new.username)
    display_name = new.display_name.strip()
    problems = [(field, message) for field, message in (
        ("username", username_problem(username)),
        ("role", role_problem(new.role)),
        ("password", password_problem(new.password)),
        ("display_name", _display_name_problem(display_name))) if message]
    if not problems and new.role != "admin" and not has_accounts(session):
        problems.append(("role", "the first account must be an admin (someone must be able "
                                 "to manage the others)"))
    if problems:
        raise ValidationError(problems)
    if session.scalar(select(models.User.id).where(models.User.username == username)):
        raise AlreadyExists([("username", f"an account {username!r} exists already")])
    user = models.User(username=username, display_name=display_name, role=new.role,
                       password_hash=HASHER.hash(new.password), disabled=False)
    insert(session, user, "username", f"an account {username!r} exists already")
    return user


@change
def set_role(session: Session, username: str, role: str) -> models.User:
    """Give an account another role; the last enabled admin keeps theirs."""
    problem = role_problem(role)
    if problem:
        raise ValidationError([("role", problem)])
    user = get_user(session, username)
    if role != "admin":
        _keep_an_admin(session, user, "demote")
    user.role = role
    return user


@change
def set_disabled(session: Session, username: str, disabled: bool) -> models.User:
    """Disable an account or enable it again; either way its sessions end (a cookie kept
    from before a disable does not come back to life with the enable)."""
    user = get_user(session, username)
    if disabled:
        _keep_an_admin(session, user, "disable")
    user.disabled = disabled
    _end_sessions(user)
    return user


@change
def end_sessions(session: Session, username: str) -> models.User:
    """End every session of the account (signing out): a cookie kept from before no
    longer signs anyone in."""
    user = get_user(session, username)
    _end_sessions(user)
    return user


@change
def set_password(session: Session, username: str, password: str) -> models.User:
    """Set an account's password (an admin's reset, or `user passwd`); its other sessions end."""
    problem = password_problem(password)
    if problem:
        raise ValidationError([("password", problem)])
    user = get_user(session, username)
    user.password_hash = HASHER.hash(password)
    _end_sessions(user)
    return user


@change
def change_password(session: Session, username: str, current: str, new: str) -> models.User:
    """Change one's own password, knowing the current one; raises `ValidationError`."""
    user = get_user(session, username)
    if not _verify(user.password_hash, current):
        raise ValidationError([("current_password", "is not your current password")])
    problem = password_problem(new)
    if problem:
        raise ValidationError([("new_password", problem)])
    user.password_hash = HASHER.hash(new)
    _end_sessions(user)
    return user


def authenticate(session: Session, typed_username: str, password: str, address: str,
                 now: datetime | None = None) -> models.User:
    """The account these credentials open, signed in now; raises `Throttled` when too many
    attempts failed lately (nothing is checked then), else `SignInFailed` (recorded)."""
    now = now or utcnow()
    username = _storable(normalize_username(typed_username), models.TYPED_NAME_LENGTH)
    address = _storable(address or "unknown", models.ADDRESS_LENGTH)
    retry_at = throttled_until(session, username, address, now)
    if retry_at is not None:
        raise Throttled(retry_at, now)
    user = session.scalar(rows(models.User).where(models.User.username == username))
    # An unknown name is checked against a dummy hash: it takes as long as a wrong password.
    matches = _verify(user.password_hash if user else _dummy_hash(), password)
    if user is None or not matches or user.disabled:
        record_failure(session, username, address, now)
        raise SignInFailed()
    return _signed_in(session, user, password, address, now)


def acting_account(session: Session, username: str) -> str:
    """The username of the enabled account `username` names, for a change made in its
    name outside the web app (the CLI's `--as`); raises `NotFound` or `ValidationError`."""
    user = get_user(session, username)
    if user.disabled:
        raise ValidationError([("as", f"the account {user.username!r} is disabled")])
    return user.username


def session_token(user: models.User) -> str:
    """What a signed-in session keeps to name its account: the id and a digest of the
    account's `session_version` (raised to end its sessions) and of its password hash (so
    the token cannot be made by someone who knows only the cookies' secret key)."""
    secret = f"{user.session_version}:{user.password_hash}"
    return f"{user.id}-{hashlib.sha256(secret.encode('utf-8')).hexdigest()[:16]}"


def user_of_session(session: Session, token: str) -> models.User | None:
    """The enabled account a session's `session_token` names, or None (gone, disabled,
    its sessions ended since, or not a token at all)."""
    user_id = whole_number(token.partition("-")[0], 10)
    if user_id is None:
        return None
    user = session.scalar(rows(models.User).where(models.User.id == user_id))
    if user is None or user.disabled:
        return None
    return user if secrets.compare_digest(session_token(user), token) else None


# -- helpers


def _end_sessions(user: models.User) -> None:
    """The one way an account's sessions end: every token made before names an older
    version (`session_token`)."""
    user.session_version += 1


@change
def _signed_in(session: Session, user: models.User, password: str, address: str,
               now: datetime) -> models.User:
    # The account's failures from this address are forgiven; those from elsewhere (maybe
    # a guesser's) and the address's for other names stay.
    session.execute(delete(models.FailedLogin).where(
        models.FailedLogin.username == user.username, models.FailedLogin.address == address))
    if HASHER.check_needs_rehash(user.password_hash):
        user.password_hash = HASHER.hash(password)
    user.last_login_at = now
    return user


def _keep_an_admin(session: Session, user: models.User, action: str) -> None:
    """Refuse to take the admin role away from the last enabled admin."""
    if user.role != "admin" or user.disabled:
        return
    # FOR UPDATE (PostgreSQL): two admins demoting each other at once cannot both pass.
    admins = session.scalars(select(models.User.id).where(
        models.User.role == "admin", models.User.disabled.is_(False)).with_for_update()).all()
    if len(admins) <= 1:
        raise ValidationError([("role", f"cannot {action} {user.username!r}: it is the last "
                                        "enabled admin")])


def _storable(typed: str, length: int) -> str:
    """What was typed, as the failures table can keep it: NUL (which PostgreSQL text cannot
    hold, and no account name has) made U+FFFD, cut to the column's length."""
    return typed.replace("\x00", "\ufffd")[:length]


def _display_name_problem(display_name: str) -> str | None:
    if len(display_name) > DISPLAY_NAME_LENGTH:
        return f"must be at most {DISPLAY_NAME_LENGTH} characters"
    if "\x00" in display_name:
        return "must not contain NUL characters (U+0000)"
    return None


def _verify(password_hash: str, password: str) -> bool:
    try:
        return HASHER.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


@functools.cache
def _dummy_hash() -> str:
    """A hash no password is known for, made with `HASHER`'s parameters."""
    return HASHER.hash(secrets.token_hex(16))
