/* Layout help that needs the page as laid out (tests/browser/test_layout.py, test_a11y.py):

   1. Linked tabs that cannot follow the reader (mkdocs.yml: content.tabs.link). Material remembers every tab label a reader picks (localStorage "<site path>.__tabs", most recent
   first) and shows, in each tab set, the first remembered label that the set has. A set without the
   reader's latest pick falls back to another tab without a word: after picking Accelerate, a step that
   has only Trainer and PyTorch tabs shows Trainer. This script says so in that set, under its labels:
   "No Accelerate version of this step; showing Trainer." (a role=status line, so screen readers hear it
   when it changes). A set inside a closed <details> (the collapsed explanations) follows the reader's pick as
   the others do; Material misses it.

   A pick applies to the sets that share a label with the set it was made in: picking Accelerate among
   Trainer / Accelerate / PyTorch concerns a Trainer / PyTorch set, not a PyTorch (framework) / TensorFlow
   one. So each pick is kept with its set's labels ("<site path>.__perfdocs_tabs", Material's storage
   helpers). Material switches the other sets by clicking them and marks those clicks with
   data-md-switching; only the reader's own choice is recorded.

   2. Boxes that scroll sideways, reachable from the keyboard and announced once each (axe-core at 390 and
   1280 px, tests/browser/test_a11y.py):
   - a table's box (Material wraps each table in .md-typeset__scrollwrap) whose table does not fit gets
     tabindex=0, role=region and a name unique on the page ("Table: Format, Weights, Speed (scrolls)", then
     the section it sits in, then a number), and loses them again once it fits. It also says which way there
     is more to see, in data-perfdocs-more ("right", "left"), which docs/assets/perfdocs.css draws as a shade
     on that edge, and whether its first column may stay put while the rest scrolls (data-perfdocs-stick: the
     column takes at most 40 % of the box and leaves room for each other column beside it);
   - a code block that scrolls gets tabindex=0 on every device: Material gives it one only where the pointer
     can hover, so on a phone or a tablet with a keyboard the code past the edge could not be reached. When
     Material takes it away again, it is put back while the block still scrolls.
   Both are measured again whenever such a box changes size (a tab picked, a <details> opened, the screen
   turned), not on every frame.

   3. Landmarks that tell themselves apart (axe landmark-unique): Material's copy button sits in a <nav> in
   every code block (a "navigation" landmark per block) and is no landmark here (role=none); a section of the
   navigation that has an index page (navigation.indexes) is labelled by an arrow with no text (the toggle
   that opens it, too, has no name), and the arrow gets the section's title as text for screen readers.

   4. Diagrams (docs/assets/diagrams/*.svg, drawn for a 790 px column): on a screen narrower than 45em
   (Material's phone layout) each is shown from its narrow drawing, diagrams/narrow/<same name>, whose text
   stays at 12 px or more there (tests/browser/test_phone.py); the <img> goes into a <picture> whose <source>
   the browser picks by the screen's width, also when it is turned.

   5. Embeds (hooks/perfdocs/embeds.py): a video or a Spaces demo is a placeholder that has requested nothing
   from its host; "Load it here" puts the iframe in its place, from the address the build checked against
   extra.perfdocs.embed_hosts (only the dialect writes .perfdocs-embed: authors' HTML may not). One listener on
   the document serves every page, also those instant navigation swaps in.

   1 to 4 run again on every page that instant navigation swaps in (Material's document$). */
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

  // Material shows the reader's remembered tab in each set (an inline script at load, and a click on the sets
  // sharing a label when the reader picks one), matching labels by innerText, which is "" for a label inside a
  // closed <details>: the sets in collapsed explanations kept their first tab. Same rule, by textContent.
  function followRemembered() {
    var remembered = null;
    try {
      remembered = typeof __md_get === "function" ? __md_get("__tabs") : null;
    } catch (error) {
      return;
    }
    if (!Array.isArray(remembered)) return;
    var sets = document.querySelectorAll(".md-typeset details:not([open]) .tabbed-set");
    for (var i = 0; i < sets.length; i++) {
      var labels = sets[i].querySelectorAll(":scope > .tabbed-labels > label");
      var label = null;
      for (var r = 0; r < remembered.length && !label; r++) {
        for (var l = 0; l < labels.length; l++) {
          if (labelText(labels[l]) === remembered[r]) { label = labels[l]; break; }
        }
      }
      var input = label && document.getElementById(label.htmlFor);
      if (input && !input.checked) {
        label.setAttribute("data-md-switching", ""); // Material's mark: not the reader's own pick
        input.click();
      }
    }
  }

  function refreshTabs() {
    followRemembered();
    var picks = load();
    var sets = document.querySelectorAll(".md-typeset .tabbed-set");
    for (var i = 0; i < sets.length; i++) {
      var set = sets[i];
      var labels = labelsOf(set);
      var wanted = pickFor(labels, picks);
      var checked = set.querySelector(":scope > input:checked");
      var shown = checked && labelFor(set, checked);
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

  var NARROW = "(max-width: 44.9375em)";

  function scrollsSideways(box) {
    return box.scrollWidth > box.clientWidth + 1;
  }

  function headingText(heading) {
    var copy = heading.cloneNode(true);
    copy.querySelectorAll(".headerlink").forEach(function (link) { link.remove(); });
    return copy.textContent.trim();
  }

  // The title of the section an element sits in: the last h2-h4 of the article before it.
  function sectionOf(element) {
    var found = "";
    var headings = document.querySelectorAll(".md-content .md-typeset :is(h2, h3, h4)");
    for (var i = 0; i < headings.length; i++) {
      if (!(headings[i].compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
      found = headingText(headings[i]);
    }
    return found;
  }

  function tableName(wrap) {
    var heads = Array.prototype.map.call(wrap.querySelectorAll("thead th"), function (th) {
      return th.textContent.trim();
    }).filter(Boolean);
    return "Table" + (heads.length ? ": " + heads.slice(0, 3).join(", ") : "") + (heads.length > 3 ? ", ..." : "");
  }

  // Which ways a box that scrolls sideways has more to show: "left", "right", both or nothing.
  function more(wrap) {
    var ways = [];
    if (wrap.scrollLeft > 1) ways.push("left");
    if (wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1) ways.push("right");
    return ways.join(" ");
  }

  // Whether the first column may stay put as the rest scrolls (docs/assets/perfdocs.css): it takes at most 40 %
  // of the box, and every other column fits in the room beside it, so none is always partly under it.
  var STICK_SHARE = 0.4;

  function leavesRoom(wrap) {
    var table = wrap.querySelector("table");
    var row = table && table.rows[0];
    if (!row || row.cells.length < 2) return false;
    var inner = wrap.querySelector(".md-typeset__table") || table;
    var first = row.cells[0].getBoundingClientRect().width;
    var room = wrap.clientWidth - first - parseFloat(getComputedStyle(inner).paddingRight || "0");
    for (var i = 1; i < row.cells.length; i++) {
      if (row.cells[i].getBoundingClientRect().width > room + 0.5) return false;
    }
    return first <= STICK_SHARE * wrap.clientWidth;
  }

  function showMore(wrap) {
    var ways = scrollsSideways(wrap) ? more(wrap) : "";
    if (ways) {
      if (wrap.getAttribute("data-perfdocs-more") !== ways) wrap.setAttribute("data-perfdocs-more", ways);
    } else if (wrap.hasAttribute("data-perfdocs-more")) {
      wrap.removeAttribute("data-perfdocs-more");
    }
  }

  var watched = typeof WeakSet === "function" ? new WeakSet() : null;
  var resized = typeof ResizeObserver === "function" ? new ResizeObserver(function () { refreshBoxes(); }) : null;

  function watch(box) {
    if (!watched || watched.has(box)) return;
    watched.add(box);
    if (resized) resized.observe(box);
    if (box.classList.contains("md-typeset__scrollwrap")) {
      box.addEventListener("scroll", function () { showMore(box); }, { passive: true });
    }
  }

  function refreshTables() {
    var wraps = document.querySelectorAll(".md-typeset .md-typeset__scrollwrap");
    var named = [];
    for (var i = 0; i < wraps.length; i++) {
      var wrap = wraps[i];
      watch(wrap);
      showMore(wrap);
      var stick = scrollsSideways(wrap) && leavesRoom(wrap);
      if (stick !== wrap.hasAttribute("data-perfdocs-stick")) wrap.toggleAttribute("data-perfdocs-stick", stick);
      if (scrollsSideways(wrap)) {
        named.push({ wrap: wrap, name: tableName(wrap) });
      } else if (wrap.getAttribute("role") === "region") {
        wrap.removeAttribute("tabindex");
        wrap.removeAttribute("role");
        wrap.removeAttribute("aria-label");
      }
    }
    // Two regions with one name are one landmark to a screen reader: add the section, then a number.
    var counts = {};
    named.forEach(function (n) { counts[n.name] = (counts[n.name] || 0) + 1; });
    named.forEach(function (n) {
      if (counts[n.name] > 1) {
        var section = sectionOf(n.wrap);
        if (section) n.name += " in " + section;
      }
    });
    counts = {};
    named.forEach(function (n) { counts[n.name] = (counts[n.name] || 0) + 1; });
    var seen = {};
    named.forEach(function (n) {
      var label = n.name;
      if (counts[label] > 1) {
        seen[label] = (seen[label] || 0) + 1;
        label += " (" + seen[label] + ")";
      }
      label += " (scrolls)";
      if (n.wrap.getAttribute("tabindex") !== "0") n.wrap.setAttribute("tabindex", "0");
      if (n.wrap.getAttribute("role") !== "region") n.wrap.setAttribute("role", "region");
      if (n.wrap.getAttribute("aria-label") !== label) n.wrap.setAttribute("aria-label", label);
    });
  }

  function focusableCode(code) {
    if (scrollsSideways(code) && code.getAttribute("tabindex") !== "0") code.setAttribute("tabindex", "0");
  }

  function refreshCode() {
    var blocks = document.querySelectorAll(".md-typeset pre > code");
    for (var i = 0; i < blocks.length; i++) {
      watch(blocks[i]);
      focusableCode(blocks[i]);
    }
  }

  function refreshBoxes() {
    refreshTables();
    refreshCode();
  }

  function refreshLandmarks() {
    document.querySelectorAll(".md-typeset pre > nav.md-code__nav:not([role])").forEach(function (nav) {
      nav.setAttribute("role", "none");
    });
    document.querySelectorAll("nav.md-nav[aria-labelledby]").forEach(function (nav) {
      var label = document.getElementById(nav.getAttribute("aria-labelledby"));
      var title = nav.querySelector(":scope > .md-nav__title");
      if (label && title && !label.textContent.trim()) {
        var name = document.createElement("span");
        name.className = "perfdocs-sr-only";
        name.textContent = title.textContent.trim();
        label.append(name);
      }
    });
  }

  // Material's code blocks change after this script has looked: their copy button's <nav> is added when the
  // block is mounted, and their tabindex is removed on devices without hover whenever they are measured.
  if (typeof MutationObserver === "function") {
    new MutationObserver(function (records) {
      var landmarks = false;
      for (var i = 0; i < records.length; i++) {
        var record = records[i];
        if (record.type === "attributes") {
          if (record.target.matches("pre > code")) focusableCode(record.target);
        } else if (record.addedNodes.length) {
          landmarks = true;
        }
      }
      if (landmarks) refreshLandmarks();
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["tabindex"] });
  }

  function narrowDiagrams() {
    var images = document.querySelectorAll(".md-typeset img[src*='assets/diagrams/']");
    for (var i = 0; i < images.length; i++) {
      var img = images[i];
      var parts = /^(.*assets\/diagrams\/)([^/?#]+\.svg)$/.exec(img.getAttribute("src"));
      if (!parts || (img.parentElement && img.parentElement.tagName === "PICTURE")) continue;
      var picture = document.createElement("picture");
      picture.className = "perfdocs-diagram";
      var source = document.createElement("source");
      source.media = NARROW;
      source.type = "image/svg+xml";
      source.srcset = parts[1] + "narrow/" + parts[2];
      img.replaceWith(picture);
      picture.append(source, img);
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
    resizing = setTimeout(refreshBoxes, 150);
  });

  function refresh() {
    narrowDiagrams();
    refreshTabs();
    refreshLandmarks();
    // Material wraps the tables and mounts the code blocks while it mounts the page's components: look once
    // they are in place.
    requestAnimationFrame(function () { requestAnimationFrame(function () { refreshBoxes(); refreshLandmarks(); }); });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(refresh);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", refresh);
  } else {
    refresh();
  }
})();
