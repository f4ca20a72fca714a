"""Determinism: the chapters' key computations, run twice with the same seeds, give identical numbers (bit for bit).

Each case below is one kind of computation the book's chapters rely on: sampling a synthetic corpus, distances and
classical MDS, SMACOF, the bootstrap, counting real text, and training a small Transformer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import posgeom as pg


def _twice(fn):
    return fn(), fn()


def test_synthetic_corpus_distances_and_mds():
    def run():
        X = pg.synthetic_corpus(500, 16, 80, rng=3, regime="smooth")
        D = pg.hellinger_distances(pg.position_distributions(pg.position_counts(X, 16, 80)))
        return X, D, pg.classical_mds(D, rank=3).embedding

    a, b = _twice(run)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)


def test_smacof_is_seeded():
    from posgeom.stress._smacof import smacof_encoding

    D = pg.hellinger_distances(pg.synthetic_distributions(12, 40, rng=1, regime="smooth"))
    a, b = _twice(lambda: smacof_encoding(D, 2, rng=7, n_init=2).embedding)
    assert np.array_equal(a, b)


def test_bootstrap_is_seeded():
    from posgeom.corpus import SequenceIncidence
    from posgeom.geometry import Resolved

    X = pg.synthetic_corpus(300, 10, 30, rng=2, regime="smooth")
    inc = SequenceIncidence.from_sequences(X, 10, 30)
    a, b = _twice(lambda: Resolved().bootstrap(inc, n_resamples=20, rng=5).replicates)
    assert np.array_equal(a, b)


def test_real_text_counts():
    from posgeom.data import CountingConvention, corpus_position_counts, load_tokenizer

    shipped = Path(__file__).resolve().parents[2] / "data" / "tiny_reviews.txt"  # 2,000 toy reviews
    texts, tok = shipped.read_text(encoding="utf-8").splitlines()[:200], load_tokenizer()
    a, b = _twice(lambda: corpus_position_counts(texts, tok, CountingConvention(16)))
    assert (a != b).nnz == 0


@pytest.mark.parametrize("scheme", ["learned", "rope", "alibi", "low_rank"])
def test_training_is_bit_identical(scheme):
    torch = pytest.importorskip("torch")
    from posgeom.nn import TransformerClassifier, seed_everything
    from posgeom.nn.training import _train_classifier

    X = np.random.default_rng(0).integers(0, 10, size=(64, 8))
    y = (X[:, 0] > X[:, -1]).astype(np.int64)

    def run():
        seed_everything(0)
        model = TransformerClassifier(10, 8, 16, 2, 1, positional=scheme, rank=2 if scheme == "low_rank" else None)
        _train_classifier(model, X, y, epochs=3, lr=1e-2, seed=0, batch_size=16)
        return torch.cat([p.detach().flatten() for p in model.parameters()])

    a, b = _twice(run)
    assert torch.equal(a, b)
