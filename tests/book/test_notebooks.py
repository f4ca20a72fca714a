"""Hygiene of the book's notebooks: stored without outputs, listed in the table of contents, launchable on Colab,
and each a proof by experiment (it asserts something)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))
INSTALL_MARKER = "# On Colab or Binder without posgeom, install the book's package (nothing else)."
LAB_DEPENDENCIES = "numpy scipy numba matplotlib threadpoolctl ipython"  # what the lab's imports of posgeom need


def _repository_url() -> str:
    match = re.search(r"^repository:\s*\n\s+url:\s*(\S+)", (ROOT / "_config.yml").read_text(), re.M)
    assert match, "_config.yml must set repository.url (the one place the repository URL is written)"
    return match.group(1)


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def test_there_are_notebooks():
    assert NOTEBOOKS, "book/ has no notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_without_outputs(path):
    for cell in _cells(path):
        if cell["cell_type"] == "code":
            assert not cell.get("outputs") and cell.get("execution_count") is None, (
                f"{path.name} has stored outputs; clear them (e.g. jupyter nbconvert --clear-output --inplace)"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_in_table_of_contents(path):
    toc = (ROOT / "_toc.yml").read_text()
    assert f"book/{path.stem}" in toc, f"{path.name} is not listed in _toc.yml"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_code_cell_installs_the_package_from_the_configured_repository(path):
    code = [c for c in _cells(path) if c["cell_type"] == "code"]
    first = "".join(code[0]["source"])
    assert first.startswith(INSTALL_MARKER), f"{path.name}: the first code cell must be the Colab install cell"
    assert f"git+{_repository_url()}" in first, f"{path.name}: install cell URL differs from _config.yml repository.url"
    if path.stem == "lab_numpy":  # the NumPy lab: the package alone, then only what its functions import
        assert '"posgeom @ {REPOSITORY}"' in first and "--no-deps" in first, (
            f"{path.name}: the lab's install cell must install posgeom without its dependencies (no torch)"
        )
        assert LAB_DEPENDENCIES in first, f"{path.name}: the lab's install cell must install {LAB_DEPENDENCIES}"
    else:
        assert '"posgeom[offline-model] @ {REPOSITORY}"' in first, (
            f"{path.name}: the install cell must install posgeom[offline-model] (the chapters' default model)"
        )
    assert "glob(\"posgeom-*.whl\"" in first, f"{path.name}: the install cell must try the site's wheel first"
    tags = code[0].get("metadata", {}).get("tags", [])
    assert "remove-cell" in tags, f"{path.name}: tag the install cell remove-cell"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_is_a_proof_by_experiment(path):
    source = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "code")
    assert re.search(r"^\s*(assert\b|check\()", source, re.M), f"{path.name} asserts nothing: it cannot fail"


def test_notebook_code_is_formatted_at_87_columns():
    """Code cells are formatted by ruff (87 columns, book/ruff.toml): 87 characters fit the column at 1280 px."""
    import shutil
    import subprocess

    ruff = shutil.which("ruff") or str(Path(__import__("sys").executable).parent / "ruff")
    fmt = subprocess.run([ruff, "format", "--check", *map(str, NOTEBOOKS)], capture_output=True, text=True)
    assert fmt.returncode == 0, f"run `ruff format book/*.ipynb`:\n{fmt.stdout}{fmt.stderr}"
    lint = subprocess.run([ruff, "check", *map(str, NOTEBOOKS)], capture_output=True, text=True)
    assert lint.returncode == 0, f"ruff check on the notebooks:\n{lint.stdout[-3000:]}"
    wide = [(p.name, line) for p in NOTEBOOKS for c in _cells(p) if c["cell_type"] == "code"
            for line in "".join(c["source"]).splitlines() if len(line) > 87]
    assert not wide, f"code lines wider than 87 columns: {wide[:5]}"
