# Two entry points: `make book` builds the executed HTML book into _build/html (its student edition, without
# solutions, in _build/html/student); `make test` builds it and its PDF, and
# runs the unit tests and the Colab path (nbval on every chapter). Both create .venv (if missing) and install
# everything into it.
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

# `make student` builds the student edition (the exercises without their solutions) into _build/student/_build/html.
.PHONY: book student pdf test test-built test-package check bench install browser clean

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -e '.[dev]'
	touch $@

# The package as a wheel, shipped with the site (_static/dist, linked from book/running.md), so that a reader holding the
# site can install what the chapters import. A file target: built once, again only when the package changes.
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
WHEEL := _static/dist/posgeom-$(VERSION)-py3-none-any.whl

$(WHEEL): $(STAMP) pyproject.toml $(shell find src -name '*.py' -o -name '*.toml' -o -name '*.json')
	rm -rf _static/dist build  # build/: setuptools would reuse a stale tree (a deleted module would still ship)
	$(BIN)/python -m pip wheel --no-deps --no-build-isolation -q -w _static/dist .
	test -f $@

book: $(STAMP) $(WHEEL)
	$(BIN)/jupyter-book build . --all --warningiserror --keep-going
	$(MAKE) --no-print-directory student
	rm -rf _build/html/student.partial && cp -r _build/student/_build/html _build/html/student.partial
	rm -rf _build/html/student && mv _build/html/student.partial _build/html/student

# The student edition: the same book without the solutions to the exercises (book/_ext/student_edition.py, switched on
# by POSGEOM_EDITION=student), written to _build/student/_build/html. It takes the executed chapters from the cache of
# `make book`, so after `make book` nothing is executed again. `make book` runs it too and publishes it with the book, in
# _build/html/student (whole or not at all: copied beside, then moved into place).
student: $(STAMP) $(WHEEL)
	POSGEOM_EDITION=student $(BIN)/jupyter-book build . --all --path-output _build/student --warningiserror --keep-going

# The whole book as one PDF, _build/book.pdf: the single-page HTML build (chapters taken from the execution cache
# that `make book` filled; executed here only if missing or changed) printed by headless Chromium. MathJax is served by the build itself (book/_ext/offline_mathjax.py) and the figures
# are local files, so no internet is needed. Sphinx writes that page to singlehtml/book/index.html with its links
# relative to singlehtml/, so it is printed from a copy at singlehtml/index.html (in place of the redirect), with a
# print style that wraps long code lines instead of clipping them. In this build every dropdown (the ledger's details,
# proofs, solutions) is open (book/_ext/singlehtml_nodes.py), since Chromium prints a closed one without its text.
# tests/book/test_pdf.py then reads the PDF back, dropdown text included.
pdf: $(STAMP) $(WHEEL) browser
	$(BIN)/jupyter-book build . --builder singlehtml --all --warningiserror --keep-going
	sed -e 's|</head>|<style media="print">@page { size: A4; margin: 14mm } pre { white-space: pre-wrap !important; overflow-wrap: anywhere } .highlight, div.output, .pst-scrollable-table-container { overflow: visible !important }</style></head>|' \
	  -e 's|src="\.\./_images/|src="_images/|g' \
	  _build/singlehtml/book/index.html > _build/singlehtml/index.html
	rm -f _build/book.pdf
	profile=$$(mktemp -d) && trap 'rm -rf "$$profile"' EXIT && \
	  chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync --user-data-dir="$$profile" --run-all-compositor-stages-before-draw \
	    --virtual-time-budget=120000 --no-pdf-header-footer --print-to-pdf="$(CURDIR)/_build/book.pdf" \
	    "file://$(CURDIR)/_build/singlehtml/index.html"
	test -s _build/book.pdf
	POSGEOM_REQUIRE_PDF=1 $(BIN)/python -m pytest tests/book/test_pdf.py -q -p no:cacheprovider

# The developer's inner loop: lint, then the unit, property and doctests, without building the book or a browser.
check: $(STAMP)
	$(BIN)/ruff check src tests benchmarks book
	$(BIN)/python -m pytest tests src --doctest-modules -p no:cacheprovider -q --ignore=tests/book/test_site.py --ignore=tests/book/test_pdf.py \
	  --ignore=tests/book/test_colab.py --ignore=tests/book/test_notebooks.py -m 'not slow'

# `make test` runs two streams side by side, one per core, from the moment the environment is installed; it fails if
# either fails, and prints the Colab report at the end. Each chapter is executed twice in all: once by the HTML build
# (whose execution cache the PDF build reuses; the build fails on any error) and once on the Colab path.
#  * test-built: `make book`, then `make pdf` (which checks the PDF: tests/book/test_pdf.py), then the built site
#    opened in headless Chromium (tests/book/test_site.py) and the longest unit test (LONGEST_TEST below, the known-
#    truth coverage study: about 2.5 of the unit tests' 6 minutes run alone), here only to even out the two streams.
#  * test-package: ruff (one second), then the Colab path (tests/book/test_colab.py: nbval on every chapter in a
#    fresh environment that holds only the built wheel; it needs the wheel and the corpora, not the build), then the
#    other unit, property and doctests. The caches both streams write are written atomically, so they can run while the book executes.
# Make buffers each stream's output (--output-sync) so the two logs do not interleave. The streams name no
# `browser` prerequisite (`test` has run it): a prerequisite still running there made Make start them one after the
# other.
test: $(STAMP) browser $(WHEEL)
	mkdir -p _build
	$(MAKE) --no-print-directory --output-sync=target -j2 test-built test-package; status=$$?; \
	echo "== the Colab path (nbval in a fresh environment from the wheel) =="; \
	cat _build/colab.log; exit $$status

LONGEST_TEST := tests/geometry/test_resolved.py::test_known_truth_coverage_and_error_at_the_real_regime

test-built: $(STAMP)
	$(MAKE) book
	$(MAKE) pdf
	POSGEOM_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/book/test_site.py $(LONGEST_TEST) -p no:cacheprovider -q \
	  --durations=5

test-package: $(STAMP)
	mkdir -p _build
	$(BIN)/ruff check src tests benchmarks book
	POSGEOM_REQUIRE_COLAB=1 $(BIN)/python -m pytest tests/book/test_colab.py -p no:cacheprovider -q -rA \
	  > _build/colab.log 2>&1; colab=$$?; \
	$(BIN)/python -m pytest tests src --doctest-modules -p no:cacheprovider --durations=15 \
	  --ignore=tests/book/test_colab.py --ignore=tests/book/test_pdf.py --ignore=tests/book/test_site.py \
	  --deselect $(LONGEST_TEST); tests=$$?; \
	test $$colab -eq 0 && test $$tests -eq 0

# Debian's Chromium and its driver, for the browser test of the built site (needs root or sudo once).
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver; }

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf _build
