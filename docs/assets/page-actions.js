/* Page actions (overrides/partials/actions.html, report.html): "Copy page" puts the page's Markdown on the
   clipboard; "Report a problem" opens a new issue that names the section the reader is on. One listener on
   the document, so pages swapped in by instant navigation work too. Nothing here talks to another host: the
   Markdown comes from this site, and the issue opens only when the reader follows the link. */
(function () {
  "use strict";

  function markdownOf(button) {
    var url = new URL(button.getAttribute("data-perfdocs-copy-page"), document.baseURI);
    return fetch(url, { credentials: "same-origin" }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    });
  }

  // ClipboardItem with a promise keeps the click's permission in Safari while the fetch runs; where that is
  // not supported, the text is written once it has arrived.
  function writeClipboard(text) {
    if (!navigator.clipboard) return Promise.reject(new Error("no clipboard"));
    if (window.ClipboardItem && navigator.clipboard.write) {
      try {
        var blob = text.then(function (value) { return new Blob([value], { type: "text/plain" }); });
        return navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })]).catch(function () {
          return text.then(function (value) { return navigator.clipboard.writeText(value); });
        });
      } catch (error) { /* a browser without promises in ClipboardItem: write the text below */ }
    }
    return text.then(function (value) { return navigator.clipboard.writeText(value); });
  }

  function say(button, label, status) {
    var actions = button.closest(".perfdocs-page-actions");
    var shown = button.querySelector("[data-perfdocs-copy-label]");
    var live = actions && actions.querySelector("[data-perfdocs-copy-status]");
    if (shown) shown.textContent = label;
    if (live) live.textContent = status;
    clearTimeout(button.perfdocsReset);
    button.perfdocsReset = setTimeout(function () {
      if (shown) shown.textContent = "Copy page";
      if (live) live.textContent = "";
    }, 2500);
  }

  function copyPage(button) {
    var text = markdownOf(button);
    writeClipboard(text).then(
      function () { say(button, "Copied", "Page copied as Markdown"); },
      function () { say(button, "Copy failed", "Could not copy; the Markdown link next to the button opens it"); }
    );
  }

  // The section being read: the last h2/h3 whose top has scrolled above a third of the window.
  function currentSection() {
    var headings = document.querySelectorAll(".md-content article :is(h2, h3)[id]");
    var found = null;
    var line = window.innerHeight / 3;
    for (var i = 0; i < headings.length; i++) {
      if (headings[i].getBoundingClientRect().top > line) break;
      found = headings[i];
    }
    if (!found) return null;
    var copy = found.cloneNode(true);
    copy.querySelectorAll(".headerlink").forEach(function (link) { link.remove(); });
    return { id: found.id, text: copy.textContent.replace(/\s+/g, " ").trim() };
  }

  function prefill(link) {
    var url = new URL(link.href);
    var section = currentSection();
    var page = location.href.split("#")[0];
    var title = link.getAttribute("data-perfdocs-page-title");
    url.searchParams.set("title", "Docs: " + title + (section ? " > " + section.text : ""));
    url.searchParams.set(
      "body",
      "Page: " + page + (section ? "#" + section.id + "\nSection: " + section.text : "") +
        "\n\nWhat is wrong, missing or unclear:\n\n"
    );
    link.href = url.toString();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-perfdocs-copy-page]");
    if (button) {
      event.preventDefault();
      copyPage(button);
      return;
    }
    var report = event.target.closest && event.target.closest("[data-perfdocs-report]");
    if (report) prefill(report);
  });
  // Before a middle click, a "copy link address" or a keyboard user reaching the link, too.
  ["pointerdown", "focusin", "contextmenu"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var report = event.target.closest && event.target.closest("[data-perfdocs-report]");
      if (report) prefill(report);
    });
  });
})();
