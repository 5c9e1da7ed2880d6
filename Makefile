# Every target that runs something installs first: a fresh machine needs
# nothing but Python 3.11 and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test demo bench typecheck clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	touch $(STAMP)

test: install
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest

demo: install
	PATH=$(CURDIR)/$(BIN):$$PATH bash scripts/demo.sh

bench: install
	$(BIN)/python bench/run.py

typecheck: install
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache
