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

from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp import api_models, models
from webapp.models import utcnow

from .actor import current_actor
from .agents import AgentRef, get_agent
from .errors import NotFound, StoreError, ValidationError
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
    held = set(key.scopes.split())
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


def authenticate_key(session: Session, token: str | None, address: str,
                     now: datetime | None = None) -> api_models.ApiKey:
    """The live key `token` is, its use noted. Otherwise raises `Throttled` when this
    address failed too often lately, else `BadKey` (recorded as a failure)."""
    now = now or utcnow()
    key = None
    if token and token.isascii() and len(token) <= 200:
        key = session.scalar(rows(api_models.ApiKey).where(
            api_models.ApiKey.token_hash == hash_token(token)))
    if key is None or key.revoked_at is not None:
        address = (address or "unknown")[:models.ADDRESS_LENGTH]
        retry_at = throttled_until(session, THROTTLE_NAME, address, now)
        if retry_at is not None:
            raise Throttled(retry_at, now)
        record_failure(session, THROTTLE_NAME, address, now)
        raise BadKey("no API key, or not a valid one (revoked, or never made)")
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_STEP:
        _note_use(session, key, now)
    return key


def allows(key: api_models.ApiKey, agent: models.Agent) -> bool:
    """Whether `key` may see `agent` at all (a key of another agent may not)."""
    return key.agent_id is None or key.agent_id == agent.id


@change
def _note_use(session: Session, key: api_models.ApiKey, now: datetime) -> None:
    key.last_used_at = now
