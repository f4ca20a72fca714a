"""The noise-floor line of a report: the median split-half floor of the positions over the median distance, and
what it means for the distances and for the stresses."""

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
    """The noise-floor share of a report's distances, from :func:`noise_floor_summary`.

    Attributes
    ----------
    median_floor : float or None
        Median split-half floor of the positions (``None`` when not measured).
    median_distance : float
        Median off-diagonal distance.
    share : float or None
        ``median_floor / median_distance`` (``None`` without floors).
    line : str
        One sentence for the report.
    warning : str or None
        A sentence when the share exceeds ``_FLOOR_WARNING_SHARE`` (one half), else ``None``.

    Examples
    --------
    >>> NoiseFloorSummary(0.1, 0.4, 0.25, "Noise floor: ...", None).share
    0.25
    """

    median_floor: float | None
    median_distance: float
    share: float | None
    line: str
    warning: str | None


def noise_floor_summary(D: ArrayLike, floors: ArrayLike, *, reason: str = "") -> NoiseFloorSummary:
    """The noise-floor share of a distance matrix: median split-half floor over median distance, with a warning.

    Parameters
    ----------
    D : (n, n) array
        The reported distances (off-diagonal entries are summarised).
    floors : (n,) array or None
        Split-half noise floors of the positions (``floors`` of ``CorrectedDistances``); ``None`` when not
        measured.
    reason : str, optional
        Why ``floors`` is ``None``, stated in the line.

    Returns
    -------
    NoiseFloorSummary

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[0, 0.4, 0.5], [0.4, 0, 0.3], [0.5, 0.3, 0]])
    >>> summary = noise_floor_summary(D, np.array([0.1, 0.1, 0.3]))
    >>> round(summary.share, 3), summary.warning is None
    (0.25, True)
    >>> noise_floor_summary(D, np.array([0.3, 0.3, 0.3])).warning is not None
    True
    >>> noise_floor_summary(D, None, reason="not needed").line[:39]
    'Noise floor: not measured (not needed).'
    """
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
