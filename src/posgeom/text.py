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

Counting streams over the corpus in batches of ``batch_size`` texts and adds the sparse per-batch counts of
:func:`posgeom.position_counts` (counts are additive), so the tokenised corpus is never held in memory at once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._validation import check_positive_int
from .pretrained import DEFAULT_MODEL, resolve_model
from .statistics import position_counts

__all__ = [
    "CountingConvention",
    "load_tokenizer",
    "iter_token_sequences",
    "corpus_position_counts",
    "corpus_incidence",
    "cached_corpus_counts",
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

    def replace(self, **changes) -> "CountingConvention":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def describe(self) -> str:
        """A one-line human-readable statement of the convention."""
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
        ``transformers.AutoTokenizer``. See :func:`posgeom.pretrained.resolve_model`.

    Returns
    -------
    transformers.PreTrainedTokenizerFast
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
    tokenizer : transformers fast tokenizer
        E.g. from :func:`load_tokenizer`.
    convention : CountingConvention
    batch_size : int, default 1024
        Texts tokenised per call of the Rust batch encoder.
    progress : bool, default False
        Show a ``tqdm`` progress bar.

    Yields
    ------
    list of 1-D int64 arrays
        The sequences of one batch, truncated to ``n`` and *not* padded (padding, when counted, is added by
        :func:`posgeom.position_counts` through its ``pad_id``). Sequences removed by ``min_length`` are left out.
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
            pieces = np.asarray(enc.ids, dtype=np.int64)  # at most n word pieces
            if specials:
                # full (untruncated) length is len(word pieces) + 2; pieces may already be truncated at n, which
                # is enough: every min_length <= n is decided by min(L, n) + 2.
                full_len = pieces.size + 2
                if convention.truncation == "model" and pieces.size > n - 2:
                    seq = np.concatenate(([cls_id], pieces[: n - 2], [sep_id]))
                else:
                    seq = np.concatenate(([cls_id], pieces, [sep_id]))[:n]
            else:
                full_len = pieces.size
                seq = pieces
            if convention.min_length is not None and full_len < convention.min_length:
                continue
            out.append(seq)
        yield out


def corpus_position_counts(texts, tokenizer, convention, *, batch_size: int = 1024, progress: bool = False,
                           **convention_fields) -> sp.csr_matrix:
    """Positional token counts of a text corpus under an explicit convention.

    Parameters
    ----------
    texts : sequence of str
    tokenizer : transformers fast tokenizer
    convention : CountingConvention or int
        The convention, or just ``n_positions`` with the other fields given as keywords
        (``special_tokens``, ``count_padding``, ``truncation``, ``min_length``; see :class:`CountingConvention`).
    batch_size : int, default 1024
    progress : bool, default False
        Show a ``tqdm`` progress bar.

    Returns
    -------
    (n, V) CSR int64 matrix
        ``counts[i, v]`` = number of counted sequences with token ``v`` at position ``i``; ``V = len(tokenizer)``.
        Row sums are the number of sequences entering each position. Turn into ``mu_i`` with
        :func:`posgeom.position_distributions`.

    Examples
    --------
    >>> tok = load_tokenizer()  # doctest: +SKIP
    >>> corpus_position_counts(["a b", "c"], tok, 4).sum(axis=1).A.ravel()  # doctest: +SKIP
    array([2, 2, 2, 1])
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

    Returns
    -------
    posgeom.uncertainty.SequenceIncidence
    """
    from .uncertainty import SequenceIncidence

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


def cached_corpus_counts(corpus, convention: CountingConvention, *, tokenizer=None, model: str = DEFAULT_MODEL,
                         limit: int | None = None, cache: str | os.PathLike | None = None,
                         incidence: bool = False, batch_size: int = 1024, progress: bool = False):
    """Counts (or incidence) of a :class:`posgeom.datasets.Corpus`, cached on disk and rebuilt when missing.

    Parameters
    ----------
    corpus : posgeom.datasets.Corpus
    convention : CountingConvention
    tokenizer : transformers fast tokenizer, optional
        Loaded from ``model`` when needed (only on a cache miss).
    model : str, default "all-MiniLM-L6-v2"
        Tokenizer name, part of the cache key.
    limit : int, optional
        Use only the first ``limit`` texts (a stated subset).
    cache : path, optional
        Cache folder; default ``posgeom.datasets.cache_dir() / "counts"``.
    incidence : bool, default False
        Return the :class:`~posgeom.uncertainty.SequenceIncidence` instead of the counts.

    Returns
    -------
    (n, V) CSR matrix, or SequenceIncidence.

    Notes
    -----
    The cache key hashes the corpus texts themselves (plus the model name, the convention and ``limit``), so a
    different corpus version never reads a stale entry. Entries are ``.npz`` files written atomically.
    """
    from .datasets import cache_dir
    from .uncertainty import SequenceIncidence

    if not isinstance(convention, CountingConvention):
        raise TypeError(f"convention must be a CountingConvention, got {type(convention).__name__}")
    texts = corpus.texts if limit is None else corpus.texts[: check_positive_int(limit, "limit")]
    digest = hashlib.sha256()
    for t in texts:
        digest.update(t.encode("utf-8"))
        digest.update(b"\x00")
    tag = f"{corpus.name}-{corpus.split}-{len(texts)}-{digest.hexdigest()[:12]}-{convention.key}"
    tag += f"-{hashlib.sha256(str(model).encode()).hexdigest()[:8]}"
    folder = Path(cache) if cache is not None else cache_dir() / "counts"
    path = folder / f"{tag}.npz"
    if path.is_file():
        try:
            inc = SequenceIncidence.load(path)
            return inc if incidence else inc.counts()
        except (OSError, ValueError, KeyError):
            pass  # unreadable entry: rebuild
    if tokenizer is None:
        tokenizer = load_tokenizer(model)
    inc = corpus_incidence(texts, tokenizer, convention, batch_size=batch_size, progress=progress)
    try:
        inc.save(path)
    except OSError:
        pass  # a read-only cache only costs recomputation
    return inc if incidence else inc.counts()
