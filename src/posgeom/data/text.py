"""From raw text to positional counts: WordPiece tokenisation under explicit counting conventions.

The book tokenises with the bert-base-uncased WordPiece vocabulary (30,522 ids) through the fast (Rust)
``tokenizers`` backend of ``transformers``, in batches. By default the tokenizer files come from the offline
all-MiniLM-L6-v2 package (same vocabulary and normaliser as bert-base-uncased); see :func:`load_tokenizer`.

What ``mu_i`` counts is a convention (:class:`CountingConvention`); every choice is explicit:

``special_tokens`` (default True)
    Each sequence is ``[CLS] w_1 ... w_L [SEP]``, as BERT sees it: position 0 is always ``[CLS]`` (so ``mu_0`` is a
    point mass) and ``[SEP]`` sits right after the last word piece. If False, only the word pieces are counted and
    position 0 holds the first word piece.
``truncation`` (default "model")
    How a sequence longer than ``n`` is cut. ``"model"``: as the tokenizer truncates for the model, keeping the
    special tokens: ``[CLS] w_1 ... w_{n-2} [SEP]``, so every truncated sequence puts ``[SEP]`` at position
    ``n-1``. ``"cut"``: the first ``n`` tokens of the untruncated ``[CLS] w_1 ... w_L [SEP]``, so ``[SEP]`` only
    marks real ends. Without special tokens both are the first ``n`` word pieces.
``count_padding`` (default False)
    If False, position ``i`` is counted over the sequences that *reach* it (length ``> i`` after truncation): the
    population shrinks with ``i``. If True, every sequence is padded to ``n`` with ``[PAD]`` and the pads are
    counted: every position sees every sequence, and ``mu_i`` mixes in a ``[PAD]`` atom whose mass is the share of
    sequences shorter than ``i + 1``.
``min_length`` (default None)
    If given, only sequences whose *untruncated* length (special tokens included when counted) is at least
    ``min_length`` enter at all. ``min_length = n`` keeps only sequences that fill the whole window: every position
    is then counted over the same sequences, with no padding.

Two ways to count:

* :func:`corpus_position_counts` streams over the corpus in batches of ``batch_size`` texts and adds the sparse
  counts of :func:`posgeom.position_counts` every ~2M tokens (counts are additive), so the tokenised corpus is never
  held in memory at once (IMDB train at ``n = 512``: peak RSS about 0.7 GB, mostly the interpreter and the text).
* :func:`tokenize_corpus` / :func:`cached_tokenized_corpus` keep the first ``max_pieces`` word pieces of every text
  (int32, ~27 MB for IMDB train) so that *every* convention with ``n <= max_pieces`` (and the resampling incidence
  of :mod:`posgeom.uncertainty`) is derived without tokenising again: this is what the book's chapters use.

Both give identical counts (tested). Tokenisation runs in the Rust backend (``encode_batch_fast``), which uses the
available cores; it dominates the cost (about 85% of the time in a profile of IMDB).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._io import atomic_open
from .._validation import check_positive_int
from ..corpus.counts import position_counts
from .pretrained import DEFAULT_MODEL, resolve_model

__all__ = [
    "CountingConvention",
    "load_tokenizer",
    "iter_token_sequences",
    "corpus_position_counts",
    "corpus_incidence",
    "TokenizedCorpus",
    "tokenize_corpus",
    "cached_tokenized_corpus",
]


_TRUNCATIONS = ("model", "cut")


# Tokens buffered between two calls of position_counts (bounds memory at a few tens of MB).
_COUNT_CHUNK_TOKENS = 2_000_000


@dataclass(frozen=True)
class CountingConvention:
    """What the positional distributions of a tokenised corpus count (see the module docstring).

    Parameters
    ----------
    n_positions : int
        Window length ``n``: positions ``0..n-1``; longer sequences are truncated.
    special_tokens : bool, default True
        Count ``[CLS]`` at position 0 and ``[SEP]`` after the last word piece.
    count_padding : bool, default False
        Pad every sequence to ``n`` with ``[PAD]`` and count the pads.
    truncation : {"model", "cut"}, default "model"
        ``"model"`` keeps ``[SEP]`` at position ``n-1`` of truncated sequences; ``"cut"`` drops it.
    min_length : int, optional
        Keep only sequences whose untruncated length is at least this (``1 <= min_length <= n``).

    Raises
    ------
    ValueError
        Unknown ``truncation``, ``n_positions < 2`` with special tokens and model truncation, or ``min_length``
        outside ``[1, n_positions]``.
    TypeError
        Non-bool flags or non-integer sizes.

    Examples
    --------
    >>> convention = CountingConvention(4, min_length=3)
    >>> convention.key
    'n4-s1-p0-model-m3'
    >>> convention.replace(special_tokens=False).describe()
    'n=4, word pieces only, position i over sequences reaching it, only sequences of length >= 3'
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
        """A copy with some fields changed.

        Parameters
        ----------
        **changes
            New values of fields (``n_positions``, ``special_tokens``, ``count_padding``, ``truncation``,
            ``min_length``); validated as in the constructor.

        Returns
        -------
        CountingConvention
            The modified copy.

        Raises
        ------
        ValueError, TypeError
            An invalid field value, or an unknown field name (TypeError).

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
            Window length, special tokens, padding rule, truncation and length filter.

        Examples
        --------
        >>> CountingConvention(16, count_padding=True).describe()
        'n=16, [CLS]/[SEP] counted, padding counted as [PAD], truncation=model'
        """
        parts = [
            f"n={self.n_positions}",
            "[CLS]/[SEP] counted" if self.special_tokens else "word pieces only",
            "padding counted as [PAD]" if self.count_padding else "position i over sequences reaching it",
        ]
        if self.special_tokens:
            parts.append(f"truncation={self.truncation}")
        if self.min_length is not None:
            parts.append(f"only sequences of length >= {self.min_length}")
        return ", ".join(parts)

    @property
    def key(self) -> str:
        """A short string identifying the convention (for cache file names)."""
        return (
            f"n{self.n_positions}-s{int(self.special_tokens)}-p{int(self.count_padding)}-{self.truncation}"
            f"-m{self.min_length or 0}"
        )


def load_tokenizer(name: str | os.PathLike = DEFAULT_MODEL):
    """Load a fast (Rust-backed) ``transformers`` tokenizer.

    Parameters
    ----------
    name : str or path, default "all-MiniLM-L6-v2"
        ``"all-MiniLM-L6-v2"`` loads the offline package's files (bert-base-uncased WordPiece vocabulary); a local
        directory or a hub id (e.g. ``"bert-base-uncased"``, needs the hub) is passed to
        ``transformers.AutoTokenizer``. See :func:`posgeom.data.resolve_model`.

    Returns
    -------
    transformers.PreTrainedTokenizerFast
        A fast tokenizer (``tokenizer.is_fast`` is True).

    Raises
    ------
    OSError
        The tokenizer cannot be loaded (e.g. a hub id while offline).
    TypeError
        The tokenizer has no fast implementation.

    Examples
    --------
    >>> tok = load_tokenizer()  # the offline all-MiniLM-L6-v2 files: no network
    >>> len(tok), tok.cls_token_id, tok.sep_token_id, tok.pad_token_id
    (30522, 101, 102, 0)
    """
    from transformers import AutoTokenizer

    resolved = resolve_model(name)
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(resolved), use_fast=True)
    except OSError as exc:
        raise OSError(
            f"could not load the tokenizer {name!r} ({exc}). Offline, use {DEFAULT_MODEL!r} or a local directory; "
            "online, check the hub model id"
        ) from exc
    if not getattr(tokenizer, "is_fast", False):
        raise TypeError(f"the tokenizer of {name!r} has no fast (Rust) implementation; batched counting needs one")
    return tokenizer


def _backend(tokenizer, n_content: int):
    """A private copy of the Rust tokenizer: no padding, truncation of the word pieces at ``n_content``."""
    from tokenizers import Tokenizer

    backend = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
    backend.no_padding()
    backend.enable_truncation(max_length=n_content)
    return backend


def _special_ids(tokenizer):
    cls_id, sep_id, pad_id = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id
    return cls_id, sep_id, pad_id


def _check_texts(texts):
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not one string; wrap it in a list")
    if not hasattr(texts, "__len__") or not hasattr(texts, "__getitem__"):
        texts = list(texts)
    if len(texts) == 0:
        raise ValueError("texts is empty: pass at least one document")
    return texts


def iter_token_sequences(texts, tokenizer, convention: CountingConvention, *, batch_size: int = 1024,
                         progress: bool = False):
    """Yield, batch by batch, the token id sequences that a convention counts.

    Parameters
    ----------
    texts : sequence of str
        The documents (not one string).
    tokenizer : transformers fast tokenizer
        E.g. from :func:`load_tokenizer`.
    convention : CountingConvention
        What is counted.
    batch_size : int, default 1024
        Texts tokenised per call of the Rust batch encoder.
    progress : bool, default False
        Show a ``tqdm`` progress bar.

    Yields
    ------
    list of 1-D int64 arrays
        The sequences of one batch, truncated to ``n`` and *not* padded (padding, when counted, is added by
        :func:`posgeom.position_counts` through its ``pad_id``). Sequences removed by ``min_length`` are left out.

    Raises
    ------
    TypeError
        ``convention`` is not a CountingConvention, ``texts`` is one string, or a text is not a string.
    ValueError
        Empty ``texts``, or special tokens requested from a tokenizer without ``[CLS]``/``[SEP]``.

    Examples
    --------
    >>> tok = load_tokenizer()
    >>> batches = iter_token_sequences(["the cat sat", "a dog"], tok, CountingConvention(4))
    >>> [s.tolist() for batch in batches for s in batch]
    [[101, 1996, 4937, 102], [101, 1037, 3899, 102]]
    """
    if not isinstance(convention, CountingConvention):
        raise TypeError(f"convention must be a CountingConvention, got {type(convention).__name__}")
    texts = _check_texts(texts)
    batch_size = check_positive_int(batch_size, "batch_size")
    n = convention.n_positions
    specials = convention.special_tokens
    cls_id, sep_id, _ = _special_ids(tokenizer)
    if specials and (cls_id is None or sep_id is None):
        raise ValueError("this tokenizer has no [CLS]/[SEP] tokens; use special_tokens=False")
    # Word pieces are truncated at n: enough to know every count below and whether the sequence reaches n.
    backend = _backend(tokenizer, n)
    encode = getattr(backend, "encode_batch_fast", backend.encode_batch)
    starts = range(0, len(texts), batch_size)
    if progress:
        from tqdm.auto import tqdm

        starts = tqdm(starts, total=len(starts), unit="batch", desc="tokenise+count")
    for start in starts:
        batch = texts[start:start + batch_size]
        if not all(isinstance(t, str) for t in batch):
            bad = next(t for t in batch if not isinstance(t, str))
            raise TypeError(f"texts must be strings, found {type(bad).__name__} {bad!r:.60}")
        encodings = encode(list(batch), add_special_tokens=False)
        out = []
        for enc in encodings:
            seq = _assemble(np.asarray(enc.ids, dtype=np.int64), convention, cls_id, sep_id)
            if seq is not None:
                out.append(seq)
        yield out


def _assemble(pieces, convention: CountingConvention, cls_id, sep_id):
    """The counted sequence built from a text's word pieces (at least ``min(L, n)`` of them), or None if dropped."""
    n = convention.n_positions
    if convention.special_tokens:
        # the full length is L + 2; pieces may be truncated at n, which is enough: any min_length <= n is decided
        # by min(L, n) + 2.
        full_len = pieces.size + 2
        if convention.truncation == "model" and pieces.size > n - 2:
            seq = np.concatenate(([cls_id], pieces[: n - 2], [sep_id]))
        else:
            seq = np.concatenate(([cls_id], pieces[: n - 1], [sep_id]))[:n]
    else:
        full_len = pieces.size
        seq = pieces[:n]
    if convention.min_length is not None and full_len < convention.min_length:
        return None
    return seq


def corpus_position_counts(texts, tokenizer, convention, *, batch_size: int = 1024, progress: bool = False,
                           **convention_fields) -> sp.csr_matrix:
    """Positional token counts of a text corpus under an explicit convention.

    Parameters
    ----------
    texts : sequence of str
        The documents.
    tokenizer : transformers fast tokenizer
        E.g. from :func:`load_tokenizer`; ``V = len(tokenizer)``.
    convention : CountingConvention or int
        The convention, or just ``n_positions`` with the other fields given as keywords
        (``special_tokens``, ``count_padding``, ``truncation``, ``min_length``; see :class:`CountingConvention`).
    batch_size : int, default 1024
        Texts tokenised per call of the Rust batch encoder.
    progress : bool, default False
        Show a ``tqdm`` progress bar.
    **convention_fields
        Fields of the convention when ``convention`` is an int (not allowed with a CountingConvention).

    Returns
    -------
    (n, V) CSR int64 matrix
        ``counts[i, v]`` = number of counted sequences with token ``v`` at position ``i``; ``V = len(tokenizer)``.
        Row sums are the number of sequences entering each position. Turn into ``mu_i`` with
        :func:`posgeom.position_distributions`.

    Raises
    ------
    ValueError
        No sequence passes the convention, or padding counted with a tokenizer without ``[PAD]``.
    TypeError
        Both a CountingConvention and keyword fields, or invalid texts.

    Examples
    --------
    >>> tok = load_tokenizer()
    >>> corpus_position_counts(["a b", "c"], tok, 4).sum(axis=1).A.ravel()
    array([2, 2, 2, 1])
    >>> corpus_position_counts(["a b", "c"], tok, 4, count_padding=True).sum(axis=1).A.ravel()
    array([2, 2, 2, 2])
    """
    convention = _as_convention(convention, convention_fields)
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
        raise ValueError(
            f"no sequence passes the convention ({convention.describe()}): lower min_length or n_positions"
        )
    total.sum_duplicates()
    return total


def corpus_incidence(texts, tokenizer, convention, *, batch_size: int = 1024, progress: bool = False,
                     **convention_fields):
    """The sequence x (position, token) incidence of a text corpus, for resampling (see :mod:`posgeom.uncertainty`).

    Same parameters and conventions as :func:`corpus_position_counts`; ``incidence.counts()`` equals its result.

    Parameters
    ----------
    texts : sequence of str
        The documents.
    tokenizer : transformers fast tokenizer
        E.g. from :func:`load_tokenizer`.
    convention : CountingConvention or int
        The convention, or ``n_positions`` with the other fields as keywords.
    batch_size : int, default 1024
        Texts tokenised per batch.
    progress : bool, default False
        Show a ``tqdm`` progress bar.
    **convention_fields
        Fields of the convention when ``convention`` is an int.

    Returns
    -------
    posgeom.corpus.SequenceIncidence
        One row per counted sequence.

    Raises
    ------
    ValueError
        No sequence passes the convention, or padding counted with a tokenizer without ``[PAD]``.
    TypeError
        Both a CountingConvention and keyword fields, or invalid texts.

    Examples
    --------
    >>> tok = load_tokenizer()
    >>> inc = corpus_incidence(["a b", "c"], tok, 4)
    >>> inc.n_sequences, (inc.counts() != corpus_position_counts(["a b", "c"], tok, 4)).nnz
    (2, 0)
    """
    from ..corpus.incidence import SequenceIncidence

    convention = _as_convention(convention, convention_fields)
    pad_id = tokenizer.pad_token_id if convention.count_padding else None
    if convention.count_padding and pad_id is None:
        raise ValueError("count_padding=True needs a tokenizer with a [PAD] token")
    parts = [
        SequenceIncidence.from_sequences(seqs, convention.n_positions, len(tokenizer), pad_id=pad_id)
        for seqs in iter_token_sequences(texts, tokenizer, convention, batch_size=batch_size, progress=progress)
        if seqs
    ]
    if not parts:
        raise ValueError(
            f"no sequence passes the convention ({convention.describe()}): lower min_length or n_positions"
        )
    return SequenceIncidence.concatenate(parts)


def _as_convention(convention, fields) -> CountingConvention:
    if isinstance(convention, CountingConvention):
        if fields:
            raise TypeError(
                f"pass either a CountingConvention or keyword fields, not both (got {sorted(fields)}); "
                "use convention.replace(...) to change fields"
            )
        return convention
    return CountingConvention(convention, **fields)


class TokenizedCorpus:
    """The word pieces of every text of a corpus (no special tokens), truncated at ``max_pieces``.

    Tokenise once, then derive the counts or the incidence of any :class:`CountingConvention` with
    ``n_positions <= max_pieces`` without re-tokenising (the special tokens, truncation, padding and length filter
    are all decided from the first ``min(L, n)`` word pieces). Stored compactly as ``indptr`` + ``ids`` (int32).

    Build it with :func:`tokenize_corpus` or :func:`cached_tokenized_corpus`.

    Parameters
    ----------
    indptr : 1-D int array of length ``m + 1``
        Text ``k`` holds ``ids[indptr[k]:indptr[k + 1]]``; starts at 0 and ends at ``len(ids)``.
    ids : 1-D int array
        The word pieces of all texts, concatenated (stored as int32).
    max_pieces : int
        Word pieces kept per text: the largest ``n_positions`` the corpus can serve.
    vocab_size : int
        Vocabulary size ``V`` of the tokenizer.
    cls_id, sep_id, pad_id : int or None
        Ids of ``[CLS]``, ``[SEP]`` and ``[PAD]`` (``None`` if the tokenizer has none).

    Raises
    ------
    ValueError
        Inconsistent ``indptr``, or non-positive sizes.

    Examples
    --------
    >>> tc = TokenizedCorpus([0, 2, 3], [7, 8, 9], max_pieces=4, vocab_size=10, cls_id=1, sep_id=2, pad_id=0)
    >>> tc, len(tc), tc.lengths
    (TokenizedCorpus(2 texts, 3 word pieces, max_pieces=4), 2, array([2, 1]))
    >>> [s.tolist() for s in tc.sequences(CountingConvention(3))]
    [[1, 7, 2], [1, 9, 2]]
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
        if not isinstance(convention, CountingConvention):
            raise TypeError(f"convention must be a CountingConvention, got {type(convention).__name__}")
        if convention.n_positions > self.max_pieces:
            raise ValueError(
                f"n_positions={convention.n_positions} exceeds max_pieces={self.max_pieces} of this tokenised corpus; "
                "re-tokenise with a larger max_pieces"
            )
        if convention.special_tokens and (self.cls_id is None or self.sep_id is None):
            raise ValueError("this tokenizer has no [CLS]/[SEP] tokens; use special_tokens=False")
        if convention.count_padding and self.pad_id is None:
            raise ValueError("count_padding=True needs a tokenizer with a [PAD] token")

    def sequences(self, convention: CountingConvention) -> list:
        """The counted sequences (unpadded int64 arrays) under ``convention``.

        Parameters
        ----------
        convention : CountingConvention
            What is counted; ``n_positions <= max_pieces``.

        Returns
        -------
        list of 1-D int64 ndarray
            One per text that passes the convention (special tokens added, truncated, not padded).

        Raises
        ------
        ValueError
            ``n_positions > max_pieces``, special tokens or padding the tokenizer lacks, or no sequence passes.
        TypeError
            ``convention`` is not a CountingConvention.

        Examples
        --------
        >>> tc = TokenizedCorpus([0, 3, 4], [7, 8, 9, 5], max_pieces=4, vocab_size=10, cls_id=1, sep_id=2, pad_id=0)
        >>> [s.tolist() for s in tc.sequences(CountingConvention(4, truncation="cut"))]
        [[1, 7, 8, 9], [1, 5, 2]]
        """
        self._check(convention)
        out = []
        for a, b in zip(self.indptr[:-1], self.indptr[1:]):
            seq = _assemble(self.ids[a:b].astype(np.int64), convention, self.cls_id, self.sep_id)
            if seq is not None:
                out.append(seq)
        if not out:
            raise ValueError(
                f"no sequence passes the convention ({convention.describe()}): lower min_length or n_positions"
            )
        return out

    def counts(self, convention: CountingConvention) -> sp.csr_matrix:
        """Position counts under ``convention`` (equal to :func:`corpus_position_counts` on the texts).

        Parameters
        ----------
        convention : CountingConvention
            What is counted; ``n_positions <= max_pieces``.

        Returns
        -------
        (n, V) CSR int64 matrix
            Counts of the tokens at each position.

        Raises
        ------
        ValueError, TypeError
            As :meth:`sequences`.

        Examples
        --------
        >>> tc = TokenizedCorpus([0, 2, 3], [7, 8, 9], max_pieces=4, vocab_size=10, cls_id=1, sep_id=2, pad_id=0)
        >>> tc.counts(CountingConvention(4, count_padding=True)).toarray()[3]
        array([1, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        """
        pad = self.pad_id if convention.count_padding else None
        return position_counts(self.sequences(convention), convention.n_positions, self.vocab_size, pad_id=pad)

    def incidence(self, convention: CountingConvention):
        """The :class:`posgeom.corpus.SequenceIncidence` under ``convention``.

        Parameters
        ----------
        convention : CountingConvention
            What is counted; ``n_positions <= max_pieces``.

        Returns
        -------
        posgeom.corpus.SequenceIncidence
            Its ``counts()`` equal :meth:`counts`.

        Raises
        ------
        ValueError, TypeError
            As :meth:`sequences`.

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
            Destination file, conventionally ending in ``.npz``.

        Examples
        --------
        >>> import tempfile
        >>> tc = TokenizedCorpus([0, 2, 3], [7, 8, 9], max_pieces=4, vocab_size=10, cls_id=1, sep_id=2, pad_id=None)
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     tc.save(Path(tmp) / "tokens.npz")
        ...     back = TokenizedCorpus.load(Path(tmp) / "tokens.npz")
        >>> back, back.pad_id
        (TokenizedCorpus(2 texts, 3 word pieces, max_pieces=4), None)
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
            An ``.npz`` file written by :meth:`save`.

        Returns
        -------
        TokenizedCorpus
            Equal to the saved one.

        Raises
        ------
        OSError, KeyError, ValueError
            An unreadable or foreign file.

        Examples
        --------
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     TokenizedCorpus([0, 1], [5], max_pieces=2, vocab_size=6, cls_id=1, sep_id=2, pad_id=0).save(
        ...         Path(tmp) / "t.npz")
        ...     TokenizedCorpus.load(Path(tmp) / "t.npz").ids
        array([5], dtype=int32)
        """
        with np.load(path, allow_pickle=False) as z:
            max_pieces, vocab_size, cls_id, sep_id, pad_id = (int(x) for x in z["meta"])
            return cls(z["indptr"], z["ids"], max_pieces=max_pieces, vocab_size=vocab_size,
                       cls_id=None if cls_id < 0 else cls_id, sep_id=None if sep_id < 0 else sep_id,
                       pad_id=None if pad_id < 0 else pad_id)


def tokenize_corpus(texts, tokenizer, max_pieces: int = 512, *, batch_size: int = 1024,
                    progress: bool = False) -> TokenizedCorpus:
    """Tokenise texts into word pieces (no special tokens), keeping the first ``max_pieces`` of each.

    Parameters
    ----------
    texts : sequence of str
        The documents.
    tokenizer : transformers fast tokenizer
        E.g. from :func:`load_tokenizer`.
    max_pieces : int, default 512
        Largest ``n_positions`` the result can serve.
    batch_size : int, default 1024
        Texts tokenised per batch.
    progress : bool, default False
        Show a ``tqdm`` progress bar.

    Returns
    -------
    TokenizedCorpus
        The first ``max_pieces`` word pieces of every text, with the tokenizer's special ids.

    Raises
    ------
    ValueError, TypeError
        Empty or invalid ``texts``, or a non-positive ``max_pieces``.

    Examples
    --------
    >>> tok = load_tokenizer()
    >>> tc = tokenize_corpus(["the cat sat", "a dog"], tok, max_pieces=8)
    >>> tc.lengths, tc.counts(CountingConvention(4)).sum(axis=1).A.ravel()
    (array([3, 2]), array([2, 2, 2, 2]))
    """
    texts = _check_texts(texts)
    max_pieces = check_positive_int(max_pieces, "max_pieces")
    conv = CountingConvention(max_pieces, special_tokens=False)
    chunks = list(iter_token_sequences(texts, tokenizer, conv, batch_size=batch_size, progress=progress))
    seqs = [s for chunk in chunks for s in chunk]
    lengths = np.fromiter((s.size for s in seqs), dtype=np.int64, count=len(seqs))
    ids = np.concatenate(seqs).astype(np.int32) if lengths.sum() else np.zeros(0, dtype=np.int32)
    cls_id, sep_id, pad_id = _special_ids(tokenizer)
    return TokenizedCorpus(np.concatenate(([0], np.cumsum(lengths))), ids, max_pieces=max_pieces,
                           vocab_size=len(tokenizer), cls_id=cls_id, sep_id=sep_id, pad_id=pad_id)


def cached_tokenized_corpus(corpus, *, model: str = DEFAULT_MODEL, max_pieces: int = 512, tokenizer=None,
                            cache: str | os.PathLike | None = None, batch_size: int = 1024,
                            progress: bool = False) -> TokenizedCorpus:
    """:func:`tokenize_corpus` of a :class:`posgeom.data.Corpus`, cached on disk and rebuilt when missing.

    Parameters
    ----------
    corpus : posgeom.data.Corpus
        The texts (with ``name`` and ``split``, used in the cache file name).
    model : str, default "all-MiniLM-L6-v2"
        Tokenizer name (part of the cache key).
    max_pieces : int, default 512
        Largest ``n_positions`` the result can serve (part of the cache key).
    tokenizer : transformers fast tokenizer, optional
        Used on a cache miss; loaded from ``model`` if not given.
    cache : path, optional
        Cache folder; default ``posgeom.data.cache_dir() / "tokens"``.
    batch_size : int, default 1024
        Texts tokenised per batch (on a cache miss).
    progress : bool, default False
        Show a ``tqdm`` progress bar (on a cache miss).

    Returns
    -------
    TokenizedCorpus
        Read from the cache, or tokenised and then written to it (a read-only cache is not an error).

    Notes
    -----
    The key hashes the texts themselves, the model name and ``max_pieces``, so a changed corpus never reads a
    stale entry. Entries are ``.npz`` files (no pickle) written atomically; an unreadable entry is rebuilt.

    Examples
    --------
    >>> import tempfile
    >>> from posgeom.data import Corpus
    >>> corpus = Corpus("toy", "train", ["a good film", "dull"], np.array([1, 0]), ["0", "1"], "memory")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     first = cached_tokenized_corpus(corpus, max_pieces=8, cache=tmp)
    ...     again = cached_tokenized_corpus(corpus, max_pieces=8, cache=tmp)  # read from the .npz entry
    ...     len(list(Path(tmp).glob("*.npz"))), again.lengths
    (1, array([3, 1]))
    """
    from .datasets import cache_dir

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
        tokenizer = load_tokenizer(model)
    result = tokenize_corpus(corpus.texts, tokenizer, max_pieces, batch_size=batch_size, progress=progress)
    try:
        result.save(path)
    except OSError:
        pass  # a read-only cache only costs recomputation
    return result
