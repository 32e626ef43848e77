"""The book's tooling, outside the ``formulated`` package that readers install: Sphinx
extensions (``sphinx_source``, ``sphinx_html``, ``launch``, ``kernel_client``), the parallel
prebuild, the JupyterLab and live servers, the Colab notebooks, and the otter-grader assignments
(``teaching``: the command line; ``assign``, ``wheel``, ``grading``, ``leak_scan``,
``exercises``). ``make env`` makes it importable in ``.venv`` (``pth.py``)."""
