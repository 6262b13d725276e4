"""A skill's files fetched from where its Nostr event says they are (docs/nostr.md).

A skill event names each file beside SKILL.md by its sha256 and size (`imeta` tags,
`webapp.nostr.file_refs`). `fetch_folders` gets each with one bounded HTTP GET: the host
resolved once and every address checked by the outbound address rule, the connection made
to the address checked (`delivery.pinned_connection`), at most the declared size read, one
deadline for all files together, and the bytes kept only when their size and sha256 are
the declared ones. A file that cannot be had so is named as missing; nothing raises.
"""

from __future__ import annotations

import hashlib
import http.client
import threading
import time
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from webapp.agentskills import DEFAULT_LIMITS, FolderLimits, SkillFile, file_set_problems
from webapp.nostr import FileRef

from .delivery import Refused, pinned_connection

#: Seconds all files of one import may take together.
TIMEOUT_SECONDS = 20.0
USER_AGENT = "skill-editor-nostr"


def fetch_folders(refs: Mapping[str, Sequence[FileRef]], *,
                  limits: FolderLimits = DEFAULT_LIMITS, held: Mapping[str, bytes] | None = None,
                  timeout: float = TIMEOUT_SECONDS
                  ) -> tuple[dict[str, tuple[SkillFile, ...]], list[tuple[str, str, str]]]:
    """Each skill's files (`d_tag` -> files) fetched and verified, and each file missing as
    `(d_tag, path, why)`. A folder whose declared paths or sizes break the folder rules
    (`agentskills.file_set_problems`) loses the files named by a problem, unfetched; so do
    the files past the agent's limit on stored bytes, all skills together (what an import
    holds in memory at most). A file whose bytes are `held` (by sha256) is not fetched."""
    held = held or {}
    deadline = time.monotonic() + timeout
    budget = limits.agent_bytes
    folders: dict[str, tuple[SkillFile, ...]] = {}
    missing: list[tuple[str, str, str]] = []
    for d_tag, wanted in refs.items():
        refused = dict(file_set_problems(((ref.path, ref.size) for ref in wanted), limits))
        files = []
        for ref in wanted:
            why = refused.get(ref.path)
            if why is None and ref.size > budget:
                why = "the import's files pass the agent's limit on stored bytes"
            if why is None:
                budget -= ref.size
                why = held.get(ref.sha256) or _fetch_problem(ref, deadline)
            if isinstance(why, bytes):
                files.append(SkillFile(ref.path, why, ref.executable))
            else:
                missing.append((d_tag, ref.path, why))
        if files:
            folders[d_tag] = tuple(files)
    return folders, missing


def _fetch_problem(ref: FileRef, deadline: float) -> bytes | str:
    """The file's bytes, verified, or why it could not be had."""
    left = deadline - time.monotonic()
    if not ref.url:
        return "the event gives no URL for it"
    if left <= 0:
        return "no time left to fetch it"
    try:
        parts = urlsplit(ref.url)
        port = parts.port
    except ValueError:
        return "its URL is not a URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "its URL is not http(s)"
    try:
        connection = pinned_connection(parts.scheme, parts.hostname, port)
    except (Refused, ValueError) as exc:
        return str(exc)
    timer = threading.Timer(left, connection.cut)
    timer.start()
    try:
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request("GET", path, headers={"User-Agent": USER_AGENT})
        answer = connection.getresponse()
        if answer.status != 200:
            return f"its URL answered {answer.status}"
        data = answer.read(ref.size + 1)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return f"it could not be fetched: {type(exc).__name__}"
    finally:
        timer.cancel()
        connection.close()
    if len(data) != ref.size:
        return f"its URL gave {'more' if len(data) > ref.size else 'fewer'} bytes than its size"
    if hashlib.sha256(data).hexdigest() != ref.sha256:
        return "its bytes do not have its sha256"
    return data
