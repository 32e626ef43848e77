"""Chapter 11 in JupyterLab, in Debian's Chromium: it opens as a notebook (not as text) and
unmodified, its MyST renders (definition box, exercise, math with the book's macros), every cell
runs, a folded solution's output stays folded, and the GELU slider redraws its plot.

JupyterLab runs on 127.0.0.1 from ``python -m booktools.lab.lab`` (what ``make lab`` runs), on
a scratch copy of the chapter, so that nothing the browser does can save into the repository.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any, Iterator

import pytest
import yaml
from _browser import new_driver
from _chapters import MYST_HEADER, ROOT

CHAPTER = "chapters/11_ffn_gelu.md"
#: A line that each of Exercises 11.2, 11.3 and 11.4's folded solutions prints (a solution's
#: output once showed outside its fold after Run All; chapter 15 was opened and run for this
#: alone, 25 s of make test).
FOLDED_OUTPUTS = ("argmin x =", "best alpha for GELU", "max |direct - flattened|")
#: A scratch page: one macro that only the scratch _config.yml defines, one defined nowhere.
MACRO_PAGE = "chapters/macro_check.md"
MACRO_PAGE_TEXT = (
    MYST_HEADER
    + """
# Macros

Defined in _config.yml: $\\formulatedcheck{x}$. Defined nowhere: $\\formulatedundefined{x}$.
"""
)
TOKEN = "formulated-browser-test"

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory) -> Iterator[str]:
    """JupyterLab on a scratch folder holding a copy of the chapter and the jupytext config."""
    root = tmp_path_factory.mktemp("lab")
    (root / "chapters").mkdir()
    shutil.copy(ROOT / CHAPTER, root / CHAPTER)
    # The book's _config.yml plus one macro KaTeX cannot know, for the macro test.
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"][
        "formulatedcheck"
    ] = ["\\boldsymbol{#1}", 1]
    (root / "_config.yml").write_text(yaml.safe_dump(config))
    (root / MACRO_PAGE).write_text(MACRO_PAGE_TEXT)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    # conftest.py sets MPLBACKEND=Agg for the tests; a kernel that inherited it would show
    # figures as "<Figure size ...>" text instead of the inline backend's images.
    lab_env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    for _attempt in range(3):
        port = _free_port()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "booktools.lab.lab",
                "--no-browser",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={TOKEN}",
                f"--ServerApp.root_dir={root}",
                "--LabApp.expose_app_in_browser=True",
                f"--BookContentsManager.macros_config={root / '_config.yml'}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=lab_env,
        )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(
                    f"{base}/api/status?token={TOKEN}", timeout=5
                ):
                    break
            except Exception:  # noqa: BLE001 - not up yet (or not HTTP yet)
                time.sleep(1)
        if proc.poll() is None:
            break
    else:
        pytest.fail(
            "JupyterLab did not start: " + proc.communicate()[0].decode()[-3000:]
        )
    try:
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


DIAGNOSE = """
const nb = window.jupyterapp && window.jupyterapp.shell.currentWidget;
if (!nb || !nb.content) return 'current widget: ' + (nb ? nb.title.label : 'none');
const code = [...nb.content.widgets].filter((c) => c.model.type === 'code');
return {kernel: nb.sessionContext && nb.sessionContext.kernelDisplayStatus,
        unrun: code.filter((c) => !c.model.executionCount).length, code: code.length,
        gelu: (code.find((c) => c.model.sharedModel.getSource().includes('gelu_widget()')
                                && !c.model.sharedModel.getSource().includes('import')) || {node: {innerText: ''}})
              .node.innerText.slice(0, 600)};
"""


def _wait(driver: Any, script: str, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.5)
    state = driver.execute_script(DIAGNOSE)
    pytest.fail(
        f"timed out after {timeout:.0f} s waiting for {what}; notebook: {state}",
        pytrace=False,
    )


RENDERED = r"""
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
if (!panel) return null;
const md = [...panel.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown, .jp-MarkdownCell .jp-RenderedMySTMarkdown, .jp-MarkdownCell .myst')];
const text = md.map((e) => e.innerText).join('\n');
return {
  cells: panel.querySelectorAll('.jp-Cell').length,
  markdown: md.length,
  text: text,
  katex: panel.querySelectorAll('.katex').length,
  // TeX left as text: a formula KaTeX could not render (e.g. an undefined macro).
  rawTex: md.map((e) => {
      const copy = e.cloneNode(true);
      copy.querySelectorAll('.katex, code, pre').forEach((k) => k.remove());
      return copy.textContent.match(/\\[A-Za-z]+.{0,40}/g) || [];
  }).flat().slice(0, 5),
  proofs: [...panel.querySelectorAll('[class*="proof"], .admonition, aside')].map(
      (e) => e.innerText.split('\n')[0]),
  editor: !!document.querySelector('.jp-FileEditor:not(.lm-mod-hidden)'),
};
"""


#: The code cell whose source prints ``arguments[0]``: whether its output is in a
#: ``<details>``, whether that is open, and the output's text as shown.
FOLDED_JS = """
const nb = window.jupyterapp.shell.currentWidget;
const code = [...nb.content.widgets].filter((c) => c.model.type === 'code');
const cell = code.find((c) => c.model.sharedModel.getSource().includes(arguments[0]));
const box = cell && cell.node.querySelector('.jp-OutputArea details');
return {cell: !!cell, box: !!box, open: box ? box.open : null,
        visible: cell ? cell.node.querySelector('.jp-OutputArea').innerText : ''};
"""


def test_chapter_11_opens_renders_runs_and_its_slider_redraws(lab_url: str) -> None:
    """Chapter 11 opens as a rendered notebook, unmodified; every cell runs without an error;
    the folded solutions keep their output in a closed box; the GELU slider redraws its plot;
    the quiz answers."""
    from selenium.webdriver.common.keys import Keys

    driver = new_driver(1280, 1000)
    try:
        # ?reset: a fresh workspace, so that a tab restored from an earlier test is not the one read.
        driver.get(f"{lab_url}/lab/tree/{CHAPTER}?reset&token={TOKEN}")
        # The .md opens in the notebook view (the shipped default viewer), not the text editor.
        state = _wait(
            driver,
            f"const r = (() => {{{RENDERED}}})(); "
            "return r && r.markdown > 10 && r.katex > 10 && "
            "r.proofs.some((p) => p.includes('Exercise')) ? r : null;",
            180,
            "the chapter to open as a rendered notebook, exercises included",
        )
        assert not state["editor"], "the chapter opened in the text editor"
        text = state["text"]
        # MyST directives rendered, not shown as source.
        assert "{prf:definition}" not in text and "```{exercise}" not in text, text[
            :2000
        ]
        assert any("Definition" in p for p in state["proofs"]), state["proofs"]
        assert any("Exercise" in p for p in state["proofs"]), state["proofs"]
        # A definition's code is a dropdown (booktools.lab.lab.show_sources), not an error box.
        assert (
            "formulated.formulas.feedforward.ffn_relu" in text
            and "Unknown Directive" not in text
        )
        # Every formula rendered: no TeX left as text.
        assert state["rawTex"] == [], state["rawTex"]

        # The code cells of gated solutions are folded (booktools.lab.lab.fold_solutions).
        folds = driver.execute_script("""
            const cells = [...window.jupyterapp.shell.currentWidget.content.widgets].filter(
                (c) => c.model.getMetadata('formulated-folded'));
            return [cells.length, cells.filter((c) => c.inputHidden && c.outputHidden).length];
        """)
        assert folds[0] >= 1 and folds[1] == folds[0], f"folded solution cells: {folds}"
        time.sleep(5)  # let every extension finish what it does on opening
        _unmodified(driver)

        # Run every cell; wait until the kernel is idle and each code cell has a number.
        driver.execute_script(
            "window.jupyterapp.commands.execute('notebook:run-all-cells');"
        )
        status = _wait(
            driver,
            """
            const nb = window.jupyterapp.shell.currentWidget;
            if (!nb || !nb.sessionContext || nb.sessionContext.kernelDisplayStatus !== 'idle')
                return null;
            const cells = [...nb.content.widgets].filter((c) => c.model.type === 'code');
            if (cells.some((c) => !c.model.executionCount)) return null;
            const errors = [...nb.node.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], .jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]')];
            return {cells: cells.length, errors: errors.map((e) => e.innerText.slice(0, 500))};
        """,
            540,
            "all cells to run",
        )
        assert status["cells"] > 10 and status["errors"] == [], status["errors"]
        # A folded solution's output is in a closed box (booktools.lab.kernel).
        for printed in FOLDED_OUTPUTS:
            folded = driver.execute_script(FOLDED_JS, printed)
            assert folded["box"] and folded["open"] is False, (printed, folded)
            assert printed not in folded["visible"].split("click to show")[0], folded

        # The GELU widget: move its slider, its plot is redrawn by the kernel.
        plot = """
            const nb = window.jupyterapp.shell.currentWidget;
            const cell = [...nb.content.widgets].find(
                (c) => c.model.type === 'code' && c.model.sharedModel.getSource().trim() === 'gelu_widget()');
            if (!cell) return [null, ''];
            cell.node.scrollIntoView();
            const img = cell.node.querySelector('.jp-OutputArea img');
            return [cell.node.querySelector('.widget-slider .noUi-handle, .widget-slider input'),
                    img ? img.src : ''];
        """
        handle, before = _wait(
            driver,
            f"const r = (() => {{{plot}}})(); return r[0] && r[1] ? r : null;",
            60,
            "the GELU widget's slider and plot",
        )
        handle.click()
        for _ in range(10):
            handle.send_keys(Keys.ARROW_RIGHT)
        after = _wait(
            driver,
            f"const r = (() => {{{plot}}})(); return r[1] && r[1] !== "
            f"{before!r} ? r[1] : null;",
            60,
            "the plot to change",
        )
        assert after != before
        # The quiz answers in the notebook too (its inline script): a wrong number,
        # then the right one or the right option.
        assert _answer_quiz(driver, right=False).startswith("Not quite.")
        assert _answer_quiz(driver, right=True).startswith("Correct.")
    finally:
        driver.quit()


#: Answers the first question of the chapter's quiz in the run notebook: the right number
#: (or option), or a number far from it; returns what the quiz then says.
ANSWER_QUIZ = """
const nb = window.jupyterapp.shell.currentWidget;
const f = nb.node.querySelector('.jp-OutputArea .fq-quiz form.fq-q');
if (!f) return null;
f.scrollIntoView();
if (f.dataset.kind === 'number') {
  f.querySelector('input').value = RIGHT ? f.dataset.answer : String(+f.dataset.answer + 1e6);
} else {
  const msgs = [...f.querySelectorAll('.fq-msgs [data-key^="o"]')];
  const pick = msgs.find((m) => (m.dataset.state === 'correct') === RIGHT);
  f.querySelector(`input[value="${pick.dataset.key.slice(1)}"]`).checked = true;
}
f.querySelector('button[type=submit]').click();
return f.querySelector('.fq-out').innerText || null;
"""


def _answer_quiz(driver: Any, right: bool) -> str:
    script = ANSWER_QUIZ.replace("RIGHT", "true" if right else "false")
    return _wait(driver, script, 60, "the quiz to answer")


def test_macros_from_config_yml_render_and_undefined_ones_do_not(lab_url: str) -> None:
    """A macro defined only in _config.yml renders (booktools.lab.lab's macro cell); the
    control, a macro defined nowhere, is left as TeX text."""
    driver = new_driver(1280, 1000)
    try:
        driver.get(f"{lab_url}/lab/tree/{MACRO_PAGE}?reset&token={TOKEN}")
        state = _wait(
            driver,
            f"const r = (() => {{{RENDERED}}})(); "
            "return r && r.markdown >= 2 && r.katex >= 1 ? r : null;",
            180,
            "the scratch page to render",
        )
        assert state["katex"] == 1, state
        assert [t for t in state["rawTex"] if "formulatedcheck" in t] == [], state[
            "rawTex"
        ]
        assert any("formulatedundefined" in t for t in state["rawTex"]), state
    finally:
        driver.quit()


def _unmodified(driver: Any) -> None:
    """The notebook open in ``driver`` is not marked modified (the macro cell and the folds
    the view adds are not edits); else what differs from the file as the server gave it."""
    dirty = driver.execute_script(
        "const nb = window.jupyterapp.shell.currentWidget;"
        "return [nb.context.model.dirty, nb.title.className];"
    )
    diff = None
    if dirty[0]:
        diff = driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const nb = window.jupyterapp.shell.currentWidget;
            const mine = nb.context.model.toJSON();
            fetch('/api/contents/' + nb.context.path + '?content=1&type=notebook', {headers:
                  {Authorization: 'token ' + '"""
            + TOKEN
            + """'}})
              .then((r) => r.json()).then((m) => {
                const srv = m.content, out = [];
                if (JSON.stringify(srv.metadata) !== JSON.stringify(mine.metadata))
                    out.push(['nbmeta', JSON.stringify(srv.metadata), JSON.stringify(mine.metadata)]);
                out.push(['ncells', srv.cells.length, mine.cells.length]);
                srv.cells.forEach((c, i) => { const d = mine.cells[i];
                    const a = JSON.stringify(c), b = JSON.stringify(d);
                    if (a !== b) out.push([i, a.slice(0, 400), b.slice(0, 400)]); });
                done(out.slice(0, 6)); });
        """
        )
    assert dirty[0] is False and "jp-mod-dirty" not in dirty[1], (dirty, diff)
