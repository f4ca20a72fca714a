"""Source-sentence groups of a corpus of phrases, by hashing word runs (the relation is stated in
:meth:`posgeom.data.Corpus.source_groups`)."""
from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from .._validation import check_positive_int
from ._tokens import check_texts

# Texts of at least this many words are found inside others through their first _ANCHOR words (one lookup per word
# of the corpus); shorter texts through every run of their length (one lookup per word and per such length).
_ANCHOR = 4
_BASE = np.uint64(0x9E3779B97F4A7C15)  # odd, so invertible modulo 2**64
_BASE_INV = np.uint64(pow(int(_BASE), -1, 1 << 64))


def _words(texts: list[str]):
    """Flat word ids (mixed to 64 bits), their ids, and the text offsets of whitespace-split texts."""
    vocab: dict[str, int] = {}
    ids: list[int] = []
    lengths = np.empty(len(texts), dtype=np.int64)
    for k, t in enumerate(texts):
        words = t.split()
        lengths[k] = len(words)
        ids.extend([vocab.setdefault(w, len(vocab)) for w in words])
    ids = np.asarray(ids, dtype=np.int64)
    with np.errstate(over="ignore"):
        x = (ids.astype(np.uint64) + np.uint64(1)) * np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(31)
    return x, ids, np.concatenate(([0], np.cumsum(lengths))), lengths


class _SpanHash:
    """Polynomial hashes (mod 2**64) of any run ``w[s:e]`` of the flat word array in O(1) each."""

    def __init__(self, x):
        with np.errstate(over="ignore"):
            size = x.size + 1
            self.pow = np.cumprod(np.full(size, _BASE, dtype=np.uint64)) * _BASE_INV
            inv = np.cumprod(np.full(size, _BASE_INV, dtype=np.uint64)) * _BASE
            self.prefix = np.concatenate(([np.uint64(0)], np.cumsum(x * inv[:-1], dtype=np.uint64)))

    def __call__(self, start, stop):
        with np.errstate(over="ignore"):
            return (self.prefix[stop] - self.prefix[start]) * self.pow[stop - 1]


def _containment(texts: list[str], min_shared: int):
    """Distinct-text index, words per text, pairs (a, b) of distinct texts, a a run of b; opening class per text."""
    seen: dict[str, int] = {}
    canon = np.fromiter((seen.setdefault(" ".join(t.split()), k) for k, t in enumerate(texts)), dtype=np.int64,
                        count=len(texts))
    x, ids, off, lengths = _words(texts)
    span = _SpanHash(x)
    distinct = np.flatnonzero((canon == np.arange(len(texts))) & (lengths > 0))
    full = span(off[distinct], off[distinct + 1])
    owner = np.repeat(np.arange(len(texts)), lengths)  # text of every flat word
    end = off[owner + 1]
    pairs_a, pairs_s = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]

    def join(keys_sorted, order, starts, hashes):
        lo = np.searchsorted(keys_sorted, hashes, side="left")
        hi = np.searchsorted(keys_sorted, hashes, side="right")
        hits = hi - lo
        occ = np.repeat(np.arange(hashes.size), hits)
        rank = np.arange(occ.size) - np.repeat(np.cumsum(hits) - hits, hits)
        return order[lo[occ] + rank], starts[occ]
    short = distinct[lengths[distinct] < _ANCHOR]
    for ell in np.unique(lengths[short]):
        cand = short[lengths[short] == ell]
        h = full[np.searchsorted(distinct, cand)]
        order = np.argsort(h, kind="stable")
        starts = np.flatnonzero(np.arange(x.size) + ell <= end)
        a, s = join(h[order], cand[order], starts, span(starts, starts + ell))
        pairs_a.append(a)
        pairs_s.append(s)
    long = distinct[lengths[distinct] >= _ANCHOR]
    if long.size:
        anchor = span(off[long], off[long] + _ANCHOR)
        order = np.argsort(anchor, kind="stable")
        starts = np.flatnonzero(np.arange(x.size) + _ANCHOR <= end)
        a, s = join(anchor[order], long[order], starts, span(starts, starts + _ANCHOR))
        fits = s + lengths[a] <= end[s]
        a, s = a[fits], s[fits]
        same = span(s, s + lengths[a]) == full[np.searchsorted(distinct, a)]
        pairs_a.append(a[same])
        pairs_s.append(s[same])
    a = np.concatenate(pairs_a)
    s = np.concatenate(pairs_s)
    b = owner[s]
    keep = canon[b] == b
    keep &= a != b
    a, b, s = a[keep], b[keep], s[keep]
    # word-by-word check of every hash match (a collision would otherwise join two texts)
    n_words = lengths[a]
    rank = np.arange(n_words.sum()) - np.repeat(np.cumsum(n_words) - n_words, n_words)
    differs = ids[np.repeat(off[a], n_words) + rank] != ids[np.repeat(s, n_words) + rank]
    bad = np.repeat(np.arange(a.size), n_words)[differs]
    ok = np.ones(a.size, dtype=bool)
    ok[bad] = False
    key = np.unique(a[ok] * len(texts) + b[ok])
    opens = np.flatnonzero(lengths >= min_shared)
    _, opening = np.unique(ids[off[opens][:, None] + np.arange(min_shared)], axis=0, return_inverse=True)
    return canon, lengths, key // len(texts), key % len(texts), opens, opening.ravel()


def source_groups(texts, *, min_shared: int) -> np.ndarray:
    """Group id of every text (numbered by first appearance) under the relation of ``Corpus.source_groups``."""
    texts = list(check_texts(texts))
    for k, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"texts must be strings; texts[{k}] is {type(t).__name__} {t!r:.60}")
    min_shared = check_positive_int(min_shared, "min_shared")
    m = len(texts)
    canon, lengths, a, b, opens, opening = _containment(texts, min_shared)
    contained = np.zeros(m, dtype=bool)
    contained[a] = True
    root = (canon == np.arange(m)) & ~contained & (lengths > 0)
    to_root = root[b]
    a, b = a[to_root], b[to_root]
    n_roots = np.bincount(a, minlength=m)
    tie = (n_roots[a] == 1) | (lengths[a] >= min_shared)
    # nodes: the m texts, then one node per opening of min_shared words
    rows = np.concatenate((a[tie], np.arange(m), opens))
    cols = np.concatenate((b[tie], np.where(lengths > 0, canon, np.arange(m)), m + opening))
    size = m + (opening.max() + 1 if opening.size else 0)
    graph = coo_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(size, size))
    _, label = connected_components(graph, directed=False)
    _, first, label = np.unique(label[:m], return_index=True, return_inverse=True)
    rename = np.empty(first.size, dtype=np.int64)
    rename[label[np.sort(first)]] = np.arange(first.size)
    return rename[label]
