"""Turn untrusted text into safe HTML: rendered markdown, highlighted markdown and JSON.

Skill content, tool results and scenario messages are written by people and programs
we do not trust, so every piece of HTML built here either comes from pygments (which
escapes its input) or passes through `nh3` with an allow-list (`html.sanitize`).

- `html`: markdown to sanitized HTML (Python-Markdown, then nh3);
- `highlight`: markdown source and JSON highlighted by pygments, and its stylesheet;
- `blocks`: the rule that cuts a document into blocks that render apart as together,
  so a keystroke in a large document renders only the block it changed;
- `lists`: lists nested by two spaces (as JSON→markdown writes them) rendered nested.
"""

from .blocks import CACHE_CHARS
from .highlight import HIGHLIGHT_CLASS, highlight_json, highlight_markdown_lines, pygments_css
from .html import code_spans, markdown_to_html, sanitize

__all__ = [
    "CACHE_CHARS", "HIGHLIGHT_CLASS", "code_spans", "highlight_json", "highlight_markdown_lines",
    "markdown_to_html", "pygments_css", "sanitize",
]
