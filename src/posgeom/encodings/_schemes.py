"""Private (used by :mod:`posgeom.stress.candidates` and :mod:`posgeom.nn`). The positional schemes of the book by
name, and the one distance each induces between positions.

Every chapter that compares schemes by stress (Chapter 7's tables, Chapter 9's runs, ``posgeom report``) calls
:func:`induced_distances`, so one convention holds throughout the book:

**Convention.** The induced distance between positions ``i`` and ``j`` is the Euclidean distance between the
positional signals the *whole model* receives at ``i`` and at ``j``, summed over its heads:

* ``"sinusoidal"``: ``||p_i - p_j||`` for the sinusoidal encoding of width ``d_model``;
* ``"rope"``: every head rotates a vector with unit 2-D blocks at its own width ``d_head = d_model / n_heads``, so
  the concatenated rotated vectors are at distance ``sqrt(n_heads) * _rope_distances(n, d_head)``; this has the
  same scale as the sinusoid (both signals have norm ``sqrt(d_model / 2)``);
* ``"alibi"``: head ``h`` adds ``-m_h |i - j|``; the vector of biases over heads changes by ``||m|| |i - j|``, with
  ``m`` the slopes of :func:`alibi_slopes` for ``n_heads`` heads;
* ``"t5"``: ``bucket(|i - j|)`` with 32 buckets and maximum distance 128 (one bias per bucket);
* ``"none"``: all zeros (every position is the same point);
* ``"learned"``, ``"fixed"``, ``"low_rank"``: ``||p_i - p_j||`` of the given ``encoding`` (rows = positions).

Raw stress depends on these scales; scale-optimal stress does not (see :mod:`posgeom.stress`).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_matrix, check_positive_int
from ..geometry.euclidean import pairwise_distances
from ._relative import _alibi_distances, _rope_distances, _t5_bucket_distances, alibi_slopes
from .absolute import sinusoidal_encoding

__all__ = ["SCHEMES", "induced_distances"]

#: The positional schemes of the book's small Transformers (:class:`posgeom.nn.TransformerClassifier`).
SCHEMES = ("none", "sinusoidal", "learned", "rope", "alibi", "fixed", "low_rank")
#: Schemes whose distances come from a given encoding matrix.
_ENCODING_SCHEMES = ("learned", "fixed", "low_rank")
#: Every name :func:`induced_distances` accepts: the model schemes and T5's buckets.
_INDUCED_SCHEMES = SCHEMES + ("t5",)


def induced_distances(scheme: str, n_positions: int, *, d_model: int, n_heads: int, base: float = 10000.0,
                      encoding: str=None) -> np.ndarray:
    """The distance a positional scheme induces between positions ``0..n-1`` (the module's convention)."""
    if scheme not in _INDUCED_SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {_INDUCED_SCHEMES}")
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    if (encoding is not None) != (scheme in _ENCODING_SCHEMES):
        raise ValueError(f"encoding= is required for the schemes {_ENCODING_SCHEMES} and rejected for the others "
                         f"(scheme {scheme!r})")
    if scheme == "none":
        return np.zeros((n, n))
    if scheme == "sinusoidal":
        return pairwise_distances(sinusoidal_encoding(n, d_model, base=base))
    if scheme == "rope":
        if d_model % n_heads or (d_model // n_heads) % 2:
            raise ValueError(f"RoPE needs an even head width, but d_model={d_model} / n_heads={n_heads} is not an "
                             "even integer; change d_model or n_heads")
        return np.sqrt(n_heads) * _rope_distances(n, d_model // n_heads, base=base)
    if scheme == "alibi":
        return _alibi_distances(n, slope=float(np.linalg.norm(alibi_slopes(n_heads))))
    if scheme == "t5":
        return _t5_bucket_distances(n)
    if hasattr(encoding, "detach"):  # a torch tensor, converted without importing torch here
        encoding = encoding.detach().cpu().numpy()
    P = check_matrix(encoding, "encoding", min_rows=n)
    return pairwise_distances(P[:n])
