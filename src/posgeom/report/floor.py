"""The noise-floor line of a report: median split-half floor over median distance, and what it means for stress."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

__all__: list[str] = []

#: What the floor means for the stresses, whatever the estimator of D.
_STRESS = ("The stresses carry the noise of D whatever the estimator: stress is a non-linear function of D, and "
           "noise in D raises it (the intervals show the sampling spread, not this bias).")
#: Warn when the median noise floor exceeds this share of the median distance.
_FLOOR_WARNING_SHARE = 0.5


@dataclass(frozen=True)
class NoiseFloorSummary:
    """The noise-floor share of a report's distances (:func:`noise_floor_summary`); ``None`` where not measured."""
    median_floor: float | None
    median_distance: float
    share: float | None
    line: str
    warning: str | None


def noise_floor_summary(D: ArrayLike, floors: ArrayLike, *, reason: str = "") -> NoiseFloorSummary:
    """Median split-half floor over median off-diagonal distance, the report's line and a warning above one half."""
    D = np.asarray(D, dtype=float)
    iu = np.triu_indices(D.shape[0], 1)
    median_distance = float(np.median(D[iu])) if iu[0].size else 0.0
    if floors is None:
        return NoiseFloorSummary(None, median_distance, None, f"Noise floor: not measured ({reason}). {_STRESS}", None)
    median_floor = float(np.median(floors))
    share = median_floor / median_distance if median_distance > 0 else float("inf")
    line = (f"Noise floor: median split-half floor {median_floor:.4f}, median distance {median_distance:.4f}: "
            f"floor share {share:.2f}. {_STRESS}")
    warning = None
    if share > _FLOOR_WARNING_SHARE:
        warning = (f"the median noise floor ({median_floor:.4f}) exceeds half the median distance "
                   f"({median_distance:.4f}): much of this geometry is sampling noise; use more documents, "
                   "fewer positions, or read the stresses with their intervals (--bootstrap).")
    return NoiseFloorSummary(median_floor, median_distance, share, line, warning)
