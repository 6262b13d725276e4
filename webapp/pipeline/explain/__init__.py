"""The explainer: one scenario's assembly told step by step, each stage's input and output
with the words a newcomer needs (`explain`, docs/pipeline.md).

`walk` runs the stages and gathers the steps; `skills` reads each skill's part of a stage
(its `READERS`), `layout` the steps that lay the document out (title, joining, messages,
request, log), `data` holds what a step is, and `words` the steps' names and the terms
they use.
"""

from .data import Explanation, MessageShape, Selection, Step, StepName
from .skills import READERS, VALUES_KEPT, BlockUse, SectionStep, SkillStep, TracedText, ValueUse
from .walk import STEPS, explain
from .words import STEP_WORDS

__all__ = ["READERS", "STEPS", "STEP_WORDS", "VALUES_KEPT", "BlockUse", "Explanation",
           "MessageShape", "SectionStep", "Selection", "SkillStep", "Step", "StepName",
           "TracedText", "ValueUse", "explain"]
