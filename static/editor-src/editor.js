// The entry of static/vendor/codemirror-bundle-<version>.min.js: the parts of CodeMirror 6
// that Skill Editor uses, gathered on one global, `CM`. Nothing of the app is here: the
// editor's behaviour is static/code-editor.js, plain code served as written, so changing it
// needs no rebuild. Rebuild with `sh build.sh` (see docs/web.md, "The code editor").
export {
  EditorState, EditorSelection, StateEffect, StateField, Compartment, RangeSetBuilder, Prec,
  Transaction, Annotation,
} from "@codemirror/state";
export {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, drawSelection, dropCursor, rectangularSelection, crosshairCursor,
  Decoration, ViewPlugin, MatchDecorator, hoverTooltip, showTooltip, placeholder,
} from "@codemirror/view";
export {
  defaultKeymap, history, historyKeymap, indentWithTab, insertTab, indentMore, indentLess,
  undo, redo, undoDepth,
} from "@codemirror/commands";
export {
  StreamLanguage, syntaxHighlighting, defaultHighlightStyle,
  HighlightStyle, bracketMatching, indentOnInput, foldGutter, foldKeymap, indentUnit,
  syntaxTree, ensureSyntaxTree, forceParsing,
} from "@codemirror/language";
export {
  autocompletion, completionKeymap, startCompletion, closeCompletion, acceptCompletion,
  currentCompletions, completionStatus, selectedCompletion,
} from "@codemirror/autocomplete";
export {
  setDiagnostics, lintGutter, lintKeymap, linter, forEachDiagnostic, diagnosticCount,
  openLintPanel, closeLintPanel, nextDiagnostic,
} from "@codemirror/lint";
export {
  search, searchKeymap, highlightSelectionMatches, openSearchPanel, closeSearchPanel,
} from "@codemirror/search";
export { yaml } from "@codemirror/legacy-modes/mode/yaml";
export { tags } from "@lezer/highlight";
