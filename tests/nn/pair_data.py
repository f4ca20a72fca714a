"""The small ordered-pair task the training tests share (``test_fit``, ``test_ensemble``)."""

from __future__ import annotations

import numpy as np


def pair_data(n=48, length=6, vocab=8, seed=0, per_token=False, padded=False):
    """Token 0 and token 1 at two random positions of ``n`` sequences; the label says whether 0 comes first.

    ``per_token`` gives per-token labels (``-100`` where ignored), ``padded`` a padding mask; returns ``(X, y)`` or
    ``(X, y, mask)``."""
    rng = np.random.default_rng(seed)
    X = rng.integers(2, vocab, size=(n, length))
    a, b = rng.integers(0, length, size=(2, n))
    b = np.where(a == b, (b + 1) % length, b)
    X[np.arange(n), a], X[np.arange(n), b] = 0, 1
    y = (a < b).astype(np.int64)
    if per_token:
        y = np.where(rng.random((n, length)) < 0.3, X % 4, -100)
        y[:, 0] = X[:, 0] % 4
    mask = None
    if padded:
        lengths = rng.integers(2, length + 1, size=n)
        mask = np.arange(length)[None, :] >= lengths[:, None]
    return (X, y) if mask is None else (X, y, mask)
