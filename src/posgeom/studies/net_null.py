"""Chapter 7: ``python -m posgeom.studies.net_null DESIGN OUT`` stores
``posgeom.stress.calibration.net_null_verdicts`` for every seed of the design (``ch07_net_null``)."""

import sys

from ..stress.calibration import net_null_verdicts
from .designs import Design

if __name__ == "__main__":  # pragma: no cover
    design = Design.load(sys.argv[1])
    kw = {k: design[k] for k in ("n_positions", "vocab_size", "n_texts", "median_words", "sigma_words", "exponent",
                                 "n_resolutions", "n_resamples", "n_splits")}
    design.store(sys.argv[2], runs=[net_null_verdicts(s, **kw) for s in design.seeds])
