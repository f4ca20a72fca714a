"""Counting conventions, the tokenizer, and position counts streamed from raw text: ``CountingConvention``,
``load_tokenizer``, ``corpus_position_counts`` (indexed in ``posgeom.data``)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

import dataclasses
import os
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._validation import check_positive_int
from ..corpus.counts import position_counts
from ._tokens import iter_token_sequences
from .pretrained import _DEFAULT_MODEL, _resolve_model

__all__ = ["CountingConvention", "load_tokenizer", "corpus_position_counts"]
_TRUNCATIONS = ("model", "cut")
# Tokens buffered between two calls of position_counts (bounds memory at a few tens of MB).
_COUNT_CHUNK_TOKENS = 2_000_000


@dataclass(frozen=True)
class CountingConvention:
    """What the positional distributions ``mu_i`` of a tokenised corpus count (the convention, stated once).

    Parameters
    ----------
    n_positions : int, the window length ``n`` (positions ``0..n-1``; longer sequences are truncated)
    special_tokens : bool, default True
        Count ``[CLS]`` at position 0 (so ``mu_0`` is a point mass) and ``[SEP]`` after the last word piece.
    count_padding : bool, default False
        Pad every sequence to ``n`` with ``[PAD]`` and count the pads: ``mu_i`` then holds a ``[PAD]`` atom, the
        share of sequences shorter than ``i + 1``; without padding, ``mu_i`` counts the sequences reaching ``i``.
    truncation : {"model", "cut"}, default "model"
        ``"model"`` cuts as BERT's tokenizer does, ``[CLS] w_1 ... w_{n-2} [SEP]`` (``[SEP]`` at ``n-1`` of every
        truncated sequence); ``"cut"`` keeps the first ``n`` tokens (``[SEP]`` marks only real ends).
    min_length : int, optional
        Keep only sequences whose untruncated length is at least this (``1 <= min_length <= n``); ``n`` keeps
        only sequences that fill the window, so every position sees the same sequences.

    Examples
    --------
    >>> CountingConvention(4, min_length=3)
    CountingConvention(n_positions=4, special_tokens=True, count_padding=False, truncation='model', min_length=3)
    """
    n_positions: int
    special_tokens: bool = True
    count_padding: bool = False
    truncation: str = "model"
    min_length: int | None = None

    def __post_init__(self):
        n = check_positive_int(self.n_positions, "n_positions")
        for flag in ("special_tokens", "count_padding"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise TypeError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.truncation not in _TRUNCATIONS:
            raise ValueError(f"truncation must be one of {_TRUNCATIONS}, got {self.truncation!r}")
        if self.special_tokens and self.truncation == "model" and n < 2:
            raise ValueError("with special tokens and truncation='model', n_positions must be >= 2 ([CLS] and [SEP])")
        if self.min_length is not None:
            m = check_positive_int(self.min_length, "min_length")
            if m > n:
                raise ValueError(f"min_length={m} exceeds n_positions={n}; use min_length <= n_positions")

    def replace(self, **changes) -> CountingConvention:
        """A copy with some fields changed (validated as in the constructor).

        Parameters
        ----------
        **changes
            New values of fields.

        Returns
        -------
        CountingConvention

        Examples
        --------
        >>> CountingConvention(8).replace(count_padding=True).count_padding
        True
        """
        return dataclasses.replace(self, **changes)

    def describe(self) -> str:
        """A one-line human-readable statement of the convention.

        Returns
        -------
        str

        Examples
        --------
        >>> CountingConvention(16, count_padding=True).describe()
        'n=16, [CLS]/[SEP] counted, padding counted as [PAD], truncation=model'
        """
        parts = [f"n={self.n_positions}", "[CLS]/[SEP] counted" if self.special_tokens else "word pieces only",
                 "padding counted as [PAD]" if self.count_padding else "position i over sequences reaching it"]
        if self.special_tokens:
            parts.append(f"truncation={self.truncation}")
        if self.min_length is not None:
            parts.append(f"only sequences of length >= {self.min_length}")
        return ", ".join(parts)


def load_tokenizer(*, name: str | os.PathLike = _DEFAULT_MODEL) -> PreTrainedTokenizerFast:
    """Load a fast (Rust-backed) ``transformers`` tokenizer.

    Parameters
    ----------
    name : str or path, default "all-MiniLM-L6-v2"
        The offline package's files (bert-base-uncased WordPiece vocabulary), a local directory or a hub id,
        resolved offline first.

    Returns
    -------
    transformers.PreTrainedTokenizerFast

    Examples
    --------
    >>> tok = load_tokenizer()  # the offline all-MiniLM-L6-v2 files: no network
    >>> len(tok), tok.cls_token_id, tok.sep_token_id, tok.pad_token_id
    (30522, 101, 102, 0)
    """
    from transformers import AutoTokenizer
    resolved = _resolve_model(name)
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(resolved), use_fast=True)
    except OSError as exc:
        raise OSError(f"could not load the tokenizer {name!r} ({exc}). Offline, use {_DEFAULT_MODEL!r} or a "
                      "local directory; online, check the hub model id") from exc
    if not getattr(tokenizer, "is_fast", False):
        raise TypeError(f"the tokenizer of {name!r} has no fast (Rust) implementation; batched counting needs one")
    return tokenizer


def corpus_position_counts(texts: Sequence[str], tokenizer: PreTrainedTokenizerFast,
                           convention: CountingConvention | int, *, batch_size: int = 1024,
                           progress: bool = False) -> sp.csr_matrix:
    """Positional token counts of a text corpus under an explicit convention.

    Parameters
    ----------
    texts : sequence of str
    tokenizer : transformers fast tokenizer
    convention : CountingConvention or int
        The convention, or just ``n_positions`` (the other fields at their defaults).
    batch_size, progress : int, bool

    Returns
    -------
    (n, V) CSR int64 matrix
        ``counts[i, v]``: counted sequences with token ``v`` at position ``i`` (``V = len(tokenizer)``).

    Examples
    --------
    >>> corpus_position_counts(["a b", "c"], load_tokenizer(), 4).sum(axis=1).A.ravel()
    array([2, 2, 2, 1])
    """
    convention = convention if isinstance(convention, CountingConvention) else CountingConvention(convention)
    vocab_size = len(tokenizer)
    pad_id = None
    if convention.count_padding:
        pad_id = tokenizer.pad_token_id
        if pad_id is None:
            raise ValueError("count_padding=True needs a tokenizer with a [PAD] token")
    total = sp.csr_matrix((convention.n_positions, vocab_size), dtype=np.int64)
    kept = 0
    buffer, buffered = [], 0

    def flush(total):
        # One position_counts call per ~_COUNT_CHUNK_TOKENS tokens: its cost has a fixed part (a bincount over
        # n * V cells) that per-batch calls would pay many times. Counts are additive, so chunking is exact.
        return total + position_counts(buffer, convention.n_positions, vocab_size, pad_id=pad_id)
    for sequences in iter_token_sequences(texts, tokenizer, convention, batch_size=batch_size, progress=progress):
        kept += len(sequences)
        buffer.extend(sequences)
        buffered += sum(s.size for s in sequences) if pad_id is None else len(sequences) * convention.n_positions
        if buffered >= _COUNT_CHUNK_TOKENS:
            total = flush(total)
            buffer, buffered = [], 0
    if buffer:
        total = flush(total)
    if kept == 0:
        raise ValueError(f"no sequence passes the convention ({convention.describe()}): lower min_length or "
                         "n_positions")
    total.sum_duplicates()
    return total

