"""A small client for Skill Editor's runtime API: a label's snapshot kept by its ETag, a
turn assembled, what was sent reported, a webhook verified.

One `Client` per agent and token; it is safe to share between threads. Nothing here knows
the server's code: it speaks the API as the OpenAPI document (`/api/v1/openapi.json`)
describes it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote

import httpx
from standardwebhooks.webhooks import Webhook

__all__ = ["CACHE_EVENTS", "ApiError", "Client", "ServerError", "Snapshot"]

#: The webhook events after which a cached snapshot may no longer be what its label gives.
CACHE_EVENTS = frozenset({"snapshot.published", "label.moved"})


class ApiError(Exception):
    """An answer the API refused with: its status and the problem's title and detail."""

    def __init__(self, status: int, title: str, detail: str = "") -> None:
        super().__init__(f"{status} {title}" + (f": {detail}" if detail else ""))
        self.status, self.title, self.detail = status, title, detail


class ServerError(ApiError):
    """A 5xx: the server is there but cannot answer (a cached snapshot is served instead)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A published snapshot as the API served it: its number, its digest (the ETag, the
    sha256 of `text`), the canonical bundle text and the bundle parsed. `stale` is true
    when it is a cached copy served because the server could not be asked."""

    number: int
    digest: str
    text: str
    stale: bool = False

    @property
    def bundle(self) -> dict[str, Any]:
        return json.loads(self.text)

    @property
    def etag(self) -> str:
        return f'"{self.digest}"'


@dataclass(slots=True)
class _Entry:
    snapshot: Snapshot
    checked: float  # time.monotonic() of the answer that last confirmed it
    revalidating: bool = False


class Client:
    """The runtime API of one agent.

    `fresh_for`: seconds a fetched snapshot is served without asking the server; after
    that, `snapshot()` answers the cached copy and revalidates it in the background.
    `timeout`: seconds for each phase of a request. `webhook_secret`: the `whsec_…` secret
    `verify_webhook` checks signatures with. `transport` is handed to httpx (a proxy, a
    mounted test transport of the caller's).
    """

    def __init__(self, base_url: str, agent: str, token: str, *, fresh_for: float = 30.0,
                 timeout: float = 10.0, webhook_secret: str | None = None,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.agent = agent
        self.fresh_for = fresh_for
        self._prefix = f"/api/v1/agents/{quote(agent, safe='')}"
        self._http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout,
                                  transport=transport,
                                  headers={"Authorization": f"Bearer {token}"})
        self._hook = Webhook(webhook_secret) if webhook_secret else None
        self._cache: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._revalidations: list[threading.Thread] = []

    def close(self) -> None:
        """Wait for the background revalidations under way (each ends within the
        client's timeout), then close the connections."""
        with self._lock:
            running, self._revalidations = self._revalidations, []
        for thread in running:
            thread.join()
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- snapshots -------------------------------------------------------------------

    def snapshots(self) -> list[dict[str, Any]]:
        """Every snapshot of the agent, newest first: number, digest, note, who, when, labels."""
        response = self._http.get(f"{self._prefix}/snapshots")
        _raise_for(response)
        return list(response.json()["snapshots"])

    def snapshot(self, label: str = "production") -> Snapshot:
        """The snapshot `label` gives (a label, a number or `latest`).

        Fresh from the cache within `fresh_for` seconds of its last confirmation; later,
        the cached copy at once while a background request revalidates it; with nothing
        cached, fetched now. Raises `ApiError` (4xx) or `httpx.HTTPError` only when
        nothing is cached.
        """
        with self._lock:
            entry = self._cache.get(label)
            if entry is not None:
                if time.monotonic() - entry.checked < self.fresh_for:
                    return entry.snapshot
                if not entry.revalidating:
                    entry.revalidating = True
                    thread = threading.Thread(target=self._revalidate, args=(label,),
                                              daemon=True, name=f"revalidate {label}")
                    self._revalidations = [t for t in self._revalidations if t.is_alive()]
                    self._revalidations.append(thread)
                    thread.start()
                return entry.snapshot
        return self.refresh(label)

    def refresh(self, label: str = "production") -> Snapshot:
        """Ask the server now (with `If-None-Match` when a copy is cached) and answer what
        the label gives: on a 304, the cached `Snapshot` itself; a copy of it marked stale
        when the server cannot be asked."""
        with self._lock:
            entry = self._cache.get(label)
        try:
            snapshot = self._fetch(label, entry.snapshot if entry else None)
        except (httpx.TransportError, ServerError):
            if entry is None:
                raise
            return replace(entry.snapshot, stale=True)
        finally:
            if entry is not None:
                entry.revalidating = False
        with self._lock:
            self._cache[label] = _Entry(snapshot, time.monotonic())
        return snapshot

    def forget(self) -> None:
        """Drop every cached snapshot: the next `snapshot()` fetches."""
        with self._lock:
            self._cache.clear()

    def _revalidate(self, label: str) -> None:
        try:
            self.refresh(label)
        except (httpx.HTTPError, ApiError):
            pass  # the cached copy stays; the next call tries again

    def _fetch(self, label: str, cached: Snapshot | None) -> Snapshot:
        headers = {"If-None-Match": cached.etag} if cached is not None else {}
        response = self._http.get(f"{self._prefix}/snapshots/{quote(label, safe='')}",
                                  headers=headers)
        if response.status_code == 304 and cached is not None:
            return cached
        _raise_for(response)
        return Snapshot(int(response.headers["X-Snapshot-Number"]),
                        response.headers["ETag"].removeprefix("W/").strip('"'), response.text)

    # -- turns -----------------------------------------------------------------------

    def assemble(self, **turn: Any) -> dict[str, Any]:
        """`POST .../assemble`: one turn's context (`snapshot`, `scenario`, `trigger`,
        `message`, `tool_results`, `variables`, `history`, `provider`, all optional; and
        `include`, the forms of the context to answer: `["messages"]` unless told)."""
        return self._post("assemble", turn)

    def report(self, **sent: Any) -> dict[str, Any]:
        """`POST .../log`: what the runtime sent the model (`log_entry` or `messages`),
        with the turn's `snapshot` and inputs to have it checked. Answers the verdict."""
        return self._post("log", sent)

    def _post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        response = self._http.post(f"{self._prefix}/{path}", json=dict(body))
        _raise_for(response)
        return response.json()

    # -- webhooks --------------------------------------------------------------------

    def verify_webhook(self, body: bytes | str, headers: Mapping[str, str]) -> dict[str, Any]:
        """Check a webhook message's signature and answer its payload; a publish or a label
        move of this agent drops the cached snapshots at once. Raises
        `standardwebhooks.webhooks.WebhookVerificationError` on a bad signature, and
        `ValueError` when the client was given no secret."""
        if self._hook is None:
            raise ValueError("no webhook_secret was given to the client")
        event = self._hook.verify(body, dict(headers))
        data = event.get("data") or {}
        if event.get("type") in CACHE_EVENTS and data.get("agent") == self.agent:
            self.forget()
        return event


def _raise_for(response: httpx.Response) -> None:
    if response.status_code >= 500:
        raise ServerError(response.status_code, response.reason_phrase)
    if response.status_code >= 400:
        try:
            problem = response.json()
        except ValueError:
            problem = {}
        raise ApiError(response.status_code, str(problem.get("title", response.reason_phrase)),
                       str(problem.get("detail", "")))
