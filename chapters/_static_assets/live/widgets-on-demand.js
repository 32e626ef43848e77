/* Loaded only by pages with widget snapshots (nb_ipywidgets_js in _config.yml), after
 * live/formulated-live.js: the widget runtime (require.js + embed-amd.js, 3.7 MB) loads once a
 * snapshot comes within a screen of the visible part of the page, not with the page. */
(function () {
  "use strict";
  function start() { if (window.formulatedWidgetsOnDemand) window.formulatedWidgetsOnDemand(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
