"""Third-party files behind one door, and every asset path the build names exists.

The book vendors Thebe, require.js and the Jupyter widget runtime (served as ``_static/vendor/``)
and the tests vendor axe-core. Each side keeps them under one ``vendor/`` root
(:data:`VENDOR_ROOTS`): a folder ``<name>-<version>`` per package, a ``VENDOR.md`` table (folder,
npm package, version, license) and a ``SHA256SUMS`` file. These tests check that

* every file under a root is listed in its ``SHA256SUMS`` with the right sha256, and nothing
  listed is missing (a changed byte, an added or a deleted file fails, shown on a copy);
* ``VENDOR.md`` names exactly the package folders there are, each folder's version appears in
  the package's own files, and no copy of a vendored file lives outside a vendor root;
* the paths that ``_config.yml``, the Sphinx extensions, ``live/formulated-live.js`` and
  ``tests/_browser.py`` refer to exist (``make book`` would otherwise serve a 404 silently).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from _chapters import ROOT

STATIC = ROOT / "chapters" / "_static_assets"
#: The two vendor roots: what the book serves, and what only the tests use.
VENDOR_ROOTS = (STATIC / "vendor", ROOT / "tests" / "vendor")
#: The files of a root that are the project's own record of it, not vendored.
RECORDS = frozenset({"SHA256SUMS", "VENDOR.md"})


def sha256(path: Path) -> str:
    """The sha256 of a file's bytes, as ``sha256sum`` prints it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listed(root: Path) -> dict[str, str]:
    """``SHA256SUMS`` of a root: relative path -> sha256 (the format of ``sha256sum``)."""
    sums: dict[str, str] = {}
    for number, line in enumerate((root / "SHA256SUMS").read_text().splitlines(), 1):
        match = re.fullmatch(r"([0-9a-f]{64}) [ *](\S.*)", line)
        assert match, (
            f"{root / 'SHA256SUMS'}:{number}: not '<sha256>  <path>': {line!r}"
        )
        assert match[2] not in sums, (
            f"{root / 'SHA256SUMS'}:{number}: {match[2]} listed twice"
        )
        sums[match[2]] = match[1]
    return sums


def on_disk(root: Path) -> set[str]:
    """Every file under a root (relative, POSIX), except its two records."""
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).as_posix() not in RECORDS
    }


def problems(root: Path) -> list[str]:
    """What disagrees between a root's files and its ``SHA256SUMS``: unlisted, missing, changed."""
    sums, files = listed(root), on_disk(root)
    found = [f"unlisted: {p}" for p in sorted(files - sums.keys())]
    found += [f"missing: {p}" for p in sorted(sums.keys() - files)]
    found += [
        f"changed: {p}"
        for p in sorted(files & sums.keys())
        if sha256(root / p) != sums[p]
    ]
    return found


def packages(root: Path) -> dict[str, dict[str, str]]:
    """The table of a root's ``VENDOR.md``: folder -> {package, version, license}."""
    rows = {}
    for line in (root / "VENDOR.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"`[^`]+-\d[^`]*`", cells[0]):
            rows[cells[0].strip("`")] = {
                "package": cells[1].strip("`"),
                "version": cells[2].split()[0],
                "license": cells[3],
            }
    return rows


@pytest.mark.parametrize(
    "root", VENDOR_ROOTS, ids=lambda r: r.relative_to(ROOT).as_posix()
)
def test_every_vendored_file_is_listed_with_its_sha256(root: Path) -> None:
    assert on_disk(root), f"{root} holds no vendored file"
    assert problems(root) == [], (
        f"{root.relative_to(ROOT)} disagrees with its SHA256SUMS"
    )


def test_a_changed_added_or_deleted_file_is_caught(tmp_path: Path) -> None:
    """The check above on a copy of the book's vendor root: one byte changed, one file added,
    one deleted -- each is reported, and the untouched copy passes."""
    copy = tmp_path / "vendor"
    shutil.copytree(VENDOR_ROOTS[0], copy)
    assert problems(copy) == []
    target = copy / "requirejs-2.3.8" / "require.js"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit of one byte
    target.write_bytes(bytes(data))
    (copy / "thebe-0.9.3" / "extra.js").write_text("// not from npm\n")
    (copy / "thebe-0.9.3" / "thebe.css").unlink()
    assert problems(copy) == [
        "unlisted: thebe-0.9.3/extra.js",
        "missing: thebe-0.9.3/thebe.css",
        "changed: requirejs-2.3.8/require.js",
    ]


@pytest.mark.parametrize(
    "root", VENDOR_ROOTS, ids=lambda r: r.relative_to(ROOT).as_posix()
)
def test_vendor_md_records_each_package_folder(root: Path) -> None:
    """One row per folder ``<name>-<version>``; the version is the package's own (it appears in
    the package's files); a license is named; no file lies loose at the root."""
    rows = packages(root)
    folders = {p.name for p in root.iterdir() if p.is_dir()}
    assert set(rows) == folders, "VENDOR.md's table and the package folders differ"
    assert {p.split("/")[0] for p in listed(root)} == folders, (
        "a file outside a package folder"
    )
    for folder, row in rows.items():
        assert folder.endswith("-" + row["version"]), (
            f"{folder}: version {row['version']}"
        )
        assert row["package"] and row["license"], (
            f"{folder}: package or license missing"
        )
        texts = [p.read_bytes() for p in (root / folder).rglob("*") if p.is_file()]
        assert any(row["version"].encode() in t for t in texts), (
            f"{folder}: version {row['version']} appears in none of its files"
        )


def test_no_vendored_file_outside_a_vendor_root() -> None:
    """Every tracked file identical to a vendored one lies under a vendor root: the project's
    own assets (chapters/_static_assets/live, launch, i18n) hold no third-party copy."""
    digests = {digest for root in VENDOR_ROOTS for digest in listed(root).values()}
    sizes = {(root / p).stat().st_size for root in VENDOR_ROOTS for p in on_disk(root)}
    tracked = (
        subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        )
        .stdout.decode()
        .split("\0")
    )
    outside = []
    for name in filter(None, tracked):
        path = ROOT / name
        if any(root in path.parents for root in VENDOR_ROOTS) or not path.is_file():
            continue
        if path.stat().st_size in sizes and sha256(path) in digests:
            outside.append(name)
    assert outside == []


# ---- every path the build names exists ----------------------------------------------------


def config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


def test_config_paths_exist() -> None:
    """``html_static_path``, the favicon and the ``nb_ipywidgets_js`` scripts of _config.yml."""
    cfg = config()
    sphinx = cfg["sphinx"]["config"]
    static = [ROOT / p for p in sphinx["html_static_path"]]
    assert static == [STATIC] and STATIC.is_dir()
    assert (ROOT / cfg["html"]["favicon"]).is_file()
    for script in sphinx["nb_ipywidgets_js"]:
        assert (STATIC / script).is_file(), (
            f"nb_ipywidgets_js: {script} is not in {STATIC}"
        )


def test_extension_assets_exist() -> None:
    """The files the Sphinx extensions add to every page (``add_js_file``/``add_css_file``)."""
    from booktools.sphinx import html as sphinx_html
    from booktools.sphinx import i18n as sphinx_i18n
    from booktools.sphinx import launch

    names = [
        sphinx_html.LIVE_JS,
        sphinx_html.LIVE_CSS,
        sphinx_html.FIGURES_CSS,
        launch.LAUNCH_JS,
        sphinx_i18n.KO_CSS,
        sphinx_i18n.SWITCH_CSS,
    ]
    assert [n for n in names if not (STATIC / n).is_file()] == []


def test_live_script_loads_files_that_exist() -> None:
    """Every ``STATIC + "…"`` of formulated-live.js (Thebe, require.js, the widget runtime) and
    every file it reaches from those (``THEBE + "index.js"``) is served by the book."""
    js = (STATIC / "live" / "formulated-live.js").read_text(encoding="utf-8")
    bases = dict(re.findall(r'var (\w+) = STATIC \+ "([^"]+)";', js))
    assert {"THEBE", "REQUIREJS", "WIDGETS"} <= bases.keys()
    paths = list(bases.values())
    for name, base in bases.items():
        paths += [
            base.rstrip("/") + "/" + rel.lstrip("/")
            for rel in re.findall(rf'\b{name} \+ "([^"]+\.\w+)"', js)
        ]
    paths += re.findall(r'\bSTATIC \+ "([^"]+)"', js)
    assert len(paths) >= 6
    assert [p for p in paths if not (STATIC / p).exists()] == []
    literals = re.findall(r'"([^"\n]*vendor/[^"\n]*)"', js)
    assert sorted(literals) == sorted(bases.values()), (
        "a vendored path written outside the three variables at the top"
    )


def test_axe_is_where_the_browser_tests_load_it() -> None:
    """tests/_browser.py injects axe from its vendor folder, in the version it reports."""
    import _browser

    assert _browser.AXE_JS.is_file()
    assert _browser.AXE_JS.parent.name == f"axe-core-{_browser.AXE_VERSION}"
    assert f'axe.version="{_browser.AXE_VERSION}"' in _browser.AXE_JS.read_text(
        encoding="utf-8"
    )
