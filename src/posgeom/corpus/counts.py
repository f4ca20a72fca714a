"""Counting which token occurs at which position: ``pad_sequences``, ``position_counts``, ``position_distributions``."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._validation import check_matrix, check_positive_int
from ._flat import check_arguments, check_ids, flat_tokens

__all__ = ["pad_sequences", "position_counts", "position_distributions"]

# Above this many cells (n_positions * vocab_size) the counts are accumulated by sorting instead of a dense bincount.
_DENSE_BINCOUNT_CELLS = 1 << 25


def pad_sequences(sequences: Sequence[Sequence[int]], n_positions: int, *, pad_id: int) -> tuple[np.ndarray,
                  np.ndarray]:
    """Right-pad token id sequences (each ``1..n_positions`` long) to ``n_positions``, with the padding mask.

    Parameters
    ----------
    sequences : sequence of 1-D int arrays
    n_positions : int
    pad_id : int

    Returns
    -------
    ids : (m, n_positions) int64 ndarray
    padding_mask : (m, n_positions) bool ndarray

    Examples
    --------
    >>> pad_sequences([[5, 6], [7]], 3, pad_id=0)[0][1]
    array([7, 0, 0])
    """
    n = check_positive_int(n_positions, "n_positions")
    pad_id = check_positive_int(pad_id, "pad_id", minimum=0)
    seqs = [np.asarray(s, dtype=np.int64).ravel() for s in sequences]
    if not seqs:
        raise ValueError("sequences is empty: pass at least one sequence of token ids")
    lengths = np.array([s.size for s in seqs])
    if lengths.min() < 1 or lengths.max() > n:
        raise ValueError(f"every sequence must hold 1..n_positions={n} tokens, got lengths in "
                         f"[{lengths.min()}, {lengths.max()}]; truncate them first")
    ids = np.full((len(seqs), n), pad_id, dtype=np.int64)
    for row, seq in zip(ids, seqs):
        row[: seq.size] = seq
    return ids, np.arange(n)[None, :] >= lengths[:, None]


def _counts_from_matrix(ids: np.ndarray, n_positions: int, vocab_size: int) -> sp.csr_matrix:
    """Counts of an equal-length id matrix, one ``bincount`` per position over a position-major copy."""
    by_position = np.ascontiguousarray(ids.T)
    if not np.issubdtype(by_position.dtype, np.integer):
        by_position = by_position.astype(np.int64)
    values, columns, indptr = [], [], np.zeros(n_positions + 1, dtype=np.int64)
    for i, row in enumerate(by_position):
        counts = np.bincount(row, minlength=vocab_size)
        nonzero = np.flatnonzero(counts)
        columns.append(nonzero)
        values.append(counts[nonzero])
        indptr[i + 1] = indptr[i] + nonzero.size
    indptr[len(by_position) + 1 :] = indptr[len(by_position)]
    if not columns:
        return sp.csr_matrix((n_positions, vocab_size), dtype=np.int64)
    return sp.csr_matrix((np.concatenate(values).astype(np.int64), np.concatenate(columns), indptr),
                         shape=(n_positions, vocab_size))


def position_counts(sequences: Sequence[Sequence[int]], n_positions: int, vocab_size: int, *,
                    pad_id: int | None = None) -> sp.csr_matrix:
    """Count the token ids found at each position of a corpus.

    Parameters
    ----------
    sequences : iterable of 1-D int arrays, or 2-D int array
    n_positions, vocab_size : int
        Tokens at positions ``>= n_positions`` are truncated away.
    pad_id : int, optional
        If given, shorter sequences are padded with it and the pads counted; else they do not reach later positions.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, V), dtype int64

    Examples
    --------
    >>> position_counts([[0, 1], [0]], n_positions=2, vocab_size=3).toarray()
    array([[2, 0, 0],
           [0, 1, 0]])
    """
    n_positions, vocab_size, pad_id = check_arguments(n_positions, vocab_size, pad_id)
    if isinstance(sequences, np.ndarray) and sequences.ndim == 2:  # equal lengths: one bincount per position
        ids = sequences[:, :n_positions]
        if ids.shape[0] == 0:
            raise ValueError("sequences is empty: pass at least one sequence of token ids")
        if pad_id is not None and ids.shape[1] < n_positions:
            pad = np.full((ids.shape[0], n_positions - ids.shape[1]), pad_id, dtype=ids.dtype)
            ids = np.concatenate([ids, pad], axis=1)
        check_ids(ids, vocab_size)
        return _counts_from_matrix(ids, n_positions, vocab_size)
    positions, ids = flat_tokens(sequences, n_positions, vocab_size, pad_id=pad_id)
    keys = positions * vocab_size + ids
    cells = n_positions * vocab_size
    if cells <= _DENSE_BINCOUNT_CELLS:
        dense = np.bincount(keys, minlength=cells)
        flat = np.flatnonzero(dense)
        values = dense[flat]
    else:
        flat, values = np.unique(keys, return_counts=True)
    rows, cols = np.divmod(flat, vocab_size)
    return sp.csr_matrix((values.astype(np.int64), (rows, cols)), shape=(n_positions, vocab_size))


def position_distributions(counts: ArrayLike) -> np.ndarray:
    """The positional distributions ``mu_i`` from position counts (row-stochastic).

    ``mu_i`` is the distribution of the token at position ``i`` over the sequences that reach ``i``.

    Parameters
    ----------
    counts : (n, V) array or sparse matrix

    Returns
    -------
    (n, V) scipy.sparse.csr_matrix

    Examples
    --------
    >>> position_distributions([[2, 0], [1, 1]]).toarray()[1]
    array([0.5, 0.5])
    """
    counts = check_matrix(counts, "counts", allow_sparse=True)
    values = counts.data if sp.issparse(counts) else counts
    if values.size and values.min() < 0:
        raise ValueError("counts must be non-negative")
    totals = np.asarray(counts.sum(axis=1)).ravel()
    empty = np.flatnonzero(totals == 0)
    if empty.size:
        raise ValueError(f"{empty.size} position(s) have no observations (first: position {int(empty[0])}); mu_i "
                         "is undefined there. Use fewer positions, longer sequences, or count padding (pad_id)")
    return sp.csr_matrix(sp.diags(1.0 / totals) @ sp.csr_matrix(counts))
