"""The package's dependency rule, checked on the source: each layer imports only the layers before it.

Book path: corpus -> geometry -> encodings -> stress -> nn. ``data`` is input/output beside the numpy core, which
never imports it; ``studies`` exists for the chapters and nothing in the library imports it; only ``nn`` and
``studies`` import torch. Imports inside functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "posgeom"
BASE = {"_validation", "_io", "_blas", "inference"}  # the base layer: imports no other posgeom module
ORDER = ["corpus", "geometry", "encodings", "stress", "nn"]
NUMPY_CORE = {"corpus", "geometry", "encodings", "stress"}
#: Subpackages that README.md (written by the lead) does not list yet: posgeom.report (issue 32).
README_PENDING: set[str] = set()


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        yield path, parts


def _imports(path: Path, parts: tuple) -> list[tuple[str, bool]]:
    """Absolute names of every module imported by ``path`` and whether the import is at module level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    package = ["posgeom", *parts[:-1]] if parts[-1] != "__init__" else ["posgeom", *parts[:-1]]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:  # from . import x
                    found += [(f"{name}.{alias.name}", id(node) in top) for alias in node.names]
                    continue
            else:
                name = node.module
            found.append((name, id(node) in top))
    return found


def _layer(parts: tuple) -> str:
    if parts[0] in BASE:  # a base module, or a module of the base package ``inference``
        return "base"
    if parts[0] == "report":  # the command line and its pipeline: the top of the package
        return "top"
    return parts[0] if len(parts) > 1 else "top"


MODULES = list(_modules())


def test_every_module_is_in_a_known_layer():
    layers = {_layer(parts) for _, parts in MODULES}
    assert layers <= set(ORDER) | {"data", "studies", "base", "top"}, layers


@pytest.mark.parametrize("path,parts", MODULES, ids=lambda x: "/".join(x) if isinstance(x, tuple) else None)
def test_dependency_rule(path, parts):
    layer = _layer(parts)
    for name, at_top in _imports(path, parts):
        if name == "torch" or name.startswith("torch."):
            assert layer in ("nn", "studies") or not at_top, f"{path.name} imports torch at import time"
        if not name.startswith("posgeom."):
            continue
        target = name.split(".")[1]
        target_layer = target if target in ORDER + ["data", "studies"] else ("base" if target in BASE else "top")
        if target_layer == "studies":
            assert layer == "studies", f"{'/'.join(parts)} imports posgeom.studies: the library never does"
        if layer in NUMPY_CORE:
            assert target_layer != "data", f"{'/'.join(parts)} (numpy core) imports posgeom.data"
        if layer == "base":
            assert target_layer == "base", f"{'/'.join(parts)} is in the base layer but imports {name}"
        if layer in ORDER and target_layer in ORDER:
            assert ORDER.index(target_layer) <= ORDER.index(layer), (
                f"{'/'.join(parts)} ({layer}) imports {name} ({target_layer}), a later layer of the book's path"
            )
        if layer in ORDER:
            assert target_layer != "top", f"{'/'.join(parts)} imports the top-level module {name}"


def test_rule_catches_a_violation(tmp_path):
    """Negative control: a module of the numpy core that imports posgeom.data is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("from ..data import load_sst2\n")
    names = [n for n, _ in _imports(bad, ("geometry", "bad"))]
    assert "posgeom.data" in names


@pytest.mark.slow
def test_import_posgeom_does_not_import_torch():
    code = "import sys, posgeom, posgeom.data, posgeom.report.pipeline; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", "importing posgeom (or its IO and report layers) must not import torch"


def test_numpy_core_at_the_top_level():
    import posgeom as pg

    for name in ("hellinger_distances", "classical_mds", "stress_of_encoding", "position_counts", "sinusoidal_encoding",
                 "pairwise_distances", "synthetic_distributions"):
        assert callable(getattr(pg, name)), name


def test_module_map_is_written_alike_in_readme_docstring_and_api_page():
    import posgeom

    root = PACKAGE.parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    api = (root / "book" / "api.md").read_text(encoding="utf-8")
    subpackages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists() and p.name not in BASE)
    for sub in subpackages:
        if sub in README_PENDING:  # the lead writes README.md; this test names what it must add
            assert f"`posgeom.{sub}`" not in readme, f"README lists posgeom.{sub}: remove it from README_PENDING"
            continue
        assert f"`posgeom.{sub}`" in readme, f"README's package table lacks posgeom.{sub}"
        assert f"``{sub}``" in posgeom.__doc__, f"the package docstring's map lacks {sub}"
    documented = set()
    for line in api.splitlines():
        if line.startswith((".. automodule:: ", ".. py:module:: ")):  # a subpackage's modules: link targets
            documented.add(line.split()[-1])
    for _path, parts in MODULES:
        if parts[-1] == "__init__" or parts[-1].startswith("_"):
            continue
        name = "posgeom." + ".".join(parts)
        assert name in documented, f"book/api.md does not document {name}"
