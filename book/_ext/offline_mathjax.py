"""Serve MathJax 3 from the built site instead of a CDN, so pages render math without internet access.

MathJax's ES5 bundle comes from the PyPI package ``django-static-mathjax`` (static files only, no dependencies).
When that package is missing the extension does nothing and Sphinx keeps its CDN default.
"""

from __future__ import annotations

import shutil
from importlib.util import find_spec
from pathlib import Path

_TARGET = "mathjax"  # under _static/


def _bundle_dir() -> Path | None:
    spec = find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        return None
    es5 = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5"
    return es5 if (es5 / "tex-chtml.js").is_file() else None


def _use_local_mathjax(app, config):
    if _bundle_dir() is not None:
        config.mathjax_path = f"{_TARGET}/tex-chtml.js"


def _copy_bundle(app, exception):
    bundle = _bundle_dir()
    if exception is None and bundle is not None and app.builder.format == "html":
        shutil.copytree(bundle, Path(app.outdir) / "_static" / _TARGET, dirs_exist_ok=True)


def setup(app):
    app.connect("config-inited", _use_local_mathjax)
    app.connect("build-finished", _copy_bundle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
