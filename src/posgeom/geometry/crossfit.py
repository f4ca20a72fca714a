"""The corrected (cross-fitted) estimator from the merged counts of two halves: the route of sharded corpora.

:func:`~posgeom.geometry.corrected_distances` needs every sequence in one process: it draws random permutations of
the sequences. A corpus counted shard by shard (on Dask, see :mod:`posgeom.data.distributed`) keeps only count
matrices. The estimator still follows, because all it needs of a split are the (n, V) counts of its two halves, and
counts are additive over documents:

* :func:`half_assignment` decides the half of every document in every split from a seeded hash of the document's
  *key* (e.g. its text): no shard needs to know about another, and any partition of the corpus into shards, in any
  order, gives the same halves;
* each shard counts, per split, the documents of half ``A`` and of half ``B``; the counts are summed across shards
  (exactly, as integers);
* :func:`corrected_from_half_counts` turns the merged half counts into the corrected distances with the formula of
  :func:`~posgeom.geometry.corrected_distances` (the same code: ``G_ij = <sqrt(mu_i^A), sqrt(mu_j^B)>``,
  ``Q_ij = (G_ii + G_jj) / 2 - (G_ij + G_ji) / 2``, averaged over the splits, ``sqrt(max(Q, 0))``).

Given the halves that :func:`~posgeom.geometry.corrected_distances` drew, :func:`corrected_from_half_counts` returns
its result (up to rounding). The hash halves are not of exactly equal size (each document is in ``B`` with
probability 1/2, independently); the Proposition of :func:`~posgeom.geometry.corrected_distances` holds for any
split that does not depend on the documents' content beyond their key, since the halves are then disjoint sets of
i.i.d. documents.
"""

from __future__ import annotations

import hashlib
import numbers

import numpy as np
import scipy.sparse as sp

from .._validation import check_positive_int
from .estimators import CorrectedDistances, _average_over_splits

__all__ = [
    "half_assignment",
    "corrected_from_half_counts",
]

# Bits of one blake2b digest (64 bytes): the halves of 512 splits per hash of a key.
_BITS_PER_DIGEST = 512


def _key_bytes(key, index: int) -> bytes:
    if isinstance(key, str):
        return key.encode("utf-8")
    if isinstance(key, bytes):
        return key
    raise TypeError(f"keys must be str or bytes (e.g. the document's text), key {index} is "
                    f"{type(key).__name__} {key!r:.60}")


def half_assignment(keys, *, n_splits: int, seed: int) -> np.ndarray:
    """The half of every document in every split, from a seeded hash of its key.

    Document ``k`` is in half ``B`` of split ``s`` when bit ``s mod 512`` of
    ``blake2b(f"{seed}:{s // 512}:".encode() + key, digest_size=64)`` is 1 (bits numbered from the lowest bit of
    the first byte), else in half ``A``. One digest per key serves 512 splits, so 50,000 documents take a few tens
    of milliseconds. The assignment depends on nothing but the key, the seed and the split: not on the other
    documents, their order, their shard, or ``n_splits`` (split ``s`` is the same for every ``n_splits > s``).

    Parameters
    ----------
    keys : sequence of str or bytes
        One key per document, e.g. its text (``str`` keys are UTF-8 encoded). Documents with equal keys are in the
        same half of every split.
    n_splits : int
        Number of splits (at least 2, as :func:`~posgeom.geometry.corrected_distances` needs for its Monte Carlo
        spread).
    seed : int
        Seed of the hash (``>= 0``); different seeds give independent-looking assignments.

    Returns
    -------
    (n_splits, m) bool ndarray
        ``True`` where the document is in half ``B`` of the split, ``False`` for half ``A``.

    Raises
    ------
    TypeError
        A key that is neither ``str`` nor ``bytes``, a single string passed as ``keys``, or a non-integer
        ``n_splits`` / ``seed``.
    ValueError
        ``n_splits < 2`` or a negative ``seed``.

    Examples
    --------
    >>> in_b = half_assignment(["a good film", "dull", "loved it"], n_splits=4, seed=0)
    >>> in_b.shape, in_b.dtype
    ((4, 3), dtype('bool'))
    >>> bool((half_assignment(["dull"], n_splits=4, seed=0)[:, 0] == in_b[:, 1]).all())  # keys only
    True
    """
    n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    if isinstance(keys, (str, bytes)):
        raise TypeError("keys must be a sequence of keys (one per document), not a single string")
    encoded = [_key_bytes(key, k) for k, key in enumerate(keys)]
    m = len(encoded)
    n_blocks = -(-n_splits // _BITS_PER_DIGEST)
    digests = np.empty((m, 64 * n_blocks), dtype=np.uint8)
    for block in range(n_blocks):
        prefix = f"{int(seed)}:{block}:".encode()
        joined = b"".join(hashlib.blake2b(prefix + key, digest_size=64).digest() for key in encoded)
        digests[:, 64 * block:64 * (block + 1)] = np.frombuffer(joined, dtype=np.uint8).reshape(m, 64)
    bits = np.unpackbits(digests, axis=1, bitorder="little")[:, :n_splits]
    return np.ascontiguousarray(bits.T.astype(bool))


def _as_split_list(counts, name: str) -> list:
    if sp.issparse(counts) or (isinstance(counts, np.ndarray) and counts.ndim == 2):
        raise ValueError(f"{name} must hold one (n, V) count matrix per split (a list, or a stacked (S, n, V) "
                         f"array); got a single matrix of shape {counts.shape}: wrap it in a list of at least 2 splits")
    if isinstance(counts, np.ndarray):
        if counts.ndim != 3:
            raise ValueError(f"{name} as an array must be stacked (S, n, V), got shape {counts.shape}")
        return list(counts)
    try:
        return list(counts)
    except TypeError:
        raise TypeError(f"{name} must be a list of (n, V) count matrices (sparse or dense), one per split, "
                        f"got {type(counts).__name__}") from None


def _check_matrix(C, name: str, split: int, shape):
    if not sp.issparse(C):
        C = np.asarray(C)
        if C.ndim != 2:
            raise ValueError(f"{name}[{split}] must be an (n, V) matrix, got shape {C.shape}")
    if not (np.issubdtype(C.dtype, np.integer) or np.issubdtype(C.dtype, np.floating)):
        raise TypeError(f"{name}[{split}] must hold numeric counts, got dtype {C.dtype}")
    if shape is not None and C.shape != shape:
        raise ValueError(f"{name}[{split}] has shape {C.shape}, expected {shape}: every half of every split must "
                         "count the same n positions over the same vocabulary V")
    values = C.data if sp.issparse(C) else C
    if values.size and (not np.all(np.isfinite(values)) or values.min() < 0):
        raise ValueError(f"{name}[{split}] has negative or non-finite entries: pass counts (not log-probabilities)")
    return C


def _sqrt_distributions(C, split: int, label: str):
    """Rows ``sqrt(C_i / sum(C_i))``: the square-root empirical distributions of one half (as in the estimator)."""
    totals = np.asarray(C.sum(axis=1), dtype=np.float64).ravel()
    empty = np.flatnonzero(totals <= 0)
    if empty.size:
        raise ValueError(
            f"split {split}: position {int(empty[0])} receives no observation in half {label} ({empty.size} empty "
            "position(s)). Use fewer positions (a smaller n_positions), count padding, add documents, or try "
            "another seed, so that every position is reached by documents of both halves"
        )
    scale = 1.0 / np.sqrt(totals)
    if sp.issparse(C):
        S = sp.csr_matrix(C, dtype=np.float64, copy=True)
        S.sum_duplicates()
        np.sqrt(S.data, out=S.data)
        S.data *= np.repeat(scale, np.diff(S.indptr))
        return S
    S = np.sqrt(np.asarray(C, dtype=np.float64))
    S *= scale[:, None]
    return S


def _gram_and_norms(A, B):
    G = A @ B.T
    G = G.toarray() if sp.issparse(G) else np.asarray(G, dtype=np.float64)
    if sp.issparse(A):
        norm_a = np.asarray(A.multiply(A).sum(axis=1), dtype=np.float64).ravel()
    else:
        norm_a = np.einsum("ij,ij->i", A, A, dtype=np.float64)
    if sp.issparse(B):
        norm_b = np.asarray(B.multiply(B).sum(axis=1), dtype=np.float64).ravel()
    else:
        norm_b = np.einsum("ij,ij->i", B, B, dtype=np.float64)
    return np.asarray(G, dtype=np.float64), norm_a, norm_b


def corrected_from_half_counts(counts_a, counts_b) -> CorrectedDistances:
    """Corrected (cross-fitted) Hellinger distances from the position counts of the two halves of each split.

    For split ``s`` with half counts ``counts_a[s]`` and ``counts_b[s]``: ``a_i = sqrt(mu_i^A)``,
    ``b_j = sqrt(mu_j^B)`` (rows normalised to distributions), ``G_ij = <a_i, b_j>`` and
    ``Q_ij = (G_ii + G_jj) / 2 - (G_ij + G_ji) / 2``, averaged over the splits; ``distances = sqrt(max(Q, 0))``.
    This is the formula (and the code) of :func:`~posgeom.geometry.corrected_distances`, which draws its halves by
    permuting the sequences of one process; here the halves come from anywhere, e.g. from
    :func:`half_assignment` and counts merged across the shards of a corpus.

    Parameters
    ----------
    counts_a, counts_b : list of (n, V) count matrices, or (S, n, V) arrays
        ``counts_a[s]`` and ``counts_b[s]``: the position counts (sparse or dense, non-negative; integer counts or
        weights) of the documents in half ``A`` and half ``B`` of split ``s``. All ``2 S`` matrices have the same
        shape; the halves of a split should be disjoint sets of documents (nothing checks it: counts do not tell).

    Returns
    -------
    CorrectedDistances
        ``distances``, ``squared`` (unclipped), ``floors`` (root mean square over the splits of the split-half
        distance ``d_H(mu_i^A, mu_i^B)``), ``fraction_clipped``, ``mc_spread`` (Monte Carlo standard error over
        the splits) and ``n_splits``, as :func:`~posgeom.geometry.corrected_distances` defines them.

    Raises
    ------
    ValueError
        Fewer than 2 splits, different numbers of splits in the two halves, a single matrix instead of one per
        split, mismatched shapes, negative or non-finite counts, or a position with no observation in a half of a
        split (the message names the split, the position and the fix).
    TypeError
        Counts that are not a list or array of numeric matrices.

    Examples
    --------
    Two positions, always token 0 at position 0 and token 1 at position 1: distance 1, no noise.

    >>> import numpy as np
    >>> half = np.array([[2, 0], [0, 2]])
    >>> est = corrected_from_half_counts([half, half], [half, half])
    >>> est.distances, est.n_splits
    (array([[0., 1.],
           [1., 0.]]), 2)
    >>> corrected_from_half_counts([half], [half])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the corrected estimator averages over at least 2 splits, got 1 ...
    """
    list_a = _as_split_list(counts_a, "counts_a")
    list_b = _as_split_list(counts_b, "counts_b")
    if len(list_a) != len(list_b):
        raise ValueError(f"counts_a holds {len(list_a)} splits but counts_b {len(list_b)}: pass both halves of "
                         "every split")
    n_splits = len(list_a)
    if n_splits < 2:
        raise ValueError(f"the corrected estimator averages over at least 2 splits, got {n_splits} (so that its "
                         "Monte Carlo spread is defined); count the halves of n_splits >= 2 splits")
    shape = None
    for s in range(n_splits):
        list_a[s] = _check_matrix(list_a[s], "counts_a", s, shape)
        shape = list_a[s].shape
        list_b[s] = _check_matrix(list_b[s], "counts_b", s, shape)
    n = shape[0]

    def grams():
        for k in range(n_splits):
            A = _sqrt_distributions(list_a[k], k, "A")
            B = _sqrt_distributions(list_b[k], k, "B")
            yield _gram_and_norms(A, B)

    return _average_over_splits(grams(), n, n_splits)
