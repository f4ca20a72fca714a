# Two entry points: `make book` builds the executed HTML book into _build/html; `make test` runs the unit tests and
# nbval on every notebook. Both create .venv (if missing) and install everything into it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

# A local mirror of the corpora (see README): used when it sits beside the repository, else data are downloaded.
POSGEOM_DATA ?= $(wildcard $(abspath ../shared/data))
export POSGEOM_DATA
export PYTHONHASHSEED := 0
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export MPLBACKEND := Agg

.PHONY: book test bench install clean

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -e '.[dev]'
	touch $@

book: $(STAMP)
	$(BIN)/jupyter-book build . --all --warningiserror --keep-going

test: $(STAMP)
	$(BIN)/python -m pytest tests book --nbval-lax --nbval-current-env -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf _build
