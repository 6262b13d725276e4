// The entry of static/vendor/codemirror-bundle-<version>.min.js: the parts of CodeMirror 6
// that Skill Editor uses, gathered on one global, `CM`. Nothing of the app is here: the
// editor's behaviour is static/code-editor.js, plain code served as written, so changing
// it needs no rebuild; a part it starts to use must be added here (and the bundle rebuilt
// with `sh build.sh`, see docs/web.md, "The code editor").
export {
  Compartment, EditorState, RangeSetBuilder, StateEffect, StateField,
} from "@codemirror/state";
export {
  Decoration, EditorView, ViewPlugin, drawSelection, dropCursor, highlightActiveLine,
  highlightActiveLineGutter, highlightSpecialChars, hoverTooltip, keymap, lineNumbers,
} from "@codemirror/view";
export {
  defaultKeymap, history, historyKeymap, indentLess, indentMore,
} from "@codemirror/commands";
export {
  HighlightStyle, StreamLanguage, bracketMatching, indentOnInput, indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
export { autocompletion, completionKeymap } from "@codemirror/autocomplete";
export { lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
export { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
export { yaml } from "@codemirror/legacy-modes/mode/yaml";
export { tags } from "@lezer/highlight";
