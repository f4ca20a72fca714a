"""The ``posgeom`` console script of installs made before the command moved to :mod:`posgeom.report.cli`.

``pyproject.toml`` now points the script at ``posgeom.report.cli:main``; this name keeps an older install's
script working until it is reinstalled.
"""

from __future__ import annotations

from .report.cli import main

__all__ = [
    "main",
]
