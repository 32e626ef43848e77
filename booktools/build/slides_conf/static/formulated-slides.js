/* The decks of booktools/build/slides.py: every slide fits its 1280x720 box.  The decks are
   made so that every slide fits as it is: each slide's size before anything below runs is kept
   in data-source-height and data-source-width, which the tests check.  As a safety net, once
   MathJax has typeset the deck, a slide whose content is taller or wider than the slide is split: its last
   blocks move to a continuation slide after it (same title; a long box continues in a copy of
   the box), and what is still too big (one long formula or code listing) is set smaller, down
   to MIN of the deck's font size.  Then reveal.js counts the slides again (Reveal.sync) and
   <html data-slides-fitted> tells the tests that the deck is final. */
(function () {
  "use strict";
  var MIN = 0.5;
  var LISTING = "pre, div[class*=highlight-]";
  var KEEP = "h1, h2, aside.notes, .admonition-title, script, style";

  function tooBig(s, W, H) {
    if (s.scrollHeight > H + 1 || s.scrollWidth > W + 1) return true;
    var wide = s.querySelectorAll("pre, mjx-container");
    for (var i = 0; i < wide.length; i++) {
      if (wide[i].scrollWidth > wide[i].clientWidth + 1) return true;
    }
    return false;
  }

  function blocks(node) {
    return Array.prototype.filter.call(node.children, function (c) {
      return !c.matches(KEEP);
    });
  }

  /* The element whose children are split, and the chain of elements above it. */
  function splitPoint(section) {
    var path = [section], node = section;
    for (;;) {
      var kids = blocks(node);
      if (kids.length >= 2 || (kids.length === 1 && kids[0].matches(LISTING))) return path;
      if (kids.length === 0 || kids[0].matches("pre, table, mjx-container, .math, img, svg, p")) return null;
      node = kids[0];
      path.push(node);
    }
  }

  function continuation(section, path) {
    var copy = section.cloneNode(false), parent = copy;
    copy.removeAttribute("id");
    copy.removeAttribute("data-source-height");
    copy.removeAttribute("data-source-width");
    var title = section.querySelector("h1, h2");
    if (title) {
      var t = title.cloneNode(true);
      t.removeAttribute("id");
      copy.appendChild(t);
    }
    for (var i = 1; i < path.length; i++) {
      var shell = path[i].cloneNode(false);
      shell.removeAttribute("id");
      parent.appendChild(shell);
      parent = shell;
    }
    section.parentNode.insertBefore(copy, section.nextSibling);
    return {section: copy, inner: parent};
  }

  /* A listing too long for one slide: its last lines (after a line break between tokens)
     move to a copy of the listing, returned. */
  function splitListing(pre, excess) {
    var lines = (pre.textContent.match(/\n/g) || []).length + 1;
    var keep = lines - Math.ceil(excess / (pre.scrollHeight / lines)) - 1;
    if (keep < 3) return null;
    var code = pre.children.length === 1 ? pre.firstElementChild : null;
    var seen = 0, nodes = (code || pre).childNodes;
    for (var i = 0; i < nodes.length; i++) {
      var text = nodes[i].textContent, n = (text.match(/\n/g) || []).length;
      if (nodes[i].nodeType === 3 && seen + n >= keep) {
        var at = -1;
        for (var k = 0; k < keep - seen; k++) at = text.indexOf("\n", at + 1);
        var rest = nodes[i].splitText(at + 1), copy = pre.cloneNode(false);
        var into = code ? copy.appendChild(code.cloneNode(false)) : copy;
        while (rest) {
          var after = rest.nextSibling;
          into.appendChild(rest);
          rest = after;
        }
        return copy;
      }
      seen += n;
    }
    return null;
  }

  function fit(section, W, H) {
    var path = splitPoint(section), next = null;
    while (path && tooBig(section, W, H)) {
      var host = path[path.length - 1], kids = blocks(host);
      var last = kids[kids.length - 1];
      var pre = last.matches("pre") ? last : last.querySelector("pre");
      var listing = kids.length <= 2 && last.matches(LISTING) && pre;
      if (kids.length < 2 && !listing) break;
      var moved = listing ? splitListing(pre, section.scrollHeight - H) : null;
      if (listing && !moved && kids.length < 2) break;
      if (!next) next = continuation(section, path);
      if (moved) {
        var box = moved;  // in the wrappers of the listing (div.highlight-python > div.highlight)
        for (var up = pre; up !== last; up = up.parentNode) {
          var wrap = up.parentNode.cloneNode(false);
          wrap.appendChild(box);
          box = wrap;
        }
        next.inner.insertBefore(box, next.inner.firstChild);
        break;
      }
      next.inner.insertBefore(last, next.inner.firstChild);
      path = splitPoint(section);
    }
    for (var scale = 0.95; tooBig(section, W, H) && scale >= MIN - 1e-9; scale -= 0.05) {
      section.style.fontSize = Math.round(scale * 100) + "%";
    }
    if (next) fit(next.section, W, H);
  }

  /* ?as-made in the deck's address: no split, the slides as the deck made them. */
  var asMade = /[?&]as-made\b/.test(window.location.search);

  function fitAll() {
    var cfg = Reveal.getConfig(), W = cfg.width, H = cfg.height;
    var slides = Array.prototype.slice.call(document.querySelectorAll(".reveal .slides section"));
    slides.forEach(function (s) {
      if (s.querySelector("section")) return; // a stack: its slides are fitted
      var shown = [s, s.parentNode].map(function (e) {
        var was = e.style.display;
        e.style.display = "block";
        return [e, was];
      });
      // the slide as the deck made it, before any split (tests/test_slides.py reads it)
      s.setAttribute("data-source-height", String(s.scrollHeight));
      s.setAttribute("data-source-width", String(s.scrollWidth));
      if (!asMade) fit(s, W, H);
      shown.forEach(function (p) { p[0].style.display = p[1]; });
    });
    Reveal.sync();
    Reveal.layout();
    document.documentElement.setAttribute("data-slides-fitted", "");
  }

  function start() {
    var typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset ? MathJax.startup.promise : Promise.resolve()).then(fitAll);
  }

  window.addEventListener("load", function () {
    if (Reveal.isReady()) start();
    else Reveal.on("ready", start);
  });
})();
