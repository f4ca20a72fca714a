"""The labs work as a course hands them out: without its solutions, each stops at the first function not yet
written, with a clear message, and runs to the end once every exercise's function is written."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "book" / "lab_numpy.ipynb"
#: Each lab, with the first function its exercises ask for and the ✓ lines its tests print without the solutions
#: (one per property tested; the Reproducibility cell's checks are not handed out).
LABS = {"lab_numpy": ("positional_distributions", 16), "lab_attention": ("rope", 9)}
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from reader_notebooks import drop_solutions  # noqa: E402

_STUB = re.compile(r"^(def (\w+)\(.*?\):\n    \"\"\".*?\"\"\"\n)    return None.*$", flags=re.M | re.S)


def _path(lab):
    return ROOT / "book" / f"{lab}.ipynb"


def _student_cells(lab):
    """The lab as the student notebooks hand it out, without its install cell (the package is installed here)."""
    cells = drop_solutions(json.loads(_path(lab).read_text(encoding="utf-8"))["cells"])
    return [c for c in cells if "%pip" not in "".join(c["source"])]


def _solutions(lab):
    """Each exercise's solution function, by the name of its stub: the body of ``<name>_solution``."""
    out = {}
    for cell in json.loads(_path(lab).read_text(encoding="utf-8"))["cells"]:
        src = "".join(cell["source"])
        m = re.match(r"def (\w+)_solution\((.*?)\):\n(.*)", src, flags=re.S)
        if cell["cell_type"] == "code" and m:
            out[m.group(1)] = m.group(3)
    return out


def _run(cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("".join(c["source"])) if c["cell_type"] == "code"
        else nbformat.v4.new_markdown_cell("".join(c["source"]))
        for c in cells
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(LAB.parent)}}).execute()
    return nb


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_without_solutions_the_lab_asks_for_the_first_function(lab):
    cells = _student_cells(lab)
    with pytest.raises(CellExecutionError, match=f"{LABS[lab][0]} is not written yet"):
        _run(cells)


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_without_solutions_the_lab_runs_once_the_functions_are_written(lab):
    solutions, written, cells = _solutions(lab), [], _student_cells(lab)
    for cell in cells:
        src = "".join(cell["source"])
        m = _STUB.search(src) if cell["cell_type"] == "code" else None
        if m:
            src = src[: m.start()] + m.group(1) + solutions[m.group(2)] + src[m.end():]
            cell["source"] = src
            written.append(m.group(2))
    assert sorted(written) == sorted(solutions), f"stubs {written} against solutions {sorted(solutions)}"
    nb = _run(cells)
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "not written yet" not in printed and "✗" not in printed
    assert printed.count("✓") >= LABS[lab][1], printed


#: What the lab's install cell leaves out (it installs posgeom with --no-deps, then numpy scipy numba matplotlib).
_NOT_INSTALLED = ("torch", "transformers", "tokenizers", "safetensors", "sklearn", "pandas", "seaborn", "pooch",
                  "huggingface_hub", "tqdm", "jinja2")
_BLOCK = f"""import importlib.abc, sys
class _NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {_NOT_INSTALLED!r}:
            raise ImportError(f"{{name}} is not installed by the lab's install cell")
sys.meta_path.insert(0, _NotInstalled())
"""


@pytest.mark.slow
def test_the_lab_runs_with_only_what_its_install_cell_installs():
    """With solutions, the lab runs to the end while every package its install cell leaves out fails to import."""
    cells = [c for c in json.loads(LAB.read_text(encoding="utf-8"))["cells"] if "%pip" not in "".join(c["source"])]
    nb = _run([nbformat.v4.new_code_cell(_BLOCK), *cells])
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "✗" not in printed and printed.count("✓") >= 20, printed


def test_the_blocker_blocks():
    """The import blocker of the test above does fail an import of a package it names (the check can fail)."""
    import subprocess
    run = subprocess.run([sys.executable, "-c", _BLOCK + "import seaborn"], capture_output=True, text=True)
    assert run.returncode != 0 and "not installed by the lab" in run.stderr, run.stderr
