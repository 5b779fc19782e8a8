/* Layout help that needs the page as laid out (tests/browser/test_layout.py, test_a11y.py):

   1. Linked tabs that cannot follow the reader (mkdocs.yml: content.tabs.link). Material remembers every tab label a reader picks (localStorage "<site path>.__tabs", most recent
   first) and shows, in each tab set, the first remembered label that the set has. A set without the
   reader's latest pick falls back to another tab without a word: after picking Accelerate, a step that
   has only Trainer and PyTorch tabs shows Trainer. This script says so in that set, under its labels:
   "No Accelerate version of this step; showing Trainer." (a role=status line, so screen readers hear it
   when it changes).

   A pick applies to the sets that share a label with the set it was made in: picking Accelerate among
   Trainer / Accelerate / PyTorch concerns a Trainer / PyTorch set, not a PyTorch (framework) / TensorFlow
   one. So each pick is kept with its set's labels ("<site path>.__perfdocs_tabs", Material's storage
   helpers). Material switches the other sets by clicking them and marks those clicks with
   data-md-switching; only the reader's own choice is recorded.

   2. Tables that scroll (Material wraps each in .md-typeset__scrollwrap; docs/assets/perfdocs.css makes it
   scroll down too on a phone) are reachable from the keyboard, as Material's code blocks are: a wrapper
   whose table does not fit gets tabindex=0 and a region name, and loses them again once it fits.

   3. Embeds (hooks/perfdocs/embeds.py): a video or a Spaces demo is a placeholder that has requested nothing
   from its host; "Load it here" puts the iframe in its place, from the address the build checked against
   extra.perfdocs.embed_hosts (only the dialect writes .perfdocs-embed: authors' HTML may not). One listener on
   the document serves every page, also those instant navigation swaps in.

   1 and 2 run again on every page that instant navigation swaps in (Material's document$). */
(function () {
  "use strict";

  var KEY = "__perfdocs_tabs";
  var KEEP = 12;

  function load() {
    try {
      var picks = typeof __md_get === "function" ? __md_get(KEY) : null;
      return Array.isArray(picks) ? picks.filter(function (p) { return p && typeof p.label === "string"; }) : [];
    } catch (error) {
      return [];
    }
  }

  function save(picks) {
    if (typeof __md_set === "function") __md_set(KEY, picks.slice(0, KEEP));
  }

  function labelText(label) {
    return label.textContent.trim();
  }

  function labelsOf(set) {
    return Array.prototype.map.call(set.querySelectorAll(":scope > .tabbed-labels > label"), labelText);
  }

  function labelFor(set, input) {
    return set.querySelector(':scope > .tabbed-labels > label[for="' + input.id + '"]');
  }

  // The latest pick that concerns this set: made in a set sharing at least one label with it.
  function pickFor(labels, picks) {
    for (var i = 0; i < picks.length; i++) {
      var others = picks[i].labels || [picks[i].label];
      for (var j = 0; j < others.length; j++) {
        if (labels.indexOf(others[j]) !== -1) return picks[i].label;
      }
    }
    return null;
  }

  function refreshTabs() {
    var picks = load();
    var sets = document.querySelectorAll(".md-typeset .tabbed-set");
    for (var i = 0; i < sets.length; i++) {
      var set = sets[i];
      var labels = labelsOf(set);
      var wanted = pickFor(labels, picks);
      var checked = set.querySelector(":scope > input:checked");
      var shown = checked && labelFor(set, checked);
      // Material leaves the sets in a closed <details> as they were: show the reader's pick there too.
      var index = wanted ? labels.indexOf(wanted) : -1;
      if (index !== -1 && shown && labelText(shown) !== wanted) {
        var label = set.querySelectorAll(":scope > .tabbed-labels > label")[index];
        var input = label && document.getElementById(label.htmlFor);
        if (input) { input.checked = true; checked = input; shown = label; }
      }
      var hint = set.querySelector(":scope > .perfdocs-tab-hint");
      var text = "";
      if (wanted && shown && labels.indexOf(wanted) === -1) {
        text = "No " + wanted + " version of this step; showing " + labelText(shown) + ".";
      }
      if (!text) {
        if (hint) hint.remove();
        continue;
      }
      if (!hint) {
        hint = document.createElement("p");
        hint.className = "perfdocs-tab-hint";
        hint.setAttribute("role", "status");
        var content = set.querySelector(":scope > .tabbed-content");
        set.insertBefore(hint, content);
      }
      if (hint.textContent !== text) hint.textContent = text;
    }
  }

  // Capture phase: runs before Material's own listener on the input, which removes data-md-switching.
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!(input instanceof HTMLInputElement) || !input.parentElement) return;
    var set = input.parentElement;
    if (!set.classList.contains("tabbed-set")) return;
    var label = labelFor(set, input);
    if (label && !label.hasAttribute("data-md-switching")) {
      var chosen = labelText(label);
      var picks = load().filter(function (p) { return p.label !== chosen; });
      picks.unshift({ label: chosen, labels: labelsOf(set) });
      save(picks);
    }
    setTimeout(refreshTabs, 0); // after Material has switched the other sets
  }, true);

  function refreshTables() {
    var wraps = document.querySelectorAll(".md-typeset .md-typeset__scrollwrap");
    for (var i = 0; i < wraps.length; i++) {
      var wrap = wraps[i];
      var scrolls = wrap.scrollWidth > wrap.clientWidth + 1 || wrap.scrollHeight > wrap.clientHeight + 1;
      if (scrolls && !wrap.hasAttribute("tabindex")) {
        var heads = Array.prototype.map.call(wrap.querySelectorAll("thead th"), function (th) {
          return th.textContent.trim();
        }).filter(Boolean);
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", "Table" + (heads.length ? ": " + heads.slice(0, 3).join(", ") : "")
          + (heads.length > 3 ? ", ..." : "") + " (scrolls)");
      } else if (!scrolls && wrap.getAttribute("role") === "region") {
        wrap.removeAttribute("tabindex");
        wrap.removeAttribute("role");
        wrap.removeAttribute("aria-label");
      }
    }
  }

  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("a.perfdocs-embed-load") : null;
    var box = link ? link.closest("div.perfdocs-embed") : null;
    var address = box ? box.getAttribute("data-perfdocs-embed") || "" : "";
    if (!box || address.indexOf("https://") !== 0) return;
    event.preventDefault();
    var frame = document.createElement("iframe");
    frame.src = address;
    frame.title = box.getAttribute("data-perfdocs-title") || "Embedded content";
    frame.setAttribute("allow", "encrypted-media; picture-in-picture; fullscreen");
    frame.setAttribute("allowfullscreen", "");
    frame.setAttribute("referrerpolicy", "strict-origin-when-cross-origin");
    // no navigating this page away, no access to it: the embed runs as its own site
    frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-popups allow-forms allow-presentation");
    box.replaceChildren(frame);
    box.classList.add("perfdocs-embed--loaded");
    frame.focus();
  });

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(refreshTables, 150);
  });

  function refresh() {
    refreshTabs();
    // Material wraps the tables while it mounts the page's components: look once they are in place.
    requestAnimationFrame(function () { requestAnimationFrame(refreshTables); });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(refresh);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", refresh);
  } else {
    refresh();
  }
})();
