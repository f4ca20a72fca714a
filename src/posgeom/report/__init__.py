"""The ``posgeom report`` command and its pipeline: a stress report for any corpus and model.

============  ==========================================================================================
``cli``       the command line (``posgeom.report.cli.main``, the ``posgeom`` console script)
``pipeline``  ``ReportSettings`` and ``make_report``: corpus -> tokens -> distances -> stress table -> files
``ladder``    the subsampling ladder: which rankings of the encodings the corpus decides
``floor``     the noise-floor line
============  ==========================================================================================
"""

from __future__ import annotations

from .cli import main
from .ladder import plot_ladder, report_ladder

__all__ = [
    "main",
    "report_ladder",
    "plot_ladder",
]
