"""Build the whole book but execute only the chapters named, to check them for warnings quickly.

    .venv/bin/python -m booktools chapter chapters/08_attention [chapters/09_masks ...]

Other chapters are rendered without executing (their cached outputs are not used), into
/tmp/jb_<first chapter name>; Sphinx runs with -n -W --keep-going like ``make book``. The
script prints the warnings that concern the named chapters (and all of them with --all) and exits
non-zero if there are any. Not part of the test suite: a tool for authors.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from booktools.build.toc import toc_files
from booktools.paths import CONFIG, ROOT


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    show_all = "--all" in argv
    chapters = [a.removesuffix(".md") for a in argv if not a.startswith("--")]
    if not chapters:
        print(__doc__)
        return 2
    for c in chapters:
        if not (ROOT / f"{c}.md").exists():
            print(f"chapter: expected a file like chapters/08_attention, got {c!r}")
            return 2
    every = toc_files()
    cfg = yaml.safe_load(CONFIG.read_text())
    cfg["execute"]["execute_notebooks"] = "force"
    cfg["execute"]["exclude_patterns"] = [f"{c}.md" for c in every if c not in chapters]
    out = Path(tempfile.gettempdir()) / f"jb_{Path(chapters[0]).name}"
    with tempfile.NamedTemporaryFile(
        "w", suffix=".yml", dir=ROOT, delete=False, prefix="._config_"
    ) as f:
        yaml.safe_dump(cfg, f, sort_keys=False)
        tmpcfg = Path(f.name)
    try:
        proc = subprocess.run(
            [
                str(ROOT / ".venv/bin/jupyter-book"),
                "build",
                str(ROOT),
                "--config",
                str(tmpcfg),
                "--path-output",
                str(out),
                "--builder",
                "html",
                "-n",
                "--keep-going",
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
    finally:
        tmpcfg.unlink(missing_ok=True)
    log = proc.stdout + proc.stderr
    lines = [
        ln for ln in log.splitlines() if re.search(r"WARNING|ERROR|Traceback|Error", ln)
    ]
    mine = [ln for ln in lines if show_all or any(Path(c).name in ln for c in chapters)]
    for ln in mine:
        print(ln)
    if proc.returncode != 0 and not mine:
        print("\n".join(log.splitlines()[-30:]))
        print(f"jupyter-book exited with {proc.returncode} (see above)")
        return 1
    print(
        f"{len(mine)} warning(s) for {', '.join(chapters)}; HTML in {out}/_build/html"
    )
    return 1 if mine else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
