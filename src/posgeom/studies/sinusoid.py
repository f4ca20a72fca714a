"""Chapter 5b: does the sinusoidal encoding span the MDS subspace?

* :func:`sinusoid_alignment` -- alignment of the sinusoid with the rank-``r`` MDS subspace, against a null
* :func:`random_centred_subspaces` -- uniformly random subspaces orthogonal to the constant vector
* :func:`step_subspaces` -- subspaces of piecewise-constant statistics with given jumps
* :func:`random_step_subspaces` -- the same with jumps drawn at random
* :func:`sinusoid_directions` -- the top principal directions of the centred sinusoidal encoding
* :func:`real_text_alignment` -- the alignment on real text across a subsampling ladder, with its flat control
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix, check_positive_int, check_rng
from ..encodings.absolute import sinusoidal_encoding
from ..geometry.ladder import Ladder, flat_corpus, stability_ladder
from ..geometry.mds import classical_mds
from ..geometry.shift import subspace_alignment

if TYPE_CHECKING:
    from ..corpus import SequenceIncidence

__all__ = [
    "sinusoid_alignment",
    "random_centred_subspaces",
    "step_subspaces",
    "random_step_subspaces",
    "sinusoid_directions",
    "real_text_alignment",
]


@dataclass(frozen=True)
class SinusoidAlignment:
    """Result of :func:`sinusoid_alignment`.

    Fields: ``rank``, ``d_model``, ``quantile`` (of the null, the threshold); ``alignment`` (mean squared cosine of the
    principal angles between the sinusoid's top-``rank`` and the MDS subspace); ``variance_share`` (of the sinusoid's
    centred variance inside the MDS subspace); ``variance_ceiling`` (inside its own top-``rank`` subspace);
    ``null_alignment``, ``null_share`` (random centred subspaces instead).
    """

    rank: int
    d_model: int
    alignment: float
    variance_share: float
    variance_ceiling: float
    null_alignment: np.ndarray
    null_share: np.ndarray
    quantile: float

    @property
    def alignment_threshold(self) -> float:
        """The ``quantile`` of the null alignments."""
        return float(np.quantile(self.null_alignment, self.quantile))

    @property
    def share_threshold(self) -> float:
        """The ``quantile`` of the null variance shares."""
        return float(np.quantile(self.null_share, self.quantile))

    @property
    def aligned(self) -> bool:
        """Whether the alignment exceeds its null threshold."""
        return bool(self.alignment > self.alignment_threshold)

    @property
    def share_exceeds_null(self) -> bool:
        """Whether the variance share exceeds its null threshold."""
        return bool(self.variance_share > self.share_threshold)


def random_centred_subspaces(n_positions: int, rank: int, n_draws: int, *,
                             rng: int | np.random.Generator) -> np.ndarray:
    """Orthonormal bases of uniformly random ``rank``-dimensional subspaces orthogonal to the constant vector.

    Parameters
    ----------
    n_positions, rank, n_draws : int
        ``n_positions >= 2``; ``1 <= rank <= n_positions - 1``; number of subspaces.
    rng : int or numpy.random.Generator

    Returns
    -------
    (n_draws, n_positions, rank) array

    Examples
    --------
    >>> Q = random_centred_subspaces(5, 2, 3, rng=0)
    >>> Q.shape, np.allclose(Q[0].T @ Q[0], np.eye(2)), np.allclose(Q.sum(axis=1), 0.0)
    ((3, 5, 2), True, True)
    """
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    rank = check_positive_int(rank, "rank")
    if rank > n - 1:
        raise ValueError(f"the centred space of n_positions={n} has dimension {n - 1}, got rank={rank}")
    draws = check_positive_int(n_draws, "n_draws")
    G = check_rng(rng).standard_normal((draws, n, rank))
    G -= G.mean(axis=1, keepdims=True)
    return np.linalg.qr(G)[0]


def sinusoid_alignment(D: ArrayLike, rank: int, *, d_model: int, rng: int | np.random.Generator, base: float = 10000.0,
                       n_null: int = 2000, quantile: float = 0.99) -> SinusoidAlignment:
    """How closely the sinusoidal encoding ``(n, d_model)`` matches the rank-``rank`` MDS encoding of ``D``.

    Parameters
    ----------
    D : (n, n) array
        Distances between positions, not all zero.
    rank : int
        At most the number of positive eigenvalues of ``-1/2 J D^2 J``.
    d_model : int
        Width of the sinusoid, at least ``2 rank``.
    rng : int or numpy.random.Generator
        Seed of the null subspaces.
    base : float, default 10000.0
    n_null : int, default 2000
    quantile : float, default 0.99
        Null quantile used as threshold.

    Returns
    -------
    SinusoidAlignment

    Examples
    --------
    >>> from posgeom.geometry import hellinger_distances, shift_equivariant_distributions
    >>> D = hellinger_distances(shift_equivariant_distributions(16, width=2.0))
    >>> res = sinusoid_alignment(D, 2, d_model=64, rng=0, n_null=200)
    >>> res.aligned, res.share_exceeds_null, round(res.alignment, 2)
    (True, True, 0.99)
    """
    D = check_distance_matrix(D)
    if not np.any(D > 0):
        raise ValueError("D is zero everywhere: there is no MDS subspace to compare with")
    rank = check_positive_int(rank, "rank")
    d_model = check_positive_int(d_model, "d_model")
    if d_model < 2 * rank:
        raise ValueError(f"d_model={d_model} gives the sinusoid fewer than rank={rank} principal directions")
    quantile = float(quantile)
    if not 0 < quantile < 1:
        raise ValueError(f"quantile must lie in (0, 1), got {quantile}")
    n = D.shape[0]
    mds = classical_mds(D)
    if rank > mds.rank:
        raise ValueError(f"rank={rank} exceeds the number of positive eigenvalues of B ({mds.rank})")
    U = mds.eigenvectors[:, :rank]
    P = sinusoidal_encoding(n, d_model, base=base)
    Pc = P - P.mean(axis=0)
    gram = Pc @ Pc.T  # principal directions of Pc from its (n, n) Gram matrix: cheap when d >> n
    evals, S = scipy.linalg.eigh(gram)
    evals, S = np.clip(evals[::-1], 0.0, None), S[:, ::-1]
    sing = np.sqrt(evals)
    total = float(np.sum(evals))
    Q = random_centred_subspaces(n, rank, n_null, rng=rng)
    null_alignment = np.sum(np.einsum("bnr,ns->brs", Q, U) ** 2, axis=(1, 2)) / rank
    null_share = np.einsum("bnr,nm,bmr->b", Q, gram, Q, optimize=True) / total  # ||Q^T Pc||_F^2 / total
    return SinusoidAlignment(
        rank=rank,
        d_model=d_model,
        alignment=subspace_alignment(S[:, :rank], U),
        variance_share=float(np.linalg.norm(U.T @ Pc) ** 2 / total),
        variance_ceiling=float(np.sum(sing[:rank] ** 2) / total),
        null_alignment=null_alignment,
        null_share=null_share,
        quantile=quantile,
    )


def step_subspaces(n_positions: int, cuts: ArrayLike) -> np.ndarray:
    """Orthonormal bases of the centred piecewise-constant functions of the position with the given jumps.

    Parameters
    ----------
    n_positions : int
    cuts : (k, r) int array
        Jump positions, each row strictly increasing within ``[1, n_positions - 1]``.

    Returns
    -------
    (k, n_positions, r) array

    Examples
    --------
    >>> Q = step_subspaces(6, [[2, 4]])
    >>> Q.shape, np.allclose(Q[0].T @ Q[0], np.eye(2)), np.allclose(Q.sum(axis=1), 0.0)
    ((1, 6, 2), True, True)
    """
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    cuts = np.asarray(cuts)
    if cuts.ndim != 2 or cuts.shape[1] < 1 or not np.issubdtype(cuts.dtype, np.integer):
        raise ValueError(f"cuts must be a (k, r) integer array with r >= 1, got shape {cuts.shape}")
    if np.any(cuts < 1) or np.any(cuts > n - 1) or np.any(np.diff(cuts, axis=1) <= 0):
        raise ValueError(f"every row of cuts must be strictly increasing within [1, {n - 1}]")
    rank = cuts.shape[1]
    block = np.sum(np.arange(n)[None, :, None] >= cuts[:, None, :], axis=2)  # (k, n): block of each position
    indicators = (block[:, :, None] == np.arange(rank + 1)).astype(float)
    indicators -= indicators.mean(axis=1, keepdims=True)
    return np.linalg.qr(indicators[:, :, :rank])[0]  # the first r centred indicators span the subspace


def random_step_subspaces(n_positions: int, rank: int, n_draws: int, *,
                          rng: int | np.random.Generator) -> np.ndarray:
    """:func:`step_subspaces` with ``rank`` jumps drawn uniformly without replacement from ``1..n_positions-1``.

    Parameters
    ----------
    n_positions, rank, n_draws : int
    rng : int or numpy.random.Generator

    Returns
    -------
    (n_draws, n_positions, rank) array

    Examples
    --------
    >>> random_step_subspaces(8, 3, 5, rng=0).shape
    (5, 8, 3)
    """
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    rank = check_positive_int(rank, "rank")
    if rank > n - 1:
        raise ValueError(f"n_positions={n} has only {n - 1} places for a jump, got rank={rank}")
    draws = check_positive_int(n_draws, "n_draws")
    cuts = np.sort(np.argsort(check_rng(rng).random((draws, n - 1)), axis=1)[:, :rank] + 1, axis=1)
    return step_subspaces(n, cuts)


def sinusoid_directions(n_positions: int, d_model: int, rank: int, *, base: float = 10000.0) -> np.ndarray:
    """The top-``rank`` principal directions (left singular vectors) of the centred sinusoidal encoding.

    Parameters
    ----------
    n_positions, d_model, rank : int
        ``d_model >= 2 rank``, ``rank <= n_positions - 1``.
    base : float, default 10000.0

    Returns
    -------
    (n_positions, rank) array

    Examples
    --------
    >>> S = sinusoid_directions(8, 16, 2)
    >>> S.shape, np.allclose(S.T @ S, np.eye(2))
    ((8, 2), True)
    """
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    rank = check_positive_int(rank, "rank")
    d_model = check_positive_int(d_model, "d_model")
    if d_model < 2 * rank or rank > n - 1:
        raise ValueError(f"need 2 * rank <= d_model and rank <= n_positions - 1, got rank={rank}, "
                         f"d_model={d_model}, n_positions={n}")
    P = sinusoidal_encoding(n, d_model, base=base)
    evals, S = scipy.linalg.eigh((P - P.mean(axis=0)) @ (P - P.mean(axis=0)).T)
    return S[:, ::-1][:, :rank]


class _AlignmentStatistic:
    """The sinusoid-MDS alignment at several ranks as a statistic of squared distances ``Q``, with null thresholds."""

    def __init__(self, n_positions: int, ranks, d_model: int, *, rng, n_null: int = 2000, quantile: float = 0.99,
                 base: float = 10000.0):
        self.n, self.d_model = int(n_positions), int(d_model)
        self.ranks = tuple(check_positive_int(r, "rank") for r in np.atleast_1d(ranks))
        quantile = float(quantile)
        if not 0 < quantile < 1:
            raise ValueError(f"quantile must lie in (0, 1), got {quantile}")
        self.directions = sinusoid_directions(self.n, self.d_model, max(self.ranks), base=base)
        gen = check_rng(rng)
        thresholds = []
        for r in self.ranks:
            Q = random_centred_subspaces(self.n, r, n_null, rng=gen)
            null = np.sum(np.einsum("bnr,ns->brs", Q, self.directions[:, :r]) ** 2, axis=(1, 2)) / r
            thresholds.append(np.quantile(null, quantile))
        self.thresholds = np.array(thresholds)

    def mds_subspace(self, Q) -> np.ndarray:
        """The eigenvectors of ``B = -1/2 J Q J``, eigenvalues decreasing."""
        Q = np.asarray(Q, dtype=float)
        if Q.shape != (self.n, self.n):
            raise ValueError(f"Q must have shape ({self.n}, {self.n}), got {Q.shape}")
        Q = (Q + Q.T) / 2
        Qc = Q - Q.mean(axis=0) - Q.mean(axis=1)[:, None] + Q.mean()
        return scipy.linalg.eigh(-0.5 * Qc)[1][:, ::-1]

    def __call__(self, Q) -> np.ndarray:
        U = self.mds_subspace(Q)
        return np.array([subspace_alignment(U[:, :r], self.directions[:, :r]) for r in self.ranks])


@dataclass(frozen=True)
class RealTextAlignment:
    """Result of :func:`real_text_alignment`.

    Fields: ``estimand``; the statistic's ``ranks`` and the verdict's ``rank``; ``ladder`` and ``flat_ladder`` (the
    alignment at every rank on every rung, corpus and flat control); the null ``thresholds`` at every rank; the
    ``leading_position`` of the leading MDS direction.
    """

    estimand: str
    ranks: tuple
    rank: int
    ladder: Ladder
    flat_ladder: Ladder
    thresholds: np.ndarray
    leading_position: int

    @property
    def threshold(self) -> float:
        """The null quantile at the verdict's rank."""
        return float(self.thresholds[self.ranks.index(self.rank)])

    def _word(self, ladder) -> str:
        k = self.ranks.index(self.rank)
        if not ladder.holds_still():
            return "undetermined"
        if np.all(ladder.lower[:, k] > self.threshold):
            return "aligned"
        if np.all(ladder.upper[:, k] < self.threshold):
            return "not aligned"
        return "undetermined"

    @property
    def verdict(self) -> str:
        """'aligned'/'not aligned' if the ladder holds still and every rung lies above/below, else 'undetermined'."""
        return self._word(self.ladder)

    @property
    def flat_verdict(self) -> str:
        """The verdict on the flat control."""
        return self._word(self.flat_ladder)


def real_text_alignment(incidence: SequenceIncidence, *, rank: int = 3, ranks: Sequence[int] = (1, 2, 3, 4, 5, 6),
                        d_model: int = 768, rng: int | np.random.Generator, n_resamples: int = 100,
                        fractions: Sequence[float] = (1.0, 0.5, 0.25, 0.125), n_null: int = 2000,
                        quantile: float = 0.99, confidence: float = 0.95) -> RealTextAlignment:
    """The sinusoid-MDS alignment of the resolved estimand across a subsampling ladder, with its flat control.

    The resolved estimator is fixed at the resolution of the smallest rung; the control is
    :func:`posgeom.geometry.flat_corpus`.

    Parameters
    ----------
    incidence : posgeom.corpus.SequenceIncidence
    rank : int, default 3
        The rank of the verdict, one of ``ranks``.
    ranks : sequence of int, default 1..6
    d_model : int, default 768
    rng : int or numpy.random.Generator
    n_resamples : int, default 100
        Bootstrap resamples per rung.
    fractions : sequence of float
        The rungs, starting with 1.
    n_null, quantile : int, float
        The random-subspace null and its threshold quantile.
    confidence : float, default 0.95

    Returns
    -------
    RealTextAlignment

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(3000, 12, 30, rng=0, regime="smooth"), 12, 30)
    >>> res = real_text_alignment(inc, rank=2, ranks=(1, 2, 3), d_model=64, rng=1, n_resamples=30, n_null=200)
    >>> res.verdict, res.flat_verdict != "aligned"
    ('aligned', True)
    """
    from ..geometry.estimation import Resolved

    ranks = tuple(int(r) for r in ranks)
    if int(rank) not in ranks:
        raise ValueError(f"rank={rank} must be one of ranks={ranks}")
    gen = check_rng(rng)
    estimator = Resolved().fixed(incidence, fraction=min(fractions))
    stat = _AlignmentStatistic(incidence.n_positions, ranks, d_model, rng=gen, n_null=n_null, quantile=quantile)
    ladder = stability_ladder(estimator, incidence, statistic=stat, rng=gen, fractions=fractions,
                              n_resamples=n_resamples, confidence=confidence)
    flat = flat_corpus(incidence, rng=gen)
    flat_ladder = stability_ladder(estimator, flat, statistic=stat, rng=gen, fractions=fractions,
                                   n_resamples=n_resamples, confidence=confidence)
    u1 = stat.mds_subspace(ladder.rungs[0].point.squared)[:, 0]  # the whole corpus's point estimate
    return RealTextAlignment(
        estimand=estimator.describe_estimand(),
        ranks=ranks,
        rank=int(rank),
        ladder=ladder,
        flat_ladder=flat_ladder,
        thresholds=stat.thresholds,
        leading_position=int(np.argmax(np.abs(u1))),
    )
