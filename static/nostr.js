/* Signing an agent's events in the browser with a NIP-07 extension (window.nostr).
 *
 * The page's publish form names where to get the unsigned events and where to send
 * them signed; the server checks that what comes back is exactly those events, signed
 * by the agent's key, before any relay sees them. Nothing here ever sees a secret key.
 * "Use my extension's key" fills the npub field with the extension's public key (hex,
 * which the server accepts as well as an npub); it is enabled once this script runs.
 */
(function () {
  "use strict";

  function say(text, isError) {
    var status = document.getElementById("nostr-status");
    if (!status) { return; }
    status.textContent = text;
    status.className = isError ? "form-errors" : "note";
  }

  function signer() {
    if (!window.nostr || typeof window.nostr.signEvent !== "function") {
      say("No Nostr signer found: this browser has no NIP-07 extension (such as nos2x or " +
          "Alby). Install one, or publish from a terminal with skill-editor nostr publish.", true);
      return null;
    }
    return window.nostr;
  }

  async function publish(form) {
    var nostr = signer();
    if (!nostr) { return; }
    var button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      var pubkey = await nostr.getPublicKey();
      if (pubkey !== form.dataset.pubkey) {
        say("Your extension's key is not this agent's key: switch to the agent's key in the extension.", true);
        return;
      }
      var snapshot = form.elements.snapshot.value;
      var answer = await fetch(form.dataset.eventsUrl + "?snapshot=" + encodeURIComponent(snapshot),
                               {headers: {"Accept": "application/json"}, credentials: "same-origin"});
      if (!answer.ok) { say("The events could not be prepared (" + answer.status + ").", true); return; }
      var prepared = await answer.json();
      var signed = [];
      for (var i = 0; i < prepared.events.length; i++) {
        say("Signing event " + (i + 1) + " of " + prepared.events.length + "…", false);
        signed.push(await nostr.signEvent(prepared.events[i]));
      }
      say("Sending " + signed.length + " events to the relays…", false);
      var sent = await fetch(form.dataset.publishUrl, {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "HX-Request": "true",
                  "X-CSRFToken": form.elements.csrf_token.value},
        body: JSON.stringify({snapshot: Number(snapshot), events: signed})
      });
      document.getElementById("nostr-report").innerHTML = await sent.text();
      say(sent.ok ? "Sent: what each relay said is below." : "Nothing was sent: see below.", !sent.ok);
    } catch (error) {
      say("Signing stopped: " + (error && error.message ? error.message : error), true);
    } finally {
      button.disabled = false;
    }
  }

  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-nostr-publish]");
    if (!form) { return; }
    event.preventDefault();
    publish(form);
  });

  // The button comes disabled and is enabled here: a click before this script has run
  // (it is deferred) would otherwise do nothing, and without JavaScript it can do nothing.
  function enable(root) {
    root.querySelectorAll("[data-nostr-use-key]").forEach(function (button) {
      button.disabled = false;
    });
  }
  enable(document);
  document.addEventListener("htmx:load", function (event) { enable(event.target); });

  document.addEventListener("click", async function (event) {
    if (!event.target.closest("[data-nostr-use-key]")) { return; }
    var nostr = signer();
    if (!nostr) { return; }
    try {
      document.getElementById("nostr-npub").value = await nostr.getPublicKey();
      say("Filled in your extension's public key: save to keep it.", false);
    } catch (error) {
      say("The extension gave no key: " + (error && error.message ? error.message : error), true);
    }
  });
})();
