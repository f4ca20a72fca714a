"""Private (used by :mod:`posgeom.stress.candidates` and :mod:`posgeom.nn`): the book's positional schemes by name,
and the one distance each induces between positions (:func:`induced_distances`).

**Convention.** The induced distance between positions ``i`` and ``j`` is the Euclidean distance between the
positional signals the whole model receives at ``i`` and at ``j``, over all its heads:

* ``"sinusoidal"``: ``||p_i - p_j||`` for the sinusoidal encoding of width ``d_model``;
* ``"rope"``: each head rotates a vector of unit 2-D blocks at ``d_head = d_model / n_heads``, so the distance is
  ``sqrt(n_heads) * _rope_distances(n, d_head)``, the sinusoid's scale (both signals have norm ``sqrt(d_model / 2)``);
* ``"alibi"``: head ``h`` adds ``-m_h |i - j|``, so the biases over heads change by ``||m|| |i - j|`` (rank 1; its
  scale-optimal stress does not depend on the slopes);
* ``"t5"``: ``bucket(|i - j|)`` with 32 buckets and maximum distance 128 (one bias per bucket).

Raw stress depends on these scales; scale-optimal stress does not.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_positive_int
from ..geometry.euclidean import pairwise_distances
from ._relative import _alibi_distances, _rope_distances, _t5_bucket_distances, alibi_slopes
from .absolute import sinusoidal_encoding

__all__ = ["SCHEMES", "induced_distances"]

#: The positional schemes of the book's small Transformers (:class:`posgeom.nn.TransformerClassifier`).
SCHEMES = ("none", "sinusoidal", "learned", "rope", "alibi", "fixed", "low_rank")
_INDUCED_SCHEMES = ("sinusoidal", "rope", "alibi", "t5")


def induced_distances(scheme: str, n_positions: int, *, d_model: int, n_heads: int,
                      base: float = 10000.0) -> np.ndarray:
    """The distance a positional scheme induces between positions ``0..n-1`` (the module's convention)."""
    if scheme not in _INDUCED_SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {_INDUCED_SCHEMES}")
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    if scheme == "sinusoidal":
        return pairwise_distances(sinusoidal_encoding(n, d_model, base=base))
    if scheme == "rope":  # the caller checks that d_model / n_heads is an even integer
        return np.sqrt(n_heads) * _rope_distances(n, d_model // n_heads, base=base)
    if scheme == "alibi":
        return _alibi_distances(n, slope=float(np.linalg.norm(alibi_slopes(n_heads))))
    return _t5_bucket_distances(n)
