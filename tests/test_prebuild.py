"""booktools.build.prebuild: chapters executed in parallel land where Myst-NB looks for them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from _chapters import MYST_HEADER, ROOT

from booktools.build import prebuild

CHAPTER = (
    MYST_HEADER
    + """
# A chapter

```{code-cell} python3
---
tags: [hide-input]
---
import os, sys
print("one print,", "in pieces:", end="")
sys.stdout.flush()
print(" same line", os.environ["OMP_NUM_THREADS"])
```

```{code-cell} python3
import matplotlib.pyplot as plt

plt.plot([0, 1], [1, 0]);
```
"""
)


def myst_nb_notebook(path: Path):
    """The notebook Myst-NB's Sphinx parser makes of ``path`` under the book's configuration."""
    from myst_nb.core.config import NbParserConfig
    from myst_nb.core.read import create_nb_reader
    from myst_parser.config.main import MdParserConfig

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    md = MdParserConfig(
        enable_extensions=set(config["parse"]["myst_enable_extensions"])
    )
    text = path.read_text(encoding="utf-8")
    reader = create_nb_reader(str(path), md, NbParserConfig(), text)
    return reader.read(text)


def test_every_chapter_hashes_to_the_key_myst_nb_looks_up(tmp_path: Path) -> None:
    from jupyter_cache import get_cache

    cache = get_cache(str(tmp_path / "cache"))
    paths = prebuild.chapters()
    assert len(paths) >= 25
    for path in paths:
        ours = cache.create_hashed_notebook(prebuild.read_chapter(path))[1]
        assert ours == cache.create_hashed_notebook(myst_nb_notebook(path))[1], (
            path.name
        )


def test_the_later_chapters_start_first() -> None:
    names = [p.name for p in prebuild.chapters()]
    assert names[:2] == ["19_inside_the_model.md", "18_train_tiny_gpt.md"]
    assert names.index("01_learning_from_data.md") < names.index("intro.md")


@pytest.mark.slow  # runs kernels
def test_run_caches_only_successes_whole_prints_and_figures(tmp_path: Path) -> None:
    from jupyter_cache import get_cache

    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text(CHAPTER, encoding="utf-8")
    bad.write_text(
        CHAPTER.replace('print(" same line"', 'raise RuntimeError("boom"); print('),
        encoding="utf-8",
    )
    cache = get_cache(str(tmp_path / "cache"))
    assert prebuild.pending([good, bad], cache) == [good, bad]
    outcomes = prebuild.run([good, bad], cache, jobs=2, timeout=60)
    assert sorted(Path(o.path).name for o in outcomes) == ["bad.md", "good.md"]
    failed = [o for o in outcomes if o.error]
    assert [Path(o.path).name for o in failed] == ["bad.md"] and "boom" in failed[
        0
    ].error
    assert prebuild.pending([good, bad], cache) == [
        bad
    ]  # the failure is left to Sphinx
    record = cache.match_cache_notebook(prebuild.read_chapter(good))
    outputs = cache.get_cache_bundle(record.pk).nb.cells[0].outputs
    threads = max(1, (os.cpu_count() or 1) // 2)  # the cores shared by the 2 jobs
    assert [o["text"] for o in outputs] == [
        f"one print, in pieces: same line {threads}\n"
    ]
    # each code cell's time is kept beside the run, not in the cell (Myst-NB's key hashes it:
    # `pending` above would not find the run)
    assert "execution" not in cache.get_cache_bundle(record.pk).nb.cells[0].metadata
    seconds = record.data["cell_seconds"]
    assert len(seconds) == 2 and all(0 <= s < 60 for s in seconds), seconds
    # the figure is in the notebook although this process has MPLBACKEND=Agg (conftest.py)
    assert os.environ["MPLBACKEND"] == "Agg"
    figure = cache.get_cache_bundle(record.pk).nb.cells[1].outputs
    assert any("image/png" in o.get("data", {}) for o in figure), figure


def test_bad_jobs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(
        ValueError, match="jobs: expected a positive number of workers, got 0"
    ):
        prebuild.run([], None, jobs=0, timeout=1)
    with pytest.raises(SystemExit):
        prebuild.main(["--jobs", "0"])


def test_an_edit_to_the_package_empties_the_cache(tmp_path: Path) -> None:
    """A chapter's cached outputs are served only while formulated/ and data/ are as they
    were when it ran: a changed quiz text must not be shown from an old run."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    for name in prebuild.INPUTS:
        (tmp_path / name).mkdir()
    quiz = tmp_path / "formulated" / "quiz.py"
    quiz.write_text("PROMPT = 'What is 2 + 2?'\n", encoding="utf-8")
    cache = get_cache(str(tmp_path / "cache"))
    stamp = tmp_path / "cache.inputs"
    doctrees = tmp_path / "html" / ".doctrees" / "environment.pickle"

    def store() -> None:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
        cache.cache_notebook_bundle(
            CacheBundleIn(nb, "chapter.ipynb"), check_validity=False, overwrite=True
        )

    first = prebuild.inputs_fingerprint(tmp_path)
    assert prebuild.drop_stale_cache(
        cache, stamp, first
    )  # no stamp yet: nothing trusted
    store()
    assert not prebuild.drop_stale_cache(
        cache, stamp, prebuild.inputs_fingerprint(tmp_path)
    )
    assert len(cache.list_cache_records()) == 1
    quiz.write_text("PROMPT = 'What is 2 + 3?'\n", encoding="utf-8")
    changed = prebuild.inputs_fingerprint(tmp_path)
    assert changed != first
    doctrees.parent.mkdir(parents=True)
    doctrees.write_bytes(b"Sphinx's environment, read with the old outputs")
    assert prebuild.drop_stale_cache(cache, stamp, changed)
    assert cache.list_cache_records() == []
    assert not doctrees.exists(), "Sphinx would keep the old outputs in its doctrees"
    assert stamp.read_text(encoding="utf-8").strip() == changed
