"""Positional encodings as matrices ``P`` (n x d, row ``i`` encodes position ``i``).

Absolute schemes are returned as matrices:

* :func:`sinusoidal_encoding` (Vaswani et al.);
* :func:`mds_encoding`, the information-optimal encoding of Algorithm 1 (classical MDS of the statistical distances,
  placed in ``R^d`` by an orthonormal map, see :func:`place_in_width`);
* :func:`smacof_encoding`, a stress-minimising configuration (SMACOF, via scikit-learn), the honest comparison for
  classical MDS when the rank is truncated;
* :func:`low_rank_factors`, the ``(n x r) (r x d)`` factorisation that stores an encoding with ``r (n + d)`` numbers.

Relative schemes (ALiBi, RoPE, T5 buckets) are not vectors added to tokens; they are described by the distance they
induce between positions (the functions named ``*_distances``), which is what stress needs.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._validation import check_distance_matrix, check_matrix, check_positive_int
from .mds import classical_mds
from .stress import pairwise_distances

__all__ = [
    "sinusoidal_frequencies",
    "sinusoidal_encoding",
    "orthonormal_frame",
    "place_in_width",
    "mds_encoding",
    "SmacofResult",
    "smacof_encoding",
    "LowRankFactors",
    "low_rank_factors",
    "alibi_distances",
    "rope_distances",
    "t5_bucket",
    "t5_bucket_distances",
]


def sinusoidal_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """The frequency schedule ``theta_k = base^(-2k/d)``, ``k = 0..d/2-1``, shared by sinusoidal and RoPE."""
    d = check_positive_int(d, "d")
    if d % 2:
        raise ValueError(f"d must be even (sine/cosine pairs), got d={d}")
    base = float(base)
    if not np.isfinite(base) or base <= 1:
        raise ValueError(f"base must be a finite number > 1, got {base}")
    return base ** (-np.arange(0, d, 2, dtype=float) / d)


def sinusoidal_encoding(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """The sinusoidal encoding of Vaswani et al. (2017).

    ``P[i, 2k] = sin(i theta_k)``, ``P[i, 2k+1] = cos(i theta_k)`` with ``theta_k = base^(-2k/d)``.
    Every row has norm ``sqrt(d/2)`` and ``||p_i - p_j||^2 = sum_k 2 (1 - cos((i - j) theta_k))`` depends only on
    ``i - j``.

    Parameters
    ----------
    n : int
        Number of positions.
    d : int
        Model width (even).
    base : float, default 10000.0

    Returns
    -------
    (n, d) float array
    """
    n = check_positive_int(n, "n")
    theta = sinusoidal_frequencies(d, base)
    angles = np.arange(n, dtype=float)[:, None] * theta[None, :]
    P = np.empty((n, d))
    P[:, 0::2] = np.sin(angles)
    P[:, 1::2] = np.cos(angles)
    return P


# --------------------------------------------------------------------------------------------------------------------
# Placing an r-dimensional configuration in the model width d
# --------------------------------------------------------------------------------------------------------------------


def _check_seed(seed, name: str = "seed"):
    if seed is None:
        return None
    return check_positive_int(seed, name, minimum=0)


def orthonormal_frame(d: int, r: int, *, seed: int | None = None) -> np.ndarray:
    """An orthonormal map ``W`` (d x r, ``W^T W = I_r``) that places ``R^r`` inside ``R^d``.

    Parameters
    ----------
    d, r : int
        Model width and configuration dimension, ``1 <= r <= d``.
    seed : int or None, default None
        ``None``: the first ``r`` standard basis vectors (``W = [I_r; 0]``, i.e. the configuration is padded with
        ``d - r`` zero coordinates). An int: a Haar-random frame, the Q factor (signs fixed so ``diag(R) > 0``) of
        the QR decomposition of a standard Gaussian ``d x r`` matrix drawn with ``numpy.random.default_rng(seed)``.

    Returns
    -------
    (d, r) float array with orthonormal columns.
    """
    d = check_positive_int(d, "d")
    r = check_positive_int(r, "r")
    if r > d:
        raise ValueError(f"r={r} dimensions do not fit in width d={d}; use r <= d")
    seed = _check_seed(seed)
    if seed is None:
        return np.eye(d, r)
    G = np.random.default_rng(seed).standard_normal((d, r))
    Q, R = np.linalg.qr(G)
    return Q * np.where(np.diag(R) < 0, -1.0, 1.0)


def place_in_width(X, d: int, *, seed: int | None = None) -> np.ndarray:
    """Place an (n x r) configuration in ``R^d`` as ``X W^T`` with ``W = orthonormal_frame(d, r, seed=seed)``.

    An orthonormal ``W`` is an isometry from ``R^r`` into ``R^d``: every distance ``||x_i - x_j||`` is kept, so the
    stress of the placed encoding equals the stress of ``X``, whatever ``seed``.
    """
    X = check_matrix(X, "X")
    W = orthonormal_frame(d, X.shape[1], seed=seed)
    return X @ W.T


# --------------------------------------------------------------------------------------------------------------------
# The information-optimal encoding (Algorithm 1) and its stress-minimising alternative
# --------------------------------------------------------------------------------------------------------------------


def mds_encoding(D, d: int, rank: int | None = None, *, seed: int | None = None, tol: float | None = None):
    """The MDS encoding of Algorithm 1: classical MDS of ``D``, placed in the model width ``d``.

    ``P = X W^T`` where ``X = U_r L_r^{1/2}`` (n x r) is :func:`posgeom.classical_mds` of ``D`` and ``W`` (d x r) is
    :func:`orthonormal_frame`. Distances between rows of ``P`` equal those between rows of ``X`` for every choice of
    ``W``; the choice only decides *which* ``r``-dimensional subspace of ``R^d`` the encoding occupies.

    Parameters
    ----------
    D : (n, n) array
        Target distances between positions (e.g. Hellinger distances between the ``mu_i``).
    d : int
        Model width; must be ``>= rank``.
    rank : int, optional
        Number of MDS dimensions ``r``. ``None`` keeps the whole positive part of ``B`` (its numerical rank).
    seed : int or None, default None
        Placement: ``None`` pads with zeros (first ``r`` coordinates), an int draws a seeded random orthonormal frame.
    tol : float, optional
        Eigenvalue tolerance passed to :func:`posgeom.classical_mds`.

    Returns
    -------
    (n, d) float array; rows are positions.
    """
    d = check_positive_int(d, "d")
    result = classical_mds(D, rank, tol=tol)
    X = result.embedding
    if X.shape[1] == 0:
        raise ValueError(
            "B has no positive eigenvalue (all positions are at distance 0): there is no positional signal to encode"
        )
    if X.shape[1] > d:
        raise ValueError(
            f"the MDS configuration has r={X.shape[1]} dimensions but the width is d={d}; pass rank <= {d}"
        )
    return place_in_width(X, d, seed=seed)


@dataclass(frozen=True)
class SmacofResult:
    """Result of :func:`smacof_encoding`.

    Attributes
    ----------
    embedding : (n, rank) array
        The best configuration found (centred).
    stress : float
        Its raw stress (the paper's definition, normalised by ``sum_{i<j} D_ij^2``).
    n_iter : int
        Guttman iterations of the winning run.
    converged : bool
        Whether the winning run stopped on the tolerance rather than at ``max_iter``.
    start : str
        Which start won: ``"classical"`` or ``"random-<k>"``.
    stresses : tuple of float
        Raw stress reached from every start, in order (classical first).
    """

    embedding: np.ndarray
    stress: float
    n_iter: int
    converged: bool
    start: str
    stresses: tuple


def smacof_encoding(
    D,
    rank: int,
    *,
    seed: int,
    n_init: int = 4,
    init: str = "classical",
    max_iter: int = 3000,
    eps: float = 1e-8,
) -> SmacofResult:
    """A stress-minimising configuration of rank ``rank`` by SMACOF (``sklearn.manifold.smacof``, metric).

    SMACOF (de Leeuw, 1977) minimises the raw stress numerator ``sum_{i<j} (||x_i - x_j|| - D_ij)^2`` by
    majorisation: each Guttman transform never increases it. Since the paper's stress divides by the constant
    ``sum_{i<j} D_ij^2``, SMACOF minimises the paper's raw stress directly; it is only guaranteed to find a *local*
    minimum, hence several starts.

    Starts (all deterministic given ``seed``):

    * ``init="classical"``: the first start is the rank-``rank`` classical MDS configuration (if ``B`` has fewer
      positive eigenvalues than ``rank``, the missing columns are filled with small seeded noise), so the result's
      stress is never above classical MDS's;
    * the remaining ``n_init - 1`` starts (all ``n_init`` with ``init="random"``) are Gaussian configurations with
      the RMS scale of ``D``, drawn with ``numpy.random.default_rng(seed)``.

    scikit-learn is called as ``smacof(D, metric=True, init=X0, n_init=1, normalized_stress=False, ...)`` with every
    argument explicit, so no default-change warning (the ``n_init`` and ``init`` defaults of ``MDS`` are changing in
    scikit-learn 1.8-1.10) is emitted.

    Parameters
    ----------
    D : (n, n) array
        Target distances.
    rank : int
        Dimension of the configuration, ``1 <= rank <= n - 1``.
    seed : int
        Seed of the random starts (required, keyword-only).
    n_init : int, default 4
        Number of starts, the best (lowest raw stress) wins.
    init : {"classical", "random"}, default "classical"
    max_iter : int, default 3000
        Maximum Guttman iterations per start.
    eps : float, default 1e-8
        scikit-learn's convergence tolerance: a run stops when one Guttman step lowers the stress by less than
        ``eps`` times the sum of squared configuration distances (tighter values change stress by about 1% at
        rank 6 on the book's corpora and cost several times more iterations).

    Returns
    -------
    SmacofResult
    """
    from sklearn.manifold import smacof  # imported here: scikit-learn is only needed for this comparison

    D = check_distance_matrix(D)
    n = D.shape[0]
    rank = check_positive_int(rank, "rank")
    if rank > n - 1:
        raise ValueError(f"rank={rank} is more than n - 1 = {n - 1} dimensions, which n points never need")
    seed = check_positive_int(seed, "seed", minimum=0)
    n_init = check_positive_int(n_init, "n_init")
    max_iter = check_positive_int(max_iter, "max_iter")
    if init not in ("classical", "random"):
        raise ValueError(f"init must be 'classical' or 'random', got {init!r}")
    if not (isinstance(eps, numbers.Real) and np.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    iu = np.triu_indices(n, k=1)
    denom = float(np.sum(D[iu] ** 2))
    if denom == 0:
        raise ValueError("D is zero for every pair of positions: there is nothing to embed and stress is undefined")
    rng = np.random.default_rng(seed)
    rms = np.sqrt(denom / len(iu[0]))
    starts: list[tuple[str, np.ndarray]] = []
    if init == "classical":
        full = classical_mds(D)
        X0 = full.embedding[:, :rank]
        if X0.shape[1] < rank:
            pad = 1e-3 * rms * rng.standard_normal((n, rank - X0.shape[1]))
            X0 = np.hstack([X0, pad - pad.mean(axis=0)])
        starts.append(("classical", X0))
    while len(starts) < n_init:
        starts.append((f"random-{len(starts)}", rms / np.sqrt(2.0) * rng.standard_normal((n, rank))))
    best = None
    stresses = []
    for name, X0 in starts:
        X, _, n_iter = smacof(
            D, metric=True, n_components=rank, init=X0, n_init=1, n_jobs=None, max_iter=max_iter, verbose=0,
            eps=float(eps), random_state=None, return_n_iter=True, normalized_stress=False,
        )
        X = X - X.mean(axis=0)
        E = pairwise_distances(X)
        s = float(np.sum((E[iu] - D[iu]) ** 2) / denom)
        stresses.append(s)
        if best is None or s < best[1]:
            best = (X, s, int(n_iter), name)
    return SmacofResult(
        embedding=best[0], stress=best[1], n_iter=best[2], converged=best[2] < max_iter, start=best[3],
        stresses=tuple(stresses),
    )


# --------------------------------------------------------------------------------------------------------------------
# Minimal parametrisation: an encoding as a product of two thin factors
# --------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LowRankFactors:
    """An encoding stored as ``P ~= left @ right`` (see :func:`low_rank_factors`).

    Attributes
    ----------
    left : (n, r) array
        ``U_r diag(s_r)``: row ``i`` is position ``i``'s coordinates in an ``r``-dimensional subspace.
    right : (r, d) array
        ``V_r^T``, with orthonormal rows, so distances between rows of ``left`` equal those between rows of
        ``left @ right``.
    singular_values : (min(n, d),) array
        All singular values of ``P``, descending.
    """

    left: np.ndarray
    right: np.ndarray
    singular_values: np.ndarray

    @property
    def rank(self) -> int:
        """The number of factors ``r``."""
        return int(self.left.shape[1])

    @property
    def n_parameters(self) -> int:
        """Numbers stored by the factorisation: ``r (n + d)``."""
        n, r = self.left.shape
        return int(r * (n + self.right.shape[1]))

    @property
    def n_full_parameters(self) -> int:
        """Numbers stored by the full encoding: ``n d``."""
        return int(self.left.shape[0] * self.right.shape[1])

    @property
    def saving(self) -> float:
        """Fraction of parameters saved, ``1 - r (n + d) / (n d)`` (negative if the factors are larger)."""
        return 1.0 - self.n_parameters / self.n_full_parameters

    @property
    def relative_error(self) -> float:
        """``||P - left @ right||_F / ||P||_F`` (Eckart-Young: the smallest possible at rank ``r``)."""
        s = self.singular_values
        total = float(np.sum(s**2))
        return float(np.sqrt(np.sum(s[self.rank :] ** 2) / total)) if total > 0 else 0.0

    def product(self) -> np.ndarray:
        """The rank-``r`` encoding ``left @ right`` (n x d)."""
        return self.left @ self.right


def low_rank_factors(P, r: int) -> LowRankFactors:
    """Best rank-``r`` factorisation of an encoding by the truncated SVD ``P = U S V^T``.

    ``left = U_r S_r`` (n x r) and ``right = V_r^T`` (r x d): ``r (n + d)`` parameters instead of ``n d``. By
    Eckart-Young the product is the closest rank-``r`` matrix to ``P`` in Frobenius norm; if ``rank(P) <= r`` it
    reproduces ``P`` to rounding. Singular vectors are sign-fixed (largest-magnitude entry of each column of ``U``
    positive) so the factors are deterministic.

    Parameters
    ----------
    P : (n, d) array
        An encoding, rows are positions.
    r : int
        Number of factors, ``1 <= r <= min(n, d)``.

    Returns
    -------
    LowRankFactors
    """
    P = check_matrix(P, "P")
    r = check_positive_int(r, "r")
    n, d = P.shape
    if r > min(n, d):
        raise ValueError(f"r={r} exceeds min(n, d) = {min(n, d)} for P of shape {P.shape}; use r <= {min(n, d)}")
    U, s, Vt = np.linalg.svd(P, full_matrices=False)
    signs = np.sign(U[np.argmax(np.abs(U), axis=0), np.arange(U.shape[1])])
    signs = np.where(signs == 0, 1.0, signs)
    U, Vt = U * signs, Vt * signs[:, None]
    return LowRankFactors(left=U[:, :r] * s[:r], right=Vt[:r].copy(), singular_values=s)


# --------------------------------------------------------------------------------------------------------------------
# Relative schemes: the distance they induce between positions
# --------------------------------------------------------------------------------------------------------------------


def alibi_distances(n: int, slope: float = 1.0) -> np.ndarray:
    """ALiBi's induced distance ``m |i - j|`` (Press et al., 2022): the magnitude of its linear attention bias.

    It is the distance of the one-dimensional configuration ``x_i = m i``, hence exactly Euclidean, of rank 1.

    Parameters
    ----------
    n : int
        Number of positions (``>= 2``).
    slope : float, default 1.0
        The head's slope ``m > 0``. Stress is scale-dependent, so the slope matters for raw stress and not for
        scale-optimal stress.
    """
    n = check_positive_int(n, "n", minimum=2)
    if not (isinstance(slope, numbers.Real) and np.isfinite(slope) and slope > 0):
        raise ValueError(f"slope must be a finite number > 0, got {slope!r}")
    i = np.arange(n, dtype=float)
    return float(slope) * np.abs(i[:, None] - i[None, :])


def _rope_rotate(x: np.ndarray, n: int, theta: np.ndarray) -> np.ndarray:
    """Rows ``R_i x`` for ``i = 0..n-1``: block ``k`` (coordinates ``2k, 2k+1``) rotated by the angle ``i theta_k``."""
    angles = np.arange(n, dtype=float)[:, None] * theta[None, :]
    c, s = np.cos(angles), np.sin(angles)
    a, b = x[0::2][None, :], x[1::2][None, :]
    out = np.empty((n, x.size))
    out[:, 0::2] = c * a - s * b
    out[:, 1::2] = s * a + c * b
    return out


def rope_distances(n: int, d: int, base: float = 10000.0, *, x=None) -> np.ndarray:
    """RoPE's induced distance: ``||R_i x - R_j x||`` between rotated copies of one vector ``x`` (Su et al., 2024).

    RoPE rotates the 2-D block ``k`` of a query/key by the angle ``i theta_k`` with ``theta_k = base^(-2k/d)``
    (blocks are the coordinate pairs ``(2k, 2k+1)``; the "half-split" pairing of some implementations permutes
    coordinates and gives the same distances). Rotations preserve norms, so
    ``||R_i x - R_j x||^2 = sum_k |x_k|^2 2 (1 - cos((i - j) theta_k))`` where ``|x_k|`` is the norm of block ``k``.

    Parameters
    ----------
    n : int
        Number of positions (``>= 2``).
    d : int
        Head dimension (even).
    base : float, default 10000.0
    x : (d,) array, optional
        The rotated vector. Default: every block of unit norm, ``x = (0, 1, 0, 1, ...)``. With this choice
        ``R_i x`` is *exactly* row ``i`` of :func:`sinusoidal_encoding` and the distances are exactly
        ``sqrt(sum_k 2 (1 - cos((i - j) theta_k)))``: RoPE and sinusoidal induce the same geometry. Any ``x`` with
        equal block norms ``c`` gives ``c`` times this.

    Returns
    -------
    (n, n) float array, symmetric, zero diagonal; computed by rotating ``x``, not from the closed form.
    """
    n = check_positive_int(n, "n", minimum=2)
    theta = sinusoidal_frequencies(d, base)
    if x is None:
        x = np.tile([0.0, 1.0], d // 2)
    else:
        x = np.asarray(x, dtype=float)
        if x.shape != (d,):
            raise ValueError(f"x must be a vector of length d={d}, got shape {x.shape}")
        if not np.all(np.isfinite(x)):
            raise ValueError("x contains NaN or infinite values")
    return pairwise_distances(_rope_rotate(x, n, theta))


def t5_bucket(relative_position, *, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True):
    """T5's relative-position bucket (Raffel et al., 2020), as in the reference implementation.

    With ``bidirectional=True`` half the buckets are for ``j > i``. Within a half of size ``h``, offsets
    ``|k| < h/2`` get their own bucket and larger offsets share logarithmically spaced buckets up to
    ``max_distance`` (everything beyond falls in the last bucket).

    Parameters
    ----------
    relative_position : int array
        ``j - i`` (key position minus query position).

    Returns
    -------
    int array of bucket ids in ``[0, num_buckets)``, same shape as the input.
    """
    num_buckets = check_positive_int(num_buckets, "num_buckets", minimum=4)
    max_distance = check_positive_int(max_distance, "max_distance", minimum=2)
    rel = np.asarray(relative_position)
    if not np.issubdtype(rel.dtype, np.integer):
        raise TypeError(f"relative_position must be integers, got dtype {rel.dtype}")
    rel = rel.astype(np.int64)
    bucket = np.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        bucket += (rel > 0).astype(np.int64) * num_buckets
        rel = np.abs(rel)
    else:
        rel = -np.minimum(rel, 0)
    max_exact = num_buckets // 2
    if max_distance <= max_exact:
        raise ValueError(f"max_distance={max_distance} must exceed num_buckets // 4 (bidirectional) = {max_exact}")
    is_small = rel < max_exact
    with np.errstate(divide="ignore"):
        large = max_exact + (
            np.log(np.maximum(rel, 1) / max_exact) / np.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return bucket + np.where(is_small, rel, large)


def t5_bucket_distances(n: int, *, num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """A dissimilarity induced by T5's bucketed relative positions: the bucket index of ``|i - j|``.

    T5 learns one scalar bias per bucket, so it has no intrinsic geometry; the book's convention is the distance
    ``delta_ij = bucket(|i - j|)`` (the bucket of the non-negative offset in the bidirectional scheme): equal to
    ``|i - j|`` for short offsets and growing logarithmically for long ones (saturating at ``max_distance``). It is
    symmetric with a zero diagonal; it is not guaranteed to satisfy the triangle inequality.
    """
    n = check_positive_int(n, "n", minimum=2)
    i = np.arange(n)
    offset = -np.abs(i[:, None] - i[None, :])  # non-positive offsets: the first half of the bidirectional buckets
    return t5_bucket(offset, num_buckets=num_buckets, max_distance=max_distance, bidirectional=True).astype(float)
