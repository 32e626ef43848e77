/* The Formulated GPT -- what every page of the book runs (loaded from _static/live/).
 *
 * 1. MathJax 2 call of the widget runtime on top of MathJax 3: ipywidgets typesets labels with
 *    MathJax.Hub.Queue(["Typeset", MathJax.Hub, el]); the book runs MathJax 3, which has no Hub.
 *    Display math wider than its box (a phone) is set smaller, down to 60 %.
 * 2. A one-line note next to every widget snapshot: it is static, and how to make it live. The
 *    notes go away once the page is live.
 * 3. initThebe(), called by the theme's "Live Code" button (rocket menu): loads Thebe 0.9.3 from
 *    _static/vendor/thebe-0.9.3 (never a CDN), connects to the Jupyter server of `make live`
 *    when the page was served by it (it injects window.FORMULATED_LIVE_SERVER), otherwise to
 *    Binder (the repository in window.FORMULATED_LIVE, written by booktools/sphinx/html.py from
 *    _config.yml),
 *    runs the page's cells and leaves the widgets connected to the kernel. Without a server or
 *    a repository, the button says in words how to make the page live.
 * 4. The widget runtime (require.js + embed-amd.js, 3.7 MB) on demand: only pages with widget
 *    snapshots load it (nb_ipywidgets_js in _config.yml names live/widgets-on-demand.js), and
 *    only once a widget comes near the screen (window.formulatedLoadWidgets).
 * 5. Accessibility of what the page draws: slider handles named by their widget's description,
 *    tables wider than their column marked as scrollable (a keyboard-focusable region with a
 *    visible "scroll" hint), search-result snippets with formulas as plain text, not TeX.
 * The words this script writes into the page follow the page's language (<html lang>): English,
 * or Korean from the table KO (the Korean edition).
 */
(function () {
  "use strict";

  var ROOT = document.documentElement.getAttribute("data-content_root") || "";
  var STATIC = ROOT + "_static/";
  // Third-party files served by the book (chapters/_static_assets/vendor/VENDOR.md).
  var THEBE = STATIC + "vendor/thebe-0.9.3/";
  var REQUIREJS = STATIC + "vendor/requirejs-2.3.8/require.js";
  var WIDGETS = STATIC + "vendor/jupyter-widgets-html-manager-1.0.15";
  var NOTE_CLASS = "formulated-static-note";
  // The only request Thebe's widget manager makes to a CDN (for third-party widget modules).
  var REQUIREJS_CDN = "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js";

  /* ---- 0. the page's language ------------------------------------------------------------- */
  // English text -> Korean; {0}, {1}... are values put in by tr(). An English text missing here
  // stays English on a Korean page.
  var KO = {};
  [
    ["<strong>Static snapshot</strong> (the controls do not recompute). To make it live: {0} " +
     "menu above \u2192 <em>Live Code</em>, or download or launch the notebook.",
     "<strong>멈춘 스냅숏</strong>(컨트롤을 움직여도 다시 계산하지 않음). 라이브로 만들려면: " +
     "위의 {0} 메뉴 \u2192 <em>라이브 코드</em>, 또는 노트북을 내려받거나 실행한다."],
    ["Loading Thebe\u2026", "Thebe 불러오는 중\u2026"],
    ["local Jupyter server", "로컬 Jupyter 서버"],
    ["Binder", "Binder"],
    ["Live: ", "라이브: "],
    ["Running cell {0} of {1} ({2})\u2026", "셀 {0}/{1} 실행 중 ({2})\u2026"],
    ["Live: {0}: the cells ran; the widgets are connected",
     "라이브: {0}: 셀을 모두 실행했고 위젯이 커널에 연결됨"],
    ["Live code failed: {0}", "라이브 코드 실패: {0}"],
    ["this page has no Jupyter server to run on. To make it live, run `make live` in the " +
     "book's repository and open the page it prints, or set repository.url in _config.yml " +
     "to the book's public GitHub repository (for Binder) and rebuild the book.",
     "이 페이지에는 실행할 Jupyter 서버가 없다. 라이브로 만들려면 책의 저장소에서 " +
     "`make live`를 실행하고 그것이 출력하는 페이지를 열거나, _config.yml의 repository.url을 " +
     "책의 공개 GitHub 저장소로 설정(Binder용)하고 책을 다시 빌드한다."],
    ["slider", "슬라이더"],
    ["wide table, scrolls sideways", "넓은 표, 옆으로 스크롤됨"],
    ["Wide table: scroll sideways \u2192", "넓은 표: 옆으로 스크롤 \u2192"],
  ].forEach(function (pair) { KO[pair[0]] = pair[1]; });
  var LANGUAGE = (document.documentElement.lang || "en").toLowerCase().split("-")[0];

  // `english` in the page's language, with {i} replaced by values[i].
  function tr(english, values) {
    var text = (LANGUAGE === "ko" && Object.prototype.hasOwnProperty.call(KO, english))
      ? KO[english] : english;
    return text.replace(/\{(\d+)\}/g, function (m, i) {
      return values && i < values.length ? String(values[i]) : m;
    });
  }
  window.formulatedTr = tr; // for the tests

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
  // Model names (ipywidgets) of the widgets a reader can operate; an output made only of other
  // widgets (a progress bar, a label, an HTML box) is complete as drawn and needs no note.
  var CONTROL_MODELS = new RegExp("^(?:(?:Int|Float|FloatLog|Selection)(?:Range)?Slider|" +
    "Dropdown|Select(?:Multiple)?|RadioButtons|ToggleButtons?|Checkbox|Text(?:area)?|" +
    "(?:Bounded)?(?:Int|Float)Text|Button|Play|ColorPicker|DatePicker|Combobox|TagsInput|" +
    "Password)$");

  function widgetState() {
    var script = document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]');
    if (!script) return {};
    try { return JSON.parse(script.textContent).state || {}; } catch (err) { return {}; }
  }

  // True when the widget `id` or a widget it contains (children, a box's items) is a control.
  function hasControls(state, id, seen) {
    if (!id || seen[id] || !state[id]) return false;
    seen[id] = true;
    var model = state[id];
    if (CONTROL_MODELS.test((model.model_name || "").replace(/Model$/, ""))) return true;
    // Children are "IPY_MODEL_<id>"; an Output widget's captured widgets are "model_id": "<id>".
    var refs = JSON.stringify(model.state || {})
      .match(/IPY_MODEL_[0-9a-f]+|"model_id":"[0-9a-f]+"/g) || [];
    return refs.some(function (ref) {
      return hasControls(state, ref.replace(/^IPY_MODEL_|^"model_id":"|"$/g, ""), seen);
    });
  }

  function addStaticNotes() {
    if (document.body.classList.contains("formulated-live")) return;
    var state = widgetState();
    var views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]');
    views.forEach(function (view) {
      var id = "";
      try { id = JSON.parse(view.textContent).model_id; } catch (err) { /* keep the note */ }
      if (id && state[id] && !hasControls(state, id, {})) return;
      var output = view.closest(".cell_output") || view.parentElement;
      var before = output.previousElementSibling;
      if (before && before.classList.contains(NOTE_CLASS)) return;
      var note = document.createElement("p");
      note.className = NOTE_CLASS;
      note.setAttribute("role", "note");
      note.innerHTML = tr(
        "<strong>Static snapshot</strong> (the controls do not recompute). To make it live: {0} " +
        "menu above \u2192 <em>Live Code</em>, or download or launch the notebook.",
        ["<i class=\"fas fa-rocket\"></i>"]);
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
      if (url === REQUIREJS_CDN) return originalFetch(REQUIREJS, init);
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
      return { options: options, where: tr("local Jupyter server") };
    }
    if (!page.repo) {
      throw new Error(tr(
        "this page has no Jupyter server to run on. To make it live, run `make live` in the " +
        "book's repository and open the page it prints, or set repository.url in _config.yml " +
        "to the book's public GitHub repository (for Binder) and rebuild the book."));
    }
    options.useBinder = true;
    options.binderOptions = {
      repo: page.repo, ref: page.ref, binderUrl: page.binderUrl, repoProvider: "github",
    };
    return { options: options, where: tr("Binder") };
  }

  async function goLive() {
    var setup = thebeOptions(); // first: it says when there is nowhere to run the cells
    setStatus(tr("Loading Thebe\u2026"));
    redirectRequireJs();
    loadCss(THEBE + "thebe.css");
    await loadScript(THEBE + "index.js");
    installHubShim();
    prepareCells(); // marks the cells that Thebe runs
    var live = false;
    var running = false;
    window.thebe.on("status", function (_name, data) {
      // While the cells run, the kernel's own "ready"/"idle" would hide how far they got.
      if (!data || !data.status || running) return;
      setStatus((live ? tr("Live: ") : "") + setup.where + ": " + data.status);
    });
    var connection = await window.thebe.bootstrap(setup.options);
    // All cells are sent at once (as Thebe's executeAll does; the kernel queues them), and
    // the button counts the replies: "Running cell k of n" until the last one is back.
    var todo = connection.notebook.cells || [];
    var done = 0;
    var progress = function () {
      setStatus(tr("Running cell {0} of {1} ({2})\u2026",
                   [Math.min(done + 1, todo.length), todo.length, setup.where]));
    };
    running = true;
    progress();
    todo.forEach(function (cell) { cell.setAsBusy(); });
    try {
      await Promise.all(todo.map(function (cell) {
        return cell.execute(cell.source).then(function (reply) {
          done += 1;
          progress();
          return reply;
        });
      }));
    } finally {
      running = false;
    }
    live = true;
    removeStaticNotes();
    document.body.classList.add("formulated-live");
    setStatus(tr("Live: {0}: the cells ran; the widgets are connected", [setup.where]));
    return connection;
  }

  var started = null;
  window.initThebe = function () {
    window.FORMULATED_GOING_LIVE = true; // the static widget runtime must not start now
    if (!started) {
      started = goLive().catch(function (err) {
        started = null;
        setStatus(tr("Live code failed: {0}", [(err && err.message) || String(err)]));
        console.warn("[formulated] live code failed", err);
      });
    }
    return started;
  };

  /* ---- 4. the widget runtime on demand ---------------------------------------------------- */
  var widgetsLoading = null;

  // require.js, its paths (each AMD module of the runtime takes its public path -- where its
  // icon fonts are -- from its own URL, which require.js would resolve against the page's
  // folder, where nothing is served), then embed-amd.js, which renders every snapshot.
  function loadWidgetRuntime() {
    if (widgetsLoading || window.FORMULATED_GOING_LIVE) return widgetsLoading;
    widgetsLoading = loadScript(REQUIREJS).then(function () {
      var paths = { "@jupyter-widgets/html-manager/dist": WIDGETS };
      ["base", "controls", "base7", "controls7", "html-manager"].forEach(function (name) {
        paths["@jupyter-widgets/" + name] = WIDGETS + "/" + name;
      });
      window.require.config({ paths: paths });
      return loadScript(WIDGETS + "/embed-amd.js");
    });
    return widgetsLoading;
  }
  window.formulatedLoadWidgets = loadWidgetRuntime;

  // Called by live/widgets-on-demand.js (pages with widget snapshots only): the runtime loads
  // once a snapshot is within a screen of the visible part of the page.
  window.formulatedWidgetsOnDemand = function () {
    var views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]');
    if (!views.length) return;
    if (!("IntersectionObserver" in window)) { loadWidgetRuntime(); return; }
    var observer = new IntersectionObserver(function (entries) {
      if (!entries.some(function (e) { return e.isIntersecting; })) return;
      observer.disconnect();
      loadWidgetRuntime();
    }, { rootMargin: "100% 0px" });
    views.forEach(function (view) { observer.observe(view.parentElement); });
  };

  /* ---- 5. accessibility of what the page draws -------------------------------------------- */
  // A slider's handle (role=slider) gets its widget's description as its name.
  function nameSliderHandles(root) {
    (root || document).querySelectorAll(".noUi-handle[role=slider]").forEach(function (handle) {
      if (handle.getAttribute("aria-label") || handle.getAttribute("aria-labelledby")) return;
      var widget = handle.closest(".widget-slider, .jupyter-widgets");
      var label = widget && widget.querySelector(".widget-label");
      var text = label ? label.textContent.replace(/\u200b/g, "").trim() : "";
      handle.setAttribute("aria-label", text || tr("slider"));
    });
  }

  function watchWidgets() {
    if (!("MutationObserver" in window)) return;
    var pending = false;
    new MutationObserver(function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; nameSliderHandles(); });
    }).observe(document.body, { childList: true, subtree: true });
  }

  // A table wider than its column scrolls in its box: say so (a visible hint before it), and
  // make the box a named region that the keyboard can scroll (tabindex).
  var HINT_CLASS = "formulated-scroll-hint";
  function markWideTables() {
    document.querySelectorAll(".bd-article table").forEach(function (table) {
      var box = table.parentElement;
      var wide = table.getBoundingClientRect().width > box.clientWidth + 1;
      var hint = box.previousElementSibling;
      var hasHint = hint && hint.classList.contains(HINT_CLASS);
      if (wide) {
        box.classList.add("formulated-scrolls");
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        var caption = table.querySelector("caption");
        box.setAttribute("aria-label", (caption ? caption.textContent.trim() + ": " : "") +
                         tr("wide table, scrolls sideways"));
        if (!hasHint) {
          hint = document.createElement("p");
          hint.className = HINT_CLASS;
          hint.setAttribute("aria-hidden", "true"); // the region's name says it
          hint.textContent = tr("Wide table: scroll sideways \u2192");
          box.parentElement.insertBefore(hint, box);
        }
      } else if (box.classList.contains("formulated-scrolls")) {
        box.classList.remove("formulated-scrolls");
        ["tabindex", "role", "aria-label"].forEach(function (a) { box.removeAttribute(a); });
        if (hasHint) hint.remove();
      }
    });
  }

  function markWideTablesOnResize() {
    markWideTables();
    var timer = null;
    window.addEventListener("load", markWideTables);
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(markWideTables, 200);
    });
  }

  // Search results (Sphinx's searchtools.js): a snippet is the text of the found page, where a
  // formula is still its TeX source. Formulas become plain text first: \(x_{t}\) -> x_t.
  var GREEK = { alpha: "\u03b1", beta: "\u03b2", gamma: "\u03b3", delta: "\u03b4",
    epsilon: "\u03b5", varepsilon: "\u03b5", eta: "\u03b7", theta: "\u03b8", lambda: "\u03bb",
    mu: "\u03bc", pi: "\u03c0", sigma: "\u03c3", tau: "\u03c4", phi: "\u03c6", psi: "\u03c8",
    omega: "\u03c9", Delta: "\u0394", Sigma: "\u03a3", Theta: "\u0398", ell: "\u2113",
    cdot: "\u00b7", times: "\u00d7", le: "\u2264", leq: "\u2264", ge: "\u2265",
    geq: "\u2265", in: "\u2208", sum: "\u03a3", infty: "\u221e", to: "\u2192",
    approx: "\u2248", neq: "\u2260", R: "\u211d", sqrt: "\u221a", log: "log", exp: "exp",
    max: "max", min: "min", softmax: "softmax" };
  function texToText(tex) {
    return tex
      .replace(/^\\[([]|\\[)\]]$/g, "")
      .replace(/\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "($1)/($2)")
      .replace(/\\([A-Za-z]+)/g, function (_m, name) {
        return Object.prototype.hasOwnProperty.call(GREEK, name) ? GREEK[name] : "";
      })
      .replace(/\\[,;:!{}| ]/g, " ")
      .replace(/[{}$&]/g, "")
      .replace(/\s+/g, " ")
      .trim();
  }

  function plainFormulasInSearchSnippets() {
    if (typeof Search === "undefined" || !Search.htmlToText || Search.htmlToText.plainMath) return;
    var original = Search.htmlToText;
    Search.htmlToText = function (htmlString, anchor) {
      var doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll(".math").forEach(function (el) {
        el.textContent = " " + texToText(el.textContent) + " ";
      });
      return original(doc.documentElement.outerHTML, anchor);
    };
    Search.htmlToText.plainMath = true;
  }
  window.formulatedTexToText = texToText; // for the tests

  document.addEventListener("DOMContentLoaded", function () {
    installHubShim();
    addStaticNotes();
    fitDisplayMathWhenTypeset();
    nameSliderHandles();
    watchWidgets();
    markWideTablesOnResize();
    plainFormulasInSearchSnippets();
  });
})();
