// The pipeline's step pages (templates/_pipeline_step.html): ← and → go to the previous
// and next step, the page's own Previous and Next links (rel="prev" / rel="next"), so a
// presenter can walk a room through the assembly. Not while a field, a tab list or a
// splitter has the focus, nor with a modifier key held. The Help page lists the keys.
"use strict";

(function () {
  const IGNORE = "input, textarea, select, [contenteditable], [role=tab], [role=separator]";
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const rel = {ArrowLeft: "prev", ArrowRight: "next"}[event.key];
    if (!rel) return;
    if (event.target instanceof Element && event.target.closest(IGNORE)) return;
    const link = document.querySelector('#pipeline-step a[rel="' + rel + '"]');
    if (!link) return;
    event.preventDefault();
    link.click();
  });
})();
