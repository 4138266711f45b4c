# Two commands for a newcomer: `make run` (the local stack) and `make test` (the whole suite).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: run test bootstrap admin bench lint format

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# Marker files: a second `make run` reuses the venv until the requirements change.
$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(PIP) install -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PIP) install -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

run: $(VENV)/.runtime
	$(PY) -m chalicelib.local

bootstrap: $(VENV)/.runtime
	@$(PY) -m chalicelib.admin bootstrap

admin: $(VENV)/.runtime
	@$(PY) -m chalicelib.admin $(ARGS)

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

test: lint
	$(PY) -m pytest -q

bench: $(VENV)/.dev
	$(PY) -m pytest -q -m bench -s tests/bench
