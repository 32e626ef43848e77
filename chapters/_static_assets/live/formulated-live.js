/* The Formulated GPT -- what every page of the book runs (loaded from _static/live/).
 *
 * 1. MathJax 2 call of the widget runtime on top of MathJax 3: ipywidgets typesets labels with
 *    MathJax.Hub.Queue(["Typeset", MathJax.Hub, el]); the book runs MathJax 3, which has no Hub.
 *    Display math wider than its box (a phone) is set smaller, down to 60 %.
 * 2. A one-line note next to every widget snapshot: it is static, and how to make it live. The
 *    notes go away once the page is live.
 * 3. initThebe(), called by the theme's "Live Code" button (rocket menu): loads Thebe 0.9.3 from
 *    _static/thebe (never a CDN), connects to the Jupyter server of `make live` when the page was
 *    served by it (it injects window.FORMULATED_LIVE_SERVER), otherwise to Binder (the repository
 *    in window.FORMULATED_LIVE, written by booktools/sphinx_html.py from _config.yml),
 *    runs the page's cells and leaves the widgets connected to the kernel.
 */
(function () {
  "use strict";

  var ROOT = document.documentElement.getAttribute("data-content_root") || "";
  var STATIC = ROOT + "_static/";
  var NOTE_CLASS = "formulated-static-note";
  // The only request Thebe's widget manager makes to a CDN (for third-party widget modules).
  var REQUIREJS_CDN = "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js";

  /* ---- 1. MathJax.Hub.Queue -> MathJax 3 -------------------------------------------------- */
  function typeset(element) {
    var mj = window.MathJax;
    if (!mj || !mj.startup || !mj.startup.promise || !mj.typesetPromise) return;
    mj.startup.promise
      .then(function () { return mj.typesetPromise(element ? [element] : undefined); })
      .catch(function (err) { console.warn("[formulated] MathJax could not typeset", err); });
  }

  function installHubShim() {
    var mj = window.MathJax;
    // Only on the MathJax 3 object (it has a version); the earlier config object is replaced.
    if (!mj || !mj.version || mj.Hub) return;
    mj.Hub = {
      Queue: function () {
        Array.prototype.forEach.call(arguments, function (job) {
          if (Array.isArray(job) && job[0] === "Typeset") typeset(job[2]);
          else if (typeof job === "function") job();
        });
      },
    };
  }

  /* ---- 1b. display math wider than its box (a phone): smaller, down to 60 % -------- */
  // Beyond that the equation scrolls inside its box (formulated-live.css).
  function fitDisplayMath() {
    document.querySelectorAll('mjx-container[display="true"]').forEach(function (box) {
      var math = box.querySelector("mjx-math");
      if (!math) return;
      // MathJax's own size first (its inline font-size; the window may have grown since)
      if (!box.hasAttribute("data-mathjax-size")) {
        box.setAttribute("data-mathjax-size", box.style.fontSize);
      }
      box.style.fontSize = box.getAttribute("data-mathjax-size");
      box.removeAttribute("data-formulated-fit");
      var need = math.getBoundingClientRect().width;
      var have = box.clientWidth;
      if (have === 0 || need <= have) return;
      var size = parseFloat(getComputedStyle(box).fontSize);
      box.style.fontSize = size * Math.max(0.6, (0.95 * have) / need) + "px";
      box.setAttribute("data-formulated-fit", "smaller"); // the browser tests look for it
    });
  }

  function fitDisplayMathWhenTypeset() {
    var mj = window.MathJax;
    if (!mj || !mj.startup || !mj.startup.promise) return;
    // Measured again once the fonts and the whole page are in: widths change with them.
    mj.startup.promise.then(fitDisplayMath);
    var later = function () { mj.startup.promise.then(fitDisplayMath); };
    if (document.fonts) document.fonts.ready.then(later);
    window.addEventListener("load", later);
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(fitDisplayMath, 200);
    });
  }

  /* ---- 2. notes on static widget snapshots ------------------------------------------------ */
  function addStaticNotes() {
    if (document.body.classList.contains("formulated-live")) return;
    var views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]');
    views.forEach(function (view) {
      var output = view.closest(".cell_output") || view.parentElement;
      var before = output.previousElementSibling;
      if (before && before.classList.contains(NOTE_CLASS)) return;
      var note = document.createElement("p");
      note.className = NOTE_CLASS;
      note.setAttribute("role", "note");
      note.innerHTML =
        "<strong>Static snapshot</strong> (the controls do not recompute). To make it live: " +
        "<i class=\"fas fa-rocket\"></i> menu above \u2192 <em>Live Code</em>, " +
        "or download or launch the notebook.";
      output.parentElement.insertBefore(note, output);
    });
  }

  function removeStaticNotes() {
    document.querySelectorAll("." + NOTE_CLASS).forEach(function (note) { note.remove(); });
  }

  /* ---- 3. live code ----------------------------------------------------------------------- */
  function setStatus(text) {
    var button = document.querySelector(".thebe-launch-button");
    if (button) button.textContent = text;
  }

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = src;
      script.onload = resolve;
      script.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(script);
    });
  }

  function loadCss(href) {
    var link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    document.head.appendChild(link);
  }

  function redirectRequireJs() {
    var originalFetch = window.fetch.bind(window);
    window.fetch = function (input, init) {
      var url = typeof input === "string" ? input : input && input.url;
      if (url === REQUIREJS_CDN) return originalFetch(STATIC + "widgets/require.js", init);
      return originalFetch(input, init);
    };
  }

  // Thebe pairs the i-th [data-executable] with the i-th [data-output]: every cell whose source
  // is on the page gets an output placeholder (an empty one if it printed nothing).
  function prepareCells() {
    var count = 0;
    document.querySelectorAll("div.cell").forEach(function (cell) {
      var source = cell.querySelector(".cell_input pre");
      if (!source) return; // remove-input: nothing to run; its built output stays
      source.setAttribute("data-executable", "true");
      source.setAttribute("data-language", "python");
      var output = cell.querySelector(":scope > .cell_output");
      if (!output) {
        output = document.createElement("div");
        output.className = "cell_output";
        cell.appendChild(output);
      }
      output.setAttribute("data-output", "");
      count += 1;
    });
    return count;
  }

  function thebeOptions() {
    var page = window.FORMULATED_LIVE || {};
    var local = window.FORMULATED_LIVE_SERVER;
    var options = {
      requestKernel: true,
      mathjaxUrl: "", // the page's MathJax 3 (with the Hub shim above), not MathJax 2 from a CDN
      mountStatusWidget: false,
      mountActivateWidget: false,
      predefinedOutput: true,
      selector: "[data-executable]",
      outputSelector: "[data-output]",
      kernelOptions: { name: "python3", path: page.kernelPath || "." },
      codeMirrorConfig: { mode: "python", theme: "default" },
    };
    if (local) {
      options.useBinder = false;
      options.serverSettings = {
        baseUrl: local.baseUrl, wsUrl: local.wsUrl, token: local.token, appendToken: true,
      };
      return { options: options, where: "local Jupyter server" };
    }
    options.useBinder = true;
    options.binderOptions = {
      repo: page.repo, ref: page.ref, binderUrl: page.binderUrl, repoProvider: "github",
    };
    return { options: options, where: "Binder" };
  }

  async function goLive() {
    setStatus("Loading Thebe\u2026");
    redirectRequireJs();
    loadCss(STATIC + "thebe/thebe.css");
    await loadScript(STATIC + "thebe/index.js");
    installHubShim();
    var cells = prepareCells();
    var setup = thebeOptions();
    var live = false;
    window.thebe.on("status", function (_name, data) {
      if (!data || !data.status) return;
      setStatus((live ? "Live: " : "") + setup.where + ": " + data.status);
    });
    var connection = await window.thebe.bootstrap(setup.options);
    setStatus("Running the " + cells + " cells of this page\u2026");
    await connection.notebook.executeAll();
    live = true;
    removeStaticNotes();
    document.body.classList.add("formulated-live");
    setStatus("Live: " + setup.where + ": the cells ran; the widgets are connected");
    return connection;
  }

  var started = null;
  window.initThebe = function () {
    if (!started) {
      started = goLive().catch(function (err) {
        started = null;
        setStatus("Live code failed: " + err.message);
        console.warn("[formulated] live code failed", err);
      });
    }
    return started;
  };

  document.addEventListener("DOMContentLoaded", function () {
    installHubShim();
    addStaticNotes();
    fitDisplayMathWhenTypeset();
  });
})();
