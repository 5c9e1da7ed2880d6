# Every target that runs something installs first: a fresh machine needs
# nothing but Python 3.11 and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The modules setup.py compiles with mypyc: editing one means building again.
COMPILED := $(shell sed -n 's/^    "\(hhtool\/.*\.py\)",$$/\1/p' setup.py) hhtool/_native/_scan.c hhtool/_native/_columns.c
# HHTOOL_PURE=1 installs the pure build (nothing compiled, so no source edit needs building
# again). Each kind has its own stamp: `make test` after `make test-pure` compiles again.
ifeq ($(HHTOOL_PURE),1)
STAMP := $(VENV)/.installed-pure
BUILT_FROM := pyproject.toml setup.py
BUILD := pure
else
STAMP := $(VENV)/.installed
BUILT_FROM := pyproject.toml setup.py $(COMPILED)
BUILD := compiled
endif

.PHONY: install test test-pure demo bench typecheck clean browser java

install: $(STAMP)

# The pure build over an up-to-date compiled one (make test-pure after make test) only removes the
# compiled files: the editable install and its dependencies are the same for both builds.
$(STAMP): $(BUILT_FROM)
	# compiled modules of an earlier build would shadow sources no longer compiled
	find hhtool -name '*.so' -delete; rm -f ./*__mypyc.*.so
	if [ $(BUILD) = pure ] && [ $(VENV)/.installed -nt pyproject.toml ] && [ $(VENV)/.installed -nt setup.py ]; then \
	  rm -f $(VENV)/.installed; \
	else \
	  $(PYTHON) -m venv $(VENV) && rm -f $(VENV)/.installed $(VENV)/.installed-pure && \
	  $(BIN)/pip install --quiet --upgrade pip && \
	  $(BIN)/pip install --quiet -e '.[dev,bench,spark]'; \
	fi
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
# After browser: under make -j (.ci/run) the two apt-get runs would meet at dpkg's lock.
java: browser
	@command -v java >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's openjdk-17-jre-headless for the Spark tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; \
	  else echo "java not found and cannot be installed here: the Spark tests will be skipped"; fi; }

# --build: the suite refuses to run against another build than the one installed here.
# -n: one pytest worker per core (pytest-xdist); --dist loadfile keeps a file's tests in one worker,
# so a module-scoped fixture (a Spark session, a served database) is built once; TEST_JOBS=0 runs
# the suite in this process; --durations: the CI log names the slowest tests, where its time goes.
TEST_JOBS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile --durations=20
# mypy --strict runs beside the suite rather than before it (its one process among the workers: on
# two cores its minute of CPU then costs about half a minute), its report printed after the suite's;
# either failing fails the target.
test: install browser java
	@$(BIN)/python -m mypy > $(VENV)/mypy.log 2>&1 & typing=$$!; \
	echo "mypy --strict (beside the suite; its report below)"; \
	$(PYTEST) --build=$(BUILD); tests=$$?; \
	wait $$typing; typed=$$?; cat $(VENV)/mypy.log; \
	[ $$tests = 0 ] && [ $$typed = 0 ]

# The suite again on the pure build (the same venv, its compiled files removed), minus the tests marked
# `compiled`, which it skips with their reason; `make test` compiles again afterwards.
test-pure: browser java
	HHTOOL_PURE=1 $(MAKE) install
	$(PYTEST) --build=pure

demo: install
	PATH=$(CURDIR)/$(BIN):$$PATH bash scripts/demo.sh

bench: install
	$(BIN)/python bench/run.py

typecheck: install
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache
	find . -name '*.so' -not -path './$(VENV)/*' -delete
