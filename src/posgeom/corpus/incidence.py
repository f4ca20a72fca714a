"""``SequenceIncidence`` (counts under any weighting of the texts are one ``bincount``); ``check_incidence``."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import check_positive_int
from ._flat import check_arguments, flat_tokens

__all__ = ["SequenceIncidence"]

# Up to this many (position, token) cells, sequence incidences index cells with a bincount instead of a sort.
_DENSE_KEY_CELLS = 1 << 25


def _cells_of(keys, size):
    """``(cell, cells)``: each key's index into the sorted distinct keys, and those keys (``np.unique``'s inverse)."""
    if size > _DENSE_KEY_CELLS:
        cells, cell = np.unique(keys, return_inverse=True)
        return cell.ravel(), cells
    seen = np.bincount(keys, minlength=size) > 0  # O(N): a bincount and a lookup instead of sorting every token
    return (np.cumsum(seen) - 1)[keys], np.flatnonzero(seen)


class SequenceIncidence:
    """Which (position, token) cell every counted token of every sequence falls in (empty sequences left out).

    Build it with ``from_sequences`` (token ids) or ``posgeom.data.TokenizedCorpus.incidence`` (text).

    Parameters
    ----------
    indptr, cell, cells : 1-D int arrays
        ``cell[indptr[s]:indptr[s + 1]]``: the indices into ``cells`` (sorted keys ``position * V + token``) of the
        tokens of sequence ``s``.
    n_positions, vocab_size : int

    Attributes
    ----------
    positions, tokens : ndarray, the position and token of each entry of ``cells``
    used_tokens : ndarray
        The sorted token ids that occur; ``columns`` maps each cell to its index in it.

    Examples
    --------
    >>> SequenceIncidence.from_sequences([[0, 1], [0]], n_positions=2, vocab_size=3)
    SequenceIncidence(2 sequences, 3 tokens, n_positions=2, vocab_size=3, 2 distinct cells)
    """
    def __init__(self, indptr, cell, cells, n_positions: int, vocab_size: int):
        self.n_positions = check_positive_int(n_positions, "n_positions")
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.cell = np.asarray(cell, dtype=np.int32 if len(cells) < 2**31 else np.int64)
        self.cells = np.asarray(cells, dtype=np.int64)
        if self.indptr.ndim != 1 or self.indptr.size < 2 or self.indptr[0] != 0 or self.indptr[-1] != self.cell.size:
            raise ValueError("indptr must start at 0, end at len(cell) and hold at least one sequence")
        if np.any(np.diff(self.indptr) <= 0):
            raise ValueError("every sequence of an incidence must hold at least one token")
        if self.cells.size and (np.any(np.diff(self.cells) <= 0) or self.cells[0] < 0
                                or self.cells[-1] >= self.n_positions * self.vocab_size):
            raise ValueError("cells must be strictly increasing keys in [0, n_positions * vocab_size)")
        if self.cell.size and (self.cell.min() < 0 or self.cell.max() >= self.cells.size):
            raise ValueError("cell indices must lie in [0, len(cells))")
        self.positions, self.tokens = np.divmod(self.cells, self.vocab_size)
        # Dense column index over the tokens that occur anywhere (distances ignore never-seen tokens).
        self.used_tokens, self.columns = np.unique(self.tokens, return_inverse=True)
        self._lengths = np.diff(self.indptr)

    @classmethod
    def from_sequences(cls, sequences, n_positions: int, vocab_size: int, *, pad_id: int | None = None):
        """The incidence of token id sequences, with the conventions of ``position_counts``.

        Parameters
        ----------
        sequences : 2-D int array or iterable of 1-D int arrays
        n_positions, vocab_size : int
        pad_id : int, optional

        Returns
        -------
        SequenceIncidence

        Examples
        --------
        >>> SequenceIncidence.from_sequences(np.array([[1, 2], [1, 0]]), 2, 3).lengths
        array([2, 2])
        """
        n, V, pad_id = check_arguments(n_positions, vocab_size, pad_id)
        positions, ids = flat_tokens(sequences, n, V, pad_id=pad_id)
        if ids.size == 0:
            raise ValueError("the sequences hold no token within the first n_positions positions")
        starts = np.flatnonzero(positions == 0)  # every non-empty sequence starts at position 0
        indptr = np.append(starts, ids.size)
        return cls(indptr, *_cells_of(positions * V + ids, n * V), n, V)

    @classmethod
    def from_contiguous(cls, tokens, lengths, n_positions: int, vocab_size: int):
        """The incidence of texts given as one flat token array and their lengths (positions ``0 .. L-1``).

        Parameters
        ----------
        tokens, lengths : 1-D int arrays
            The tokens of every text, text after text, and the texts' lengths (in ``[1, n_positions]``).
        n_positions, vocab_size : int

        Returns
        -------
        SequenceIncidence

        Examples
        --------
        >>> SequenceIncidence.from_contiguous([0, 1, 0], [2, 1], 2, 2).lengths
        array([2, 1])
        """
        n, V, _ = check_arguments(n_positions, vocab_size, None)
        tokens = np.asarray(tokens, dtype=np.int64)
        lengths = np.asarray(lengths, dtype=np.int64)
        if lengths.ndim != 1 or lengths.size < 1 or lengths.min() < 1 or lengths.max() > n:
            raise ValueError(f"lengths must be a 1-D array of integers in [1, n_positions={n}]")
        if tokens.ndim != 1 or tokens.size != int(lengths.sum()):
            raise ValueError(f"tokens must be a 1-D array of sum(lengths) = {int(lengths.sum())} ids")
        if tokens.size and (tokens.min() < 0 or tokens.max() >= V):
            raise ValueError(f"token ids must lie in [0, vocab_size={V})")
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        position = np.arange(tokens.size) - np.repeat(starts, lengths)
        return cls(np.append(starts, tokens.size), *_cells_of(position * V + tokens, n * V), n, V)

    @property
    def n_sequences(self) -> int:
        """Number of (non-empty) sequences ``m``."""
        return int(self._lengths.size)

    @property
    def lengths(self) -> np.ndarray:
        """Tokens counted per sequence (after truncation/padding)."""
        return self._lengths

    def __repr__(self) -> str:
        return (f"SequenceIncidence({self.n_sequences} sequences, {self.cell.size} tokens, n_positions="
                f"{self.n_positions}, vocab_size={self.vocab_size}, {self.cells.size} distinct cells)")

    def _check_weights(self, weights):
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (self.n_sequences,):
            raise ValueError(f"weights must have shape ({self.n_sequences},) (one per sequence), got {w.shape}")
        if not np.all(np.isfinite(w)) or w.min() < 0:
            raise ValueError("weights must be finite and non-negative")
        return w

    def cell_counts(self, weights=None) -> np.ndarray:
        """Counts per cell (aligned with ``cells``); sequence ``s`` counts ``weights[s]`` times.

        Parameters
        ----------
        weights : (m,) array of non-negative floats, optional
            E.g. a bootstrap resample; default 1 each (int64 counts).

        Returns
        -------
        1-D ndarray

        Examples
        --------
        >>> SequenceIncidence.from_sequences([[0, 1], [0]], 2, 2).cell_counts([2, 0])
        array([2., 2.])
        """
        if weights is None:
            return np.bincount(self.cell, minlength=self.cells.size).astype(np.int64)
        w = self._check_weights(weights)
        return np.bincount(self.cell, weights=np.repeat(w, self._lengths), minlength=self.cells.size)

    def counts(self, weights=None) -> sp.csr_matrix:
        """The (n, V) position counts (as ``position_counts`` gives), optionally weighted.

        Parameters
        ----------
        weights : (m,) array of non-negative floats, optional (as in ``cell_counts``)

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n, V)

        Examples
        --------
        >>> SequenceIncidence.from_sequences([[0, 1], [1, 1]], 2, 2).counts([1, 3]).toarray()
        array([[1., 3.],
               [0., 4.]])
        """
        c = self.cell_counts(weights)
        keep = c > 0
        return sp.csr_matrix((c[keep], (self.positions[keep], self.tokens[keep])),
                             shape=(self.n_positions, self.vocab_size))

    def sequences_per_position(self, weights=None) -> np.ndarray:
        """How many sequences (weighted) reach each position: the sample size behind each ``mu_i``.

        Parameters
        ----------
        weights : (m,) array of non-negative floats, optional (as in ``cell_counts``)

        Returns
        -------
        (n,) float ndarray

        Examples
        --------
        >>> SequenceIncidence.from_sequences([[0, 1], [0]], 2, 2).sequences_per_position()
        array([2., 1.])
        """
        return np.bincount(self.positions, weights=self.cell_counts(weights), minlength=self.n_positions)

    def sqrt_distributions(self, weights=None) -> np.ndarray:
        """Dense ``sqrt(mu_i)`` (plug-in) over the ``U`` tokens in ``used_tokens``, for the given weights.

        Parameters
        ----------
        weights : (m,) array of non-negative floats, optional (as in ``cell_counts``)

        Returns
        -------
        (n, U) float ndarray

        Examples
        --------
        >>> (SequenceIncidence.from_sequences([[0, 1], [0, 0]], 2, 2).sqrt_distributions() ** 2).round(3)
        array([[1. , 0. ],
               [0.5, 0.5]])
        """
        c = self.cell_counts(weights).astype(np.float64)
        totals = np.bincount(self.positions, weights=c, minlength=self.n_positions)
        empty = np.flatnonzero(totals <= 0)
        if empty.size:
            raise ValueError(f"position {int(empty[0])} receives no observation ({empty.size} empty position(s)); "
                             "mu_i is undefined there. Use fewer positions (or count padding) so that every position "
                             "has enough sequences")
        S = np.zeros((self.n_positions, self.used_tokens.size))
        S[self.positions, self.columns] = np.sqrt(c / totals[self.positions])
        return S


def check_incidence(data, name: str = "data") -> SequenceIncidence:
    """``data`` if it is a ``SequenceIncidence``, else a TypeError naming the fix (the one such check)."""
    if not isinstance(data, SequenceIncidence):
        raise TypeError(f"{name} must be a SequenceIncidence (SequenceIncidence.from_sequences(...) or "
                        f"posgeom.data.TokenizedCorpus.incidence(...)), got {type(data).__name__}")
    return data
