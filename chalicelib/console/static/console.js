// The console's one script. It only enhances: every form works the same without it.
// - A Markdown field previews as the user types: the server renders it (the same sanitizer
//   as the public page), through the form's own Preview (data-live-preview names where the
//   answer goes) or the console's Markdown preview (data-preview-url).
// - The settings form (data-preview names its frame) previews the public page as the user
//   types, by posting the form's Preview into the frame, as its Preview button does.
// - The overview's statuses (data-live-statuses) save as soon as one is chosen: the form is
//   posted with that component's status alone, and the section is replaced by the one the
//   server answers with, its notice read out; without the script "Save statuses" does it.
"use strict";

(function () {
  var WAIT_MS = 500;

  function debounced(run) {
    var timer = null;
    return function () {
      clearTimeout(timer);
      timer = setTimeout(run, WAIT_MS);
    };
  }

  function previewMarkdown(field) {
    var output = document.getElementById(field.dataset.livePreview);
    var form = field.form;
    var url = field.dataset.previewUrl;
    var sent = 0;
    var run = debounced(function () {
      var body = new FormData(url ? undefined : form);
      if (url) {
        body.append("csrf", form.elements.csrf.value);
        body.append("text", field.value);
      } else {
        body.append("action", "preview");
      }
      var number = ++sent;
      fetch(url || form.action, { method: "POST", body: new URLSearchParams(body), credentials: "same-origin" })
        .then(function (answer) { return answer.ok ? answer.text() : Promise.reject(answer.status); })
        .then(function (text) {
          if (number !== sent) return; // a later keystroke's answer is on its way
          var page = new DOMParser().parseFromString(text, "text/html");
          var rendered = page.querySelector("[data-preview-output]");
          if (!rendered) return;
          output.innerHTML = rendered.innerHTML; // sanitized by the server's Markdown renderer
          var box = output.closest("[data-preview-box]");
          if (box) box.hidden = field.value.trim() === "";
        })
        .catch(function () { /* the Preview button still works */ });
    });
    field.addEventListener("input", run);
  }

  function previewSettings(form) {
    var button = form.querySelector("button[formtarget='" + form.dataset.preview + "']");
    if (!button || !form.requestSubmit) return;
    var run = debounced(function () { form.requestSubmit(button); });
    form.addEventListener("input", run);
    form.addEventListener("change", run);
  }

  function saveStatusAtOnce(event) {
    var select = event.target;
    var form = select.form;
    if (!form || !form.hasAttribute("data-live-statuses") || select.tagName !== "SELECT") return;
    var body = new URLSearchParams();
    body.append("csrf", form.elements.csrf.value);
    body.append(select.name, select.value);
    var section = form.closest("section");
    section.setAttribute("aria-busy", "true");
    fetch(form.action, { method: "POST", body: body, credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.text() : Promise.reject(answer.status); })
      .then(function (text) {
        var page = new DOMParser().parseFromString(text, "text/html");
        var fresh = page.querySelector("section[aria-labelledby='components']");
        var notice = page.querySelector(".notice");
        if (!fresh) return Promise.reject("no components section");
        if (notice) {
          var said = document.createElement("p");
          said.className = "notice";
          said.setAttribute("role", "status");
          said.textContent = notice.textContent;
          fresh.insertBefore(said, fresh.querySelector("h2").nextSibling);
        }
        section.replaceWith(document.importNode(fresh, true));
        var again = document.getElementById(select.id);
        if (again) again.focus(); // the keyboard stays where it was
      })
      .catch(function () { form.submit(); }); // as without the script
  }

  document.addEventListener("change", saveStatusAtOnce);
  document.querySelectorAll("textarea[data-live-preview]").forEach(previewMarkdown);
  document.querySelectorAll("form[data-preview]").forEach(previewSettings);
})();
