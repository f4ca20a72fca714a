"""The stress table: :func:`stress_table`, every row's raw and scale-optimal stress against one target ``D``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..corpus.incidence import SequenceIncidence
    from ..geometry.estimators import Estimator

import math
import numbers
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix, check_rng
from ..corpus.incidence import check_incidence
from ..geometry._crossfit import distances_from_squared
from .candidates import MDS_CACHE, Candidate
from .core import stress_terms
from .results import StressRow, StressTable

__all__ = ["stress_table"]


def evaluate_rows(candidates, D) -> np.ndarray:
    """``[raw_1, optimal_1, scale_1, raw_2, ...]`` of every candidate against ``D`` (one eigendecomposition shared)."""
    D = check_distance_matrix(D, "D")
    n = D.shape[0]
    iu = np.triu_indices(n, k=1)
    d = D[iu]
    if not np.any(d > 0):
        raise ValueError("D is zero for every pair of positions: stress is undefined (0/0)")
    out = np.empty(3 * len(candidates))
    token = MDS_CACHE.set({})
    try:
        for k, c in enumerate(candidates):
            E = np.asarray(c.distances(D), dtype=float)
            if E.shape != (n, n):
                raise ValueError(
                    f"candidate {c.name!r} induces distances of shape {E.shape}, but D describes n={n} positions; "
                    "build the candidates for the same n"
                )
            out[3 * k:3 * k + 3] = stress_terms(check_distance_matrix(E, "E")[iu], d)
    finally:
        MDS_CACHE.reset(token)
    return out


def stress_table(D: ArrayLike | None, candidates: Sequence[Candidate], *, data: SequenceIncidence | None = None,
                 estimator: Estimator | None = None, rng: int | np.random.Generator, n_resamples: int = 500,
                 confidence: float = 0.95, title: str = "", groups: ArrayLike | None = None) -> StressTable:
    """Raw and scale-optimal stress of every candidate against ``D``, with bootstrap intervals if data are given.

    Parameters
    ----------
    D : (n, n) array or None
        Target distances, taken as given (no intervals); ``None`` to estimate them from ``data``.
    candidates : sequence of Candidate with unique names (e.g. ``standard_candidates(n)``)
    data : posgeom.corpus.SequenceIncidence, optional
        The texts behind ``D`` (with ``D=None``): all rows get intervals on the same resamples, fitted rows refitted.
    estimator : PlugIn, CrossFitted or Resolved, optional
        Of ``D`` (default ``Resolved()``; with a given ``D``, the one the caller used), recorded with its estimand.
    rng : int or numpy.random.Generator
        Of the splits and the resamples; an int is stored as the table's ``seed``.
    n_resamples, confidence, title : int, float, str
    groups : (n_texts,) array, optional
        With ``data``: one label per text, the unit of resampling (the estimator's ``bootstrap(groups=)``).

    Returns
    -------
    StressTable

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> from posgeom.stress import mds_candidate
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(400, 5, 12, rng=0), 5, 12)
    >>> stress_table(None, [mds_candidate(rank=2)], data=inc, rng=0, n_resamples=10).estimator
    'resolved'
    """
    from ..geometry.estimators import Resolved
    candidates = list(candidates)
    if not candidates:
        raise ValueError("candidates is empty; pass e.g. standard_candidates(n)")
    bad = [c for c in candidates if not isinstance(c, Candidate)]
    if bad:
        raise TypeError(f"candidates must be Candidate objects, got {type(bad[0]).__name__}")
    names = [c.name for c in candidates]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise ValueError(f"candidate names must be unique; repeated: {dup}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__}")
    estimator = Resolved() if estimator is None else estimator
    if (D is None) == (data is None):
        raise ValueError("pass the target distances D (taken as given), or D=None and data (a SequenceIncidence) "
                         "to estimate them with the estimator, not both")
    if groups is not None and D is not None:
        raise ValueError("groups label the texts of data; with a given D there is nothing to resample")
    if D is not None:
        D = check_distance_matrix(D)
        return StressTable(rows=tuple(_rows(candidates, evaluate_rows(candidates, D))), n_positions=D.shape[0],
                           title=title, estimator=estimator.label, estimand=estimator.describe_estimand(),
                           target=_read_only(D))
    seed = int(rng) if isinstance(rng, numbers.Integral) else None
    boot = estimator.bootstrap(check_incidence(data), rng=check_rng(rng), n_resamples=n_resamples,
                               confidence=confidence, groups=groups,
                               statistic=lambda Q: evaluate_rows(candidates, distances_from_squared(Q)))
    D = boot.point.distances
    return StressTable(
        rows=tuple(_rows(candidates, np.asarray(boot.estimate, dtype=float), boot)), n_positions=D.shape[0],
        n_resamples=boot.n_resamples, confidence=boot.confidence, method=boot.method, seed=seed, title=title,
        estimator=estimator.label, target=_read_only(D), estimand=boot.point.estimand, replicates=boot.replicates)


def _rows(candidates, point, boot=None):
    """The table's rows from the evaluation ``point`` and, if bootstrapped, its ``BootstrapEstimate``."""
    rows = []
    for j, c in enumerate(candidates):
        raw, opt, a = (float(v) for v in point[3 * j:3 * j + 3])
        if not all(math.isfinite(v) for v in (raw, opt, a)):  # pragma: no cover - stress is finite for valid input
            raise ValueError(f"candidate {c.name!r} gives a non-finite stress")
        if boot is None:
            rows.append(StressRow(c.name, c.description, raw, opt, a, None, None, c.fitted))
            continue
        lo, hi, bias = np.asarray(boot.lower), np.asarray(boot.upper), np.asarray(boot.bias)
        lo_mc, hi_mc = np.asarray(boot.lower_mc_error), np.asarray(boot.upper_mc_error)
        r, o = 3 * j, 3 * j + 1
        rows.append(StressRow(c.name, c.description, raw, opt, a, (float(lo[r]), float(hi[r])),
                              (float(lo[o]), float(hi[o])), c.fitted, float(bias[r]), float(bias[o]),
                              (float(lo_mc[r]), float(hi_mc[r])), (float(lo_mc[o]), float(hi_mc[o]))))
    return rows


def _read_only(D: np.ndarray) -> np.ndarray:
    D = np.array(D, dtype=float, copy=True)
    D.setflags(write=False)
    return D
