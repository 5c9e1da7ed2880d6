# Every target that runs something installs first: a fresh machine needs
# nothing but Python 3.11 and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The modules setup.py compiles with mypyc: editing one means building again.
COMPILED := $(shell sed -n 's/^    "\(hhtool\/.*\.py\)",$$/\1/p' setup.py) hhtool/_native/_scan.c hhtool/_native/_columns.c

.PHONY: install test demo bench typecheck clean browser java

install: $(STAMP)

$(STAMP): pyproject.toml setup.py $(COMPILED)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# compiled modules of an earlier build would shadow sources no longer compiled
	find hhtool -name '*.so' -delete; rm -f ./*__mypyc.*.so
	$(BIN)/pip install --quiet -e '.[dev,bench,spark]'
	touch $(STAMP)

# The HTML report's tests open it in a real headless Chromium (Debian's), driven by Selenium through
# Debian's chromedriver (never a driver or browser downloaded at run time).
browser:
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium and chromium-driver for the report tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "chromium or chromedriver not found and cannot be installed here: the browser tests will be skipped"; fi; }

# The Spark import's tests run PySpark in local mode, which needs Java 17 (Debian's JRE; never one downloaded).
java:
	@command -v java >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's openjdk-17-jre-headless for the Spark tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; \
	  else echo "java not found and cannot be installed here: the Spark tests will be skipped"; fi; }

test: install browser java
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
	find . -name '*.so' -not -path './$(VENV)/*' -delete
