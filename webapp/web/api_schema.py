"""The runtime API's request and answer models (pydantic v2), and the `SPEC` that turns
them into the OpenAPI document: the routes of `api` validate with these very classes, so
the document cannot drift from what is checked (docs/api.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator
from spectree import SecurityScheme, SpecTree
from spectree.models import SecureType, SecuritySchemeData

from webapp.pipeline import ROLES

#: The longest string field of a request (a message, a history entry): the body limit
#: (`MAX_CONTENT_LENGTH`, a megabyte) bounds the whole anyway.
LONGEST_TEXT = 1024 * 1024
#: The most history entries and tool results one turn may post.
MOST_ENTRIES = 1000

SPEC = SpecTree(
    "flask", mode="strict", title="Skill Editor runtime API", version="1",
    description="Fetch an agent's published context and assemble each turn with it.",
    security_schemes=[SecurityScheme(name="bearer", data=SecuritySchemeData(
        type=SecureType.HTTP, scheme="bearer",
        description="An API key's token: skill-editor api-key create"))],
    security={"bearer": []}, annotations=False,
    # Schemas named as the classes are (spectree adds a hash of the module by default).
    naming_strategy=lambda model: model.__name__,
    nested_naming_strategy=lambda _parent, child: child)


class Problem(BaseModel):
    """An error, as RFC 9457 `application/problem+json`."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str


class SnapshotInfo(BaseModel):
    """One published snapshot of an agent."""

    number: int
    digest: str = Field(description="sha256 of the canonical bundle, hex")
    note: str
    published_by: str | None = Field(description="the reviewer; null in the local mode")
    published_at: datetime
    labels: list[str]


class SnapshotList(BaseModel):
    agent: str
    snapshots: list[SnapshotInfo] = Field(description="newest first")


class SkillFileInfo(BaseModel):
    """One file of a skill's folder in a snapshot."""

    path: str = Field(description="relative to the skill's folder, /-separated")
    size: int
    sha256: str = Field(description="of the file's bytes, hex: the ETag of both its URLs")
    executable: bool = Field(description="written as mode 755, else 644")
    url: str = Field(description="the file by path in this snapshot")
    blob_url: str | None = Field(description="the file by sha256 (cacheable for ever); "
                                             "null for SKILL.md, made from the skill")


class SkillFileList(BaseModel):
    """A skill's folder as a snapshot publishes it, SKILL.md first."""

    agent: str
    snapshot: int
    digest: str = Field(description="the snapshot's digest")
    skill: str = Field(description="the skill's d_tag")
    folder: str = Field(description="the folder's name, as a zip of skills names it")
    files: list[SkillFileInfo]


#: Requests are read strictly, as the document says: a boolean is not a number nor a
#: reference, a number is not a text (no lax coercion, so the schema is the whole rule).
STRICT = ConfigDict(extra="forbid", strict=True)

#: The forms of a turn's context an answer may carry (`include`): each is the whole
#: context again, so an answer carries the ones asked for.
Included = Literal["messages", "document", "request_body", "log_entry"]
INCLUDED: tuple[str, ...] = Included.__args__  # type: ignore[attr-defined]


class HistoryItem(BaseModel):
    model_config = STRICT

    role: Literal[ROLES]  # type: ignore[valid-type]  (the pipeline's roles, as an enum)
    content: str = Field(max_length=LONGEST_TEXT)
    created_at: StrictStr | StrictInt | None = None


class AssembleRequest(BaseModel):
    """One turn of the running agent: which snapshot, and what differs from the scenario."""

    model_config = STRICT

    snapshot: StrictStr | StrictInt = Field(
        "production", description="a number, a label, `latest`, or `draft` (the `draft` scope)")
    scenario: str | None = Field(
        None, min_length=1,
        description="a scenario of the snapshot, which supplies every input not posted (its "
                    "message, trigger, history, event, provider and the mock tools' data); "
                    "none: the turn's inputs are the request's alone")
    trigger: str | None = Field(None, max_length=200)
    message: str | None = Field(None, max_length=LONGEST_TEXT)
    tool_results: dict[str, Any] = Field(
        default_factory=dict, max_length=MOST_ENTRIES,
        description="a tool of the snapshot -> its result (JSON); a tool not posted is not "
                    "called, unless a scenario is named (then its mock data is used)")
    variables: dict[str, Any] = Field(
        default_factory=dict, max_length=MOST_ENTRIES,
        description="`{{name}}` -> value, for names the skills write that no skill, binding "
                    "or built-in gives")
    history: list[HistoryItem] | None = Field(None, max_length=MOST_ENTRIES)
    provider: Literal["openai", "anthropic"] | None = None
    include: list[Included] = Field(
        default_factory=lambda: ["messages"], max_length=len(INCLUDED),
        description="which forms of the context the answer carries; each holds the whole "
                    "context, so the default is the messages alone (the context once)")


class DiagnosticItem(BaseModel):
    severity: str
    code: str
    message: str
    skill: str | None = None
    line: int | None = None


class TokenCounts(BaseModel):
    document: int
    exact: bool = Field(description="false when the encoding was unavailable (an estimate)")
    messages: list[int]


class AssembleAnswer(BaseModel):
    """What the editor shows for the same snapshot and inputs, from the same pipeline."""

    snapshot: int | None = Field(description="null for the draft")
    digest: str
    scenario: str | None = Field(description="null when the turn named none")
    trigger: str
    from_scenario: list[str] = Field(
        description="the inputs the named scenario supplied because the turn did not post "
                    "them: `trigger`, `message`, `history`, `event`, `provider`, and "
                    "`tool_results.NAME` for each mock tool's data; empty without a scenario")
    messages: list[dict[str, str]] | None = Field(
        None, description="the messages (`role`, `content`); when `include` asks for them")
    document: str | None = Field(
        None, description="the assembled markdown document; when `include` asks for it")
    request_body: dict[str, Any] | None = Field(
        None, description="the provider's request body (OpenAI's shape when no provider); "
                          "when `include` asks for it")
    log_entry: str | None = Field(
        None, description="the context-log entry (a header line, then the document); when "
                          "`include` asks for it")
    diagnostics: list[DiagnosticItem]
    tokens: TokenCounts


class SentMessage(BaseModel):
    """A message as the runtime sent it to the model."""

    model_config = STRICT

    role: str = Field(max_length=40)
    content: str = Field(max_length=LONGEST_TEXT)


class LogRequest(AssembleRequest):
    """What the running agent sent the model: the context-log entry it wrote, or the
    messages (one of the two); with the snapshot and the turn's inputs (as for assemble)
    the server checks it against what that snapshot assembles from them."""

    model_config = ConfigDict(json_schema_extra={
        "oneOf": [{"required": ["log_entry"]}, {"required": ["messages"]}]})

    snapshot: StrictStr | StrictInt | None = Field(  # type: ignore[assignment]
        None, description="the snapshot the runtime assembled from (a number, a label, "
                          "`latest`, `draft`); none: the report is kept unchecked")
    # Not nullable: sent or left out, so "one of the two" is the schema's `oneOf`.
    log_entry: str = Field(None, max_length=LONGEST_TEXT,  # type: ignore[assignment]
                           description="the context-log entry the runtime wrote")
    messages: list[SentMessage] = Field(  # type: ignore[assignment]
        None, max_length=MOST_ENTRIES, description="the messages sent, when no log entry is")

    @model_validator(mode="after")
    def one_record(self) -> LogRequest:
        if (self.log_entry is None) == (self.messages is None):
            raise ValueError("send either log_entry or messages (one of the two)")
        return self


class LogAnswer(BaseModel):
    """The entry made in the agent's context log, and the check's verdict."""

    id: int
    url: str = Field(description="the entry's page in the editor")
    verdict: Literal["matches", "differs", "unchecked"]
    snapshot: int | None = Field(description="the snapshot checked against (null: none, or "
                                             "the draft)")
    note: str


class WebhookSnapshot(BaseModel):
    """A snapshot as a webhook's event names it."""

    model_config = ConfigDict(extra="forbid")

    number: int
    digest: str
    note: str
    published_by: str | None
    published_at: datetime


class SnapshotPublishedData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str
    snapshot: WebhookSnapshot
    label: str | None = Field(description="the label the publish moved (null: none)")
    previous: WebhookSnapshot | None = Field(description="the newest snapshot before")
    skills_changed: list[str] = Field(description="d_tags of the skills that differ from the "
                                                  "previous snapshot (as Compare says)")


class LabelMovedData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str
    label: str
    snapshot: WebhookSnapshot
    previous: WebhookSnapshot | None = Field(description="where the label pointed before")
    by: str | None = Field(description="who moved it (null: the local mode)")


class WebhookTestData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str
    by: str | None


class SnapshotPublished(BaseModel):
    """`snapshot.published`: a publish (or a republish)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["snapshot.published"]
    timestamp: datetime
    data: SnapshotPublishedData


class LabelMoved(BaseModel):
    """`label.moved`: a label points at another snapshot (each publish, after its
    `snapshot.published`, and each rollback)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["label.moved"]
    timestamp: datetime
    data: LabelMovedData


class WebhookTest(BaseModel):
    """`webhook.test`: Send test event."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["webhook.test"]
    timestamp: datetime
    data: WebhookTestData


#: Each webhook event's body, by its type (the document's `webhooks`).
WEBHOOK_EVENTS: dict[str, type[BaseModel]] = {
    "snapshot.published": SnapshotPublished, "label.moved": LabelMoved,
    "webhook.test": WebhookTest}
