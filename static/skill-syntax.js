// Skill Editor: the few rules of skill text the code editor needs to colour it, written
// again in JavaScript. They MIRROR the pipeline, which owns them:
//   markerRole     webapp/pipeline/roles.py marker_role (a role marker line)
//   FenceTracker   webapp/pipeline/roles.py FenceTracker (``` and ~~~ fences)
//   templateLine   webapp/pipeline/sections.py split_template (the ---template--- line)
//   tokens         webapp/pipeline/placeholders.py find_placeholders, and the `\{{`
//                  escapes that unescape() turns into `{{` between them
// tests/web/test_skill_syntax.py runs this file in node against the Python functions on
// sample lines; change both together. Everything else the editor knows (what a name is,
// its value, the problems) comes from the server.
// A plain script (window.SkillSyntax) that node can also require().
"use strict";

(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.SkillSyntax = factory();
})(typeof self !== "undefined" ? self : this, function () {
  // roles.py: `system:`, `user:` or `assistant:` alone on a line, any case, trailing spaces
  // and tabs allowed, at most 64 characters. (No `u` flag: with it, `i` would fold `ſ`
  // to `s`, which Python's lower() does not.)
  const MARKER = /^(system|user|assistant):[ \t]*$/i;
  function markerRole(line) {
    if (line.length > 64) return null;
    const match = MARKER.exec(line);
    return match ? match[1].toLowerCase() : null;
  }

  // roles.py FenceTracker, statement for statement.
  class FenceTracker {
    constructor() { this.char = ""; this.length = 0; }
    // Account for `line`; true if it is a fence line or inside a fence.
    feed(line) {
      if (this.char) {
        if (this.closes(line)) this.char = "";
        return true;
      }
      const first = line.slice(0, 1);
      if (!line || "`~ ".indexOf(first) < 0) return false;
      const stripped = line.replace(/^ +/, "");
      if (line.length - stripped.length > 3) return false;
      const char = stripped.slice(0, 1);
      if ((char !== "`" && char !== "~") || !stripped.startsWith(char.repeat(3))) return false;
      const run = stripped.length - stripStart(stripped, char).length;
      if (char === "`" && stripped.slice(run).indexOf("`") >= 0) return false;
      this.char = char;
      this.length = run;
      return true;
    }
    closes(line) {
      if (!this.char) return false;
      const stripped = line.replace(/^ +/, "");
      const run = stripped.length - stripStart(stripped, this.char).length;
      return line.length - stripped.length <= 3 && run >= this.length
        && !pyStrip(stripped.slice(run));
    }
    copy() {
      const other = new FenceTracker();
      other.char = this.char;
      other.length = this.length;
      return other;
    }
  }
  function stripStart(text, char) {
    let i = 0;
    while (i < text.length && text[i] === char) i++;
    return text.slice(i);
  }
  // Python's str.strip() whitespace (str.isspace), which differs from JavaScript's \s.
  const PY_SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a" +
    "\\u2028\\u2029\\u202f\\u205f\\u3000";
  const PY_STRIP = new RegExp("^[" + PY_SPACE + "]+|[" + PY_SPACE + "]+$", "g");
  function pyStrip(text) { return text.replace(PY_STRIP, ""); }

  // sections.py: the template starts at the first line outside a fence that is
  // `---template---` (trailing spaces and tabs allowed).
  const TEMPLATE_MARKER = "---template---";
  function isTemplateMarker(line) {
    return line.replace(/[ \t]+$/, "") === TEMPLATE_MARKER;
  }

  // placeholders.py: `{{name}}`, spaces or tabs allowed inside the braces; a name is a run
  // of characters that are neither (Python's) whitespace nor braces. One preceded by a
  // backslash is not a placeholder, and a `\{{` in the text between placeholders is an
  // escape (a literal `{{`).
  const PLACEHOLDER = new RegExp("\\{\\{[ \\t]*([^{}" + PY_SPACE + "]+)[ \\t]*\\}\\}", "g");
  const ESCAPE = "\\{{";

  // The placeholders and escapes of one line, left to right: {kind: "placeholder"|"escape",
  // start, end, name} with offsets in UTF-16 code units (the editor's positions).
  function tokens(line) {
    const found = [];
    if (line.indexOf("{{") < 0) return found;
    let gap = 0;
    PLACEHOLDER.lastIndex = 0;
    for (let m = PLACEHOLDER.exec(line); m; m = PLACEHOLDER.exec(line)) {
      if (m.index && line[m.index - 1] === "\\") continue;
      escapesIn(line, gap, m.index, found);
      found.push({kind: "placeholder", start: m.index, end: m.index + m[0].length, name: m[1]});
      gap = m.index + m[0].length;
    }
    escapesIn(line, gap, line.length, found);
    return found;
  }
  function escapesIn(line, from, to, found) {
    for (let at = line.indexOf(ESCAPE, from); at >= 0 && at + 3 <= to; at = line.indexOf(ESCAPE, at + 3)) {
      found.push({kind: "escape", start: at, end: at + 3, name: null});
    }
  }
  function placeholders(line) {
    return tokens(line).filter(function (t) { return t.kind === "placeholder"; });
  }

  // The lines of a skill, classified as the pipeline reads them: `roles[i]` is the role
  // line i opens (or null), `fenced[i]` whether it is a fence line or in a fence, and
  // `template` the index of the ---template--- line (-1: none). Lines after it are the
  // template's YAML, where role markers mean nothing.
  function scan(lines) {
    const fence = new FenceTracker();
    const roles = [];
    const fenced = [];
    let template = -1;
    let i = 0;
    for (const line of lines) {
      if (template >= 0) {
        roles.push(null);
        fenced.push(false);
      } else {
        const inFence = fence.feed(line);
        fenced.push(inFence);
        roles.push(inFence ? null : markerRole(line));
        if (!inFence && isTemplateMarker(line)) template = i;
      }
      i++;
    }
    return {roles: roles, fenced: fenced, template: template};
  }

  return {
    markerRole: markerRole, FenceTracker: FenceTracker, isTemplateMarker: isTemplateMarker,
    tokens: tokens, placeholders: placeholders, scan: scan, TEMPLATE_MARKER: TEMPLATE_MARKER,
  };
});
