"""The ``posgeom report`` command: ``cli`` (``main``), ``pipeline`` (``make_report``), ``ladder`` (which rankings
the corpus decides), ``floor`` (the noise-floor line)."""

from __future__ import annotations

from .cli import main
from .ladder import plot_ladder, report_ladder

__all__ = ["main", "report_ladder", "plot_ladder"]
