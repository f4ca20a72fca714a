"""Chapter 5's sinusoid section, does it span the MDS subspace: :func:`sinusoid_alignment` (a random-subspace null),
:func:`real_text_alignment` (ladder, flat control, resolutions), :func:`reference_subspaces` (random and steps)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from .._validation import check_confidence, check_distance_matrix, check_positive_int, check_rng
from ..encodings.absolute import sinusoidal_encoding
from ..geometry.ladder import Ladder, flat_corpus, stability_ladder
from ..geometry.mds import classical_mds
from ..geometry.shift import subspace_alignment

if TYPE_CHECKING:
    from ..corpus import SequenceIncidence

__all__ = ["sinusoid_alignment", "real_text_alignment", "reference_subspaces"]


def reference_subspaces(n_positions: int, rank: int, *, kind: str = "random", n_draws: int = 2000,
                        rng: int | np.random.Generator) -> np.ndarray:
    """Orthonormal bases of ``rank``-dimensional subspaces orthogonal to the constant vector.

    Parameters
    ----------
    n_positions, rank, n_draws, rng : int, int, int, int or numpy.random.Generator
        ``1 <= rank <= n_positions - 1``; ``n_draws`` and ``rng`` are unused for ``"all steps"``.
    kind : {"random", "step", "all steps"}, default "random"
        Uniformly random subspaces; centred step functions with ``rank`` jumps at random places, or at every set of
        places (``binom(n_positions - 1, rank)`` of them).

    Returns
    -------
    (n_draws, n_positions, rank) array

    Examples
    --------
    >>> Q = reference_subspaces(6, 2, kind="all steps", rng=0)
    >>> Q.shape, np.allclose(Q[0].T @ Q[0], np.eye(2)), np.allclose(Q.sum(axis=1), 0.0)
    ((10, 6, 2), True, True)
    """
    n, rank = check_positive_int(n_positions, "n_positions", minimum=2), check_positive_int(rank, "rank")
    if rank > n - 1:
        raise ValueError(f"the centred space of n_positions={n} has dimension {n - 1}, got rank={rank}")
    if kind == "random":
        return _random_centred(n, rank, check_positive_int(n_draws, "n_draws"), check_rng(rng))
    if kind == "step":
        keys = check_rng(rng).random((check_positive_int(n_draws, "n_draws"), n - 1))
        cuts = np.sort(np.argsort(keys, axis=1)[:, :rank] + 1, axis=1)
    elif kind == "all steps":
        cuts = np.array(list(itertools.combinations(range(1, n), rank)))
    else:
        raise ValueError(f"kind must be 'random', 'step' or 'all steps', got {kind!r}")
    block = np.sum(np.arange(n)[None, :, None] >= cuts[:, None, :], axis=2)  # (k, n): block of each position
    indicators = (block[:, :, None] == np.arange(rank + 1)).astype(float)
    indicators -= indicators.mean(axis=1, keepdims=True)
    return np.linalg.qr(indicators[:, :, :rank])[0]  # the first r centred indicators span the subspace


def _random_centred(n: int, rank: int, n_draws: int, gen: np.random.Generator) -> np.ndarray:
    """``n_draws`` uniformly random centred ``rank``-dimensional orthonormal bases."""
    G = gen.standard_normal((n_draws, n, rank))
    G -= G.mean(axis=1, keepdims=True)
    return np.linalg.qr(G)[0]


def _null_alignment(Q: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Alignment of every subspace ``Q[b]`` with the basis ``V``."""
    return np.sum(np.einsum("bnr,ns->brs", Q, V) ** 2, axis=(1, 2)) / V.shape[1]


def _sinusoid_directions(n: int, d_model: int) -> np.ndarray:
    """The sinusoid's principal directions, decreasing; two operands on purpose (``Pc @ Pc.T`` differs in last bits)."""
    P = sinusoidal_encoding(n, d_model)
    return scipy.linalg.eigh((P - P.mean(axis=0)) @ (P - P.mean(axis=0)).T)[1][:, ::-1]


def _sinusoid_pca(n: int, d_model: int):
    """Centred sinusoid, its (n, n) Gram matrix, eigenvalues (decreasing, clipped at 0) and eigenvectors."""
    P = sinusoidal_encoding(n, d_model)
    Pc = P - P.mean(axis=0)
    gram = Pc @ Pc.T  # principal directions of Pc from its (n, n) Gram matrix: cheap when d >> n
    evals, S = scipy.linalg.eigh(gram)
    return Pc, gram, np.clip(evals[::-1], 0.0, None), S[:, ::-1]


@dataclass(frozen=True)
class SinusoidAlignment:
    """Result of :func:`sinusoid_alignment`: ``alignment`` (mean squared cosine of the principal angles between the
    MDS subspace and the sinusoid's top-``rank`` ``directions``), ``variance_share`` (of the sinusoid's centred
    variance inside the MDS subspace; ``variance_ceiling`` inside its own), their null ``alignment_threshold`` and
    ``share_threshold`` (``quantile`` of random centred subspaces), ``aligned`` and ``share_exceeds_null`` (above)."""
    rank: int
    d_model: int
    alignment: float
    alignment_threshold: float
    variance_share: float
    variance_ceiling: float
    share_threshold: float
    aligned: bool
    share_exceeds_null: bool
    directions: np.ndarray


def sinusoid_alignment(D: ArrayLike, rank: int, *, d_model: int, rng: int | np.random.Generator, n_null: int = 2000,
                       quantile: float = 0.99) -> SinusoidAlignment:
    """How closely the sinusoidal encoding ``(n, d_model)`` matches the rank-``rank`` MDS encoding of ``D``.

    Parameters
    ----------
    D : (n, n) array of distances between positions, not all zero
    rank, d_model, rng, n_null, quantile
        At most the number of positive eigenvalues of ``-1/2 J D^2 J``; the sinusoid's width (``>= 2 rank``); the
        null's random centred subspaces and its quantile used as threshold.

    Returns
    -------
    SinusoidAlignment

    Examples
    --------
    >>> from posgeom.geometry import hellinger_distances, shift_equivariant_distributions
    >>> D = hellinger_distances(shift_equivariant_distributions(16, width=2.0))
    >>> sinusoid_alignment(D, 2, d_model=64, rng=0, n_null=200).aligned
    True
    """
    D = check_distance_matrix(D)
    if not np.any(D > 0):
        raise ValueError("D is zero everywhere: there is no MDS subspace to compare with")
    rank, d_model = check_positive_int(rank, "rank"), check_positive_int(d_model, "d_model")
    if d_model < 2 * rank:
        raise ValueError(f"d_model={d_model} gives the sinusoid fewer than rank={rank} principal directions")
    n, quantile = D.shape[0], check_confidence(quantile, "quantile")
    mds = classical_mds(D)
    if rank > mds.rank:
        raise ValueError(f"rank={rank} exceeds the number of positive eigenvalues of B ({mds.rank})")
    U = mds.eigenvectors[:, :rank]
    Pc, gram, evals, S = _sinusoid_pca(n, d_model)
    total = float(np.sum(evals))
    Q = _random_centred(n, rank, check_positive_int(n_null, "n_null"), check_rng(rng))
    alignment, share = subspace_alignment(S[:, :rank], U), float(np.linalg.norm(U.T @ Pc) ** 2 / total)
    null_share = np.einsum("bnr,nm,bmr->b", Q, gram, Q, optimize=True) / total  # ||Q^T Pc||_F^2 / total
    thresholds = [float(np.quantile(null, quantile)) for null in (_null_alignment(Q, U), null_share)]
    return SinusoidAlignment(rank, d_model, alignment, thresholds[0], share,
                             float(np.sum(np.sqrt(evals)[:rank] ** 2) / total), thresholds[1],
                             bool(alignment > thresholds[0]), bool(share > thresholds[1]),
                             _sinusoid_directions(n, d_model)[:, :rank])


class _AlignmentStatistic:
    """The sinusoid-MDS alignment at several ranks as a statistic of squared distances ``Q``, with null thresholds."""

    def __init__(self, n_positions: int, ranks: tuple, d_model: int, *, rng, n_null: int = 2000,
                 quantile: float = 0.99):
        self.n, self.ranks = int(n_positions), ranks
        if not 0 < min(ranks) <= max(ranks) <= min(self.n - 1, d_model // 2):
            raise ValueError(f"every rank must lie in [1, min(n_positions - 1, d_model / 2)], got {ranks}")
        self.directions = _sinusoid_directions(self.n, int(d_model))[:, :max(ranks)]
        gen = check_rng(rng)
        self.thresholds = np.array([np.quantile(_null_alignment(_random_centred(self.n, r, n_null, gen),
                                                                self.directions[:, :r]), quantile) for r in ranks])

    def mds_subspace(self, Q) -> np.ndarray:
        """The eigenvectors of ``B = -1/2 J Q J``, eigenvalues decreasing."""
        Q = (np.asarray(Q, dtype=float) + np.asarray(Q, dtype=float).T) / 2
        return scipy.linalg.eigh(-0.5 * (Q - Q.mean(axis=0) - Q.mean(axis=1)[:, None] + Q.mean()))[1][:, ::-1]

    def __call__(self, Q) -> np.ndarray:
        U = self.mds_subspace(Q)
        return np.array([subspace_alignment(U[:, :r], self.directions[:, :r]) for r in self.ranks])


@dataclass(frozen=True)
class RealTextAlignment:
    """Result of :func:`real_text_alignment`: the alignment at every one of ``ranks`` on every rung of the ``ladder``
    and of its ``flat_ladder`` control, the null ``thresholds`` (``threshold`` at the verdict's ``rank``), ``verdict``
    and ``flat_verdict`` ("aligned"/"not aligned" if the ladder holds still and every rung lies above/below the
    threshold, else "undetermined"), ``estimand`` and the corpus's two ``leading_directions`` (MDS)."""
    estimand: str
    ranks: tuple
    rank: int
    ladder: Ladder
    flat_ladder: Ladder
    thresholds: np.ndarray
    threshold: float
    verdict: str
    flat_verdict: str
    leading_directions: np.ndarray


def _verdict(ladder: Ladder, k: int, threshold: float) -> str:
    outcome = ladder.decide(k, threshold=threshold).outcome if ladder.holds_still() else "undetermined"
    return {"higher": "aligned", "lower": "not aligned"}.get(outcome, "undetermined")


def real_text_alignment(incidence: SequenceIncidence, *, rng: int | np.random.Generator, rank: int = 3,
                        ranks: Sequence[int] = (1, 2, 3, 4, 5, 6), d_model: int = 768,
                        n_resamples: int = 100) -> RealTextAlignment:
    """The sinusoid-MDS alignment at ``ranks`` of the resolved estimand (fixed at the smallest rung's resolution) on
    all, 1/2, 1/4 and 1/8 of the texts (95% bootstrap, ``n_resamples``), and on ``posgeom.geometry.flat_corpus``;
    the verdict is at ``rank``, against the 99th percentile of 2,000 random centred subspaces."""
    from ..geometry.estimators import Resolved
    ranks = tuple(int(r) for r in ranks)
    if int(rank) not in ranks:
        raise ValueError(f"rank={rank} must be one of ranks={ranks}")
    gen = check_rng(rng)
    estimator = Resolved().fixed(incidence, fraction=0.125)
    stat = _AlignmentStatistic(incidence.n_positions, ranks, d_model, rng=gen)
    ladder = stability_ladder(estimator, incidence, statistic=stat, rng=gen, n_resamples=n_resamples)
    flat_ladder = stability_ladder(estimator, flat_corpus(incidence, rng=gen), statistic=stat, rng=gen,
                                   n_resamples=n_resamples)
    leading = stat.mds_subspace(ladder.rungs[0].point.squared)[:, :2]  # the whole corpus's point estimate
    k, threshold = ranks.index(int(rank)), float(stat.thresholds[ranks.index(int(rank))])
    return RealTextAlignment(estimator.describe_estimand(), ranks, int(rank), ladder, flat_ladder, stat.thresholds,
                             threshold, _verdict(ladder, k, threshold), _verdict(flat_ladder, k, threshold), leading)
