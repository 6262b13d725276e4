"""The store's errors: each carries what a caller needs to show it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webapp.pipeline import Skill


class StoreError(Exception):
    """Base class of the store's errors."""


class NotFound(StoreError):
    """No such agent, skill, revision, tool, variable, scenario or log entry."""


class ValidationError(StoreError):
    """Bad field values; `.problems` lists `(field, message)` pairs.

    The field is a form field name (`d_tag`) for a single item, and a JSON path
    (`$.skills[0].d_tag`) for a bundle import.
    """

    def __init__(self, problems: Sequence[tuple[str, str]]):
        self.problems = list(problems)
        super().__init__("; ".join(f"{name}: {message}" for name, message in self.problems))

    @property
    def errors(self) -> dict[str, str]:
        """The first message for each field, for showing next to form inputs."""
        errors: dict[str, str] = {}
        for name, message in self.problems:
            errors.setdefault(name, message)
        return errors


class AlreadyExists(ValidationError):
    """A name (agent, `d_tag`, tool, variable or scenario) is taken."""


class Conflict(StoreError):
    """A save started from a version that is no longer the current one.

    Nothing was written. `current` holds the saved skill as it is now (`version`,
    `d_tag`, `content`, `name`, ...; `deleted` true when it was moved to the trash
    meanwhile, `gone` when it no longer exists), `saved` the same as a pipeline `Skill`
    (an empty one when the skill is gone), and `submitted` the fields the author sent
    (their text under `content`). `where` says where the skill went.
    """

    def __init__(self, d_tag: str, *, expected_version: int | None, current: dict[str, Any],
                 submitted: dict[str, Any], saved: Skill):
        self.d_tag = d_tag
        self.expected_version = expected_version
        self.current = current
        self.submitted = submitted
        self.saved = saved
        state = {"deleted": "no longer exists", "trash": "was moved to the trash",
                 "renamed": f"was renamed to {current.get('d_tag')!r}"}.get(
            self.where, f"is at version {current.get('version')}")
        super().__init__(f"skill {d_tag!r} {state}; the save started from version "
                         f"{expected_version} and was not applied")

    @classmethod
    def gone(cls, d_tag: str, submitted: Skill) -> Conflict:
        """The conflict of a save of a skill that no longer exists (nor its agent)."""
        return cls(d_tag, expected_version=None, current={"version": None, "content": "",
                                                          "deleted": True, "gone": True},
                   submitted={"content": submitted.content},
                   saved=Skill(d_tag=d_tag, content=""))

    @property
    def where(self) -> str:
        """Where the skill is now: `here` (only its version moved on), `renamed` (to
        `current["d_tag"]`), `trash`, or `deleted` (it no longer exists)."""
        if self.current.get("gone"):
            return "deleted"
        if self.current.get("deleted"):
            return "trash"
        if self.current.get("d_tag", self.d_tag) != self.d_tag:
            return "renamed"
        return "here"


class InUse(StoreError):
    """A skill is referenced as `{{d_tag}}` by other skills; `.referenced_by` lists them."""

    def __init__(self, d_tag: str, referenced_by: Sequence[str], action: str):
        self.d_tag = d_tag
        self.referenced_by = list(referenced_by)
        super().__init__(f"cannot {action} {d_tag!r}: referenced by "
                         + ", ".join(self.referenced_by))


class PublishConflict(Conflict):
    """A publish that started from a latest snapshot that is no longer the latest: another
    reviewer published meanwhile. Nothing was written.

    A `Conflict`, so a route without a page of its own answers 409; it carries the
    agent's name, the number the publish expected and the number that is latest now.
    """

    def __init__(self, agent: str, *, expected_latest: int, latest: int):
        self.agent = agent
        self.expected_latest = expected_latest
        self.latest = latest
        started = f"#{expected_latest}" if expected_latest else "no snapshot"
        StoreError.__init__(self, f"snapshot #{latest} of {agent!r} was published meanwhile; "
                                  f"this publish started from {started} and was not applied")


class TestsFailing(ValidationError):
    """A publish refused because context tests fail (`failures`: scenario, name, message
    of each); an admin may publish anyway with a note (`store.publish`'s `override`)."""

    def __init__(self, failures: list[dict[str, str]]):
        self.failures = failures
        shown = "; ".join(f"{f['scenario']} › {f['name']}: {f['message']}" for f in failures[:5])
        more = f" (and {len(failures) - 5} more)" if len(failures) > 5 else ""
        super().__init__([("tests", f"{len(failures)} context test"
                                    f"{'s' * (len(failures) != 1)} fail: {shown}{more}")])
