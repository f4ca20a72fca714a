"""Chapter 7: ``python -m posgeom.studies.ranking_null DESIGN OUT`` stores
``posgeom.stress.calibration.null_rankings`` for every seed of the design (``ch07_null``)."""

import sys

from ..stress.calibration import null_rankings
from .designs import Design

if __name__ == "__main__":  # pragma: no cover
    design = Design.load(sys.argv[1])
    kw = {k: design[k] for k in ("n_positions", "vocab_size", "n_texts", "n_tables", "width", "n_resamples")}
    design.store(sys.argv[2], runs=[null_rankings(s, fractions=tuple(design["fractions"]), **kw) for s in design.seeds])
