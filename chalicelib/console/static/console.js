// The console's one script. It only enhances: every form works the same without it.
// - A Markdown field previews as the user types: the server renders it (the same sanitizer
//   as the public page), through the form's own Preview (data-live-preview names where the
//   answer goes) or the console's Markdown preview (data-preview-url).
// - The settings form (data-preview names its frame) previews the public page as the user
//   types, by posting the form's Preview into the frame, as its Preview button does.
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

  document.querySelectorAll("textarea[data-live-preview]").forEach(previewMarkdown);
  document.querySelectorAll("form[data-preview]").forEach(previewSettings);
})();
