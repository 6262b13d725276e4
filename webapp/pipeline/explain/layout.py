"""The steps of the pipeline explainer (`explain`) after the skills' own stages: what the
runtime does with the parts the skills gave (the title, the messages, the `---` rules,
the request, the log entry), read from the document's provenance and the pieces."""

from __future__ import annotations

from ..origins import OriginsBuilder
from ..result import Origin
from ..stages import STAGES
from ..untrusted import dumps_json
from .data import MessageShape, Reading, Step
from .skills import LISTED, TracedText, listed, plural

_TITLE = Origin("title")
_ROLE = Origin("role")


def title_step(r: Reading) -> Step:
    agent = r.workspace.agent
    filled = (f"`{{name}}` is the agent's name, {agent.name}. " if "{name}" in agent.title
              else "")
    note = (f"The title template `{agent.title}` gives “{agent.title_text}”. {filled}It "
            f"opens the system message; every skill's headings were bumped below it.")
    return Step("title", "", "", "", TracedText(agent.title, (_TITLE,)),
                TracedText(f"# {agent.title_text}", (_TITLE,)), note)


def _parts(r: Reading) -> TracedText:
    """The selected skills' parts in order, each under its role's marker line."""
    texts, origins = [], OriginsBuilder()
    for piece in r.context.pieces:
        texts.append(f"{piece.role}:")
        origins.append(_ROLE)
        if piece.origins:
            texts.append(piece.text)
            origins.extend(piece.origins)
    return TracedText("\n".join(texts), origins.build())


#: What a message's lines of each kind came from, when not a skill.
_SOURCES = {"title": "title", "message": "incoming message", "history": "DM history"}


def _shapes(r: Reading) -> tuple[MessageShape, ...]:
    """Each message and where its lines came from, read from the document's runs in one
    pass (each `role:` line opens the next message)."""
    sources: list[dict[str, None]] = []
    for _, _, kind, skill in r.document.spans():
        if kind == "role":
            sources.append({})
        elif kind != "separator" and sources:
            label = _SOURCES.get(kind, skill)
            if label:
                sources[-1][label] = None
    return tuple(MessageShape(number, message["role"], message["content"].count("\n") + 1,
                              tuple(found), message["content"])
                 for number, (found, message) in enumerate(
                     zip(sources, r.context.messages, strict=True), 1))


def _joining(r: Reading) -> list[str]:
    """`chat's system part joins personality's`: each part that goes into a message an
    earlier part of its role began (grouped mode)."""
    first: dict[str, str] = {}
    joining = []
    for piece in r.context.pieces:
        if not piece.text:
            continue
        if piece.role in first:
            joining.append(f"{piece.skill}'s {piece.role} part joins {first[piece.role]}'s")
        else:
            first[piece.role] = piece.skill or "the incoming message"
    return joining


def _lines_in(r: Reading, parts: TracedText) -> str:
    """Where the lines the skills' last stage gave out went on their way in: blank lines
    trimmed around each part, a marker line per part, the incoming message added. (The
    title is laid out at the next step.)"""
    # Counted, not read: trimming takes only blank lines, so the blank lines trimmed
    # around the parts are the blocks' lines less the parts'.
    traces = {trace.d_tag: trace.last_lines for trace in r.context.trace}
    blocks = sum(traces[skill.d_tag][0] for skill in r.selected)
    out = blocks + sum(traces[skill.d_tag][1] for skill in r.selected)
    trimmed = blocks - sum(len(p.origins) for p in r.context.pieces
                           if p.skill is not None and p.origins)
    other = sum(1 + len(p.origins) for p in r.context.pieces if p.skill is None)
    markers = parts.lines - other - (out - trimmed)  # what is left is marker lines
    last = 2 + len(STAGES)  # the trigger, the order, then the skills' stages
    said = [f"step {last}'s {out}"]
    if trimmed:
        said.append(f"less {plural(trimmed, 'blank line')} trimmed around the parts")
    if markers > 0:
        said.append(f"plus {plural(markers, 'marker line')} before parts that had none")
    elif markers < 0:
        said.append(f"less {plural(-markers, 'marker line')} of empty parts, dropped")
    if other:
        said.append(f"plus the incoming message's {plural(other, 'line')}")
    return f"In: {plural(parts.lines, 'line')}: {', '.join(said)}."


def messages_step(r: Reading) -> Step:
    shapes = _shapes(r)
    roles = "; ".join(f"{m.role}: {listed(m.sources)}" for m in shapes[:LISTED])
    if len(shapes) > LISTED:
        roles += f"; and {len(shapes) - LISTED} more"
    if r.workspace.agent.message_mode == "grouped":
        note = (f"Grouped mode: one message per role, system first, then the other roles in "
                f"the order they first appear; same-role parts go into one message. "
                f"{plural(len(shapes), 'message')} ({roles}).")
        joining = _joining(r)
        if joining:
            note += (f" Same-role parts concatenated: {listed(joining)} (each such part's "
                     f"marker line goes).")
    else:
        note = (f"Sequence mode: every part is a message of its own, in order, so the parts "
                f"keep their order and their markers. {plural(len(shapes), 'message')} "
                f"({roles}).")
    note += " Blank lines around each part are trimmed, and an empty part is dropped."
    if any(d.code == "user-fallback" for d in r.context.diagnostics):
        note += " No skill wrote user text, so the incoming message is the user message."
    parts = _parts(r)
    note += " " + _lines_in(r, parts)
    return Step("messages", "", "", "", parts, r.unjoined, note, messages=shapes)


def joined_step(r: Reading) -> Step:
    document = r.document
    texts = document.texts()
    rules = sum(1 for at, count, kind, _ in document.spans() if kind == "separator"
                for line in texts[at:at + count] if line == "---")
    if r.workspace.agent.message_mode == "grouped":
        note = (f"Within each message, parts of different skills are joined by a blank line, "
                f"`---` and a blank line ({plural(rules, 'rule')} here), parts of one skill "
                f"by a blank line; the title opens the system message.")
    else:
        note = ("Sequence mode: each part is a message of its own, so nothing is joined and no "
                "`---` is added; the title heads the first message when it is a system "
                "message, else it is a system message of its own.")
    note += " In the document, each message is under its `role:` line, a blank line between."
    return Step("joined", "", "", "", r.unjoined, document, note)


def request_step(r: Reading) -> Step:
    messages = r.context.messages
    body = dumps_json(messages, indent=2)
    verb = "is" if len(messages) == 1 else "are"
    note = (f"The {plural(len(messages), 'message')} {verb} sent as the provider's messages "
            f"array: the markdown is the content within the messages, not the transport "
            f"format. The provider's request body wraps them with the model's name.")
    provider = r.scenario.provider
    if provider:
        note += f" This scenario names the provider {provider}."
    return Step("request", "", "", "", r.document,
                TracedText(body, (Origin("request"),) * (body.count("\n") + 1)), note)


def log_step(r: Reading) -> Step:
    entry = r.context.log_entry.removesuffix("\n")
    note = ("One comment line (the time, agent, scenario, trigger, problem counts and each "
            "message's role and lines), then the document verbatim: the log reads as the "
            "documents the agent saw, and parses back to exactly these messages.")
    origins = OriginsBuilder()
    origins.append(Origin("log"))
    origins.extend(r.context.origins)
    return Step("log", "", "", "", r.document, TracedText(entry, origins.build()), note)
