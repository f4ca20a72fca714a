"""Private (behind :class:`~posgeom.geometry.PlugIn` and :class:`~posgeom.geometry.CrossFitted`): the plug-in and
the cross-fitted (bias-corrected) Hellinger distances of a corpus.

=========================  ==========================================================================
``plugin_distances``       the empirical ``mu_i`` put into the Hellinger formula (biased upward)
``CorrectedDistances``     result of ``corrected_distances``
``corrected_distances``    the cross-half Gram estimator, zero in expectation for equal distributions
=========================  ==========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._blas import single_threaded_blas
from .._validation import check_positive_int, check_rng
from ..corpus.incidence import SequenceIncidence, check_incidence
from ..inference._bootstrap import Units
from .hellinger import hellinger_distances

__all__ = [
    "plugin_distances",
    "corrected_distances",
]


def plugin_distances(incidence: SequenceIncidence, *, weights: ArrayLike | None = None) -> np.ndarray:
    """Plug-in Hellinger distances between the empirical ``mu_i`` (sequence ``s`` counted ``weights[s]`` times), with
    single-threaded BLAS as inside ``PlugIn().bootstrap``, so that both agree to the last bit."""
    check_incidence(incidence, "incidence")
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


class CrossFitter:
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


def squared_from_gram(G: np.ndarray) -> np.ndarray:
    """``Q_ij = (G_ii + G_jj)/2 - (G_ij + G_ji)/2`` of a cross-half Gram matrix: symmetric, zero diagonal, unclipped."""
    g = np.diag(G).copy()
    Q = 0.5 * (g[:, None] + g[None, :]) - 0.5 * (G + G.T)
    np.fill_diagonal(Q, 0.0)
    return Q


def distances_from_squared(Q: np.ndarray) -> np.ndarray:
    """``sqrt(clip(Q, 0, 1))`` with a zero diagonal."""
    D = np.sqrt(np.clip(Q, 0.0, 1.0))
    np.fill_diagonal(D, 0.0)
    return D


def check_enough_sequences(inc: SequenceIncidence) -> None:
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
        position ``i`` at half the sample size (as ``_split_half_distances``).
    fraction_clipped : float
        Share of the pairs ``i < j`` whose corrected squared estimate is negative (clipped to distance 0).
    mc_spread : (n, n) ndarray
        Monte Carlo standard error of ``squared`` over the random splits: the standard deviation of the per-split
        estimates (ddof=1) divided by ``sqrt(n_splits)``. It measures the randomness of the splits only, for the
        data at hand, not the sampling error of the corpus (use ``CrossFitted().bootstrap`` for that).
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


def corrected_distances(incidence: SequenceIncidence, *, rng: int | np.random.Generator, units: Units | None = None,
                        n_splits: int = 20) -> CorrectedDistances:
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
        The corpus (e.g. :meth:`~posgeom.corpus.SequenceIncidence.from_sequences` or
        :meth:`posgeom.data.TokenizedCorpus.incidence`).
    rng : int or numpy.random.Generator
        Randomness of the splits (keyword-only, required).
    units : Units, optional
        The units a split keeps whole (:class:`posgeom.inference._bootstrap.Units`); default every text.
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
    """
    inc = check_incidence(incidence, "incidence")
    n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
    gen = check_rng(rng)
    check_enough_sequences(inc)
    n, m = inc.n_positions, inc.n_sequences
    fitter = CrossFitter(inc, np.float64)

    units = Units(m) if units is None else units

    def grams():
        for k in range(n_splits):
            try:
                yield fitter.gram(*units.halves(gen.permutation(units.n_units)), norms=True)
            except ValueError as exc:
                raise ValueError(f"split {k}: {exc}") from None

    return _average_over_splits(grams(), n, n_splits)


def _average_over_splits(grams, n: int, n_splits: int) -> CorrectedDistances:
    """The corrected estimate from the cross-half Gram matrices of ``n_splits`` splits (the one implementation)."""
    mean, m2, floor_sq = np.zeros((n, n)), np.zeros((n, n)), np.zeros(n)
    with single_threaded_blas():
        for k, (G, norm_a, norm_b) in enumerate(grams):
            Q = squared_from_gram(G)
            delta = Q - mean
            mean += delta / (k + 1)
            m2 += delta * (Q - mean)
            floor_sq += np.clip(0.5 * (norm_a + norm_b) - np.diag(G), 0.0, 1.0)
    iu = np.triu_indices(n, 1)
    return CorrectedDistances(
        distances=distances_from_squared(mean),
        squared=mean,
        floors=np.sqrt(floor_sq / n_splits),
        fraction_clipped=float(np.mean(mean[iu] < 0)) if n > 1 else 0.0,
        mc_spread=np.sqrt(np.maximum(m2, 0.0) / (n_splits - 1) / n_splits),
        n_splits=n_splits,
    )

