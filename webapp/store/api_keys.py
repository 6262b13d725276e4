"""API keys: what the runtime API (`/api/v1`) accepts instead of a signed-in session.

A token is `se_` and 32 random bytes (URL-safe base64), shown once when the key is made
and kept only as its sha256: a random token needs no slow hash, and a stolen database
gives no token. A key is for one agent or for all, with scopes (`SCOPES`); another
agent's key sees nothing of an agent (`allows` is False: the API answers 404, as for an
agent that does not exist). Revoking keeps the row, dated, and refuses the key at once.

Failed attempts count as failed sign-ins do (`throttling`), under the name
`THROTTLE_NAME` (no username can hold its parentheses), per client address: past the
free failures, a wrong token is refused with `Throttled` without being looked up. A live
token is accepted without asking the throttle: guessing one of 2^256 is hopeless, so the
throttle is there to bound what a scanner costs, and a runtime's every request (a 304
revalidation many times a second) stays one indexed read.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.orm import Session

from webapp.pipeline import excerpt
from webapp.schema import api_models, models
from webapp.schema.models import utcnow

from . import rules
from .actor import current_actor
from .agents import AgentRef, get_agent
from .errors import NotFound, StoreError, ValidationError
from .publish import SnapshotRef
from .throttling import Throttled, record_failure, throttled_until
from .transactions import change, rows

#: What a key may do: `read` snapshots, `assemble` a turn, `log` what the runtime sent,
#: and `draft` assemble the unpublished workspace (a staging deployment).
SCOPES = ("read", "assemble", "log", "draft")
TOKEN_PREFIX = "se_"
TOKEN_BYTES = 32
#: The name failed API attempts are throttled under (not a username: it has parentheses).
THROTTLE_NAME = "(api key)"
#: `last_used_at` is written at most this often per key, so a busy runtime's reads do not
#: each cost a write.
LAST_USED_STEP = timedelta(minutes=1)


_Key, _Agent, _Label, _Snapshot = (api_models.ApiKey, models.Agent, api_models.Label,
                                   models.PublishedSnapshot)
#: `authenticate`'s one read: the key by its hash, the agent by name (not in the trash),
#: and the label's snapshot, outer-joined so a missing agent or label is a NULL, not a
#: second query. Built once: SQLAlchemy caches its compiled form.
_GRANT = (
    select(_Key.id, _Key.name, _Key.agent_id.label("key_agent"), _Key.scopes, _Key.revoked_at,
           _Key.last_used_at, _Agent.id.label("agent_id"), _Snapshot.id.label("snapshot_id"),
           _Snapshot.number, _Snapshot.digest)
    .select_from(_Key)
    .outerjoin(_Agent, and_(_Agent.name == bindparam("agent"), _Agent.deleted_at.is_(None)))
    .outerjoin(_Label, and_(_Label.agent_id == _Agent.id, _Label.name == bindparam("label")))
    .outerjoin(_Snapshot, _Snapshot.id == _Label.snapshot_id)
    .where(_Key.token_hash == bindparam("hash")))


class BadKey(StoreError):
    """No key, or a token that is no key's, or a revoked key's."""


@dataclass(frozen=True, slots=True)
class NewKey:
    """A key just made, and its token: the only time the token is known."""

    key: api_models.ApiKey
    token: str


def hash_token(token: str) -> str:
    """The sha256 hex digest a token is kept as."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def scopes_of(key: api_models.ApiKey) -> tuple[str, ...]:
    """A key's scopes, in the order of `SCOPES`."""
    return _scopes(key.scopes)


def _scopes(text: str) -> tuple[str, ...]:
    held = set(text.split())
    return tuple(scope for scope in SCOPES if scope in held)


@change
def create_key(session: Session, name: str, scopes: list[str] | tuple[str, ...],
               agent: AgentRef | None = None) -> NewKey:
    """Make a key for `agent` (None: every agent) with `scopes`, by `current_actor()`.

    Raises `ValidationError` (no scope, an unknown one, a name too long or holding NUL)
    and `NotFound` (no such agent).
    """
    name = name.strip()
    problems = []
    if not scopes:
        problems.append(("scopes", f"choose at least one of {', '.join(SCOPES)}"))
    unknown = [scope for scope in scopes if scope not in SCOPES]
    if unknown:
        problems.append(("scopes", f"unknown scope {unknown[0]!r}: one of {', '.join(SCOPES)}"))
    if len(name) > api_models.KEY_NAME_LENGTH or "\x00" in name:
        problems.append(("name", f"must be at most {api_models.KEY_NAME_LENGTH} characters, "
                                 "without NUL"))
    if problems:
        raise ValidationError(problems)
    agent_id = get_agent(session, agent).id if agent is not None else None
    token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    key = api_models.ApiKey(name=name, token_hash=hash_token(token), agent_id=agent_id,
                        scopes=" ".join(s for s in SCOPES if s in scopes),
                        created_by=current_actor(), created_at=utcnow())
    session.add(key)
    session.flush()
    return NewKey(key, token)


def list_keys(session: Session) -> list[tuple[api_models.ApiKey, str | None]]:
    """Every key, newest first, with the name of its agent (None: all agents)."""
    found = session.execute(
        select(api_models.ApiKey, models.Agent.name)
        .outerjoin(models.Agent, models.Agent.id == api_models.ApiKey.agent_id)
        .order_by(api_models.ApiKey.id.desc()))
    return [(key, agent) for key, agent in found.tuples()]


@change
def revoke_key(session: Session, key_id: int) -> api_models.ApiKey:
    """Revoke key `key_id` now (again: nothing changes); raises `NotFound`."""
    key = session.scalar(rows(api_models.ApiKey).where(api_models.ApiKey.id == key_id))
    if key is None:
        raise NotFound(f"no API key #{key_id}")
    if key.revoked_at is None:
        key.revoked_at = utcnow()
    return key


@dataclass(frozen=True, slots=True)
class Grant:
    """A live key, read with what one request needs (`authenticate`): its scopes, the
    agent it asked for (None when none was asked) and, when a label was asked, the
    snapshot the label points at (None: no such label)."""

    key_id: int
    scopes: tuple[str, ...]
    agent_id: int | None = None
    labelled: SnapshotRef | None = None
    name: str = ""


def authenticate(session: Session, token: str | None, address: str, agent: str | None = None,
                 *, label: str | None = None, now: datetime | None = None) -> Grant:
    """The live key `token` is, with `agent` (by name) and `label`'s snapshot, in one
    indexed read (a runtime revalidates many times a second); its use is noted.

    Raises `BadKey` for no token at all (never throttled: nothing was guessed);
    `Throttled` when this address failed too often lately, else `BadKey` (recorded as a
    failure) for a token that is no live key's; `NotFound` for an agent the key may not
    see, the same as for an agent that does not exist or is in the trash.
    """
    now = now or utcnow()
    if not token:  # no key at all: nothing was guessed, so nothing to throttle
        raise BadKey("no API key")
    found = None
    if token.isascii() and len(token) <= 200:
        found = session.connection().execute(_GRANT, {
            "hash": hash_token(token), "agent": agent if rules.can_be_stored(agent or "") else None,
            "label": label}).first()
    if found is None or found.revoked_at is not None:
        address = (address or "unknown")[:models.ADDRESS_LENGTH]
        retry_at = throttled_until(session, THROTTLE_NAME, address, now)
        if retry_at is not None:
            raise Throttled(retry_at, now, "wrong API keys from this address")
        record_failure(session, THROTTLE_NAME, address, now)
        raise BadKey("no API key, or not a valid one (revoked, or never made)")
    if agent is not None and (found.agent_id is None
                              or found.key_agent not in (None, found.agent_id)):
        raise NotFound(f"no agent {excerpt(agent)}")
    if found.last_used_at is None or now - found.last_used_at >= LAST_USED_STEP:
        _note_use(session, found.id, now)
    labelled = (SnapshotRef(found.snapshot_id, found.number, found.digest)
                if found.snapshot_id is not None else None)
    return Grant(found.id, _scopes(found.scopes), found.agent_id, labelled, found.name)


@change
def _note_use(session: Session, key_id: int, now: datetime) -> None:
    session.execute(update(api_models.ApiKey).where(api_models.ApiKey.id == key_id)
                    .values(last_used_at=now))
