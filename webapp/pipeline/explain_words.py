"""What each step of the pipeline explainer (`explain`) is called and does, in one
sentence (the design notes' words where they fit), and the anchor of its rule in
docs/CONTEXT.md (the headings there, as the help page anchors them). A test holds every
step of `explain.STEPS` to an entry here and every anchor to a heading."""

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
    "roles": ("Roles split",
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
    "messages": ("Roles split into messages",
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
