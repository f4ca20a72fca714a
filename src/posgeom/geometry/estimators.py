"""Estimators of the Hellinger distances between positional distributions from a finite corpus.

The *plug-in* estimator puts the empirical ``mu_i`` (token frequencies at position ``i``) into the Hellinger formula.
It is biased upward: two independent samples of one distribution are not at distance 0 (see
:mod:`posgeom.geometry.noise` for the noise floor). Every function here says which estimator it computes, and the
book labels every number with it.

* :func:`plugin_distances`: the plug-in estimator.
* :func:`corrected_distances`: the **cross-fitted** (bias-corrected) estimator. For a random split of the sequences
  into halves ``A`` and ``B`` it takes the cross-half Gram matrix ``G_ij = <sqrt(mu_i^A), sqrt(mu_j^B)>`` and returns
  ``Q_ij = (G_ii + G_jj) / 2 - (G_ij + G_ji) / 2``: the cross-half squared distance minus half of each position's
  split-half squared floor. Its expectation is exactly ``||alpha_i - alpha_j||^2 / 2`` with ``alpha_i`` the mean of
  ``sqrt(mu_i^A)``: zero for equal distributions at every sample size, and off the truth only by a second-order term
  (see the function's Notes). Averaged over random splits.
* :func:`bootstrap_corrected`: bootstrap intervals of the corrected estimator (or of any statistic of it), with the
  Monte Carlo error of their endpoints.
* :func:`estimator_errors`: plug-in against corrected error as a function of the sample size, on distributions with
  known truth (one call per figure).

Speed: the two halves' square-root distributions are split into a dense block (tokens that occur at many
positions; one BLAS product) and a sparse block (tokens seen at few positions), and a half's counts are one
``bincount`` over a position-major table of the sequences: no per-sequence Python loop.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._blas import single_threaded_blas
from .._validation import check_confidence, check_distributions, check_positive_int, check_rng
from ..corpus.incidence import SequenceIncidence
from ..inference import BootstrapEstimate
from .hellinger import hellinger_distances

__all__ = [
    "plugin_distances",
    "CorrectedDistances",
    "corrected_distances",
    "bootstrap_corrected",
    "EstimatorErrors",
    "estimator_errors",
]


def _check_incidence(incidence) -> SequenceIncidence:
    if not isinstance(incidence, SequenceIncidence):
        raise TypeError(f"incidence must be a SequenceIncidence (e.g. SequenceIncidence.from_sequences(...) or "
                        f"posgeom.data.corpus_incidence(...)), got {type(incidence).__name__}")
    return incidence


def plugin_distances(incidence: SequenceIncidence, *, weights=None) -> np.ndarray:
    """Plug-in Hellinger distances between the empirical ``mu_i`` of a sequence incidence.

    Parameters
    ----------
    incidence : SequenceIncidence
        Which (position, token) cell each token of each sequence falls in (its counting convention decides what
        enters ``mu_i``).
    weights : (m,) array, optional
        Multiplicity of each sequence (a bootstrap resample); default 1 for every sequence.

    Returns
    -------
    (n, n) ndarray
        ``d_H(mu_i, mu_j)`` of the empirical distributions, in ``[0, 1]``; biased upward by sampling noise.

    Raises
    ------
    TypeError
        If ``incidence`` is not a :class:`~posgeom.corpus.SequenceIncidence`.
    ValueError
        If a position receives no observation, or ``weights`` has the wrong shape or negative entries.

    Notes
    -----
    Computed with single-threaded BLAS, as in the resampling loops, so an estimate computed here and the same
    estimate inside :func:`~posgeom.geometry.bootstrap_statistic` agree to the last bit.

    Examples
    --------
    >>> import numpy as np
    >>> from posgeom.corpus import SequenceIncidence
    >>> inc = SequenceIncidence.from_sequences(np.array([[0, 1], [0, 1]]), 2, 2)
    >>> plugin_distances(inc).round(3)
    array([[0., 1.],
           [1., 0.]])
    """
    _check_incidence(incidence)
    S = incidence.sqrt_distributions(weights)
    with single_threaded_blas():
        return hellinger_distances(S * S)


# ---------------------------------------------------------------------------------------------------------------
# The cross-fitting engine
# ---------------------------------------------------------------------------------------------------------------

# Tokens that occur at >= this share of the positions go to the dense (BLAS) block of a half's square roots; the
# others to the sparse block. A sparse multiply-add costs about 100 dense ones here, and a token seen at k positions
# costs n^2 dense against about 100 k^2 / 4 sparse operations (half of its cells are empty in a half): break-even at
# k = n / 5 (benchmarks/bench_corrected.py).
_DENSE_SHARE = 0.2
# Up to this many (position, used token) cells everything is dense: sparse products only pay off on large problems.
_ALL_DENSE_CELLS = 1 << 20
# Up to this many (position, sequence) entries the token table uses bincount's native index type.
_INTP_GRID_CELLS = 1 << 27


class _CrossFitter:
    """Cross-half Gram matrices ``G = S_A S_B^T`` of the square-root distributions of two halves of sequence draws.

    A *draw* is a sequence index; a half is an array of draws (repeats allowed: a bootstrap sample). Everything that
    does not depend on the draws is precomputed: the layout of the square roots (dense block of ``F`` frequent
    tokens, sparse block of the other cells) and a position-major table ``grid[i, s]`` of the slot that the token at
    position ``i`` of sequence ``s`` counts in (one ``bincount`` of the drawn columns gives a half's counts).
    """

    def __init__(self, inc: SequenceIncidence, dtype=np.float64):
        n, m = inc.n_positions, inc.n_sequences
        self.n, self.m, self.dtype = n, m, np.dtype(dtype)
        cols, pos = inc.columns, inc.positions
        n_used = inc.used_tokens.size
        spread = np.bincount(cols, minlength=n_used)  # at how many positions each used token occurs
        dense_col = (spread >= _DENSE_SHARE * n) | (n * n_used <= _ALL_DENSE_CELLS)
        self.F = int(dense_col.sum())
        self.n_rare_cols = n_used - self.F
        self.n_dense = n * self.F
        dense_index = np.cumsum(dense_col) - 1
        rare_index = np.cumsum(~dense_col) - 1
        is_dense = dense_col[cols]
        rare = np.flatnonzero(~is_dense)
        slot = np.empty(cols.size, dtype=np.int64)
        slot[is_dense] = pos[is_dense] * self.F + dense_index[cols[is_dense]]
        slot[rare] = self.n_dense + np.arange(rare.size)
        self.n_slots = self.n_dense + rare.size
        # sparse block: rows = positions (half A), and its transpose ordered by (token, position) (half B)
        self.r_pos, self.r_col = pos[rare], rare_index[cols[rare]]
        self.t_order = np.lexsort((self.r_pos, self.r_col))
        self.t_pos, self.t_col = self.r_pos[self.t_order], self.r_col[self.t_order]
        # token layout
        self.lengths = inc.lengths
        token_position = pos[inc.cell]
        offset_in_sequence = np.arange(inc.cell.size) - np.repeat(inc.indptr[:-1], self.lengths)
        self.contiguous = bool(np.array_equal(token_position, offset_in_sequence))  # positions 0..len-1
        index_dtype = np.int32 if self.n_slots < np.iinfo(np.int32).max else np.int64
        slot_of_token = slot[inc.cell].astype(index_dtype)
        self.reach = np.bincount(pos, weights=inc.cell_counts(), minlength=n).astype(np.int64)
        if self.contiguous and n * m <= 2 * inc.cell.size + 4096:
            # position-major, padded with a sentinel slot (dropped after counting) where a sequence is shorter;
            # intp, the index type of bincount, saves a conversion per half (a quarter of the counting time) as long
            # as the table stays below 1 GiB
            grid_dtype = np.intp if n * m <= _INTP_GRID_CELLS else index_dtype
            self.grid = np.full((n, m), self.n_slots, dtype=grid_dtype)
            self.grid[offset_in_sequence, np.repeat(np.arange(m), self.lengths)] = slot_of_token
        else:  # very ragged lengths: gather each drawn sequence's tokens instead of padding
            self.grid = None
            self.slot_of_token = slot_of_token
            self.starts = inc.indptr[:-1]

    def _counts(self, draws):
        if self.grid is not None:
            block = np.take(self.grid, np.sort(draws), axis=1)  # sorted columns: cache-friendly gather
            return np.bincount(block.ravel(), minlength=self.n_slots + 1)[: self.n_slots]
        lens = self.lengths[draws]
        ends = np.cumsum(lens)
        gather = np.repeat(self.starts[draws] - (ends - lens), lens) + np.arange(ends[-1])
        return np.bincount(self.slot_of_token[gather], minlength=self.n_slots)

    def _totals(self, draws, counts):
        if self.contiguous:  # position i is reached by the draws of length > i
            per_length = np.bincount(self.lengths[draws], minlength=self.n + 1)
            return np.cumsum(per_length[::-1])[::-1][1:].astype(np.float64)
        dense = counts[: self.n_dense].reshape(self.n, self.F).sum(axis=1)
        return dense + np.bincount(self.r_pos, weights=counts[self.n_dense:], minlength=self.n)

    def half(self, draws, *, transpose: bool, label: str):
        """Square roots of one half: a dense (n, F) block and a sparse block ((n, R) CSR, or (R, n) if transposed)."""
        counts = self._counts(draws)
        totals = self._totals(draws, counts)
        empty = np.flatnonzero(totals <= 0)
        if empty.size:
            i = int(empty[0])
            raise ValueError(
                f"position {i} receives no observation in half {label} of a split ({empty.size} empty position(s)); "
                f"only {self.reach[i]} of the {self.m} sequences reach it. Use fewer positions (a smaller "
                "n_positions), or count padding (pad_id=...), so that every position is reached by enough sequences "
                "for both halves"
            )
        scale = 1.0 / np.sqrt(totals)
        dense = counts[: self.n_dense].reshape(self.n, self.F).astype(self.dtype)
        np.sqrt(dense, out=dense)
        dense *= scale.astype(self.dtype)[:, None]
        if not self.n_rare_cols:
            return dense, None
        rare = counts[self.n_dense:]
        if transpose:
            rare = rare[self.t_order]
            rows, cols, positions, shape = self.t_col, self.t_pos, self.t_pos, (self.n_rare_cols, self.n)
        else:
            rows, cols, positions, shape = self.r_pos, self.r_col, self.r_pos, (self.n, self.n_rare_cols)
        nz = np.flatnonzero(rare)
        values = (np.sqrt(rare[nz]) * scale[positions[nz]]).astype(self.dtype)
        indptr = np.zeros(shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows[nz], minlength=shape[0]), out=indptr[1:])
        return dense, sp.csr_matrix((values, cols[nz], indptr), shape=shape)

    def gram(self, draws_a, draws_b, *, norms: bool = False):
        """``G = S_A S_B^T`` (float64), and the squared norms of the rows of ``S_A`` and ``S_B`` if asked."""
        dense_a, rare_a = self.half(draws_a, transpose=False, label="A")
        dense_b, rare_b = self.half(draws_b, transpose=True, label="B")
        G = np.asarray(dense_a @ dense_b.T, dtype=np.float64)
        if rare_a is not None:
            G += (rare_a @ rare_b).toarray()
        if not norms:
            return G
        norm_a = np.einsum("ij,ij->i", dense_a, dense_a, dtype=np.float64)
        norm_b = np.einsum("ij,ij->i", dense_b, dense_b, dtype=np.float64)
        if rare_a is not None:
            norm_a += np.asarray(rare_a.multiply(rare_a).sum(axis=1), dtype=np.float64).ravel()
            norm_b += np.asarray(rare_b.multiply(rare_b).sum(axis=0), dtype=np.float64).ravel()
        return G, norm_a, norm_b


def _corrected_from_gram(G: np.ndarray) -> np.ndarray:
    """``Q_ij = (G_ii + G_jj)/2 - (G_ij + G_ji)/2``: exactly symmetric, zero diagonal, unclipped."""
    g = np.diag(G).copy()
    Q = 0.5 * (g[:, None] + g[None, :]) - 0.5 * (G + G.T)
    np.fill_diagonal(Q, 0.0)
    return Q


def _distances_from_squared(Q: np.ndarray) -> np.ndarray:
    D = np.sqrt(np.clip(Q, 0.0, 1.0))
    np.fill_diagonal(D, 0.0)
    return D


def _check_enough_sequences(inc: SequenceIncidence) -> None:
    if inc.n_sequences < 4:
        raise ValueError(f"the corrected estimator splits the sequences into two halves of at least 2 sequences each; "
                         f"it needs at least 4 sequences, got {inc.n_sequences}. Use the plug-in estimator "
                         "(plugin_distances) on so small a sample, or collect more sequences")


# ---------------------------------------------------------------------------------------------------------------
# The corrected estimator
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CorrectedDistances:
    """The cross-fitted (bias-corrected) Hellinger distance estimate of :func:`corrected_distances`.

    Attributes
    ----------
    distances : (n, n) ndarray
        ``sqrt(max(squared, 0))`` (also capped at 1): symmetric, zero diagonal, in ``[0, 1]``.
    squared : (n, n) ndarray
        The unclipped corrected estimates of ``d_H^2``, averaged over the splits; negative where the two
        distributions are closer than the sampling noise resolves. Use these (not ``distances ** 2``) for
        averages and for the double-centred Gram matrix of classical MDS.
    floors : (n,) ndarray
        Root mean square over the splits of the split-half distance ``d_H(mu_i^A, mu_i^B)``: the noise floor of
        position ``i`` at half the sample size (as :func:`~posgeom.geometry.split_half_distances`).
    fraction_clipped : float
        Share of the pairs ``i < j`` whose corrected squared estimate is negative (clipped to distance 0).
    mc_spread : (n, n) ndarray
        Monte Carlo standard error of ``squared`` over the random splits: the standard deviation of the per-split
        estimates (ddof=1) divided by ``sqrt(n_splits)``. It measures the randomness of the splits only, for the
        data at hand, not the sampling error of the corpus (use :func:`bootstrap_corrected` for that).
    n_splits : int
        Number of random splits averaged.

    Examples
    --------
    >>> import numpy as np
    >>> from posgeom.corpus import SequenceIncidence
    >>> inc = SequenceIncidence.from_sequences(np.array([[0, 1]] * 4), 2, 2)
    >>> corrected_distances(inc, rng=0, n_splits=2).squared
    array([[0., 1.],
           [1., 0.]])
    """

    distances: np.ndarray
    squared: np.ndarray
    floors: np.ndarray
    fraction_clipped: float
    mc_spread: np.ndarray
    n_splits: int


def corrected_distances(incidence: SequenceIncidence, *, rng, n_splits: int = 20) -> CorrectedDistances:
    r"""Cross-fitted, bias-corrected Hellinger distances between the positional distributions of a corpus.

    For each of ``n_splits`` random splits of the sequences into halves ``A`` (``floor(m/2)`` sequences) and ``B``
    (the rest), with ``a_i = sqrt(mu_i^A)`` and ``b_j = sqrt(mu_j^B)`` the square-root empirical distributions of
    the halves and ``G_ij = <a_i, b_j>``, the estimate of ``d_H^2(mu_i, mu_j)`` is

    ``Q_ij = (G_ii + G_jj) / 2 - (G_ij + G_ji) / 2``
    ``     = [c_ij^AB + c_ij^BA] / 2 - f_i^2 / 2 - f_j^2 / 2``,

    the cross-half squared distance ``c_ij^AB = d_H^2(mu_i^A, mu_j^B)``, symmetrised over ``(A, B)`` and
    ``(B, A)``, minus half of each position's split-half squared floor ``f_i^2 = d_H^2(mu_i^A, mu_i^B)``. The
    estimates are averaged over the splits.

    Parameters
    ----------
    incidence : SequenceIncidence
        The corpus (e.g. :meth:`SequenceIncidence.from_sequences` or :func:`posgeom.data.corpus_incidence`).
    rng : int or numpy.random.Generator
        Randomness of the splits (keyword-only, required).
    n_splits : int, default 20
        Number of random splits averaged (at least 2, so that the Monte Carlo spread is defined).

    Returns
    -------
    CorrectedDistances
        ``distances`` (clipped at 0 before the square root), ``squared`` (unclipped), ``floors``,
        ``fraction_clipped``, ``mc_spread`` and ``n_splits``.

    Raises
    ------
    TypeError
        If ``incidence`` is not a :class:`~posgeom.corpus.SequenceIncidence`, or ``rng`` / ``n_splits`` have the
        wrong type.
    ValueError
        If there are fewer than 4 sequences, ``n_splits < 2``, or a position receives no observation in one half of
        a split (the message names the position and the fix).

    Notes
    -----
    **Exact expectation.** Sequences are i.i.d.; the tokens of one sequence may depend on each other in any way.
    Fix a split. ``a_i`` is a function of the sequences in ``A`` only, ``b_j`` of those in ``B`` only, and the
    halves are disjoint sets of i.i.d. sequences, hence independent: with ``alpha_i^H = E[sqrt(mu_i^H)]``
    (componentwise), ``E[G_ij] = <alpha_i^A, alpha_j^B>`` for *every* ``i, j``, including ``i = j`` and whatever
    the dependence between positions ``i`` and ``j`` inside a sequence (``G`` never pairs two tokens of one
    sequence). Expanding,

    ``E[Q_ij] = 1/2 <alpha_i^A - alpha_j^A, alpha_i^B - alpha_j^B>``,

    and with equal halves (``alpha^A = alpha^B = alpha``) ``E[Q_ij] = ||alpha_i - alpha_j||^2 / 2``: the squared
    Hellinger-type distance between the *mean* square-root vectors. Write ``s_i = sqrt(mu_i)`` and
    ``e_i = s_i - alpha_i >= 0`` (Jensen: the square root is concave). Since ``d_H^2 = ||s_i - s_j||^2 / 2``,

    ``E[Q_ij] - d_H^2(mu_i, mu_j) = -<s_i - s_j, e_i - e_j> + ||e_i - e_j||^2 / 2``.

    Consequences: (i) if ``mu_i = mu_j`` and positions ``i`` and ``j`` are reached by the same sequences,
    ``e_i = e_j`` and ``Q_ij`` is *exactly* unbiased for 0, at every sample size; (ii) in general the remaining
    bias is at most ``sqrt(2) d_H ||e_i - e_j|| + ||e_i - e_j||^2 / 2``: second order (a product of a distance and
    a difference of bias vectors), where the plug-in's is first order,
    ``<s_i, e_j> + <e_i, s_j> - <e_i, e_j> ~ (K - 1) / (8 m_half)`` per position for ``K`` atoms by the delta
    method (``e_ik ~ (1 - p_k) / (8 m_half sqrt(p_k))`` for ``m_half p_k`` large). The full-sample plug-in
    additionally carries the within-sequence covariance of positions ``i`` and ``j``; the cross-half products do
    not. (iii) ``E[Q]`` is a squared Euclidean distance matrix (of the points ``alpha_i / sqrt(2)``), so its
    double-centred Gram matrix is positive semidefinite: negative eigenvalues of ``-1/2 J Q J`` are noise.

    No exactly unbiased estimator of ``sum_k sqrt(mu_ik mu_jk)`` exists: under multinomial sampling of fixed size
    the expectation of any statistic is a polynomial in the cell probabilities, and the square root is not one. The
    correction is the best one can do without a model of the rare tokens; it removes what the two halves can
    resolve. Tokens so rare that they are seen in one half only (``m_half p_k << 1``) have ``alpha_ik ~ 0``: their
    share of the distance is invisible to any estimator and the corrected estimate leaves it out (it can then be
    biased *downward*, e.g. by up to the floors for distributions with disjoint supports).

    **Floors.** ``f_i^2 = (||a_i||^2 + ||b_i||^2) / 2 - G_ii`` and ``c_ij^AB = (||a_i||^2 + ||b_j||^2) / 2 - G_ij``;
    the norms cancel in ``Q``, which is why no constant other than ``1/2`` appears: every term is at half the
    sample size (the split-half floor has half-sample noise on both of its sides, as has the cross-half distance).

    **Clipping.** ``Q_ij < 0`` happens when ``d_H^2`` is below the noise. ``distances`` clips it to 0 before the
    square root; clipping can only move an estimate towards the truth (``d_H^2 >= 0``), but makes the distance
    estimate of nearly equal distributions biased upward. Classical MDS of ``squared`` (``B = -1/2 J Q J = J G^s J``,
    ``G^s = (G + G^T)/2``) keeps only the positive eigenvalues of ``B``.

    **Cost.** One ``n x n`` cross product per split (dense BLAS over the tokens seen at many positions, sparse over
    the others) and one ``bincount`` over the tokens of each half; single-threaded BLAS.

    Examples
    --------
    >>> import numpy as np
    >>> from posgeom.corpus import SequenceIncidence
    >>> X = np.array([[0, 1], [0, 1], [0, 1], [0, 1]])  # no sampling noise: position 0 is token 0, position 1 token 1
    >>> est = corrected_distances(SequenceIncidence.from_sequences(X, 2, 2), rng=0, n_splits=2)
    >>> est.distances
    array([[0., 1.],
           [1., 0.]])
    >>> est.floors, est.fraction_clipped
    (array([0., 0.]), 0.0)
    """
    inc = _check_incidence(incidence)
    n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
    gen = check_rng(rng)
    _check_enough_sequences(inc)
    n, m = inc.n_positions, inc.n_sequences
    fitter = _CrossFitter(inc, np.float64)

    def grams():
        for k in range(n_splits):
            perm = gen.permutation(m)
            try:
                yield fitter.gram(perm[: m // 2], perm[m // 2:], norms=True)
            except ValueError as exc:
                raise ValueError(f"split {k}: {exc}") from None

    return _average_over_splits(grams(), n, n_splits)


def _average_over_splits(grams, n: int, n_splits: int) -> CorrectedDistances:
    """The corrected estimate from the cross-half Gram matrices of ``n_splits`` splits (the one implementation).

    ``grams`` yields ``(G, norm_a, norm_b)`` per split: the cross-half Gram matrix of the halves' square-root
    distributions and their squared row norms. The splits are averaged with Welford's running mean and sum of
    squared deviations (for ``mc_spread``); the floors are the root mean square of the split-half distances.
    """
    mean, m2, floor_sq = np.zeros((n, n)), np.zeros((n, n)), np.zeros(n)
    with single_threaded_blas():
        for k, (G, norm_a, norm_b) in enumerate(grams):
            Q = _corrected_from_gram(G)
            delta = Q - mean
            mean += delta / (k + 1)
            m2 += delta * (Q - mean)
            floor_sq += np.clip(0.5 * (norm_a + norm_b) - np.diag(G), 0.0, 1.0)
    iu = np.triu_indices(n, 1)
    return CorrectedDistances(
        distances=_distances_from_squared(mean),
        squared=mean,
        floors=np.sqrt(floor_sq / n_splits),
        fraction_clipped=float(np.mean(mean[iu] < 0)) if n > 1 else 0.0,
        mc_spread=np.sqrt(np.maximum(m2, 0.0) / (n_splits - 1) / n_splits),
        n_splits=n_splits,
    )


# ---------------------------------------------------------------------------------------------------------------
# Bootstrap
# ---------------------------------------------------------------------------------------------------------------


_INTERVALS = ("percentile", "basic")


def _order_statistics(E, kth):
    """The order statistics ``kth`` (0-based) of the columns of ``E``: ``out[t]`` is the ``kth[t]``-th smallest."""
    kth = np.asarray(kth)
    unique = np.unique(kth)
    part = np.partition(E, unique, axis=0)
    return part[kth]


def _intervals(errors, centre, centre_mc, confidence, method, transform):
    """Interval ends and their Monte Carlo errors from centred bootstrap errors ``E_b = replicate_b - mean``.

    ``errors`` is (B, k); ``centre`` and ``centre_mc`` are (k,). Percentile: ``centre + q(E)``; basic:
    ``centre - q(E)`` reflected. Quantiles interpolate linearly between order statistics (as ``numpy.quantile``).
    The Monte Carlo error of a quantile ``p`` is half the distance between the order statistics at
    ``(B-1) p -+ sqrt(B p (1 - p))``: the count of replicates below a quantile is Binomial(B, p), so these order
    statistics are one binomial standard deviation either side. The Monte Carlo errors of the replicates' mean
    (``sd / sqrt(B)``) and of the centre (``centre_mc``, the splits of the full-sample estimate) are added in
    quadrature (conservatively: the quantile and the mean are positively correlated).
    """
    B = errors.shape[0]
    alpha = 1.0 - confidence
    ends = []
    for p in (alpha / 2, 1 - alpha / 2):
        c = p * (B - 1)
        f = int(np.floor(c))
        s = np.sqrt(B * p * (1 - p))
        idx = [f, min(f + 1, B - 1), max(int(np.floor(c - s)), 0), min(int(np.ceil(c + s)), B - 1)]
        o = _order_statistics(errors, idx)
        q = o[0] + (c - f) * (o[1] - o[0])
        ends.append((q, o[2], o[3]))
    (q_lo, lo_a, lo_b), (q_hi, hi_a, hi_b) = ends
    if method == "percentile":
        raw = [(centre + q_lo, centre + lo_a, centre + lo_b), (centre + q_hi, centre + hi_a, centre + hi_b)]
    else:
        raw = [(centre - q_hi, centre - hi_b, centre - hi_a), (centre - q_lo, centre - lo_b, centre - lo_a)]
    shift_mc = np.hypot(centre_mc, errors.std(axis=0, ddof=1) / np.sqrt(B))
    out = []
    for end, a, b in raw:
        quantile_mc = 0.5 * np.abs(transform(b) - transform(a))
        shift_part = 0.5 * np.abs(transform(end + shift_mc) - transform(end - shift_mc))
        out.append((transform(end), np.hypot(quantile_mc, shift_part)))
    return out


def _resample_tasks(gen, n_boot, m, n_splits):
    for b in range(n_boot):
        draws = gen.integers(0, m, size=m)
        perms = [gen.permutation(m) for _ in range(n_splits - 1)]
        yield b, draws, perms


def bootstrap_corrected(incidence: SequenceIncidence, statistic=None, *, rng, n_boot: int = 500, n_splits: int = 1,
                        estimate_splits: int = 20, confidence: float = 0.95, interval: str = "percentile",
                        n_jobs: int = 1) -> BootstrapEstimate:
    """Bootstrap over sequences of the corrected estimator: intervals for its distances or for a statistic of them.

    Parameters
    ----------
    incidence : SequenceIncidence
    statistic : callable, optional
        ``statistic(D) -> float or ndarray`` of a corrected distance matrix ``D`` (clipped, zero diagonal), e.g. the
        stress of an encoding. Default: the whole distance matrix, with the interval formed on the unclipped
        ``d_H^2`` scale and mapped to distances (so that it is not distorted by the clipping at 0).
    rng : int or numpy.random.Generator
        Randomness of the splits and of the resampling (keyword-only, required).
    n_boot : int, default 500
        Number of resamples (at least 2; 500 or more for 95% intervals whose ends are stable, see the Monte Carlo
        errors).
    n_splits : int, default 1
        Random splits averaged inside each resample. One suffices: see Notes.
    estimate_splits : int, default 20
        Random splits of the full-sample point estimate (:func:`corrected_distances`).
    confidence : float, default 0.95
    interval : {"percentile", "basic"}, default "percentile"
        ``"percentile"``: ``centre + [q_lo, q_hi]`` of the centred bootstrap errors; ``"basic"``: the reflected
        ``centre - [q_hi, q_lo]`` (the two differ when the errors are skewed).
    n_jobs : int, default 1
        Threads computing resamples in parallel (each with single-threaded BLAS; the numbers do not depend on it).

    Returns
    -------
    BootstrapEstimate
        ``estimate`` (the statistic at the full-sample corrected estimate; by default the distance matrix),
        ``replicates`` (the statistic of each resample; by default the *unclipped squared* corrected matrices, in
        float32, so that the intervals are formed on the ``d_H^2`` scale and mapped to distances), ``lower``,
        ``upper``, the Monte Carlo errors of the ends, and ``point`` (the full-sample
        :class:`CorrectedDistances`).

    Raises
    ------
    TypeError
        Bad types (``incidence``, ``rng``, integer arguments, a non-callable ``statistic``).
    ValueError
        Fewer than 4 sequences, ``n_boot < 2``, ``n_splits < 1``, ``estimate_splits < 2``, ``confidence`` outside
        ``(0, 1)``, an unknown ``interval``, or a position that receives no observation in a half of a resample (the
        message names the resample, the position and the fix).

    Notes
    -----
    **Resampling.** A resample draws ``m`` sequences with replacement. It is split at the level of the *draws*: the
    first ``floor(m/2)`` draws form half ``A``, the others half ``B``. The draws are i.i.d. from the empirical
    distribution of the sequences, so the two halves are independent i.i.d. samples of it, and the exact expectation
    of the corrected estimator (see :func:`corrected_distances`) holds in the bootstrap world with the empirical
    ``mu_i`` as the truth. A sequence drawn twice may then land in both halves: that is what independent sampling
    does, and what the independence argument needs. (Keeping all copies of a sequence in one half instead makes the
    halves dependent: with a position that copies another, the replicates of a zero distance then average -0.23;
    see ``tests/test_corrected.py``.)

    **Intervals.** By the Proposition of :func:`corrected_distances` the estimator targets
    ``theta_ij = ||alpha_i - alpha_j||^2 / 2`` (``d_H^2`` up to a second-order term), and in the bootstrap world,
    where the halves are independent, the replicates' mean estimates the bootstrap world's ``theta*`` exactly. The
    law of ``estimate - theta`` is approximated by that of the centred errors ``E_b = replicate_b - mean(replicates)``:
    the interval is ``[centre + q_lo(E), centre + q_hi(E)]`` (percentile) or ``[centre - q_hi(E), centre - q_lo(E)]``
    (basic), with ``q`` the quantiles at ``(1 -+ confidence)/2``. Neither the raw replicates nor the errors against
    the bootstrap world's truth (the full-sample plug-in) will do: the
    empirical ``mu_i`` of the full sample contain the sampling noise of every token seen once, which the half-sample
    estimator cannot see, so in the bootstrap world the corrected estimator is biased by a first-order amount with
    no counterpart of that size in the real world. On Zipfian corpora
    (3,000 to 5,000 tokens, 400 to 1,000 sequences) intervals referred to the plug-in covered the truth in 0% of the
    replications, the centred ones in 92% to 100%. The intervals cover ``theta``; the remaining second-order bias
    ``theta - d_H^2`` is not corrected.

    **Monte Carlo error of the ends.** Half the distance between the order statistics one binomial standard
    deviation (``sqrt(B p (1-p))`` ranks) either side of the quantile's rank: a density-free standard error of a
    sample quantile. The Monte Carlo errors of the replicates' mean and, for the default statistic, of the point
    estimate (``mc_spread``) are added in quadrature.

    **One split per resample.** The average over splits only removes the Monte Carlo noise of the split, which has
    mean zero; with one split the replicates carry that noise in addition to the sampling noise, so the interval is
    slightly *wider* than that of the many-split point estimate (conservative; replicate standard deviations about
    10% above those with 4 splits on the book's synthetic corpora), never shifted. It costs one cross product per
    resample instead of ``n_splits``.

    Examples
    --------
    >>> from posgeom import synthetic_corpus
    >>> from posgeom.corpus import SequenceIncidence
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(200, 4, 6, rng=0), 4, 6)
    >>> res = bootstrap_corrected(inc, lambda D: D[0, 3], rng=0, n_boot=50)
    >>> bool(res.lower <= res.estimate <= res.upper), res.replicates.shape
    (True, (50,))
    """
    inc = _check_incidence(incidence)
    gen = check_rng(rng)
    n_boot = check_positive_int(n_boot, "n_boot", minimum=2)
    n_splits = check_positive_int(n_splits, "n_splits")
    estimate_splits = check_positive_int(estimate_splits, "estimate_splits", minimum=2)
    n_jobs = check_positive_int(n_jobs, "n_jobs")
    confidence = check_confidence(confidence)
    if interval not in _INTERVALS:
        raise ValueError(f"interval must be one of {_INTERVALS}, got {interval!r}")
    if statistic is not None and not callable(statistic):
        raise TypeError("statistic must be a callable D -> float or array (or None for the distance matrix)")
    _check_enough_sequences(inc)
    n, m = inc.n_positions, inc.n_sequences
    try:
        point = corrected_distances(inc, rng=gen, n_splits=estimate_splits)
    except ValueError as exc:
        raise ValueError(f"bootstrap point estimate (full sample): {exc}") from None
    if statistic is None:
        centre, store = point.squared, np.float32
    else:
        centre = np.asarray(statistic(point.distances), dtype=np.float64)
        store = np.float64
    fitter = _CrossFitter(inc, np.float32)  # float32 products: ~1e-6 error, far below any sampling error here

    def replicate(task):
        b, draws, perms = task
        total = np.zeros((n, n))
        for order in [None, *perms]:
            d = draws if order is None else draws[order]
            try:
                G = fitter.gram(d[: m // 2], d[m // 2:])
            except ValueError as exc:
                raise ValueError(f"bootstrap resample {b}: {exc}") from None
            total += _corrected_from_gram(G)
        return total / n_splits

    samples = np.empty((n_boot,) + np.shape(centre), dtype=store)
    tasks = _resample_tasks(gen, n_boot, m, n_splits)  # drawn in order in this thread: results do not depend on n_jobs
    with single_threaded_blas():
        if n_jobs == 1:
            results = map(replicate, tasks)
            _collect(results, samples, statistic)
        else:
            with ThreadPoolExecutor(max_workers=n_jobs) as pool:
                batch = 4 * n_jobs
                done = 0
                while done < n_boot:
                    chunk = [next(tasks) for _ in range(min(batch, n_boot - done))]
                    _collect(pool.map(replicate, chunk), samples[done:done + len(chunk)], statistic)
                    done += len(chunk)
    shape = np.shape(centre)
    flat_centre = np.reshape(centre, -1)
    flat_samples = samples.reshape(n_boot, -1)
    if statistic is None:
        centre_mc = point.mc_spread.reshape(-1)

        def transform(x):
            return np.sqrt(np.clip(x, 0.0, 1.0))
    else:
        centre_mc = np.zeros_like(flat_centre)

        def transform(x):
            return x
    k = flat_centre.size
    lower, upper = np.empty(k), np.empty(k)
    lower_mc, upper_mc = np.empty(k), np.empty(k)
    step = 4096
    for start in range(0, k, step):
        sl = slice(start, min(start + step, k))
        errors = flat_samples[:, sl].astype(np.float64)
        errors -= errors.mean(axis=0)
        (lower[sl], lower_mc[sl]), (upper[sl], upper_mc[sl]) = _intervals(
            errors, flat_centre[sl], centre_mc[sl], confidence, interval, transform)
    if statistic is None:
        estimate = point.distances
        for arr in (lower, upper, lower_mc, upper_mc):  # the diagonal is exactly 0
            arr.reshape(shape)[np.diag_indices(n)] = 0.0
    else:
        estimate = float(centre) if centre.ndim == 0 else centre

    def shaped(x):
        return float(x[0]) if len(shape) == 0 else x.reshape(shape)

    return BootstrapEstimate(
        estimate=estimate, replicates=samples, lower=shaped(lower), upper=shaped(upper),
        lower_mc_error=shaped(lower_mc), upper_mc_error=shaped(upper_mc), confidence=confidence,
        method=f"centred {interval} bootstrap over texts, {n_splits} split(s) per resample",
        label="cross-fitted (corrected) distances", point=point,
    )


def _collect(results, out, statistic) -> None:
    """Store each replicate's corrected squared matrix (default) or the statistic of its distances, in order."""
    for b, Q in enumerate(results):
        out[b] = Q if statistic is None else statistic(_distances_from_squared(Q))


# ---------------------------------------------------------------------------------------------------------------
# Error against sample size, on distributions with known truth
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EstimatorErrors:
    """Errors of the plug-in and corrected estimators against the truth, by sample size (:func:`estimator_errors`).

    All per-size arrays have shape ``(len(sample_sizes),)`` and average over the pairs ``i < j`` and the
    replications. Errors are on the distance scale (``d_H``, not ``d_H^2``).

    Attributes
    ----------
    sample_sizes : ndarray of int
    mean_true_distance : float
        Mean true distance over the pairs ``i < j``.
    plugin_bias, plugin_mae : ndarray
        Mean of (plug-in minus true), and mean absolute error, of the plug-in distances.
    corrected_bias, corrected_mae : ndarray
        The same for the corrected distances (clipped at 0).
    fraction_clipped : ndarray
        Mean share of the pairs clipped to distance 0 by the corrected estimator.
    n_replicates : int
        Independent corpora per sample size.

    Examples
    --------
    >>> from posgeom import synthetic_distributions
    >>> err = estimator_errors(synthetic_distributions(4, 20, rng=0), [50], rng=0, n_replicates=1)
    >>> sorted(err.as_dict())[:2]
    ['corrected_bias', 'corrected_mae']
    """

    sample_sizes: np.ndarray
    mean_true_distance: float
    plugin_bias: np.ndarray
    plugin_mae: np.ndarray
    corrected_bias: np.ndarray
    corrected_mae: np.ndarray
    fraction_clipped: np.ndarray
    n_replicates: int

    def as_dict(self) -> dict:
        """Columns for a table or a plot.

        Returns
        -------
        dict
            ``sample_size`` and the per-size error arrays, e.g. for ``pandas.DataFrame(errors.as_dict())``.

        Examples
        --------
        >>> from posgeom import synthetic_distributions
        >>> err = estimator_errors(synthetic_distributions(4, 20, rng=0), [50, 100], rng=0, n_replicates=1)
        >>> err.as_dict()["sample_size"]
        array([ 50, 100])
        """
        return {"sample_size": self.sample_sizes, "plugin_bias": self.plugin_bias, "plugin_mae": self.plugin_mae,
                "corrected_bias": self.corrected_bias, "corrected_mae": self.corrected_mae,
                "fraction_clipped": self.fraction_clipped}


def _sample_independent(mu: np.ndarray, m: int, gen: np.random.Generator) -> np.ndarray:
    """``m`` sequences whose token at position ``i`` is drawn from ``mu_i``, independently across positions."""
    cdf = np.cumsum(mu, axis=1)
    cdf[:, -1] = 1.0
    u = gen.random((mu.shape[0], m))
    ids = np.stack([np.searchsorted(cdf[i], u[i], side="right") for i in range(mu.shape[0])])
    return np.minimum(ids, mu.shape[1] - 1).T


def estimator_errors(mu, sample_sizes, *, rng, n_replicates: int = 4, n_splits: int = 20,
                     sampler=None) -> EstimatorErrors:
    """Plug-in against corrected estimator on corpora sampled from known positional distributions.

    For each sample size ``m`` and each of ``n_replicates`` corpora of ``m`` sequences, computes the plug-in and
    the corrected Hellinger distances and compares them with the true ``d_H(mu_i, mu_j)``.

    Parameters
    ----------
    mu : (n, V) array
        The true positional distributions (rows sum to 1), e.g. :func:`posgeom.synthetic_distributions`.
    sample_sizes : sequence of int
        Numbers of sequences per corpus (each at least 4).
    rng : int or numpy.random.Generator
        Randomness of the corpora and of the splits (keyword-only, required).
    n_replicates : int, default 4
        Corpora per sample size.
    n_splits : int, default 20
        Random splits of the corrected estimator.
    sampler : callable, optional
        ``sampler(m, generator) -> (m, n) int array`` of token ids whose position-``i`` marginal is ``mu_i``
        (to study within-sequence dependence). Default: tokens drawn independently across positions.

    Returns
    -------
    EstimatorErrors

    Raises
    ------
    TypeError
        Bad ``rng``, integer arguments or ``sampler``.
    ValueError
        ``mu`` is not a matrix of distributions, a sample size is below 4, or ``n_replicates < 1``.

    Examples
    --------
    >>> from posgeom import synthetic_distributions
    >>> mu = synthetic_distributions(6, 50, rng=0, topic_concentration=1.0)
    >>> err = estimator_errors(mu, [40, 400], rng=0, n_replicates=2)
    >>> bool(err.corrected_mae[0] < err.plugin_mae[0]), err.plugin_mae.shape
    (True, (2,))
    """
    P = check_distributions(mu, "mu")
    P = P.toarray() if sp.issparse(P) else np.asarray(P)
    n, V = P.shape
    sizes = np.array([check_positive_int(s, "sample size", minimum=4) for s in np.atleast_1d(sample_sizes)])
    n_replicates = check_positive_int(n_replicates, "n_replicates")
    n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
    gen = check_rng(rng)
    if sampler is not None and not callable(sampler):
        raise TypeError("sampler must be a callable (m, generator) -> (m, n) token ids, or None")
    truth = hellinger_distances(P)
    iu = np.triu_indices(n, 1)
    t = truth[iu]
    out = {k: np.zeros(sizes.size) for k in ("pb", "pm", "cb", "cm", "fc")}
    for s, m in enumerate(sizes):
        for _ in range(n_replicates):
            X = _sample_independent(P, int(m), gen) if sampler is None else sampler(int(m), gen)
            inc = SequenceIncidence.from_sequences(np.asarray(X), n, V)
            plug = plugin_distances(inc)[iu] - t
            est = corrected_distances(inc, rng=gen, n_splits=n_splits)
            corr = est.distances[iu] - t
            out["pb"][s] += plug.mean()
            out["pm"][s] += np.abs(plug).mean()
            out["cb"][s] += corr.mean()
            out["cm"][s] += np.abs(corr).mean()
            out["fc"][s] += est.fraction_clipped
    r = float(n_replicates)
    return EstimatorErrors(sample_sizes=sizes, mean_true_distance=float(t.mean()) if t.size else 0.0,
                           plugin_bias=out["pb"] / r, plugin_mae=out["pm"] / r, corrected_bias=out["cb"] / r,
                           corrected_mae=out["cm"] / r, fraction_clipped=out["fc"] / r, n_replicates=n_replicates)
