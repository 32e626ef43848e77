"""JupyterLab: the MyST and jupytext extensions, the shipped settings, stable saves, `make lab`."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from _chapters import ROOT

from booktools.lab import lab
from booktools.lab.kernel import FOLD_MARK

CHAPTER = "chapters/11_ffn_gelu.md"


@pytest.mark.slow  # starts jupyter
def test_myst_and_jupytext_extensions_are_installed_and_enabled():
    out = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    listing = re.sub(r"\x1b\[[0-9;]*m", "", out.stdout + out.stderr)
    for name in ("jupyterlab-myst", "jupyterlab-jupytext"):
        line = next((l for l in listing.splitlines() if name in l), "")
        assert " enabled" in line, f"{name} not enabled:\n{listing}"
    # jupyterlab-myst 2.7 declares @jupyter/ydoc <4 and Lab 4.6 ships 4.x, so the list marks it
    # "X"; it loads and renders all the same (tests/test_lab_browser.py shows it on a chapter).
    out = subprocess.run(
        [sys.executable, "-m", "jupyter", "server", "extension", "list"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    listing = out.stdout + out.stderr
    for name in ("jupyterlab_myst", "jupyterlab_jupytext"):
        assert any(name in l and "enabled" in l for l in listing.splitlines()), listing


def test_macros_come_from_config():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    mathjax = config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    macros = lab.math_macros()
    assert set(macros) == {"\\" + k for k in mathjax}
    assert macros["\\bm"] == "\\boldsymbol{#1}"
    assert macros["\\R"] == "\\mathbb{R}"


def test_macros_missing_from_config_is_a_clear_error(tmp_path):
    bad = tmp_path / "_config.yml"
    bad.write_text("sphinx: {config: {}}\n")
    with pytest.raises(ValueError, match="config_path.*mathjax3_config"):
        lab.math_macros(bad)


def test_macro_cell_is_myst_front_matter():
    cell = lab.macro_cell({"\\R": "\\mathbb{R}"})
    source = cell["source"]
    assert source.startswith("---\n") and source.endswith("---\n")
    assert yaml.safe_load(source.strip("-\n")) == {"math": {"\\R": "\\mathbb{R}"}}


def test_install_writes_overrides_and_server_config(tmp_path):
    settings = tmp_path / "share/jupyter/lab/settings/overrides.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        json.dumps(
            {
                "@jupyterlab/apputils-extension:themes": {"theme": "X"},
                "@jupyterlab/notebook-extension:tracker": {"a": 1},
            }
        )
    )
    overrides, server, kernel = lab.install(tmp_path)
    assert json.loads(kernel.read_text())["InteractiveShellApp"]["extensions"] == [
        "booktools.lab.kernel"
    ]
    data = json.loads(overrides.read_text())
    viewers = data["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == "Jupytext Notebook"
    assert data["@jupyterlab/notebook-extension:tracker"] == {
        "a": 1,
        "windowingMode": "none",
    }
    assert data["@jupyterlab/apputils-extension:themes"] == {"theme": "X"}  # kept
    manager = json.loads(server.read_text())["ServerApp"]["contents_manager_class"]
    module, name = manager.rsplit(".", 1)
    assert getattr(__import__(module, fromlist=[name]), name) is lab.BookContentsManager


@pytest.mark.parametrize("uid, allowed", [(0, True), (1000, False)])
def test_lab_command_allows_root_only_for_root(uid, allowed):
    command = lab.lab_command(["--no-browser"], uid=uid)
    assert ("--allow-root" in command) is allowed
    assert command[-1] == "--no-browser"
    assert f"--ServerApp.root_dir={lab.ROOT}" in command
    other = lab.lab_command(["--ServerApp.root_dir=/tmp/x"], uid=uid)
    assert [a for a in other if "root_dir" in a] == ["--ServerApp.root_dir=/tmp/x"]


def _open_edit_save(manager_class, root: Path) -> str:
    """Open the chapter as a notebook, do what a Lab session does, save; return the new text
    and the first cell the notebook view had."""
    manager = manager_class(root_dir=str(root))

    async def run():
        model = await manager.get(CHAPTER, content=True, type="notebook")
        nb = model["content"]
        first_cell = dict(nb["cells"][0])
        folded = [c for c in nb["cells"] if c["metadata"].get(FOLD_MARK)]
        if (
            folded
        ):  # the reader opens one folded solution (Lab sets source_hidden false)
            folded[0]["metadata"]["jupyter"]["source_hidden"] = False
        # What a running kernel and the widgets add to the notebook's metadata and cells.
        nb["metadata"]["language_info"] = {
            "name": "python",
            "pygments_lexer": "ipython3",
            "version": "3.11.7",
        }
        nb["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"] = [
                    {"output_type": "stream", "name": "stdout", "text": "x\n"}
                ]
                cell["execution_count"] = 1
        await manager.save(
            {"type": "notebook", "format": "json", "content": nb}, CHAPTER
        )
        return first_cell

    first_cell = asyncio.run(run())
    return (root / CHAPTER).read_text(encoding="utf-8"), first_cell


@pytest.fixture
def repo_copy(tmp_path):
    """The chapter and the jupytext configuration (pyproject.toml) in a scratch repository."""
    (tmp_path / "chapters").mkdir()
    shutil.copy(ROOT / CHAPTER, tmp_path / CHAPTER)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_saving_from_lab_keeps_the_chapter_text(repo_copy):
    before = (repo_copy / CHAPTER).read_text(encoding="utf-8")
    after, first_cell = _open_edit_save(lab.BookContentsManager, repo_copy)
    assert after == before
    # The notebook view had the macro cell first; the file never gets it.
    assert lab.MACRO_CELL_MARK in first_cell["metadata"]
    assert "formulated-math-macros" not in after


def test_definition_code_shows_as_a_dropdown_and_saves_back_as_the_directive(repo_copy):
    """The book's ``{formulated-source}`` directive is unknown to jupyterlab-myst (an "Unknown
    Directive" box): the view shows the function's source in a ``{dropdown}`` instead, and the
    save writes the directive back, also after an edit elsewhere in the same cell."""
    manager = lab.BookContentsManager(root_dir=str(repo_copy))
    before = (repo_copy / CHAPTER).read_text(encoding="utf-8")

    async def run():
        nb = (await manager.get(CHAPTER, content=True, type="notebook"))["content"]
        text = "\n".join(
            c["source"] for c in nb["cells"] if c["cell_type"] == "markdown"
        )
        shown = [c for c in nb["cells"] if c["metadata"].get(lab.SOURCE_MARK)]
        shown[0]["source"] = shown[0]["source"].replace(
            "## The feed-forward network", "## The feed-forward network!"
        )
        await manager.save(
            {"type": "notebook", "format": "json", "content": nb}, CHAPTER
        )
        return text

    text = asyncio.run(run())
    assert "{formulated-source}" not in text
    assert "::::{dropdown} Code: `formulated.formulas.feedforward.ffn_relu`" in text
    assert "def ffn_relu(" in text and "tests/test_formulas.py::" in text
    after = (repo_copy / CHAPTER).read_text(encoding="utf-8")
    assert after == before.replace(
        "## The feed-forward network", "## The feed-forward network!"
    )


def test_plain_jupytext_save_would_rewrite_the_chapter(repo_copy):
    """The control: jupytext's own manager turns python3 into ipython3 (what the fix prevents)."""
    from jupytext.async_contentsmanager import AsyncTextFileContentsManager

    before = (repo_copy / CHAPTER).read_text(encoding="utf-8")
    after, _ = _open_edit_save(AsyncTextFileContentsManager, repo_copy)
    assert after != before and "{code-cell} ipython3" in after


def test_without_the_jupytext_config_the_header_changes(repo_copy):
    (repo_copy / "pyproject.toml").unlink()
    before = (repo_copy / CHAPTER).read_text(encoding="utf-8")
    after, _ = _open_edit_save(lab.BookContentsManager, repo_copy)
    assert "jupytext_version" in after and "jupytext_version" not in before


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout: float = 5) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read()


def _start_make_lab(port: int, token: str) -> subprocess.Popen:
    args = (
        f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} "
        f"--IdentityProvider.token={token} --ServerApp.port_retries=0"
    )
    # -o: do not reinstall the environment even if pyproject.toml is newer than its stamp.
    return subprocess.Popen(
        ["make", "-o", ".venv/.installed", "lab", f"LAB_ARGS={args}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _wait_for_lab(proc: subprocess.Popen, base: str, token: str) -> bool:
    """True once Lab answers /api/status; False if the process ended (e.g. port taken)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            status, body = _get(f"{base}/api/status?token={token}")
            return status == 200 and b"started" in body
        except (
            OSError,
            http.client.HTTPException,
        ):  # not listening yet / not an HTTP server
            time.sleep(1)
    return False


@pytest.mark.slow
def test_make_lab_starts_serves_a_chapter_and_stops():
    """`make lab` (as root here when the tests run as root): start, probe over HTTP, stop."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    token = "formulated-test"
    for _attempt in range(
        3
    ):  # a free port can be taken between choosing and binding it
        port = _free_port()
        proc = _start_make_lab(port, token)
        base = f"http://127.0.0.1:{port}"
        if _wait_for_lab(proc, base, token):
            break
        _stop(proc)
    else:
        pytest.fail("JupyterLab did not start: " + _stop(proc)[-3000:])
    try:
        status, page = _get(f"{base}/lab/tree/{CHAPTER}?token={token}")
        assert status == 200 and b"jupyter-config-data" in page
        status, body = _get(
            f"{base}/api/contents/{CHAPTER}?type=notebook&content=1&token={token}",
            timeout=30,
        )
        first = json.loads(body)["content"]["cells"][0]
        assert lab.MACRO_CELL_MARK in first["metadata"], (
            "the book's contents manager is not used"
        )
    finally:
        output = _stop(proc)
    assert "Running as root is not recommended" not in output, output[-3000:]


def _stop(proc: subprocess.Popen) -> str:
    """Stop `make lab` and everything it started; its output."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        return proc.communicate(timeout=30)[0].decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.communicate()[0].decode(errors="replace")


def test_a_missing_config_only_skips_the_macros(repo_copy):
    """Installed without the repository (no _config.yml): chapters still open, without macros."""
    manager = lab.BookContentsManager(
        root_dir=str(repo_copy), macros_config=str(repo_copy / "missing.yml")
    )
    model = asyncio.run(manager.get(CHAPTER, content=True, type="notebook"))
    first = model["content"]["cells"][0]
    assert (
        lab.MACRO_CELL_MARK not in first["metadata"]
        and first["cell_type"] == "markdown"
    )


def test_gated_solutions_code_cells_are_folded_and_nothing_else():
    import jupytext

    text = (ROOT / CHAPTER).read_text(encoding="utf-8")
    # Independent count: code cells between "```{solution-start}" and "```{solution-end}".
    expected = sum(
        block.count("```{code-cell}")
        for block in re.findall(
            r"```\{solution-start\}(.*?)```\{solution-end\}", text, re.S
        )
    )
    assert expected >= 1
    nb = jupytext.reads(text, fmt="md:myst")
    assert lab.fold_solutions(nb) == expected
    folded = [c for c in nb.cells if c.metadata.get(FOLD_MARK)]
    assert all(
        c.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
        for c in folded
    )
    assert not any(
        "gelu_widget()" in c.source for c in folded
    )  # the chapter's own code stays
    lab.prepare_for_save(nb)
    assert not any("jupyter" in c.metadata or FOLD_MARK in c.metadata for c in nb.cells)


def _run_in_kernel(kc, code: str, metadata: dict) -> list[dict]:
    """Execute ``code`` with request ``metadata`` (what JupyterLab sends: the cell's
    metadata); the iopub outputs (stream, display_data, error) of that request."""
    msg = kc.session.msg(
        "execute_request",
        {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        },
        metadata=metadata,
    )
    kc.shell_channel.send(msg)
    outputs = []
    while True:
        reply = kc.get_iopub_msg(timeout=60)
        if reply["parent_header"].get("msg_id") != msg["header"]["msg_id"]:
            continue
        kind = reply["msg_type"]
        if kind == "status" and reply["content"]["execution_state"] == "idle":
            return outputs
        if kind in ("stream", "display_data", "execute_result", "error"):
            outputs.append({"type": kind, **reply["content"]})


def test_a_folded_solution_prints_into_a_closed_box_and_other_cells_as_usual():
    """JupyterLab shows a cell's output again when it runs; the kernel extension
    (booktools.lab.kernel) puts a folded solution's output in a closed <details> box."""
    from jupyter_client.manager import start_new_kernel

    from booktools.lab import kernel as lab_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        _run_in_kernel(kc, "%load_ext booktools.lab.kernel", {})
        code = (
            "from IPython.display import HTML, display\nprint('bert_count', 6 * 7)\n"
            "display(HTML('<b>a table</b>'))"
        )
        folded = _run_in_kernel(kc, code, {FOLD_MARK: True, "cellId": "x"})
        plain = _run_in_kernel(kc, "print('chapter', 6 * 7)", {"cellId": "y"})
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert [o["type"] for o in folded] == ["display_data"], folded
    box = folded[0]["data"]["text/html"]
    assert box.startswith("<details") and " open" not in box.split(">")[0]
    assert (
        lab_kernel.SUMMARY in box and "bert_count 42" in box and "<b>a table</b>" in box
    )
    assert plain == [{"type": "stream", "name": "stdout", "text": "chapter 42\n"}], (
        plain
    )


def test_folded_html_escapes_text_and_is_empty_without_output():
    from booktools.lab import kernel as lab_kernel

    assert lab_kernel.folded_html("", "", []) == ""
    box = lab_kernel.folded_html("a < b\n", "", [{"text/plain": "x & y"}])
    assert "a &lt; b" in box and "x &amp; y" in box
