# The Formulated GPT — one entry point for readers, authors and CI.
#   make book   build the executed HTML book into _build/html, Korean in _build/html/ko, with the PDF
#               and the slide decks it links (creates .venv the first time; installs TeX Live when missing, as root or with sudo)
#   make test   every test: the chapters' runs read from make book's execution cache, the browser, PDF and otter checks
#   make check  the fast loop for contributors: the tests without browser, PDF or chapter execution
#   make lint   the style checks alone (ruff, ruff format, codespell), in seconds; CI runs it first
#   make lab    open the chapters as notebooks in JupyterLab
#   make live   serve the built book with live widgets (local Jupyter server; Ctrl-C stops)
#   make assignments   otter-grader student notebooks + autograder zips (appendix C)
#   make student-book  the book without solutions (_build/student/html); make notebooks STUDENT=1
#   make slides one reveal.js deck per chapter, English and Korean (_build/html/slides/<lang>/chapters/)
#   make answer-keys   one instructor's key per chapter (_build/answer_keys/<chapter>.html; KEYS_ARGS=--pdf: and .pdf)
#   make pdf    the book as one PDF, _build/pdf/the-formulated-gpt.pdf and -ko.pdf (TeX Live; no re-execution)
#   make dist   the offline copy: a zip of the HTML book (opens from file://) and the PDF
#   make po     update the Korean catalogues locales/ko/LC_MESSAGES from the English (also: make translations)
#   make clean  remove build outputs (keeps .venv)

PYTHON ?= python3
VENV   := .venv
# chapters executed at once by `make book`, and pytest workers
JOBS   ?= 2
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)
export PYTHONHASHSEED := 0
# Bytecode is cached (__pycache__, ignored by git) even where the environment asks Python not to
# write it: otherwise every test worker, kernel and tool process compiles the book's modules and
# pytest rewrites every test module again.
unexport PYTHONDONTWRITEBYTECODE
# Pip cache is kept between runs (speeds up CI); nothing is downloaded at run time.
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: book test check lint browser lab live clean distclean env bench assignments pdf dist tex \
        student-book answer-keys po translations slides notebooks

env: $(STAMP)

$(STAMP): pyproject.toml .ci/constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c .ci/constraints.txt -e ".[book]"
	$(BIN)/python -m booktools pth   # booktools/ (build, Lab, live, otter tooling) importable in .venv only
	# cffconvert (tests/test_citation.py) pins jsonschema<4, which jupyterlab needs >=4.18; it runs
	# fine with 4.x, so it and its own small dependencies are installed without that pin.
	$(BIN)/python -m pip install --quiet --no-deps cffconvert==2.0.0 pykwalify==1.8.0 docopt==0.6.2 \
	    ruamel.yaml==0.19.1
	@touch $(STAMP)

book: $(STAMP)
	$(BIN)/python -m booktools prebuild --jobs $(JOBS)   # chapters executed JOBS at a time
	@# The PDF first, so every page's download menu links it ("Download PDF"): TeX Live is
	@# installed when missing (`tex`); where it cannot be, one line says so and the HTML follows.
	@# NOPDF=1 skips it (a contributor's quick rebuild of the HTML: about 3 minutes less).
	@if [ -n "$(NOPDF)" ]; then echo "make book: NOPDF set, the PDF is not rebuilt"; \
	elif $(MAKE) --no-print-directory -s tex; then $(BIN)/python -m booktools pdf; \
	else echo "make book: no PDF this time (TeX Live is missing; see the line above): the pages offer no Download PDF until make pdf runs"; fi
	$(BIN)/jupyter-book build . --builder html -n -W --keep-going
	$(BIN)/python -m booktools i18n build   # the Korean book, _build/html/ko, from the same cache
	@# The decks each chapter page links ("Slides of this chapter"), from the cache, and their
	@# printable handouts, which Chromium prints (installed when missing, as for `make test`).
	@$(MAKE) --no-print-directory -s browser || echo "make book: no handouts this time (Chromium is missing; see the line above)"
	$(BIN)/python -m booktools slides
	$(BIN)/python -m booktools check
	@echo "Open _build/html/index.html"

# The browser tests read the built book (tests/test_browser.py, tests/test_a11y.py): build it when
# it is missing; they drive Debian's Chromium and its driver (CJK fonts for chapter 6's tokens),
# and the PDF tests run XeLaTeX (`tex` installs TeX Live when missing, as `browser` does).
test: $(STAMP) browser tex _build/html/index.html
	$(BIN)/python -m pytest -n $(JOBS)

# The contributor's fast loop: the package's and tools' tests, without a browser, the PDF, the
# chapters' execution or what starts processes (marked slow in the test modules).
check: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) -q -m "not slow and not chapter and not browser and not pdf"

# The style checks alone, in seconds (CI runs them first; .pre-commit-config.yaml runs the same):
# ruff's lint and format checks over the whole repository, the chapters' code included, and
# codespell (pyproject.toml: [tool.ruff], [tool.codespell]). On a fresh clone only the two tools
# are installed first, so a style slip fails before any build.
LINT_TOOLS := $(VENV)/.lint-tools
lint: $(LINT_TOOLS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/codespell .

$(LINT_TOOLS): .ci/constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c .ci/constraints.txt ruff codespell
	@touch $@

# $(call apt_install,PACKAGES,WHAT): a shell command that installs Debian's PACKAGES as root with
# apt-get, else with sudo; where neither works, one line says what to run and it fails.
apt_install = if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(1); \
	elif command -v sudo >/dev/null && command -v apt-get >/dev/null; then \
	  echo "make: installing $(2) with sudo"; \
	  sudo apt-get update -q && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(1); \
	else \
	  echo "make needs $(2): run  sudo apt-get install $(1)  (Debian/Ubuntu) and try again"; \
	  exit 1; \
	fi

# Chromium, chromium-driver and fonts-noto-cjk, installed when missing (apt_install).
BROWSER_PKGS := chromium chromium-driver fonts-noto-cjk
browser:
	@if dpkg -s $(BROWSER_PKGS) >/dev/null 2>&1 || { ! command -v dpkg >/dev/null \
	    && command -v chromium >/dev/null && command -v chromedriver >/dev/null; }; then :; \
	else $(call apt_install,$(BROWSER_PKGS),Chromium and its driver (the browser tests)); fi

_build/html/index.html:
	$(MAKE) book

# Debian's TeX Live for `make pdf` (installed once per machine; CI runs as root).
# texlive-lang-cjk (xeCJK) and fonts-noto-cjk: the Korean PDF's Hangul.
TEX_PACKAGES := texlive-xetex texlive-latex-extra texlive-fonts-recommended latexmk \
                fonts-freefont-otf fonts-dejavu-core poppler-utils librsvg2-bin \
                texlive-lang-cjk fonts-noto-cjk
# Installed when missing as `browser` is (make test needs it too: tests/test_pdf.py and the
# answer keys run XeLaTeX).
tex:
	@if command -v xelatex >/dev/null && command -v latexmk >/dev/null && command -v pdftotext >/dev/null \
	    && command -v rsvg-convert >/dev/null && kpsewhich xeCJK.sty >/dev/null \
	    && fc-list | grep -q "Noto Serif CJK KR"; then :; \
	else $(call apt_install,$(TEX_PACKAGES),TeX Live (the PDF and its tests)); fi

# The PDF from the chapters `make book` executed (only chapters missing from the cache run).
# Run `make book` afterwards (or before: the HTML links the PDF once it exists; CI: pdf first).
pdf: $(STAMP) tex
	$(BIN)/python -m booktools prebuild --jobs $(JOBS)
	$(BIN)/python -m booktools pdf

# The offline copy: _build/dist/the-formulated-gpt-<version>.zip (the HTML book and the PDF).
dist: pdf book
	$(BIN)/python -m booktools dist

live: $(STAMP)
	$(BIN)/python -m booktools live

# JupyterLab on the repository: chapters open as rendered notebooks (booktools/lab/lab.py);
# works as root too. Extra options: make lab LAB_ARGS="--no-browser --port=8899"
lab: $(STAMP)
	$(BIN)/python -m booktools lab $(LAB_ARGS)

# The chapters as .ipynb for Colab (chapters/notebooks/); tests/test_notebooks.py checks they are current.
# STUDENT=1: without solutions, into _build/student/notebooks (for a course's own repository).
notebooks: $(STAMP)
	$(BIN)/python -m booktools notebooks $(if $(STUDENT),--student)

# The student edition: the book without solutions in _build/student/html, from the execution
# cache of `make book` (only chapters missing from it run; booktools/course/student.py); then the leak
# scan of its pages and of the student notebooks (booktools/course/leak_scan.py).
student-book: $(STAMP)
	$(BIN)/python -m booktools prebuild --jobs $(JOBS)
	$(BIN)/python -m booktools student
	$(BIN)/python -m booktools leak-scan _build/student   # fails if a solution or graded value shows

# The lecture slides (booktools/build/slides.py): one reveal.js deck per chapter, English and Korean,
# made from the chapter (its definitions and their code, the cells marked <!-- slide -->, the
# exercises' prompts) and the execution cache (filled first, as for make pdf), into
# _build/html/slides/<lang>/chapters/<chapter>.html, which the chapter pages link; then the leak
# scan of every deck (fails if a solution shows).
slides: $(STAMP)
	$(BIN)/python -m booktools prebuild --jobs $(JOBS)
	$(BIN)/python -m booktools slides

# The Korean catalogues (booktools/i18n/__init__.py): message templates from the chapters (execution cache
# of `make book`, so Markdown printed by cells is included), merged into locales/ko/LC_MESSAGES:
# new messages empty, changed ones #, fuzzy with the previous English. CONTRIBUTING.md: Translating.
po: $(STAMP)
	$(BIN)/python -m booktools prebuild --jobs $(JOBS)
	$(BIN)/python -m booktools i18n po
translations: po

bench: $(STAMP)
	$(BIN)/python benchmarks/train_cpu.py

# One assignment per chapter in _build/assignments/<chapter>/: student/ (notebook with
# grader.check cells) and autograder/ (zip for otter run or Gradescope); then a scan of every
# student file for every solution. ASSIGN_ARGS=--check also grades the book's own solutions
# (full marks expected).
assignments: $(STAMP)
	rm -rf _build/assignments
	$(BIN)/python -m booktools assign chapters/[0-9][0-9]_*.md --out _build/assignments $(ASSIGN_ARGS)

# The instructor's answer key of every chapter: _build/answer_keys/<chapter>.html (every
# solution, rubric, hidden test; booktools/course/answer_keys.py). KEYS_ARGS=--pdf: <chapter>.pdf too,
# by the book's LaTeX route (TeX Live, as make pdf), with what each solution printed (the
# execution cache, filled first as for make pdf).
answer-keys: $(STAMP) $(if $(findstring --pdf,$(KEYS_ARGS)),tex)
	$(if $(findstring --pdf,$(KEYS_ARGS)),$(BIN)/python -m booktools prebuild --jobs $(JOBS))
	$(BIN)/python -m booktools answer-keys $(KEYS_ARGS)

clean:
	rm -rf _build .pytest_cache .hypothesis
	find . -name __pycache__ -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
