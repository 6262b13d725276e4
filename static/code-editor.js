// Skill Editor: the code editor. CodeMirror 6 (the `CM` global of
// static/vendor/codemirror-bundle-*.min.js) mounted over the textareas that edit text:
// a skill's Content (skill mode) and the JSON fields of the Tools and Scenarios pages
// (JSON mode). Loaded, deferred, on those pages only.
//
// The textarea stays the form's value: every change is written back to it and announced
// with an `input` event on it, so htmx's live preview, app.js's unsaved marker, Ctrl/Cmd+S
// and the leave-page warning work as they do on the bare textarea, which is what a page
// without JavaScript edits. What the editor shows comes from the server: what each
// {{name}} is (#editor-names, or the names route for another scenario) and the problems of
// the skill (#editor-diagnostics, in every preview). The only rules of skill text written
// again in JavaScript are the ones colouring needs, in static/skill-syntax.js.
"use strict";

(function () {
  if (typeof CM === "undefined" || typeof SkillSyntax === "undefined") return;
  const S = SkillSyntax;
  const t = CM.tags;
  // The nonce the page's CSP allows CodeMirror's <style> element (see the script tag).
  const NONCE = document.currentScript ? document.currentScript.nonce : "";
  const WRAP_KEY = "skill-editor.wrap";
  const KIND_CLASS = {"skill": "cm-ref-skill", "binding": "cm-ref-binding",
                      "built-in": "cm-ref-builtin", "mock tool": "cm-ref-tool"};

  // -- names: what each {{name}} is and gives, for the scenario the preview shows
  const names = {data: null, byName: new Map(), url: null, cache: new Map(), pending: null};
  // The server's JSON, in the data-json attribute of a hidden element (not a <script>
  // data block: htmx drops those from what it swaps in).
  function readBlock(id) {
    const el = document.getElementById(id);
    if (!el) return null;
    try { return JSON.parse(el.dataset.json); } catch (e) { return null; }
  }
  function setNames(data) {
    names.data = data;
    names.byName = new Map(data.names.map(function (n) { return [n.name, n]; }));
    names.cache.set(data.scenario || "", data);
    document.querySelectorAll(".cm-editor").forEach(function (dom) {
      const view = CM.EditorView.findFromDOM(dom);
      if (view) view.dispatch({effects: namesChanged.of(null)});
    });
  }
  // The preview changed scenario: its names' values are another scenario's (the kinds stay).
  function followScenario(scenario) {
    const key = scenario || "";
    if (!names.data || !names.url || (names.data.scenario || "") === key) return;
    if (names.cache.has(key)) { setNames(names.cache.get(key)); return; }
    if (names.pending === key) return;
    names.pending = key;
    const url = names.url + (scenario ? "?scenario=" + encodeURIComponent(scenario) : "");
    fetch(url, {credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data) setNames(data); })
      .catch(function () { /* the values shown stay the previous scenario's */ })
      .finally(function () { names.pending = null; });
  }
  function kindOf(name) {
    const known = names.byName.get(name);
    return known ? known.kind : null;
  }

  const namesChanged = CM.StateEffect.define();

  // -- how the pipeline reads the text: role markers, fences, the template line
  const scanField = CM.StateField.define({
    create: function (state) { return S.scan(state.doc.toString().split("\n")); },
    update: function (value, tr) {
      return tr.docChanged ? S.scan(tr.state.doc.toString().split("\n")) : value;
    },
  });
  function inTemplate(state, lineNumber) {
    const template = state.field(scanField).template;
    return template >= 0 && lineNumber - 1 > template;
  }
  // The {{name}} (or escape) at `pos`, with document positions, or null.
  function tokenAt(state, pos) {
    const line = state.doc.lineAt(pos);
    for (const token of S.tokens(line.text)) {
      if (line.from + token.start <= pos && pos <= line.from + token.end) {
        return Object.assign({}, token, {from: line.from + token.start, to: line.from + token.end});
      }
    }
    return null;
  }

  // -- highlighting. Markdown by rules of our own (a highlighter's, not a renderer's: a
  //    line at a time), fences as the pipeline tracks them, and after the template line
  //    CodeMirror's YAML mode. Token names are @lezer/highlight tags; the classes they
  //    get are in app.css.
  const markdownLine = [
    [/^ {0,3}(#{1,6})(?=[ \t]|$)/, function (m) { return "heading" + m[1].length; }],
    [/^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/, function () { return "contentSeparator"; }],
  ];
  function inlineToken(stream, quote) {
    const style = function (name) { return quote ? (name ? name + " quote" : "quote") : name; };
    if (stream.match(/^\\?\{\{[ \t]*[^\s{}]+[ \t]*\}\}/) || stream.match("\\{{")) {
      return style(null); // a {{name}} or escape: coloured by the reference decorations
    }
    const ch = stream.peek();
    if (ch === "`") {
      const run = stream.match(/^`+/)[0];
      const close = stream.string.indexOf(run, stream.pos);
      if (close < 0) return style(null);
      stream.pos = close + run.length;
      return style("monospace");
    }
    if (stream.match(/^(\*\*|__)(?=\S)(?:.*?\S)\1/)) return style("strong");
    if (stream.match(/^\*(?=[^\s*])(?:[^*]*?[^\s*])?\*/)) return style("emphasis");
    if (ch === "_" && !/\w/.test(stream.string.charAt(stream.pos - 1))
        && stream.match(/^_(?=[^\s_])(?:[^_]*?[^\s_])?_(?!\w)/)) return style("emphasis");
    if (stream.match(/^!?\[[^\]]*\]\([^)\s]*(?:[ \t]+"[^"]*")?\)/)) return style("link");
    if (stream.match(/^<(?:https?|mailto):[^>\s]*>/)) return style("url");
    stream.next();
    stream.eatWhile(/[^`*_[!<{\\]/);
    return style(null);
  }
  const skillParser = {
    name: "skill",
    startState: function () {
      return {fence: new S.FenceTracker(), template: false, kind: "text", yaml: CM.yaml.startState()};
    },
    copyState: function (s) {
      return {fence: s.fence.copy(), template: s.template, kind: s.kind, yaml: Object.assign({}, s.yaml)};
    },
    token: function (stream, state) {
      if (stream.sol()) {
        const line = stream.string;
        if (state.template) state.kind = "yaml";
        else if (state.fence.feed(line)) state.kind = "fence";
        else if (S.isTemplateMarker(line)) { state.template = true; state.kind = "marker"; }
        else if (S.markerRole(line)) state.kind = "marker";
        else {
          state.kind = "text";
          for (const [pattern, name] of markdownLine) {
            const m = pattern.exec(line);
            if (m) { stream.skipToEnd(); return name(m); }
          }
          if (stream.match(/^ {0,3}>[ \t]?/)) { state.kind = "quote"; return "quote"; }
          if (stream.match(/^[ \t]*(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)/)) return "list";
        }
      }
      if (state.kind === "yaml") {
        // The YAML mode calls a key an "atom": here it is a key, as in JSON.
        const token = CM.yaml.token(stream, state.yaml);
        return token === "atom" ? "propertyName" : token;
      }
      if (state.kind === "fence") { stream.skipToEnd(); return "monospace"; }
      if (state.kind === "marker") { stream.skipToEnd(); return "processingInstruction"; }
      return inlineToken(stream, state.kind === "quote");
    },
    blankLine: function (state) {
      if (!state.template) state.fence.feed("");
    },
    languageData: {commentTokens: {line: "#"}},
  };
  // JSON, for the JSON fields: strings (keys apart), numbers, true/false/null.
  const jsonParser = {
    name: "json",
    startState: function () { return {}; },
    token: function (stream) {
      if (stream.eatSpace()) return null;
      if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) {
        return /^\s*:/.test(stream.string.slice(stream.pos)) ? "propertyName" : "string";
      }
      if (stream.match(/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/)) return "number";
      if (stream.match(/^(?:true|false|null)\b/)) return "atom";
      if (stream.match(/^[{}[\],:]/)) return "punctuation";
      stream.next();
      return "invalid";
    },
    languageData: {closeBrackets: {brackets: ["[", "{", '"']}},
  };
  const highlightStyle = CM.HighlightStyle.define([
    {tag: t.heading, class: "cm-md-heading"},
    {tag: t.strong, class: "cm-md-strong"},
    {tag: t.emphasis, class: "cm-md-emphasis"},
    {tag: [t.link, t.url], class: "cm-md-link"},
    {tag: t.monospace, class: "cm-md-code"},
    {tag: t.quote, class: "cm-md-quote"},
    {tag: t.list, class: "cm-md-list"},
    {tag: t.contentSeparator, class: "cm-md-rule"},
    {tag: t.comment, class: "cm-tok-comment"},
    {tag: [t.string, t.special(t.string)], class: "cm-tok-string"},
    {tag: [t.number, t.atom, t.bool, t.keyword], class: "cm-tok-atom"},
    {tag: [t.propertyName, t.attributeName, t.definition(t.variableName)], class: "cm-tok-key"},
    {tag: [t.meta, t.special(t.variableName)], class: "cm-tok-meta"},
    {tag: t.invalid, class: "cm-tok-invalid"},
  ]);

  // -- decorations: role-marker lines, the template line, {{names}} by what they are,
  //    `\{{` escapes. Rebuilt for the visible lines on every change.
  const mark = function (cls) { return CM.Decoration.mark({class: cls}); };
  const lineDeco = function (cls) { return CM.Decoration.line({class: cls}); };
  const MARKS = {
    role: mark("cm-role-marker"), template: mark("cm-template-marker"),
    escape: mark("cm-ref cm-ref-escape"), unknown: mark("cm-ref cm-ref-unknown"),
  };
  const LINES = {role: lineDeco("cm-role-line"), template: lineDeco("cm-template-line")};
  for (const kind of Object.keys(KIND_CLASS)) MARKS[kind] = mark("cm-ref " + KIND_CLASS[kind]);
  function decorate(view) {
    const builder = new CM.RangeSetBuilder();
    const doc = view.state.doc;
    const scan = view.state.field(scanField);
    for (const range of view.visibleRanges) {
      for (let pos = range.from; pos <= range.to;) {
        const line = doc.lineAt(pos);
        const index = line.number - 1;
        const kind = scan.roles[index] ? "role" : index === scan.template ? "template" : null;
        if (kind) {
          builder.add(line.from, line.from, LINES[kind]);
          if (line.length) builder.add(line.from, line.to, MARKS[kind]);
        } else {
          for (const token of S.tokens(line.text)) {
            const deco = token.kind === "escape" ? MARKS.escape
              : MARKS[kindOf(token.name)] || MARKS.unknown;
            builder.add(line.from + token.start, line.from + token.end, deco);
          }
        }
        pos = line.to + 1;
      }
    }
    return builder.finish();
  }
  const references = CM.ViewPlugin.fromClass(class {
    constructor(view) { this.decorations = decorate(view); }
    update(update) {
      if (update.docChanged || update.viewportChanged
          || update.transactions.some(function (tr) { return tr.effects.some(function (e) { return e.is(namesChanged); }); })) {
        this.decorations = decorate(update.view);
      }
    }
  }, {decorations: function (plugin) { return plugin.decorations; }});

  // -- completion after {{, and of a template section's keys and values
  function nameOptions() {
    if (!names.data) return [];
    const options = [];
    names.data.names.forEach(function (n, i) {
      const summary = n.summary ? " · " + (n.summary.length > 48 ? n.summary.slice(0, 47) + "…" : n.summary) : "";
      const option = {label: n.name, detail: n.kind + summary, type: KIND_CLASS[n.kind].slice(7),
                      info: function () { return describe(n); }, apply: applyName(n.name),
                      boost: -i / 1000};
      options.push(option);
      // A skill can be found by its name too; what is written is its d_tag.
      if (n.title && n.title.toLowerCase() !== n.name.toLowerCase()) {
        options.push(Object.assign({}, option, {label: n.title, displayLabel: n.title + " → " + n.name,
                                                boost: -1}));
      }
    });
    return options;
  }
  // Replace the name typed so far (and the rest of it after the cursor) and close the
  // braces unless they are closed already; the cursor goes after them.
  function applyName(name) {
    return function (view, completion, from, to) {
      const line = view.state.doc.lineAt(to);
      const after = line.text.slice(to - line.from);
      const rest = /^[^\s{}]*/.exec(after)[0];
      const closing = /^[ \t]*\}\}/.exec(after.slice(rest.length));
      const end = to + rest.length;
      const insert = name + (closing ? "" : "}}");
      const cursor = from + name.length + (closing ? closing[0].length : 2);
      view.dispatch({changes: {from: from, to: end, insert: insert}, selection: {anchor: cursor},
                     userEvent: "input.complete", scrollIntoView: true});
    };
  }
  function words(list, type, suffix) {
    return list.map(function (word) { return {label: word, type: type, apply: suffix ? word + suffix : word}; });
  }
  function complete(context) {
    const line = context.state.doc.lineAt(context.pos);
    const before = line.text.slice(0, context.pos - line.from);
    const ref = /(?:^|[^\\])\{\{[ \t]*([^\s{}]*)$/.exec(before);
    if (ref) {
      return {from: context.pos - ref[1].length, options: nameOptions(), validFor: /^[^\s{}]*$/};
    }
    if (!names.data || !inTemplate(context.state, line.number)) return null;
    const words_ = names.data.template;
    const value = /^[ \t]*(?:-[ \t]+)?(role|tool|format):[ \t]*([\w.-]*)$/.exec(before);
    if (value) {
      const list = {role: words_.roles, tool: words_.tools, format: words_.formats}[value[1]];
      return {from: context.pos - value[2].length, options: words(list, "enum"), validFor: /^[\w.-]*$/};
    }
    const key = /^[ \t]*(?:-[ \t]+)?([a-z_]*)$/.exec(before);
    if (key && (key[1] || context.explicit)) {
      return {from: context.pos - key[1].length, options: words(words_.keys, "property", ": "),
              validFor: /^[a-z_]*$/};
    }
    return null;
  }

  // -- hover: what a {{name}} is and gives
  function describe(n) {
    const box = document.createElement("div");
    box.className = "cm-name-info";
    const head = document.createElement("p");
    const strong = document.createElement("strong");
    strong.textContent = n.name;
    head.appendChild(strong);
    head.appendChild(document.createTextNode(" · " + n.kind + (n.hides ? " (hides a " + n.hides.join(", a ") + ")" : "")));
    const detail = document.createElement("p");
    detail.className = "muted";
    detail.textContent = n.detail;
    box.appendChild(head);
    box.appendChild(detail);
    const value = document.createElement("pre");
    value.textContent = n.value || "(empty for this scenario)";
    box.appendChild(value);
    if (n.url) {
      const hint = document.createElement("p");
      hint.className = "muted";
      hint.textContent = "Ctrl/⌘+click or F12 opens it.";
      box.appendChild(hint);
    }
    return box;
  }
  // (An unknown name gets no tooltip of its own: its lint mark's says what it is and
  // what it may have meant.)
  const hover = CM.hoverTooltip(function (view, pos) {
    const token = tokenAt(view.state, pos);
    const known = token && token.kind === "placeholder" && names.byName.get(token.name);
    if (!known) return null;
    return {pos: token.from, end: token.to, above: true,
            create: function () { return {dom: describe(known)}; }};
  });

  // -- navigation: Ctrl/Cmd+click and F12 on a {{skill}} open its editor
  function openSkill(state, pos) {
    const token = tokenAt(state, pos);
    const known = token && token.kind === "placeholder" && names.byName.get(token.name);
    if (!known || !known.url) return false;
    window.location.assign(known.url);
    return true;
  }
  const navigation = CM.EditorView.domEventHandlers({
    mousedown: function (event, view) {
      if (event.button !== 0 || !(event.ctrlKey || event.metaKey)) return false;
      const pos = view.posAtCoords({x: event.clientX, y: event.clientY});
      if (pos == null || !openSkill(view.state, pos)) return false;
      event.preventDefault();
      return true;
    },
  });

  // -- problems: the preview's diagnostics as lint marks, with "did you mean" fixes
  function replaceName(suggestion) {
    return {
      name: "Use " + suggestion,
      apply: function (view, from, to) {
        const text = view.state.sliceDoc(from, to);
        const m = /^(\{\{[ \t]*)([^\s{}]+)/.exec(text);
        if (!m) return;
        view.dispatch({changes: {from: from + m[1].length, to: from + m[0].length, insert: suggestion},
                       userEvent: "input.fix"});
      },
    };
  }
  function skillDiagnostics(view, data) {
    const doc = view.state.doc;
    const found = [];
    for (const d of data.diagnostics) {
      if (!d.line || d.line > doc.lines) continue;
      const line = doc.line(d.line);
      let from = line.from;
      let to = line.to;
      const at = d.name && S.placeholders(line.text).find(function (p) { return p.name === d.name; });
      if (at) { from = line.from + at.start; to = line.from + at.end; }
      found.push({from: from, to: to, severity: d.severity, source: d.code, message: d.message,
                  actions: at ? (d.suggestions || []).map(replaceName) : []});
    }
    return found;
  }
  function showProblems(root) {
    const data = readBlock("editor-diagnostics");
    const area = document.getElementById("content");
    if (!data || !area || !area.codeEditor) return;
    const view = area.codeEditor.view;
    view.dispatch(CM.setDiagnostics(view.state, skillDiagnostics(view, data)));
    followScenario(data.scenario);
  }

  // JSON mode: the live check's errors (line and column, from the server's parser).
  function showJsonErrors(form) {
    form.querySelectorAll("textarea.json-text").forEach(function (area) {
      const editor = area.codeEditor;
      if (!editor) return;
      const view = editor.view;
      const found = [];
      let invalid = false;
      form.querySelectorAll('[data-field-error="' + area.name + '"]').forEach(function (item) {
        invalid = true;
        const button = item.querySelector("[data-line]");
        const doc = view.state.doc;
        const lineNo = button ? Math.min(Math.max(1, parseInt(button.dataset.line, 10) || 1), doc.lines) : 1;
        const line = doc.line(lineNo);
        const column = button ? Math.max(1, parseInt(button.dataset.column, 10) || 1) : 1;
        const from = Math.min(line.from + column - 1, line.to);
        const message = Array.from(item.childNodes).filter(function (n) { return n !== button; })
          .map(function (n) { return n.textContent; }).join("").trim();
        found.push({from: from, to: Math.min(from + 1, doc.length), severity: "error", source: "json",
                    message: message});
      });
      view.dispatch(CM.setDiagnostics(view.state, found));
      view.contentDOM.setAttribute("aria-invalid", invalid ? "true" : "false");
    });
  }

  // -- mounting
  function wrapping() {
    try { return localStorage.getItem(WRAP_KEY) === "on"; } catch (e) { return false; }
  }
  const wrapCompartment = new CM.Compartment();
  function setWrapping(on) {
    try { localStorage.setItem(WRAP_KEY, on ? "on" : "off"); } catch (e) { /* not remembered */ }
    document.querySelectorAll(".cm-editor").forEach(function (dom) {
      const view = CM.EditorView.findFromDOM(dom);
      if (view) view.dispatch({effects: wrapCompartment.reconfigure(on ? CM.EditorView.lineWrapping : [])});
    });
    document.querySelectorAll(".wrap-toggle").forEach(function (button) {
      button.setAttribute("aria-pressed", on ? "true" : "false");
    });
  }
  // Tab indents in the template's YAML (where indentation is syntax) and in JSON, and
  // elsewhere moves the focus on, as in a textarea. Escape then Tab always moves on
  // (CodeMirror's tab-focus handling).
  function tabKeys(json) {
    const here = function (view) { return json || inTemplate(view.state, view.state.doc.lineAt(view.state.selection.main.head).number); };
    return [{key: "Tab", run: function (view) { return here(view) && CM.indentMore(view); },
             shift: function (view) { return here(view) && CM.indentLess(view); }}];
  }
  function labelOf(area) {
    if (area.getAttribute("aria-label")) return area.getAttribute("aria-label");
    const label = area.closest("label");
    if (!label) return area.name;
    return Array.from(label.childNodes).filter(function (n) { return n.nodeType === 3; })
      .map(function (n) { return n.textContent; }).join("").trim() || area.name;
  }
  function mount(area, mode) {
    if (area.codeEditor) return area.codeEditor;
    const skill = mode === "skill";
    const host = skill ? area.closest(".code-editor") : document.createElement("div");
    if (!skill) {
      host.className = "code-editor json-editor";
      // Outside the label: a label would send clicks in the editor to the hidden textarea.
      const label = area.closest("label");
      (label || area).after(host);
    }
    const extensions = [
      CM.lineNumbers(), CM.highlightActiveLineGutter(), CM.highlightSpecialChars(), CM.history(),
      CM.drawSelection(), CM.dropCursor(), CM.indentOnInput(), CM.bracketMatching(),
      CM.highlightActiveLine(), CM.highlightSelectionMatches(), CM.search({top: true}),
      CM.indentUnit.of("  "), CM.EditorState.tabSize.of(4), CM.EditorView.cspNonce.of(NONCE || ""),
      CM.syntaxHighlighting(highlightStyle), CM.lintGutter(),
      wrapCompartment.of(wrapping() ? CM.EditorView.lineWrapping : []),
      CM.keymap.of([].concat(tabKeys(!skill), CM.completionKeymap, CM.searchKeymap,
                             CM.historyKeymap, CM.lintKeymap, CM.defaultKeymap)),
      CM.EditorView.contentAttributes.of({"aria-label": labelOf(area), spellcheck: "false",
                                          autocorrect: "off", autocapitalize: "off"}),
      CM.EditorView.updateListener.of(function (update) {
        if (update.docChanged) {
          area.value = update.state.doc.toString();
          area.dispatchEvent(new Event("input", {bubbles: true}));
        }
        // The search panel's fields are the editor's, not the form's.
        update.view.dom.querySelectorAll(".cm-panel input:not([form]), .cm-panel button:not([form])")
          .forEach(function (field) { field.setAttribute("form", "cm-panel-no-form"); });
      }),
    ];
    if (skill) {
      extensions.push(CM.StreamLanguage.define(skillParser), scanField, references, hover, navigation,
                      CM.autocompletion({override: [complete], icons: false}),
                      CM.keymap.of([{key: "F12", run: function (view) { return openSkill(view.state, view.state.selection.main.head); }}]));
    } else {
      extensions.push(CM.StreamLanguage.define(jsonParser));
    }
    const view = new CM.EditorView({
      state: CM.EditorState.create({doc: area.value, extensions: extensions}),
      parent: host,
    });
    // The editor's own input events are not the form's: the textarea's (above) are.
    ["input", "change"].forEach(function (type) {
      view.dom.addEventListener(type, function (event) { event.stopPropagation(); });
    });
    area.removeAttribute("aria-label");
    area.setAttribute("aria-hidden", "true");
    area.tabIndex = -1;
    host.classList.add("mounted");
    if (!skill) area.classList.add("cm-replaced");
    area.codeEditor = {
      view: view,
      focus: function () { view.focus(); },
      // The cursor at the start of line `n` (no selection), scrolled into view.
      goToLine: function (n, column) {
        const doc = view.state.doc;
        const line = doc.line(Math.min(Math.max(1, n), doc.lines));
        const pos = Math.min(line.from + Math.max(0, (column || 1) - 1), line.to);
        view.dispatch({selection: {anchor: pos}, effects: CM.EditorView.scrollIntoView(pos, {y: "center"})});
        view.focus();
      },
    };
    return area.codeEditor;
  }

  function wrapToggle(form) {
    const actions = form.querySelector(".form-actions");
    if (!actions || actions.querySelector(".wrap-toggle")) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "wrap-toggle";
    button.textContent = "Wrap lines";
    button.setAttribute("aria-pressed", wrapping() ? "true" : "false");
    button.addEventListener("click", function () { setWrapping(button.getAttribute("aria-pressed") !== "true"); });
    actions.appendChild(button);
  }

  function mountAll(root) {
    const area = root.querySelector ? root.querySelector(".code-editor[data-mode=skill] > textarea") : null;
    if (area && !area.codeEditor) {
      const block = document.getElementById("editor-names");
      if (block) {
        names.url = block.dataset.url;
        const data = readBlock("editor-names");
        if (data) setNames(data);
      }
      mount(area, "skill");
      wrapToggle(area.form);
      showProblems();
    }
    (root.querySelectorAll ? root.querySelectorAll("textarea.json-text") : []).forEach(function (json) {
      if (!json.codeEditor) {
        mount(json, "json");
        if (json.form) { wrapToggle(json.form); showJsonErrors(json.form); }
      }
    });
  }

  mountAll(document);
  document.addEventListener("htmx:load", function (event) { mountAll(event.detail.elt); });
  document.addEventListener("htmx:afterSwap", function (event) {
    const target = event.detail.target;
    if (target && target.id === "preview") showProblems();
    const elt = event.detail.elt;
    const form = elt && elt.closest ? elt.closest("form") : null;
    if (form && form.querySelector("textarea.json-text")) showJsonErrors(form);
  });
})();
