"""Private (behind ``PlugIn`` and ``CrossFitted``): the plug-in and the cross-fitted Hellinger distances."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._blas import single_threaded_blas
from .._validation import check_positive_int, check_rng
from ..corpus.incidence import SequenceIncidence, check_incidence
from ..inference._bootstrap import Units
from .hellinger import distances_from_squared, hellinger_distances, squared_from_gram

__all__ = ["plugin_distances", "corrected_distances"]


def plugin_distances(incidence: SequenceIncidence, *, weights: ArrayLike | None = None) -> np.ndarray:
    """Plug-in Hellinger distances of the empirical ``mu_i`` (text ``s`` counted ``weights[s]`` times)."""
    check_incidence(incidence, "incidence")
    S = incidence.sqrt_distributions(weights)
    with single_threaded_blas():
        return hellinger_distances(S * S)


# Tokens seen at >= this share of the positions go to the dense (BLAS) block, the others to the sparse block: a token
# at k positions costs n^2 dense against ~100 k^2 / 4 sparse operations, even at k = n / 5 (bench_corrected.py).
_DENSE_SHARE = 0.2
# Up to this many (position, used token) cells everything is dense: sparse products only pay off on large problems.
_ALL_DENSE_CELLS = 1 << 20
# Up to this many (position, sequence) entries the token table uses bincount's native index type.
_INTP_GRID_CELLS = 1 << 27


class CrossFitter:
    """Cross-half Gram matrices ``G = S_A S_B^T`` of two halves of text draws (repeats allowed), one bincount a half."""
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
            # position-major, padded with a sentinel slot (dropped after counting) where a sequence is shorter; intp
            # (bincount's index type) saves a quarter of the counting time while the table stays below 1 GiB
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
            raise ValueError(f"position {i} receives no observation in half {label} of a split ({empty.size} empty "
                             f"position(s)); only {self.reach[i]} of the {self.m} sequences reach it. Use fewer "
                             "positions (a smaller n_positions), or count padding (pad_id=...), so that every position "
                             "is reached by enough sequences for both halves")
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


@dataclass(frozen=True)
class CorrectedDistances:
    """The cross-fitted estimate of ``corrected_distances``.

    ``squared`` (unclipped, averaged over the splits), ``distances`` (``sqrt(clip(squared, 0, 1))``), ``floors`` (RMS
    over the splits of the split-half distance ``d_H(mu_i^A, mu_i^B)``), ``fraction_clipped`` (share of pairs with a
    negative ``squared``), ``mc_spread`` (Monte Carlo standard error over the splits) and ``n_splits``.
    """
    distances: np.ndarray
    squared: np.ndarray
    floors: np.ndarray
    fraction_clipped: float
    mc_spread: np.ndarray
    n_splits: int


def corrected_distances(incidence: SequenceIncidence, *, rng: int | np.random.Generator, units: Units | None = None,
                        n_splits: int = 20) -> CorrectedDistances:
    """Cross-fitted, bias-corrected Hellinger distances between the positional distributions of a corpus.

    For each of ``n_splits`` random splits of the texts (or of ``units``) into halves ``A`` (``floor(m/2)``) and
    ``B``, with ``G_ij = <sqrt(mu_i^A), sqrt(mu_j^B)>``, ``Q_ij = (G_ii + G_jj) / 2 - (G_ij + G_ji) / 2``, averaged.
    Its expectation is ``||alpha_i - alpha_j||^2 / 2`` with ``alpha_i = E sqrt(mu_i^half)``, whatever the dependence
    between the positions of one text (proof: Chapter 3b, "Estimating a distance from text").

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence
    >>> corrected_distances(SequenceIncidence.from_sequences([[0, 1]] * 4, 2, 2), rng=0, n_splits=2).squared[0, 1]
    np.float64(1.0)
    """
    inc = check_incidence(incidence, "incidence")
    n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
    gen = check_rng(rng)
    if inc.n_sequences < 4:
        raise ValueError(f"the corrected estimator splits the sequences into two halves of at least 2 sequences each; "
                         f"it needs at least 4 sequences, got {inc.n_sequences}. Use the plug-in estimator "
                         "(plugin_distances) on so small a sample, or collect more sequences")
    n = inc.n_positions
    fitter = CrossFitter(inc, np.float64)
    units = Units(inc.n_sequences) if units is None else units
    mean, m2, floor_sq = np.zeros((n, n)), np.zeros((n, n)), np.zeros(n)
    with single_threaded_blas():
        for k in range(n_splits):
            try:
                G, norm_a, norm_b = fitter.gram(*units.halves(gen.permutation(units.n_units)), norms=True)
            except ValueError as exc:
                raise ValueError(f"split {k}: {exc}") from None
            Q = squared_from_gram(G)
            delta = Q - mean
            mean += delta / (k + 1)
            m2 += delta * (Q - mean)
            floor_sq += np.clip(0.5 * (norm_a + norm_b) - np.diag(G), 0.0, 1.0)
    iu = np.triu_indices(n, 1)
    return CorrectedDistances(distances=distances_from_squared(mean), squared=mean, floors=np.sqrt(floor_sq / n_splits),
                              fraction_clipped=float(np.mean(mean[iu] < 0)) if n > 1 else 0.0,
                              mc_spread=np.sqrt(np.maximum(m2, 0.0) / (n_splits - 1) / n_splits), n_splits=n_splits)

