"""What each step of the pipeline explainer (`explain`) is called and does, in one
sentence (the design notes' words where they fit), and the anchor of its rule in
docs/CONTEXT.md (the headings there, as the help page anchors them); and the words a
newcomer meets on the way, each explained in plain words at the step that first shows
it. A test holds every step of `explain.STEPS` to an entry here and every anchor to a
heading."""

from __future__ import annotations

#: Each step's key: its name, one sentence on what it does, and the anchor of its rule in
#: docs/CONTEXT.md. The skill stages' keys are their names' first words.
STEP_WORDS: dict[str, tuple[str, str, str]] = {
    "trigger": ("Skills selected by the trigger",
                "The scenario's trigger selects the enabled layer-1 skills whose triggers "
                "contain it; the others are left out, each for a reason.",
                "1-select-the-skills"),
    "order": ("Adoption order",
              "The runtime collects the triggered skills in adoption-list order: the order "
              "of the agent's skill list.", "adoption-order"),
    "references": ("References expanded",
                   "Each `{{d_tag}}` of a skill is replaced by that skill's text (layer-2 "
                   "content inlined), recursively.", "expand-references"),
    "roles": ("Blocks cut at role markers",
              "Role marker lines (`system:`, `user:`, `assistant:`) cut the skill's text into "
              "blocks; text before the first marker is system.", "split-roles"),
    "variables": ("Variables resolved",
                  "Each remaining `{{name}}` is replaced by a value: a binding, a built-in or "
                  "a mock tool's result, turned into markdown by a formatter.",
                  "resolve-variables"),
    "headings": ("Headings bumped",
                 "All headings in skill content get bumped one level (`#` → `##`): the runtime "
                 "owns the `#` title.", "bump-headings"),
    "template": ("Template sections added",
                 "Each section of the skill's `---template---` part fetches its data by "
                 "calling a tool (or writes its content) and becomes one more block.",
                 "add-template-sections"),
    "title": ("The runtime title",
              "The runtime emits `# Agent Name` as the document title, from the agent's title "
              "template.", "the-title"),
    "messages": ("Blocks laid out as messages",
                 "The blocks become the API's messages by their roles: no marker defaults to "
                 "system, and same-role sections are concatenated.",
                 "roles-into-messages"),
    "joined": ("Skills joined with ---",
               "Skills are separated by horizontal rules: within a message, the parts of "
               "different skills are joined with `---`, and the title opens the document.",
               "joining-the-parts"),
    "request": ("The provider request",
                "The messages are sent as an OpenAI-compatible messages array (or Anthropic's "
                "shape, with the system prompt apart).", "the-provider-request"),
    "log": ("The context-log entry",
            "The context log records the assembled markdown document, so you can inspect "
            "exactly what the agent sees.", "the-context-log-entry"),
}

#: Words of the explainer a newcomer may not know: key -> (the words as the pages write
#: them, what they mean in plain words).
TERMS: dict[str, tuple[str, str]] = {
    "lines": ("in … lines → out … lines",
              "How much text came into the step and how much went out, counted in lines: "
              "the selected skills' texts one after another, or what the step works on."),
    "layer": ("layer 1, layer 2",
              "A layer-1 skill is picked by a trigger and becomes a part of the context; a "
              "layer-2 skill has no trigger and is used only where another skill embeds it "
              "by writing its `{{d_tag}}`."),
    "adoption": ("adoption order",
                 "The order of the agent's skill list. On Nostr an agent adopts skills by "
                 "listing them (its adoption list); the runtime runs the selected skills, and "
                 "lays out their parts, in that list's order."),
    "mode": ("grouped mode, sequence mode",
             "The agent's message mode, a setting: grouped makes one message per role, "
             "joining the parts of the same role; sequence makes every part a message of "
             "its own, in order."),
}

#: The terms each step explains: the first step that shows them.
STEP_TERMS: dict[str, tuple[str, ...]] = {
    "trigger": ("lines", "layer"),
    "order": ("adoption",),
    "messages": ("mode",),
}
