"""Input checks shared by the public API: each raises ``ValueError`` or ``TypeError`` naming the argument and fix."""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp

__all__ = ["check_rng", "check_confidence", "check_positive_int", "check_matrix", "check_distance_matrix",
           "check_distributions", "check_real", "check_seeds"]


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int, or raise if it is not an integer ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` for ``rng`` (an int ``>= 0`` seeds a new one; ``None`` is refused): the
    package's randomness convention, stated in ``posgeom``'s docstring."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        raise TypeError(f"{name} is required: pass an int seed (e.g. {name}=0) or a numpy.random.Generator, so that "
                        "the same call gives the same numbers")
    if isinstance(rng, bool) or not isinstance(rng, numbers.Integral):
        raise TypeError(f"{name} must be an int seed or a numpy.random.Generator, got {type(rng).__name__} {rng!r}")
    if rng < 0:
        raise ValueError(f"{name} must be a seed >= 0, got {rng}")
    return np.random.default_rng(int(rng))


def check_confidence(confidence, name: str = "confidence") -> float:
    """Return ``confidence`` as a float strictly between 0 and 1 (e.g. 0.95), or raise."""
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1 (e.g. 0.95), got {confidence!r}")
    return float(confidence)


def check_matrix(X, name: str, *, allow_sparse: bool = False, min_rows: int = 1):
    """Return ``X`` as a finite float 2-D array (or CSR matrix when sparse input is allowed)."""
    if sp.issparse(X):
        if not allow_sparse:
            raise TypeError(f"{name} must be a dense array; call .toarray() on the sparse matrix first")
        X = sp.csr_matrix(X, dtype=np.float64)
        values = X.data
    else:
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a numeric 2-D array: {exc}") from None
        values = X
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (rows = positions), got an array of shape {X.shape}")
    if X.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row(s), got shape {X.shape}")
    if X.shape[1] < 1:
        raise ValueError(f"{name} must have at least one column, got shape {X.shape}")
    if not np.all(np.isfinite(values)):
        bad = np.argwhere(~np.isfinite(X.toarray() if sp.issparse(X) else X))[0]
        raise ValueError(f"{name} contains NaN or infinite values (first at index {tuple(int(b) for b in bad)}); "
                         "clean or impute them before computing distances")
    return X


def check_distance_matrix(D, name: str = "D", *, atol: float = 1e-10) -> np.ndarray:
    """``D`` as a float array, exactly symmetrised, after checking that it is square, at least 2 x 2, finite,
    non-negative, symmetric to ``atol`` (relative to its largest entry) and has a zero diagonal.
    """
    D = check_matrix(D, name, min_rows=2)
    n, m = D.shape
    if n != m:
        raise ValueError(f"{name} must be a square (n x n) distance matrix, got shape {D.shape}")
    scale = max(float(np.max(np.abs(D))), 1.0)
    if np.min(D) < -atol * scale:
        i, j = np.unravel_index(np.argmin(D), D.shape)
        raise ValueError(f"{name} has a negative entry {D[i, j]:.3g} at ({i}, {j}); distances must be >= 0")
    asym = np.abs(D - D.T)
    if np.max(asym) > atol * scale:
        i, j = np.unravel_index(np.argmax(asym), D.shape)
        raise ValueError(f"{name} is not symmetric: {name}[{i},{j}]={D[i, j]:.6g} but {name}[{j},{i}]={D[j, i]:.6g}; "
                         f"pass (D + D.T) / 2 if the asymmetry is rounding")
    diag = np.abs(np.diag(D))
    if np.max(diag) > atol * scale:
        i = int(np.argmax(diag))
        raise ValueError(f"{name} must have a zero diagonal, but {name}[{i},{i}]={D[i, i]:.3g}")
    D = 0.5 * (D + D.T)
    np.fill_diagonal(D, 0.0)
    return np.maximum(D, 0.0)


def check_distributions(P, name: str = "P", *, atol: float = 1e-8):
    """Check that the rows of ``P`` are probability distributions (non-negative, summing to 1 within ``atol``)."""
    P = check_matrix(P, name, allow_sparse=True)
    values = P.data if sp.issparse(P) else P
    if values.size and np.min(values) < 0:
        raise ValueError(f"{name} has negative entries; rows must be probability distributions")
    sums = np.asarray(P.sum(axis=1)).ravel()
    bad = np.flatnonzero(np.abs(sums - 1.0) > atol)
    if bad.size:
        i = int(bad[0])
        hint = (
            "position(s) with no observations: reduce n_positions or change the counting convention"
            if sums[i] == 0
            else "normalise the rows, e.g. with posgeom.position_distributions(counts)"
        )
        raise ValueError(f"{name} rows must sum to 1, but {bad.size} row(s) do not (row {i} sums to {sums[i]:.6g}); "
                         f"{hint}")
    return P


def check_real(value, name: str, *, minimum: float = 0.0, strict: bool = True) -> float:
    """A finite real ``value > minimum`` (``>= minimum`` unless ``strict``), as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise TypeError(f"{name} must be a finite real number, got {value!r}")
    if value < minimum or (strict and value == minimum):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {minimum:g}, got {value!r}")
    return float(value)


def check_seeds(seeds) -> tuple[int, ...]:
    """A non-empty sequence of distinct integer seeds ``>= 0``, as a tuple."""
    if isinstance(seeds, (numbers.Integral, str)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of integers, e.g. range(16), got {seeds!r}")
    seeds = tuple(check_positive_int(s, "each seed", minimum=0) for s in seeds)
    if not seeds:
        raise ValueError("seeds is empty; pass at least one seed")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct, got {seeds}")
    return seeds
