"""The book's tooling, outside the ``formulated`` package that readers install; one command
line, ``python -m booktools <command>`` (:mod:`booktools.__main__`), runs every tool.

* :mod:`booktools.sphinx` — what ``_config.yml`` loads: the Sphinx extensions of the HTML and
  PDF books (source boxes, launch buttons, live code, Korean pages, quizzes, slides links).
* :mod:`booktools.build` — the Makefile's build steps: prebuild, PDF, slides, Colab notebooks,
  the offline zip, the checks on the built book.
* :mod:`booktools.i18n` — the Korean edition: its catalogues, their checks, printed outputs
  and columns, the gloss policy.
* :mod:`booktools.course` — for instructors: otter assignments, grading, leak scan, answer
  keys, the student edition, the exercises' specs.
* :mod:`booktools.lab` — JupyterLab on the repository, its kernel extension, the live servers.
* :mod:`booktools.paths` (the repository's shared paths), :mod:`booktools.myst` (the one MyST
  parser), :mod:`booktools.pth` (``make env`` makes ``booktools`` importable in ``.venv``).
"""
