# Two entry points: `make book` builds the executed HTML book into _build/html; `make test` runs the unit tests and
# nbval on every notebook. Both create .venv (if missing) and install everything into it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
STAMP := $(VENV)/.installed-stamp

# A local mirror of the corpora (see README): used when it sits beside the repository, else data are downloaded.
POSGEOM_DATA ?= $(wildcard $(abspath ../shared/data))
export POSGEOM_DATA
export PYTHONHASHSEED := 0
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1

.PHONY: book test check bench install browser clean

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -e '.[dev]'
	touch $@

book: $(STAMP)
	$(BIN)/jupyter-book build . --all --warningiserror --keep-going

# The developer's inner loop: lint, then the unit, property and doctests, without building the book or a browser.
check: $(STAMP)
	$(BIN)/ruff check src tests benchmarks book
	$(BIN)/python -m pytest tests src --doctest-modules -p no:cacheprovider -q --ignore=tests/site --ignore=tests/test_notebooks.py

# The tests include the built site opened in headless Chromium, so `make test` builds the book first.
test: $(STAMP) browser
	$(MAKE) book
	POSGEOM_REQUIRE_SITE=1 $(BIN)/python -m pytest tests src book --doctest-modules --nbval-lax --nbval-current-env \
	  -p no:cacheprovider

# Debian's Chromium and its driver, for the browser test of the built site (needs root or sudo once).
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver; }

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf _build
