"""A corpus tokenised once, every convention's counts and incidence derived from it: ``TokenizedCorpus``,
``tokenize_corpus``, ``cached_tokenized_corpus`` (indexed in ``posgeom.data``; ``data.conventions`` re-exported)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

    from .datasets import Corpus

import hashlib
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._io import atomic_open
from .._validation import check_positive_int
from ..corpus.counts import position_counts
from ._tokens import assemble, check_texts, iter_token_sequences, special_ids
from .conventions import CountingConvention as CountingConvention
from .conventions import corpus_position_counts as corpus_position_counts
from .conventions import load_tokenizer as load_tokenizer
from .pretrained import _DEFAULT_MODEL

__all__ = ["tokenize_corpus", "cached_tokenized_corpus"]


class TokenizedCorpus:
    """The word pieces of every text (no special tokens), truncated at ``max_pieces``.

    Every :class:`CountingConvention` with ``n_positions <= max_pieces`` is derived from it without re-tokenising
    (here and in the methods, ``convention`` is such a convention; an invalid one raises as the constructor does).

    Parameters
    ----------
    indptr : 1-D int array of length ``m + 1``: text ``k`` holds ``ids[indptr[k]:indptr[k + 1]]``
    ids : 1-D int array, the word pieces of all texts, concatenated (stored as int32)
    max_pieces, vocab_size : int
        Word pieces kept per text (the largest ``n_positions`` served); the tokenizer's ``V``.
    cls_id, sep_id, pad_id : int or None
        Ids of ``[CLS]``, ``[SEP]`` and ``[PAD]`` (``None`` if the tokenizer has none).

    Examples
    --------
    >>> TokenizedCorpus([0, 2, 3], [7, 8, 9], max_pieces=4, vocab_size=10, cls_id=1, sep_id=2, pad_id=0).lengths
    array([2, 1])
    """

    def __init__(self, indptr, ids, *, max_pieces: int, vocab_size: int, cls_id, sep_id, pad_id):
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.ids = np.asarray(ids, dtype=np.int32)
        self.max_pieces = check_positive_int(max_pieces, "max_pieces")
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.cls_id, self.sep_id, self.pad_id = cls_id, sep_id, pad_id
        if self.indptr.ndim != 1 or self.indptr[0] != 0 or self.indptr[-1] != self.ids.size:
            raise ValueError("indptr must start at 0 and end at len(ids)")

    def __len__(self) -> int:
        return int(self.indptr.size - 1)

    def __repr__(self) -> str:
        return f"TokenizedCorpus({len(self)} texts, {self.ids.size} word pieces, max_pieces={self.max_pieces})"

    @property
    def lengths(self) -> np.ndarray:
        """Word pieces per text, ``min(L, max_pieces)``."""
        return np.diff(self.indptr)

    def _check(self, convention):
        """A clear error if this corpus cannot serve ``convention``."""
        if not isinstance(convention, CountingConvention):
            raise TypeError(f"convention must be a CountingConvention, got {type(convention).__name__}")
        if convention.n_positions > self.max_pieces:
            raise ValueError(f"n_positions={convention.n_positions} exceeds max_pieces={self.max_pieces} of this "
                             "tokenised corpus; re-tokenise with a larger max_pieces")
        if convention.special_tokens and (self.cls_id is None or self.sep_id is None):
            raise ValueError("this tokenizer has no [CLS]/[SEP] tokens; use special_tokens=False")
        if convention.count_padding and self.pad_id is None:
            raise ValueError("count_padding=True needs a tokenizer with a [PAD] token")

    def sequences(self, convention: CountingConvention) -> list:
        """The counted sequences under ``convention``: special tokens added, truncated, not padded.

        Parameters
        ----------
        convention : CountingConvention

        Returns
        -------
        list of 1-D int64 ndarray

        Examples
        --------
        >>> tc = TokenizedCorpus([0, 3, 4], [7, 8, 9, 5], max_pieces=4, vocab_size=10, cls_id=1, sep_id=2, pad_id=0)
        >>> [s.tolist() for s in tc.sequences(CountingConvention(4, truncation="cut"))]
        [[1, 7, 8, 9], [1, 5, 2]]
        """
        return [seq for _, seq in self._assembled(convention)]

    def _assembled(self, convention):
        """``(text index, counted sequence)`` of every text that passes ``convention``."""
        self._check(convention)
        out = []
        for k, (a, b) in enumerate(zip(self.indptr[:-1], self.indptr[1:])):
            seq = assemble(self.ids[a:b].astype(np.int64), convention, self.cls_id, self.sep_id)
            if seq is not None:
                out.append((k, seq))
        if not out:
            raise ValueError(f"no sequence passes the convention ({convention.describe()}): lower min_length or "
                             "n_positions")
        return out

    def kept(self, convention: CountingConvention) -> np.ndarray:
        """The text behind each row of :meth:`incidence`, e.g. ``corpus.source_groups()[tokens.kept(convention)]``.

        Parameters
        ----------
        convention : CountingConvention

        Returns
        -------
        1-D int64 ndarray
            Increasing indices of the texts that pass the convention and hold at least one counted token.

        Examples
        --------
        >>> tc = TokenizedCorpus([0, 1, 1, 3], [7, 8, 9], max_pieces=4, vocab_size=10, cls_id=1, sep_id=2, pad_id=0)
        >>> tc.kept(CountingConvention(4, special_tokens=False)), tc.kept(CountingConvention(4, min_length=4))
        (array([0, 2]), array([2]))
        """
        counted = convention.count_padding
        return np.array([k for k, seq in self._assembled(convention) if counted or seq.size], dtype=np.int64)

    def counts(self, convention: CountingConvention) -> sp.csr_matrix:
        """Position counts under ``convention`` (equal to :func:`corpus_position_counts` on the texts).

        Parameters
        ----------
        convention : CountingConvention

        Returns
        -------
        (n, V) CSR int64 matrix

        Examples
        --------
        >>> tc = TokenizedCorpus([0, 2, 3], [7, 8, 9], max_pieces=4, vocab_size=10, cls_id=1, sep_id=2, pad_id=0)
        >>> tc.counts(CountingConvention(4, count_padding=True)).toarray()[3]
        array([1, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        """
        pad = self.pad_id if convention.count_padding else None
        return position_counts(self.sequences(convention), convention.n_positions, self.vocab_size, pad_id=pad)

    def incidence(self, convention: CountingConvention):
        """The ``posgeom.corpus.SequenceIncidence`` under ``convention`` (its ``counts()`` equal :meth:`counts`).

        Parameters
        ----------
        convention : CountingConvention

        Returns
        -------
        posgeom.corpus.SequenceIncidence

        Examples
        --------
        >>> tc = TokenizedCorpus([0, 2, 3], [7, 8, 9], max_pieces=4, vocab_size=10, cls_id=1, sep_id=2, pad_id=0)
        >>> tc.incidence(CountingConvention(4)).lengths
        array([4, 3])
        """
        from ..corpus.incidence import SequenceIncidence
        pad = self.pad_id if convention.count_padding else None
        return SequenceIncidence.from_sequences(self.sequences(convention), convention.n_positions, self.vocab_size,
                                                pad_id=pad)

    def save(self, path) -> None:
        """Write to ``.npz`` atomically (temporary file + ``os.replace``).

        Parameters
        ----------
        path : str or os.PathLike

        Examples
        --------
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     TokenizedCorpus([0, 1], [5], max_pieces=2, vocab_size=6, cls_id=1, sep_id=2, pad_id=0).save(f"{tmp}/t")
        """
        meta = [self.max_pieces, self.vocab_size] + [-1 if x is None else int(x)
                                                     for x in (self.cls_id, self.sep_id, self.pad_id)]
        with atomic_open(path) as fh:
            np.savez(fh, indptr=self.indptr, ids=self.ids, meta=np.array(meta, dtype=np.int64))

    @classmethod
    def load(cls, path) -> TokenizedCorpus:
        """Read a file written by :meth:`save` (plain arrays, ``allow_pickle=False``).

        Parameters
        ----------
        path : str or os.PathLike

        Returns
        -------
        TokenizedCorpus

        Examples
        --------
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     TokenizedCorpus([0, 1], [5], max_pieces=2, vocab_size=6, cls_id=1, sep_id=2, pad_id=None).save(
        ...         Path(tmp) / "t.npz")
        ...     back = TokenizedCorpus.load(Path(tmp) / "t.npz")
        >>> back.ids, back.pad_id
        (array([5], dtype=int32), None)
        """
        with np.load(path, allow_pickle=False) as z:
            max_pieces, vocab_size, cls_id, sep_id, pad_id = (int(x) for x in z["meta"])
            return cls(z["indptr"], z["ids"], max_pieces=max_pieces, vocab_size=vocab_size,
                       cls_id=None if cls_id < 0 else cls_id, sep_id=None if sep_id < 0 else sep_id,
                       pad_id=None if pad_id < 0 else pad_id)


def tokenize_corpus(texts: Sequence[str], tokenizer: PreTrainedTokenizerFast, *, max_pieces: int = 512,
                    batch_size: int = 1024, progress: bool = False) -> TokenizedCorpus:
    """Tokenise texts into word pieces (no special tokens), keeping the first ``max_pieces`` of each.

    Parameters
    ----------
    texts : sequence of str
    tokenizer : transformers fast tokenizer
    max_pieces : int, default 512 (the largest ``n_positions`` the result can serve)
    batch_size, progress : int, bool

    Returns
    -------
    TokenizedCorpus

    Examples
    --------
    >>> tc = tokenize_corpus(["the cat sat", "a dog"], load_tokenizer(), max_pieces=8)
    >>> tc.lengths, tc.counts(CountingConvention(4)).sum(axis=1).A.ravel()
    (array([3, 2]), array([2, 2, 2, 2]))
    """
    texts = check_texts(texts)
    max_pieces = check_positive_int(max_pieces, "max_pieces")
    conv = CountingConvention(max_pieces, special_tokens=False)
    chunks = list(iter_token_sequences(texts, tokenizer, conv, batch_size=batch_size, progress=progress))
    seqs = [s for chunk in chunks for s in chunk]
    lengths = np.fromiter((s.size for s in seqs), dtype=np.int64, count=len(seqs))
    ids = np.concatenate(seqs).astype(np.int32) if lengths.sum() else np.zeros(0, dtype=np.int32)
    cls_id, sep_id, pad_id = special_ids(tokenizer)
    return TokenizedCorpus(np.concatenate(([0], np.cumsum(lengths))), ids, max_pieces=max_pieces,
                           vocab_size=len(tokenizer), cls_id=cls_id, sep_id=sep_id, pad_id=pad_id)


def cached_tokenized_corpus(corpus: Corpus, *, model: str = _DEFAULT_MODEL, max_pieces: int = 512,
                            tokenizer: PreTrainedTokenizerFast | None = None, cache: str | os.PathLike | None = None,
                            batch_size: int = 1024, progress: bool = False) -> TokenizedCorpus:
    """:func:`tokenize_corpus` of a ``posgeom.data.Corpus``, cached on disk (``.npz``, no pickle) and rebuilt when
    missing or unreadable; the key hashes the texts, the model name and ``max_pieces``.

    Parameters
    ----------
    corpus : posgeom.data.Corpus (its ``name`` and ``split`` enter the file name)
    model, max_pieces : str, int (tokenizer name; largest ``n_positions`` the result can serve)
    tokenizer : transformers fast tokenizer, optional
        Used on a cache miss; loaded from ``model`` if not given.
    cache : path, optional, default ``posgeom.data.cache_dir() / "tokens"``
    batch_size, progress : int, bool

    Returns
    -------
    TokenizedCorpus
        Read from the cache, or tokenised and written to it (a read-only cache is not an error).

    Examples
    --------
    >>> import tempfile
    >>> from posgeom.data import Corpus
    >>> corpus = Corpus("toy", "train", ["a good film", "dull"], np.array([1, 0]), ["0", "1"], "memory")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     cached_tokenized_corpus(corpus, max_pieces=8, cache=tmp).lengths
    array([3, 1])
    """
    from ._archives import cache_dir
    digest = hashlib.sha256()
    for t in corpus.texts:
        digest.update(t.encode("utf-8"))
        digest.update(b"\x00")
    tag = (f"{corpus.name}-{corpus.split}-{len(corpus.texts)}-{digest.hexdigest()[:12]}-p{max_pieces}"
           f"-{hashlib.sha256(str(model).encode()).hexdigest()[:8]}")
    folder = Path(cache) if cache is not None else cache_dir() / "tokens"
    path = folder / f"{tag}.npz"
    if path.is_file():
        try:
            return TokenizedCorpus.load(path)
        except (OSError, ValueError, KeyError):
            pass  # unreadable entry: rebuild
    if tokenizer is None:
        tokenizer = load_tokenizer(name=model)
    result = tokenize_corpus(corpus.texts, tokenizer, max_pieces=max_pieces, batch_size=batch_size, progress=progress)
    try:
        result.save(path)
    except OSError:
        pass  # a read-only cache only costs recomputation
    return result
