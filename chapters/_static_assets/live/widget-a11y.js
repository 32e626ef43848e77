/* Accessible names for widget controls (WCAG 2.1, 4.1.2), on the static snapshot and live.
 *
 * ipywidgets draws a slider's handle as <div role="slider"> with no name, and its label as a
 * <label> that points at nothing; a text box or menu gets a name only where the label's "for"
 * reaches it.  Every widget row (.widget-inline-hbox) has its description in .widget-label:
 * this script gives that text, as aria-label, to each control of the row that has no name of
 * its own.  Widgets are drawn late (when they come near the screen) and redrawn when a page
 * goes live, so new rows are labelled as they appear.
 */
(function () {
  "use strict";

  var CONTROLS = '[role="slider"], input, select, textarea, [contenteditable="true"]';

  function hasName(el) {
    if (el.getAttribute("aria-label") || el.getAttribute("aria-labelledby")) return true;
    if (el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]')) return true;
    return Boolean(el.closest("label"));  // a checkbox inside its label
  }

  function labelRow(row) {
    var label = row.querySelector(":scope > .widget-label, :scope > label");
    var text = label ? label.textContent.trim() : "";
    if (!text) return;
    row.querySelectorAll(CONTROLS).forEach(function (el) {
      if (hasName(el)) return;
      // the slider's editable readout repeats the handle's value: name it as such
      var readout = el.classList.contains("widget-readout");
      el.setAttribute("aria-label", readout ? text + " (value)" : text);
    });
  }

  function labelAll(root) {
    if (!root.querySelectorAll) return;
    if (root.matches && root.matches(".widget-inline-hbox")) labelRow(root);
    root.querySelectorAll(".widget-inline-hbox").forEach(labelRow);
  }

  function start() {
    labelAll(document.body);
    new MutationObserver(function (records) {
      records.forEach(function (record) {
        record.addedNodes.forEach(function (node) {
          if (node.nodeType !== 1) return;
          // a node inside a row (a slider's handle) or a row, or a box of rows
          var row = node.closest && node.closest(".widget-inline-hbox");
          labelAll(row || node);
        });
      });
    }).observe(document.body, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
