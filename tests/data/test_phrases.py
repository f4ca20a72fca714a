"""Tests of Corpus.source_groups (source sentences of a phrase corpus) and TokenizedCorpus.kept."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from posgeom.data import load_imdb, load_sst2
from posgeom.data.datasets import Corpus

MIRROR = Path(os.environ.get("POSGEOM_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")
has_mirror = pytest.mark.skipif(
    not (MIRROR / "SST-2.zip").is_file(), reason="corpus mirror not available (set POSGEOM_DATA)"
)


def _corpus(texts) -> Corpus:
    return Corpus("toy", "train", list(texts), np.zeros(len(texts), dtype=np.int64), [str(k) for k in
                                                                                        range(len(texts))], "memory")


def _same_partition(a, b) -> bool:
    """Two labellings define the same partition."""
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def _phrases(words, gen, keep):
    """The constituents of a random binary bracketing of ``words`` (each non-root kept with probability ``keep``)."""
    out = [" ".join(words)]

    def split(lo, hi):
        if hi - lo < 2:
            return
        cut = int(gen.integers(lo + 1, hi))
        for a, b in ((lo, cut), (cut, hi)):
            if gen.random() < keep:
                out.append(" ".join(words[a:b]))
            split(a, b)

    split(0, len(words))
    return out


def _phrase_corpus(n_sentences, *, rng, keep=0.7, n_duplicates=20):
    """Phrases of ``n_sentences`` sentences over disjoint words, shuffled, with exact duplicates; and their sentence."""
    gen = np.random.default_rng(rng)
    texts, source = [], []
    for s in range(n_sentences):
        words = [f"w{s}_{k}" for k in range(int(gen.integers(3, 30)))]
        phrases = _phrases(words, gen, keep)
        texts += phrases
        source += [s] * len(phrases)
    for k in gen.choice(len(texts), n_duplicates, replace=False):
        texts.append(texts[k])
        source.append(source[k])
    order = gen.permutation(len(texts))
    return [texts[k] for k in order], np.asarray(source)[order]


def test_phrases_of_known_sentences_recover_the_sentences_exactly():
    texts, source = _phrase_corpus(300, rng=0)
    groups = _corpus(texts).source_groups()
    assert groups.dtype == np.int64 and groups.shape == (len(texts),)
    assert _same_partition(groups, source)
    assert groups[0] == 0 and np.all(np.diff(np.maximum.accumulate(groups)) <= 1)  # numbered by first appearance


def test_groups_do_not_depend_on_the_order_of_the_texts():
    texts, _ = _phrase_corpus(100, rng=1)
    groups = _corpus(texts).source_groups()
    order = np.random.default_rng(2).permutation(len(texts))
    again = _corpus([texts[k] for k in order]).source_groups()
    assert _same_partition(groups[order], again)


def test_unrelated_sentences_are_not_merged():
    """Negative control: independent sentences, some sharing stock phrases shorter than min_shared, stay apart."""
    gen = np.random.default_rng(3)
    stock = "one of the year 's best"  # 6 words, itself a text, held by three sentences
    sentences = [" ".join(gen.choice([f"v{k}" for k in range(5000)], size=12)) for _ in range(200)]
    sentences[:3] = [f"a {stock} films", f"surely {stock} and worst", f"{stock} of all ."]
    texts = sentences + [stock, "of the", "the"]
    groups = _corpus(texts).source_groups()
    assert np.unique(groups).size == len(texts)
    tied = _corpus(texts).source_groups(min_shared=6)
    assert np.unique(tied[[0, 1, 2, 200]]).size == 1 and np.unique(tied).size == len(texts) - 3  # 6 words tie


def test_shared_opening_ties_copies_with_another_ending_and_only_from_min_shared_words():
    opening = "when reno lets her radical flag fly taking angry potshots"
    texts = [f"{opening} at bush , et al .", f"{opening} at bush and devolves .", "another sentence entirely ."]
    assert _corpus(texts).source_groups().tolist() == [0, 0, 1]
    seven = "a b c d e f g"
    assert _corpus([f"{seven} h i", f"{seven} x y"]).source_groups().tolist() == [0, 1]
    assert _corpus([f"{seven} h i", f"{seven} x y"]).source_groups(min_shared=7).tolist() == [0, 0]


def test_duplicates_and_texts_with_no_words():
    groups = _corpus(["good", "good", "", "  ", "bad film", "good"]).source_groups()
    assert groups.tolist() == [0, 0, 1, 2, 3, 0]
    assert _corpus(["", ""]).source_groups().tolist() == [0, 1] and _corpus(["one"]).source_groups().tolist() == [0]


@pytest.mark.parametrize(
    ("texts", "error", "match"),
    [
        ("one text", TypeError, "not one string"),
        ([], ValueError, "empty"),
        (["fine", 3], TypeError, r"texts\[1\] is int"),
        (["fine", None], TypeError, "NoneType"),
        (5, TypeError, "sequence of strings, got int"),
    ],
)
def test_bad_texts_get_a_clear_error(texts, error, match):
    from posgeom.data._phrases import source_groups

    with pytest.raises(error, match=match):
        source_groups(texts, min_shared=8)


@pytest.mark.parametrize("min_shared", [0, -1, 2.5, "8"])
def test_bad_min_shared_is_refused(min_shared):
    with pytest.raises((TypeError, ValueError), match="min_shared"):
        _corpus(["a b", "a"]).source_groups(min_shared=min_shared)


@has_mirror
@pytest.mark.slow
def test_sst2_phrases_form_groups_and_imdb_reviews_do_not(monkeypatch):
    """SST-2's phrases share groups far more than a word-shuffled copy does; IMDB's reviews are tied only as copies."""
    monkeypatch.setenv("POSGEOM_DATA", str(MIRROR))
    sst2 = load_sst2("train")
    start = time.perf_counter()
    groups = sst2.source_groups()
    assert time.perf_counter() - start < 30  # seconds: the whole training set takes about 2 on one core
    gen = np.random.default_rng(4)
    shuffled = _corpus([" ".join(gen.permutation(t.split())) for t in sst2.texts]).source_groups()
    assert np.mean(np.bincount(groups)[groups] > 1) > 2 * np.mean(np.bincount(shuffled)[shuffled] > 1)
    imdb = load_imdb("train")
    groups = imdb.source_groups()
    for g in np.flatnonzero(np.bincount(groups) > 1):
        members = [imdb.texts[k].split() for k in np.flatnonzero(groups == g)]
        for words in members:  # no review is a phrase of another: each is a copy or shares its opening
            assert sum(w == words or w[:8] == words[:8] for w in members) >= 2


@pytest.mark.parametrize(
    "options",
    [{}, {"special_tokens": False}, {"min_length": 5}, {"special_tokens": False, "count_padding": True},
     {"truncation": "cut", "min_length": 3}],
)
def test_kept_names_the_text_of_every_incidence_row(options):
    from posgeom.data import CountingConvention
    from posgeom.data.text import TokenizedCorpus

    gen = np.random.default_rng(5)
    lengths = gen.integers(0, 7, size=40)
    ids = gen.integers(3, 20, size=lengths.sum())
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    tokens = TokenizedCorpus(indptr, ids, max_pieces=6, vocab_size=20, cls_id=1, sep_id=2, pad_id=0)
    convention = CountingConvention(6, **options)
    kept = tokens.kept(convention)
    inc = tokens.incidence(convention)
    assert kept.size == inc.n_sequences and np.all(np.diff(kept) > 0)
    sub = TokenizedCorpus(np.concatenate(([0], np.cumsum(lengths[kept]))),
                          np.concatenate([ids[indptr[k]:indptr[k + 1]] for k in kept]), max_pieces=6,
                          vocab_size=20, cls_id=1, sep_id=2, pad_id=0)
    assert np.array_equal(sub.incidence(convention).lengths, inc.lengths)
    assert (sub.counts(convention) != tokens.counts(convention)).nnz == 0
