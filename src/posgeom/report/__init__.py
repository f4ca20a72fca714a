"""The ``posgeom report`` command: ``cli`` (the command line, ``main``), ``pipeline`` (``ReportSettings``,
``make_report``: corpus -> tokens -> distances -> stress table -> files), ``ladder`` (which rankings of the encodings
the corpus decides) and ``floor`` (the noise-floor line)."""

from __future__ import annotations

from .cli import main
from .ladder import plot_ladder, report_ladder

__all__ = [
    "main",
    "report_ladder",
    "plot_ladder",
]
