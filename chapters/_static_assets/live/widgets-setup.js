/* Runs between widgets/require.js and widgets/embed-amd.js (nb_ipywidgets_js in _config.yml).
 * Each AMD module of the widget runtime takes its public path -- where its icon fonts are -- from
 * its own URL, which require.js resolves against the page's folder: chapters/@jupyter-widgets/...,
 * where nothing is served (404s). Point the modules at _static/widgets, where the fonts are. */
(function () {
  "use strict";
  var widgets = (document.documentElement.getAttribute("data-content_root") || "") +
    "_static/widgets";
  var paths = { "@jupyter-widgets/html-manager/dist": widgets };
  ["base", "controls", "base7", "controls7", "html-manager"].forEach(function (name) {
    paths["@jupyter-widgets/" + name] = widgets + "/" + name;
  });
  window.require.config({ paths: paths });
})();
