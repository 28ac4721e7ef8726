# The workbook's two commands: `make lab` (open JupyterLab) and `make test` (run everything).
# Both create .venv with $(PY) if needed and install the package (editable, extras workbook,test);
# the install is redone only when pyproject.toml changes (stamp file).

PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.toolsys-installed
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings
NOTEBOOK_DIRS := $(wildcard notebooks solutions)
PYTEST_ARGS ?=
# e.g. LAB_ARGS="--no-browser --port 8890"; the file browser starts at the repository root.
LAB_ARGS ?=
# pytest-xdist: each file and notebook stays whole on one worker, longest first, except the slow
# files tests/conftest.py splits by test (--dist loadgroup); PARALLEL= runs serially. Two workers
# per core (at most 8): a worker spends about half its time waiting for kernels, subprocesses and
# the browser, so one per core leaves the cores idle that long. WORKERS=2 on a machine busy with
# other work.
WORKERS_PY := import os; cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1; print(min(8, 2 * cores))
WORKERS ?= $(shell $(PY) -c '$(WORKERS_PY)' 2>/dev/null || echo 2)
PARALLEL ?= -n $(WORKERS) --dist loadgroup --no-loadscope-reorder

# Same outputs on every run: set iteration order must not depend on a random hash seed.
export PYTHONHASHSEED := 0

.DEFAULT_GOAL := help
.PHONY: help setup lab test mutants fuzz bench notebooks exercises lint clean \
	lite lite-env test-lite site test-site test-binder

help:
	@echo "make lab        set up .venv if needed and open JupyterLab on the welcome notebook"
	@echo "make test       set up .venv if needed and run every test (unit tests, notebooks, checks)"
	@echo "make mutants    mutate every solution's answer; exits 1 if a check passes an unlisted mutant"
	@echo "make fuzz       the long fuzz run: 10,000 hostile calls per tool, exits 1 on any broken promise"
	@echo "make bench      every benchmarks/bench_*.py: execute against a bare pydantic call and"
	@echo "                peers, each layer family against the bare registry, search quality"
	@echo "make notebooks  re-execute lessons and solutions in place, then regenerate exercises"
	@echo "make exercises  regenerate exercises/ from the markers in solutions/"
	@echo "make lint       ruff check (everything), ruff format --check (Python files), mypy toolsys"
	@echo "make lite       the browser edition: a JupyterLite site in _site/lite (serve it, e.g."
	@echo "                python -m http.server -d _site/lite)"
	@echo "make test-lite  the browser chapters' lessons and solutions in Pyodide under Node, and"
	@echo "                the built site in Chromium"
	@echo "make site       the book: every executed lesson as a web page, in _site/book"
	@echo "make test-site  the book's internal links"
	@echo "make test-binder  the Binder build (repo2docker --no-build) and its install replayed"
	@echo "make clean      remove .venv"
	@echo "variables: PY=$(PY) (Python >= 3.11), WORKERS=$(WORKERS) (two per core, at most 8),"
	@echo "           PARALLEL=$(PARALLEL), PYTEST_ARGS=$(PYTEST_ARGS),"
	@echo "           MUTANTS=$(MUTANTS) (chapters or exercises for make mutants, e.g. MUTANTS=\"5 6.1\")"

$(BIN)/python:
	@$(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "make: $(PY) is older than Python 3.11; run e.g. make PY=python3.11 $(MAKECMDGOALS)" >&2; exit 1; }
	$(PY) -m venv $(VENV)

# uv installs the same requirements (pyproject.toml, from PyPI) in about a fifth of pip's time
# (a fresh .venv: 8-20 s against 40 s); when uv cannot be had, pip does it alone. uv compiles no
# bytecode unless asked (pip does): without it every process the tests start (kernels, the CLI,
# nbgrader) compiles the modules it imports again when PYTHONDONTWRITEBYTECODE is set.
$(STAMP): pyproject.toml | $(BIN)/python
	{ $(BIN)/python -m pip install -qq --disable-pip-version-check uv && \
	  $(BIN)/python -m uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[workbook,test]'; } || \
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[workbook,test]'
	@mkdir -p $(LAB_SETTINGS)
	@echo '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' \
		> $(LAB_SETTINGS)/overrides.json
	@touch $(STAMP)

setup: $(STAMP)

lab: setup
	$(BIN)/jupyter lab --LabApp.default_url=/lab/tree/notebooks/00_welcome.ipynb \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# Tests and notebooks always use the offline model, even with OPENAI_API_KEY in your environment.
# Bytecode is cached (gitignored __pycache__) even where PYTHONDONTWRITEBYTECODE is set (some
# containers set it): otherwise pytest rewrites every test module again in every worker and each
# kernel compiles toolsys again: 947 s of CPU against 882 s, 2026-12-03 (empty = unset for Python).
test: export TOOLSYS_OFFLINE := 1
test: export PYTHONDONTWRITEBYTECODE :=
test: setup
	$(BIN)/python -m pytest $(PARALLEL) tests $(NOTEBOOK_DIRS) $(PYTEST_ARGS)

# Mutation testing of the exercise checks (about 90 s on 2 cores); `make test` runs a sample.
mutants: export TOOLSYS_OFFLINE := 1
mutants: export PYTHONDONTWRITEBYTECODE :=
mutants: setup
	$(BIN)/python -m tests.mutation --jobs 2 $(MUTANTS)

fuzz: export TOOLSYS_OFFLINE := 1
fuzz: setup
	$(BIN)/python benchmarks/fuzz.py --calls 10000

BENCHMARKS := $(sort $(wildcard benchmarks/bench_*.py))

bench: export TOOLSYS_OFFLINE := 1
bench: setup
	$(foreach bench,$(BENCHMARKS),$(BIN)/python $(bench) &&) true

notebooks: export TOOLSYS_OFFLINE := 1
notebooks: setup
	$(BIN)/toolsys execute $(wildcard notebooks/*.ipynb solutions/*.ipynb)
	$(BIN)/toolsys exercises

exercises: setup
	$(BIN)/toolsys exercises

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check toolsys tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(VENV) $(LITE_VENV) _site docs/node_modules

# --- learning with nothing installed: the browser edition, the book, Binder -------------------
# Their build tools live in a venv of their own: the JupyterLite kernel's lab extension would
# load (and fail) in the workbook's JupyterLab.
LITE_VENV ?= .venv-lite
LITE_BIN := $(LITE_VENV)/bin
LITE_STAMP := $(LITE_VENV)/.toolsys-lite-installed
NPM_STAMP := docs/node_modules/.toolsys-installed

$(LITE_BIN)/python: | $(BIN)/python
	$(PY) -m venv $(LITE_VENV)

$(LITE_STAMP): pyproject.toml | $(LITE_BIN)/python
	$(LITE_BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[workbook,test,lite]'
	@touch $(LITE_STAMP)

# The Node package pyodide, pinned by docs/package-lock.json, never committed.
$(NPM_STAMP): docs/package.json docs/package-lock.json
	npm ci --prefix docs --no-audit --no-fund --loglevel=error
	@touch $(NPM_STAMP)

lite-env: $(LITE_STAMP) $(NPM_STAMP)
	$(LITE_BIN)/python docs/lite/build.py wheels
	$(LITE_BIN)/python docs/lite/build.py env

lite: lite-env
	$(LITE_BIN)/python docs/lite/build.py lite

test-lite: export TOOLSYS_OFFLINE := 1
test-lite: lite
	$(LITE_BIN)/python -m pytest -p no:randomly -o addopts="-p no:cacheprovider" \
		tests/lite/lite_notebooks.py tests/lite/lite_site.py $(PYTEST_ARGS)

site: $(LITE_STAMP)
	$(LITE_BIN)/python docs/site/build.py

test-site: site
	$(LITE_BIN)/python -m pytest -p no:randomly -o addopts="-p no:cacheprovider" tests/lite/lite_book.py

test-binder: $(LITE_STAMP)
	$(LITE_BIN)/python -m pytest -p no:randomly -o addopts="-p no:cacheprovider" tests/lite/lite_binder.py
