"""The pipeline stage by stage, read back from one assembly: what each stage does, what
came in and what went out, for someone watching an agent's context being assembled.

    skills selected by the trigger -> adoption order -> each skill through `STAGES`
    -> the runtime title -> roles split into messages -> parts joined with `---`
    -> the provider request -> the context-log entry

`explain` reads what `assemble` returned (the selected skills' stage traces, the pieces,
the document and its provenance, the messages, the log entry): nothing is assembled a
second time. The steps are one table (`STEPS`); the skills' stages come from the
pipeline's own table (`stages.STAGES`), each read by `skills.READERS`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence

from ..assemble import assemble, pick_scenario, selects
from ..blocks import parse_skill
from ..origins import Origins
from ..result import Context
from ..stages import STAGES
from ..variables import Resolver
from ..workspace import Scenario, Skill, Workspace
from .data import Explanation, Reading, Selection, Step, StepName
from .layout import joined_step, log_step, messages_step, request_step, title_step
from .skills import (
    READERS,
    SkillReading,
    TracedText,
    joined,
    listed,
    plural,
)
from .words import STEP_TERMS, STEP_WORDS, TERMS


def _skills_text(skills: Sequence[Skill], contents: Mapping[str, str]) -> TracedText:
    texts = []
    for skill in skills:
        text = contents.get(skill.d_tag, skill.content).removesuffix("\n")
        count = text.count("\n") + 1
        texts.append(TracedText(text, Origins(((skill.d_tag, 1, count),), count)))
    return joined(texts)


# -- the steps before and after the skills' own stages


def _why_not(skill: Skill, trigger: str, hosts: Mapping[str, list[str]]) -> str:
    """Why `trigger` selects `skill` or not; `hosts`: the selected skills that write each
    `{{name}}`."""
    if selects(skill, trigger):
        return f"selected: enabled, layer 1, trigger `{trigger}`"
    if not skill.enabled:
        return "not selected: disabled"
    if skill.layer != 1:
        embedded = hosts.get(skill.d_tag)
        where = f" (embedded by {listed(embedded)})" if embedded else ""
        return f"not selected: layer {skill.layer}, used only where a skill embeds it{where}"
    triggers = ", ".join(f"`{t}`" for t in skill.triggers)
    return (f"not selected: other trigger ({triggers})" if triggers
            else "not selected: no trigger")


def trigger_step(r: Reading) -> Step:
    trigger = r.context.trigger
    hosts: dict[str, list[str]] = {}
    for host in r.selected:
        for name in parse_skill(host.d_tag, r.contents.get(host.d_tag, host.content)).names:
            hosts.setdefault(name, []).append(host.d_tag)
    rows = [Selection(s.d_tag, s.name, i, selects(s, trigger), _why_not(s, trigger, hosts))
            for i, s in enumerate(r.workspace.skills, 1)]
    for skill in r.trashed:
        would = ", its trigger would select it" if selects(skill, trigger) else ""
        rows.append(Selection(skill.d_tag, skill.name, None, False,
                              f"not selected: in the trash{would}"))
    chosen = [s.d_tag for s in r.selected]
    note = (f"Trigger `{trigger}` selects {len(chosen)} of {plural(len(rows), 'skill')}: "
            f"{listed(chosen)}." if chosen else
            f"Trigger `{trigger}` selects no skill, so the document is the title alone.")
    return Step("trigger", "", "", "", _skills_text([*r.workspace.skills, *r.trashed],
                                                    r.contents),
                _skills_text(r.selected, r.contents), note, selection=tuple(rows))


def order_step(r: Reading) -> Step:
    position = {s.d_tag: i for i, s in enumerate(r.workspace.skills, 1)}
    rows = tuple(Selection(s.d_tag, s.name, position[s.d_tag], True,
                           f"number {position[s.d_tag]} of the skill list")
                 for s in r.selected)
    if len(rows) > 1:
        note = (f"The skills run in the order of the agent's skill list, its adoption list: "
                f"{listed([s.d_tag for s in rows])}. Selecting keeps that order, so "
                f"nothing moves here; it is the order their parts take in each message.")
    else:
        note = f"{'One skill' if rows else 'No skill'} selected: there is nothing to order."
    text = _skills_text(r.selected, r.contents)
    return Step("order", "", "", "", text, text, note, selection=rows)


def skill_step(name: str) -> Callable[[Reading], Step]:
    """The step of stage `name` of `STAGES`: each selected skill's part, read by its reader."""
    index = [stage for stage, _ in STAGES].index(name) + 1
    reader = READERS[name]

    def step(r: Reading) -> Step:
        parts = []
        for skill in r.selected:
            texts = r.texts[skill.d_tag]
            content = r.contents.get(skill.d_tag, skill.content)
            parts.append(reader(SkillReading(
                skill.d_tag, parse_skill(skill.d_tag, content), texts[index - 1],
                texts[index], r.workspace, r.resolver, r.context.diagnostics)))
        changed = [p.d_tag for p in parts if p.changed]
        if not parts:
            note = "No skill is selected, so no skill runs through this stage."
        elif changed:
            note = f"Changed {listed(changed)}; each skill's part says how."
        else:
            note = "Nothing changed in any skill; each skill's part says why."
        return Step(name.split()[0], "", "", "", joined([p.before for p in parts]),
                    joined([p.after for p in parts]), note, skills=tuple(parts))
    return step


#: The steps, in order: (key, what makes the step). The skills' stages are `STAGES`'.
STEPS: tuple[tuple[str, Callable[[Reading], Step]], ...] = (
    ("trigger", trigger_step),
    ("order", order_step),
    *((name.split()[0], skill_step(name)) for name, _ in STAGES),
    ("title", title_step),
    ("messages", messages_step),
    ("joined", joined_step),
    ("request", request_step),
    ("log", log_step),
)


def explain(workspace: Workspace, scenario: str | Scenario | None = None, *,
            trigger: str | None = None, message: str | None = None,
            overrides: Mapping[str, str] | None = None, trashed: Sequence[Skill] = (),
            assembled: Context | None = None, only: Collection[str] | None = None
            ) -> Explanation:
    """The pipeline stage by stage for one assembly, as `Step`s in order.

    Args:
        workspace, scenario, trigger, message, overrides: as `assemble` takes them.
        trashed: the agent's skills in the trash, listed as not selected.
        assembled: what `assemble` returned for exactly these arguments, when the caller
            has it already (else `explain` assembles).
        only: the keys of the steps to make (None: every step); a page of one step makes
            that one, and `Explanation.outline` still names them all.

    Returns:
        An `Explanation`. Never raises on bad input, as `assemble` does not.
    """
    overrides = overrides or {}
    context = assembled or assemble(workspace, scenario, trigger=trigger, message=message,
                                    overrides=overrides)
    chosen = pick_scenario(workspace, scenario, [])
    resolver = Resolver(workspace, chosen, chosen.message if message is None else message)
    contents = {s.d_tag: overrides.get(s.d_tag, s.content) for s in workspace.skills}
    selected = [s for s in workspace.skills if selects(s, context.trigger)]
    reading = Reading(workspace, context, chosen, resolver, contents, trashed, selected)
    steps = []
    for key, make in STEPS:
        if only is not None and key not in only:
            continue
        name, does, rule = STEP_WORDS[key]
        terms = tuple((term, *TERMS[term]) for term in STEP_TERMS.get(key, ()))
        steps.append(dataclasses.replace(make(reading), key=key, name=name, does=does,
                                         rule=rule, terms=terms))
    return Explanation(workspace.agent.name, context.scenario, context.trigger,
                       workspace.agent.message_mode, tuple(steps), context,
                       tuple(StepName(key, STEP_WORDS[key][0]) for key, _ in STEPS))

