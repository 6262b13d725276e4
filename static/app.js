// Skill Editor: the client behaviour of every page (the CSP forbids inline script); the
// code editor is code-editor.js, on the pages that edit text.
// Everything works without it; this adds tabs, live-preview niceties, copy buttons,
// Ctrl/Cmd+S, the unsaved-changes marker, the prompt before leaving with edits, the
// splitter between the form and the preview and dragging the skill list. The keys are
// listed on the Help page (templates/_help.html): keep the two in step.
"use strict";

document.documentElement.classList.add("js");

(function () {
  const STORE_KEY = "skill-editor.view";

  // `about` says what a message is about: a refreshed preview clears only the messages
  // about the preview, never "Saved ..." or "Copied."
  function status(text, kind, about) {
    const el = document.getElementById("status");
    if (!el) return;
    if (text) dropFlashes();
    el.textContent = text || "";
    el.dataset.kind = kind || "";
    el.dataset.about = about || "";
  }
  // One message at a time: something said now replaces what the page was loaded with
  // ("Created the skill" stays no longer beside "Saved ... as version 2").
  function dropFlashes() {
    document.querySelectorAll(".flashes").forEach(function (list) { list.remove(); });
  }
  // The session ended while the page was open (signed out elsewhere, a new password, an
  // account disabled): the server answers htmx and fetch with 401 and where to sign in.
  // The page stays, with everything typed in it; signing in in another tab and carrying
  // on sends it again (the new session's security token is renewed as for any expired one).
  const SIGN_IN = "X-Sign-In";
  function signedOut(url, about) {
    status("You are signed out, so nothing was sent; your text is still here. ", "error", about);
    const el = document.getElementById("status");
    if (!el || !url) return;
    const link = document.createElement("a");
    link.href = url;
    link.target = "_blank";
    link.rel = "noopener";
    link.textContent = "Sign in (new tab)";
    el.appendChild(link);
  }

  // -- tabs and view toggles: state lives on .preview-wrap, outside the swapped #preview,
  //    so a refreshed preview keeps the tab and views the author chose. They are kept per
  //    kind of page (<body data-page-kind>): the editor's tab is not the compare page's.
  const VIEW_KEYS = ["tab", "docView", "diffView"];
  function storeKey() {
    return STORE_KEY + "." + (document.body.dataset.pageKind || "page");
  }
  function loadViews() {
    try { return JSON.parse(sessionStorage.getItem(storeKey())) || {}; } catch (e) { return {}; }
  }
  // The live preview sends the open panel alone (`shown`: `diff`, `document:source`...);
  // the others come as placeholders that load themselves when seen (htmx `intersect`,
  // `lazy` in _macros.html). This keeps the field naming the open tab and view.
  // The editor's wrap is inside its form; the agent preview's names its picker's form
  // (`data-form`), which is outside it.
  function syncShown(wrap) {
    const form = wrap.closest("form") || document.getElementById(wrap.dataset.form || "");
    const field = form && form.querySelector("input[data-shown]");
    if (!field) return;
    // The Document tab sends its open view alone, the Pipeline tab its diffs' open layout.
    const tab = wrap.dataset.tab;
    const view = {document: wrap.dataset.docView || "rendered",
                  pipeline: wrap.dataset.diffView || "unified"}[tab];
    field.value = view ? tab + ":" + view : tab;
  }
  // A placeholder of the open tab and view loads now, wherever it is scrolled: htmx's
  // `intersect` asks only for one in sight, and one below the fold of a short window
  // would say Loading… until the next keystroke. Sent when a tab or view is opened and
  // when an answer brings placeholders (htmx:load); a loader hidden by the tab or view
  // not shown has no box and is left for when it is opened. A loader already asking
  // drops the second call (`hx-sync="this:drop"`).
  function loadShown(root) {
    const wrap = root.closest ? root.closest(".preview-wrap") : null;
    const scope = wrap || root;
    if (!scope.querySelectorAll) return;
    scope.querySelectorAll("[data-loader]").forEach(function (loader) {
      if (loader.getClientRects().length) htmx.trigger(loader, "panel-shown");
    });
  }
  document.addEventListener("htmx:load", function (event) { loadShown(event.detail.elt || event.target); });
  function saveViews(wrap) {
    syncShown(wrap);
    loadShown(wrap);
    const views = loadViews();
    for (const key of VIEW_KEYS) if (wrap.dataset[key] !== undefined) views[key] = wrap.dataset[key];
    try {
      sessionStorage.setItem(storeKey(), JSON.stringify(views));
    } catch (e) { /* private mode: views just reset on reload */ }
  }
  function restoreViews() {
    const views = loadViews();
    document.querySelectorAll(".preview-wrap").forEach(function (wrap) {
      for (const key of VIEW_KEYS) {
        if (views[key] && wrap.dataset[key] !== undefined) wrap.dataset[key] = views[key];
      }
      // A tab this page does not have (the agent preview has no Diff) shows Document.
      if (wrap.dataset.tab && !wrap.querySelector('[data-panel="' + wrap.dataset.tab + '"]')) {
        wrap.dataset.tab = "document";
      }
      syncShown(wrap);
    });
  }
  function camel(name) {
    return name.replace(/-([a-z])/g, function (_, c) { return c.toUpperCase(); });
  }

  // ARIA tabs: the tab matching the wrap's data-tab is aria-selected and the only one in
  // the Tab order (a roving tabindex); the arrow keys, Home and End move between tabs.
  function syncTabs() {
    document.querySelectorAll(".preview-wrap[data-tab]").forEach(function (wrap) {
      wrap.querySelectorAll('[role="tab"]').forEach(function (tab) {
        const selected = tab.dataset.tabButton === wrap.dataset.tab;
        tab.setAttribute("aria-selected", selected ? "true" : "false");
        tab.tabIndex = selected ? 0 : -1;
      });
    });
  }
  function selectTab(tab, focus) {
    const wrap = tab.closest(".preview-wrap");
    wrap.dataset.tab = tab.dataset.tabButton;
    saveViews(wrap);
    syncTabs();
    if (focus) tab.focus();
  }
  function tabKey(event, tab) {
    const tabs = Array.from(tab.closest('[role="tablist"]').querySelectorAll('[role="tab"]'));
    const at = tabs.indexOf(tab);
    const next = {
      ArrowRight: tabs[(at + 1) % tabs.length], ArrowLeft: tabs[(at - 1 + tabs.length) % tabs.length],
      Home: tabs[0], End: tabs[tabs.length - 1],
    }[event.key];
    if (!next) return;
    event.preventDefault();
    selectTab(next, true);
  }

  // -- the splitter between the form and the preview: a share of the form's width in
  //    percent, kept in localStorage (per browser); each side keeps at least MIN_PANE px.
  const SPLIT_KEY = "skill-editor.split";
  const MIN_PANE = 240;
  function splitBounds(form) {
    const width = form.getBoundingClientRect().width || 1;
    const low = Math.min(50, Math.max(20, Math.ceil(100 * MIN_PANE / width)));
    return [low, 100 - low];
  }
  function setSplit(form, percent, save) {
    const handle = form.querySelector(".pane-handle");
    if (!handle) return;
    const [low, high] = splitBounds(form);
    const value = Math.round(Math.min(high, Math.max(low, percent)));
    form.style.setProperty("--form-width", value + "%");
    handle.setAttribute("aria-valuemin", String(low));
    handle.setAttribute("aria-valuemax", String(high));
    handle.setAttribute("aria-valuenow", String(value));
    handle.setAttribute("aria-valuetext", "Editor " + value + "%, preview " + (100 - value) + "%");
    if (save) {
      try { localStorage.setItem(SPLIT_KEY, String(value)); } catch (e) { /* not remembered */ }
    }
  }
  function restoreSplit(form) {
    let stored = NaN;
    try { stored = parseFloat(localStorage.getItem(SPLIT_KEY)); } catch (e) { /* default */ }
    setSplit(form, isNaN(stored) ? 50 : stored, false);
  }
  function splitKey(event, handle) {
    const form = handle.closest("form");
    const now = parseFloat(handle.getAttribute("aria-valuenow")) || 50;
    const step = event.shiftKey ? 10 : 2;
    const [low, high] = splitBounds(form);
    const value = {ArrowLeft: now - step, ArrowRight: now + step, Home: low, End: high}[event.key];
    if (value === undefined) return;
    event.preventDefault();
    setSplit(form, value, true);
  }
  function startDrag(event, handle) {
    const form = handle.closest("form");
    event.preventDefault();
    handle.setPointerCapture(event.pointerId);
    handle.classList.add("dragging");
    const move = function (e) {
      const box = form.getBoundingClientRect();
      setSplit(form, 100 * (e.clientX - box.left) / box.width, false);
    };
    const stop = function () {
      handle.classList.remove("dragging");
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", stop);
      handle.removeEventListener("pointercancel", stop);
      setSplit(form, parseFloat(handle.getAttribute("aria-valuenow")), true);
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", stop);
    handle.addEventListener("pointercancel", stop);
  }

  // -- copy buttons
  function copyFrom(selector, button) {
    const source = document.querySelector(selector);
    if (!source) return;
    const text = "value" in source ? source.value : source.textContent;
    const done = function () {
      status("Copied.", "ok");
      if (button) { button.dataset.copied = "true"; setTimeout(function () { delete button.dataset.copied; }, 1500); }
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  }
  function fallbackCopy(text) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }

  // -- the editor: line numbers (of the bare textarea), cursor jumps, unsaved marker
  function editorForm() { return document.getElementById("skill-form"); }
  function contentArea() { return document.getElementById("content"); }

  function updateLineNumbers() {
    const area = contentArea();
    if (!area || area.codeEditor) return;  // the code editor has its own
    const gutter = area.parentElement.querySelector(".line-numbers");
    const count = area.value.split("\n").length;
    if (gutter.dataset.count === String(count)) return;
    let text = "";
    for (let i = 1; i <= count; i++) text += i + "\n";
    gutter.textContent = text;
    gutter.dataset.count = String(count);
  }
  function syncScroll() {
    const area = contentArea();
    if (area) area.parentElement.querySelector(".line-numbers").scrollTop = area.scrollTop;
  }

  // Put the cursor at the start of `line` (nothing selected) in the code editor
  // (code-editor.js), or without it in the textarea, and scroll it into view.
  function goToLine(line) {
    const area = contentArea();
    if (!area || !line) return;
    if (area.codeEditor) {
      area.codeEditor.goToLine(line);
      return;
    }
    const lines = area.value.split("\n");
    const n = Math.min(Math.max(1, line), lines.length);
    let start = 0;
    for (let i = 0; i < n - 1; i++) start += lines[i].length + 1;
    area.focus();
    area.setSelectionRange(start, start);
    const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 18;
    area.scrollTop = Math.max(0, (n - 3) * lineHeight);
    syncScroll();
  }
  function focusContent() {
    const area = contentArea();
    if (area.codeEditor) area.codeEditor.focus();
    else area.focus();
  }

  // The skill list's filter is a form of its own: a save (the form's submission, or
  // Ctrl/Cmd+S) carries what it holds, so the page after it keeps the list filtered.
  function copyFilter(form) {
    const filter = document.getElementById("skill-filter");
    const field = form.querySelector('input[name="q"]');
    if (filter && field) field.value = filter.value;
  }

  let submitting = false;
  function isDirty() {
    const form = editorForm();
    return !!form && edited(form);
  }
  function updateDirty() {
    const form = editorForm();
    if (!form) return;
    const dirty = isDirty();
    form.classList.toggle("dirty", dirty);
    document.title = (dirty ? "● " : "") + document.title.replace(/^● /, "");
  }

  // -- the skill list: drag to reorder with SortableJS (vendored, loaded on the editor
  //    page only). A drop posts the list's hidden `order` inputs, now in the new order,
  //    with the #skill-order form; the answer is the list as saved. Made again for each
  //    list htmx swaps in.
  function sortableList() {
    const list = document.getElementById("skill-items");
    if (!list || typeof Sortable === "undefined" || Sortable.get(list)) return;
    Sortable.create(list, {
      handle: ".drag-handle",
      draggable: ".skill",
      animation: 120,
      onEnd: function (event) {
        const form = document.getElementById("skill-order");
        if (form && event.oldIndex !== event.newIndex) form.requestSubmit();
      },
    });
  }
  document.addEventListener("htmx:afterSettle", sortableList);

  document.addEventListener("DOMContentLoaded", function () {
    restoreViews();
    syncTabs();
    sortableList();
    const form = editorForm();
    if (form) {
      restoreSplit(form);
      watchForms(document);
      updateLineNumbers();
      updateDirty();
      const area = contentArea();
      area.addEventListener("scroll", syncScroll);
      const match = /^#L(\d+)$/.exec(location.hash);
      if (match) goToLine(parseInt(match[1], 10));
      form.addEventListener("submit", function () { copyFilter(form); });
    }
  });

  document.addEventListener("input", function (event) {
    const form = editorForm();
    if (form && form.contains(event.target)) {
      if (event.target.id === "content") updateLineNumbers();
      updateDirty();
    }
  });
  document.addEventListener("change", function (event) {
    const form = editorForm();
    if (form && form.contains(event.target)) updateDirty();
  });

  // A menu (the account's, a <details class="menu">) closes on a click outside it and on
  // Escape, as menus do.
  function closeMenus(except) {
    document.querySelectorAll("details.menu[open]").forEach(function (menu) {
      if (menu !== except) menu.open = false;
    });
  }

  document.addEventListener("click", function (event) {
    closeMenus(event.target.closest("details.menu"));
    const tab = event.target.closest("[data-tab-button]");
    if (tab) {
      selectTab(tab, false);
      return;
    }
    const show = event.target.closest("[data-show-tab]");
    if (show) {
      const target = document.querySelector('[data-tab-button="' + show.dataset.showTab + '"]');
      if (target) { event.preventDefault(); selectTab(target, true); }
      return;
    }
    const skip = event.target.closest(".skip-link");
    if (skip && contentArea()) {
      // Focus the editor without adding #content to the address.
      event.preventDefault();
      focusContent();
      return;
    }
    const toggle = event.target.closest("[data-view-toggle]");
    if (toggle) {
      const wrap = toggle.closest(".preview-wrap");
      const key = camel(toggle.dataset.viewToggle);
      const values = toggle.dataset.values.split(" ");
      wrap.dataset[key] = values[(values.indexOf(wrap.dataset[key]) + 1) % values.length];
      saveViews(wrap);
      return;
    }
    const copy = event.target.closest("[data-copy]");
    if (copy) {
      copyFrom(copy.dataset.copy, copy);
      return;
    }
    const jump = event.target.closest("a[data-skill]");
    const form = editorForm();
    if (jump && form && jump.dataset.skill === form.dataset.current && jump.dataset.line) {
      event.preventDefault();
      goToLine(parseInt(jump.dataset.line, 10));
    }
  });

  document.addEventListener("pointerdown", function (event) {
    const handle = event.target.closest(".pane-handle");
    if (handle && event.button === 0) startDrag(event, handle);
  });
  // The bounds depend on the window's width: apply the remembered width within the new ones.
  window.addEventListener("resize", function () {
    const form = editorForm();
    if (form) restoreSplit(form);
  });

  document.addEventListener("keydown", function (event) {
    const menu = event.key === "Escape" && event.target.closest && event.target.closest("details.menu[open]");
    if (menu) {
      menu.open = false;
      menu.querySelector("summary").focus();
      return;
    }
    const tab = event.target.closest && event.target.closest('[role="tab"]');
    if (tab && !event.altKey && !event.ctrlKey && !event.metaKey) {
      tabKey(event, tab);
      return;
    }
    const handle = event.target.closest && event.target.closest(".pane-handle");
    if (handle && !event.altKey && !event.ctrlKey && !event.metaKey) {
      splitKey(event, handle);
      return;
    }
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "s") {
      const form = editorForm() || watchedForm(event.target);
      if (!form) return;
      event.preventDefault();
      if (form === editorForm()) {
        saveInPlace(form);
      } else {
        submitting = true;
        form.requestSubmit();
      }
    }
  });

  // -- Ctrl/Cmd+S in the editor saves without leaving the page, so the focus, the cursor,
  //    the scroll position and the textarea's undo history stay. The server answers a
  //    successful save with JSON; anything else (a rename, which moves the page, errors to
  //    show, a conflict) is sent again as the form's ordinary submission, whose page says
  //    what happened and keeps the author's text.
  function saveInPlace(form, retried) {
    copyFilter(form);
    const data = new FormData(form);
    const fallback = function () { submitting = true; form.requestSubmit(); };
    if (data.get("d_tag") !== form.dataset.current) { fallback(); return; }
    status("Saving…", "");
    fetch(form.action, {method: "POST", body: data, credentials: "same-origin",
                        headers: {"X-Save-In-Place": "1", "Accept": "application/json"}})
      .then(function (response) {
        const token = response.headers.get(FRESH_TOKEN);
        if (response.status === 400 && token && !retried) {
          renewToken(token);
          saveInPlace(form, true);
          return null;
        }
        if (response.status === 401) { signedOut(response.headers.get(SIGN_IN)); return null; }
        const json = (response.headers.get("Content-Type") || "").indexOf("application/json") >= 0;
        if (!response.ok || !json) { fallback(); return null; }
        return response.json();
      })
      .then(function (outcome) { if (outcome) saved(form, outcome); })
      .catch(function () { status("Not saved: the server cannot be reached. Your text is still here.", "error"); });
  }
  function saved(form, outcome) {
    form.querySelector('input[name="version"]').value = String(outcome.version);
    // The note was this save's: the next one starts without.
    const note = form.querySelector('input[name="note"]');
    if (note && outcome.changed) note.value = "";
    const shown = form.querySelector(".form-version");
    if (shown) shown.textContent = "version " + outcome.version;
    delete form.dataset.dirty;
    watched.set(form, fieldsOf(form));
    updateDirty();
    const el = document.getElementById("status");
    if (el) {
      dropFlashes();
      el.textContent = outcome.message + " ";
      el.dataset.kind = outcome.errors ? "error" : "ok";
      if (outcome.errors) {
        const link = document.createElement("a");
        link.href = "#problems";
        link.dataset.showTab = "problems";
        link.textContent = "Show the problems";
        el.appendChild(link);
      }
    }
    // The saved skills changed: the preview compares the draft with them again.
    document.body.dispatchEvent(new Event("workspace-changed"));
  }

  // -- unsaved changes, tracked once for every form marked data-warn-unsaved (the skill
  //    editor's, tools, bindings, scenarios, settings, new skill): each is compared with
  //    what it held when the page (or the swap that brought it) was shown, or counts as
  //    edited from the start when marked data-dirty (sent back with errors). `data-watch`
  //    names the fields that count (the editor's skill fields, not its picker or the
  //    open tab). Leaving a page with an edited form asks first.
  const watched = new Map();
  function fieldsOf(form) {
    const only = form.dataset.watch ? form.dataset.watch.split(" ") : null;
    const entries = [];
    new FormData(form).forEach(function (value, key) {
      if (key !== "csrf_token" && typeof value === "string" && (!only || only.indexOf(key) >= 0)) {
        entries.push(key + "=" + value);
      }
    });
    return entries.join("\u0000");
  }
  function edited(form) {
    return watched.has(form) && fieldsOf(form) !== watched.get(form);
  }
  function watchForms(root) {
    if (!root.querySelectorAll) return;
    root.querySelectorAll("form[data-warn-unsaved]").forEach(function (form) {
      if (watched.has(form)) return;
      watched.set(form, form.dataset.dirty === "true" ? null : fieldsOf(form));
      form.addEventListener("submit", function (event) {
        // "Whole body" posts the draft to a new tab: this page stays, edits and all.
        if (event.submitter && event.submitter.formTarget === "_blank") return;
        submitting = true;
      });
    });
  }
  function watchedForm(element) {
    const form = element && element.closest ? element.closest("form[data-warn-unsaved]") : null;
    return form && watched.has(form) ? form : null;
  }
  function editedForms() {
    return Array.from(watched.keys()).filter(function (form) {
      return document.contains(form) && edited(form);
    });
  }
  document.addEventListener("DOMContentLoaded", function () { watchForms(document); });
  document.addEventListener("htmx:afterSettle", function (event) { watchForms(event.detail.elt || document); });

  window.addEventListener("beforeunload", function (event) {
    if (!submitting && editedForms().length) {
      event.preventDefault();
      event.returnValue = "";
    }
  });

  window.addEventListener("pageshow", function () { submitting = false; });

  // -- htmx: say when a preview request fails instead of silently showing stale output
  // -- an expired CSRF token (the session ended, the server restarted): the refusal
  //    carries the session's token; every form of the page takes it, and the request is
  //    sent once more, so nothing typed is lost and nothing needs a reload.
  const FRESH_TOKEN = "X-CSRF-Fresh-Token";
  function renewToken(token) {
    document.querySelectorAll('input[name="csrf_token"]').forEach(function (input) { input.value = token; });
    const headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
    for (const name of Object.keys(headers)) headers[name] = token;
    document.body.setAttribute("hx-headers", JSON.stringify(headers));
  }
  let renewed = 0;
  document.addEventListener("htmx:responseError", function (event) {
    const xhr = event.detail.xhr;
    const token = xhr.getResponseHeader(FRESH_TOKEN);
    if (xhr.status === 400 && token && renewed < 3) {
      renewed += 1;
      renewToken(token);
      status("The page's security token was renewed; sending again.", "", "preview");
      // The same event again: "change" for typing (an `input changed` trigger would see no
      // change), the form's submit for a button.
      const config = event.detail.requestConfig || {};
      const type = config.triggeringEvent ? config.triggeringEvent.type : "change";
      htmx.trigger(event.detail.elt, type === "input" ? "change" : type);
      return;
    }
    if (xhr.status === 401) { signedOut(xhr.getResponseHeader(SIGN_IN), "preview"); return; }
    const reason = xhr.status === 413 ? "the skill is too large"
      : xhr.status === 400 ? "the request was refused; your text is still here"
      : xhr.statusText || "server error";
    status("Preview not updated (" + xhr.status + ": " + reason + ").", "error", "preview");
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.successful) renewed = 0;
  });
  // A fold of the editor's Document tab opened in place stays open: the form keeps it
  // (`data-fold`: its view, range and the document's length) in its `opened` field, which
  // each preview request sends, and the server shows those folds open again. Kept before
  // the swap: the answer replaces the fold's link, whose later events reach no listener.
  document.addEventListener("htmx:beforeSwap", function (event) {
    const detail = event.detail;
    if (detail.shouldSwap && !detail.isError) keepOpened(detail.requestConfig && detail.requestConfig.elt);
  });
  const OPENED_MAX = 64;
  function keepOpened(link) {
    const form = editorForm();
    const field = form && form.querySelector("input[data-opened]");
    if (!field || !link || !link.dataset || !link.dataset.fold) return;
    const opened = field.value.split(" ").filter(Boolean);
    if (opened.indexOf(link.dataset.fold) < 0) opened.push(link.dataset.fold);
    field.value = opened.slice(-OPENED_MAX).join(" ");
  }
  document.addEventListener("htmx:sendError", function () {
    status("Preview not updated: the server cannot be reached.", "error", "preview");
  });
  // A swapped preview brings new tab buttons: give them the chosen tab's state (htmx
  // itself keeps the focus on a tab, which has the same id in the new content).
  document.addEventListener("htmx:afterSwap", function (event) {
    const el = document.getElementById("status");
    if (event.detail.target && event.detail.target.id === "preview" && el && el.dataset.about === "preview") status("");
    syncTabs();
  });
  // The skill editor's frontmatter dialog: htmx puts the fragment in, this shows it (a
  // button of the fragment closes it).
  document.addEventListener("htmx:afterSwap", function (event) {
    const dialog = event.detail.target;
    if (dialog && dialog.id === "frontmatter-dialog" && !dialog.open) dialog.showModal();
  });
})();
