/* Tables that scroll sideways can be scrolled from the keyboard (WCAG 2.1.1; axe's
   scrollable-region-focusable rule).

   Every `.table-wrap` that is wider inside than its box gets tabindex="0", role="region" and
   a name: the template's `data-region-labelledby` (an element's id) or `data-region-label`
   (a text), or its own `aria-labelledby` / `aria-label` (kept through every change), else
   its table's caption, else the nearest heading before it. A table-wrap that
   fits loses all three again, so a table that does not scroll is no Tab stop. Checked on load,
   whenever a wrap changes size (a turned phone, a resized window, fonts loading) and for
   wraps added later (htmx fragments); a wrap taken out of the page is no longer observed.
   No inline script: served from static/ like the charts'
   scripts, under the site's Content-Security-Policy. */
(function () {
  "use strict";

  var SELECTOR = ".table-wrap";
  var MARK = "data-scroll-region";
  var counter = 0;

  function idFor(element) {
    if (!element.id) {
      counter += 1;
      element.id = "scroll-region-name-" + counter;
    }
    return element.id;
  }

  function headingBefore(wrap) {
    // The nearest h1-h4 before the wrap in document order: its section's title.
    var headings = document.querySelectorAll("h1, h2, h3, h4");
    var found = null;
    for (var i = 0; i < headings.length; i += 1) {
      var position = headings[i].compareDocumentPosition(wrap);
      if (position & Node.DOCUMENT_POSITION_FOLLOWING) found = headings[i];
    }
    return found;
  }

  function allExist(ids) {
    // An id reference list ("a b"): every id names an element of the page.
    var list = (ids || "").split(/\s+/).filter(Boolean);
    return list.length > 0 && list.every(function (id) {
      return document.getElementById(id) !== null;
    });
  }

  function keepOwnName(wrap) {
    // A template's own name on the wrap survives the wrap fitting (when every name is
    // taken away): it becomes the wrap's preferred name, as data-region-* would be.
    var own = wrap.getAttribute("aria-labelledby");
    if (own && !wrap.hasAttribute("data-region-labelledby")) {
      wrap.setAttribute("data-region-labelledby", own);
    }
    var text = wrap.getAttribute("aria-label");
    if (text && !wrap.hasAttribute("data-region-label")) {
      wrap.setAttribute("data-region-label", text);
    }
  }

  function name(wrap) {
    var byId = wrap.getAttribute("data-region-labelledby");
    if (allExist(byId)) return { labelledby: byId };
    var text = wrap.getAttribute("data-region-label");
    if (text) return { label: text };
    var caption = wrap.querySelector("caption");
    if (caption && caption.textContent.trim()) return { labelledby: idFor(caption) };
    var heading = headingBefore(wrap);
    if (heading) return { labelledby: idFor(heading) };
    return { label: document.title };
  }

  function overflows(wrap) {
    // One pixel of slack: subpixel widths round either way.
    return wrap.scrollWidth > wrap.clientWidth + 1;
  }

  function update(wrap) {
    if (overflows(wrap)) {
      if (wrap.getAttribute(MARK) === "on") return;
      var named = name(wrap);
      wrap.setAttribute("tabindex", "0");
      wrap.setAttribute("role", "region");
      if (named.labelledby) {
        wrap.setAttribute("aria-labelledby", named.labelledby);
        wrap.removeAttribute("aria-label");
      } else {
        wrap.setAttribute("aria-label", named.label);
        wrap.removeAttribute("aria-labelledby");
      }
      wrap.setAttribute(MARK, "on");
    } else if (wrap.getAttribute(MARK) !== "off") {
      // A plain box: no Tab stop, and no name (a name on a generic element is not allowed).
      ["tabindex", "role", "aria-labelledby", "aria-label"].forEach(function (attribute) {
        wrap.removeAttribute(attribute);
      });
      wrap.setAttribute(MARK, "off");
    }
  }

  var resized = typeof ResizeObserver === "function"
    ? new ResizeObserver(function (entries) {
        entries.forEach(function (entry) {
          if (!entry.target.isConnected) {
            resized.unobserve(entry.target);
            return;
          }
          var wrap = entry.target.closest(SELECTOR);
          if (wrap) update(wrap);
        });
      })
    : null;
  // The table observed with each wrap (its first child then; it may change since).
  var observedTable = typeof WeakMap === "function" ? new WeakMap() : null;

  function wrapsIn(root) {
    var wraps = root.matches && root.matches(SELECTOR) ? [root] : [];
    if (root.querySelectorAll) {
      wraps = wraps.concat(Array.prototype.slice.call(root.querySelectorAll(SELECTOR)));
    }
    return wraps;
  }

  function forget(root) {
    // Wraps taken out of the page: no longer observed, and handled afresh if put back.
    wrapsIn(root).forEach(function (wrap) {
      if (wrap.isConnected || !wrap.hasAttribute(MARK)) return;
      if (resized) {
        resized.unobserve(wrap);
        var table = observedTable && observedTable.get(wrap);
        if (table) resized.unobserve(table);
      }
      wrap.removeAttribute(MARK);
    });
  }

  function watch(root) {
    wrapsIn(root).forEach(function (wrap) {
      if (wrap.hasAttribute(MARK)) return;
      keepOwnName(wrap);
      update(wrap);
      // The table inside grows too (a column filled in later): observe both.
      if (resized) {
        resized.observe(wrap);
        var table = wrap.firstElementChild;
        if (table) {
          resized.observe(table);
          if (observedTable) observedTable.set(wrap, table);
        }
      }
    });
  }

  function start() {
    watch(document.body);
    if (!resized) {
      window.addEventListener("resize", function () {
        document.querySelectorAll(SELECTOR).forEach(update);
      });
    }
    new MutationObserver(function (records) {
      records.forEach(function (record) {
        record.removedNodes.forEach(function (node) {
          if (node.nodeType === 1) forget(node);
        });
        record.addedNodes.forEach(function (node) {
          if (node.nodeType === 1) watch(node);
        });
      });
    }).observe(document.body, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
