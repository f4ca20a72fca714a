"""Chapter 10: ``python -m posgeom.studies.report_null DESIGN OUT`` stores the report ladder's verdicts on flat
corpora for every seed of the design (``ch10_null``)."""

import sys

import numpy as np

from ..corpus import SequenceIncidence
from ..geometry import Resolved
from ..report.ladder import report_ladder
from ..stress.candidates import fixed_distances
from .designs import Design


def flat_verdicts(seed: int, *, n_positions: int, vocab_size: int, n_texts: int, n_resamples: int) -> dict:
    """Verdicts of ``report_ladder`` (and of the signs alone) on a line, its square root and a constant, for texts
    whose every position has the uniform law (any ranking is false; a corpus the report stops on ranks nothing,
    its ``error`` stored); draws from ``default_rng([seed, 0])``."""
    gen = np.random.default_rng([seed, 0])
    inc = SequenceIncidence.from_sequences(gen.integers(vocab_size, size=(n_texts, n_positions)), n_positions,
                                           vocab_size)
    lag = np.abs(np.subtract.outer(np.arange(n_positions), np.arange(n_positions))).astype(float)
    rows = [fixed_distances("line", lag), fixed_distances("sqrt line", np.sqrt(lag)),
            fixed_distances("constant", 1 - np.eye(n_positions))]
    try:
        summary = report_ladder(rows, inc, Resolved().fixed(inc, fraction=1 / 8), rng=seed, n_resamples=n_resamples)
    except ValueError as exc:  # the report stops (e.g. every distance estimated 0) and ranks nothing
        return {"verdicts": None, "signs_hold": None, "error": str(exc)}
    return {"verdicts": [v["verdict"] for v in summary["verdicts"]],
            "signs_hold": [v["signs_hold"] for v in summary["verdicts"]]}


if __name__ == "__main__":  # pragma: no cover
    design = Design.load(sys.argv[1])
    kw = {k: design[k] for k in ("n_positions", "vocab_size", "n_texts", "n_resamples")}
    design.store(sys.argv[2], runs=[flat_verdicts(s, **kw) for s in design.seeds])
