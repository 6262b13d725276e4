// Skill Editor: behaviour of the Tools, Variables, Scenarios and Agent preview pages.
// The pages work without it; this puts the cursor on a JSON error and keeps the fields
// aria-invalid in step with the live check.
"use strict";

(function () {
  // "Go to line L, column C": select that place in the field the error is about.
  function goTo(button) {
    const form = button.closest("form");
    const field = form && form.elements.namedItem(button.dataset.gotoField);
    if (!field || typeof field.setSelectionRange !== "function") return;
    const line = parseInt(button.dataset.line, 10) || 1;
    const column = parseInt(button.dataset.column, 10) || 1;
    if (field.codeEditor) {  // the code editor (code-editor.js) over a JSON field
      field.codeEditor.goToLine(line, column);
      return;
    }
    const lines = field.value.split("\n");
    let offset = 0;
    for (let i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i].length + 1;
    offset = Math.min(offset + column - 1, field.value.length);
    field.focus();
    field.setSelectionRange(offset, Math.min(offset + 1, field.value.length));
    if (field.tagName === "TEXTAREA") {
      const lineHeight = parseFloat(getComputedStyle(field).lineHeight) || 18;
      field.scrollTop = Math.max(0, (line - 3) * lineHeight);
    }
  }

  // After a live check, mark exactly the fields the check found fault with.
  function markInvalid(form) {
    const bad = new Set();
    form.querySelectorAll("[data-field-error]").forEach(function (item) {
      bad.add(item.dataset.fieldError);
    });
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name || field.type === "hidden" || field.type === "submit") return;
      if (bad.has(field.name)) {
        field.setAttribute("aria-invalid", "true");
      } else {
        field.removeAttribute("aria-invalid");
      }
      if (field.codeEditor) {
        field.codeEditor.view.contentDOM.setAttribute("aria-invalid", bad.has(field.name) ? "true" : "false");
      }
    });
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest("[data-goto-field]");
    if (button) {
      event.preventDefault();
      goTo(button);
    }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    // `elt` is the element that sent the request: the form of a live check.
    const elt = event.detail.elt;
    const form = elt && elt.closest ? elt.closest("form") : null;
    if (form && form.querySelector(".item-preview, .binding-output")) markInvalid(form);
  });
})();
