"""Bootstrap intervals for the stress of one encoding against a corpus's Hellinger distances.

:func:`bootstrap_stress` resamples whole sequences (:func:`posgeom.geometry.bootstrap_statistic`), recomputes the
distances and evaluates the stress of an encoding, of the distances a relative scheme induces, or of an encoding
refitted on every resample. The caller says which with ``kind``: an ``n x n`` encoding is also square, so the shape
cannot tell. For whole tables of encodings use :func:`posgeom.stress.stress_table`.
"""

from __future__ import annotations

from .._validation import check_distance_matrix
from ..corpus.incidence import _as_incidence
from ..geometry.euclidean import pairwise_distances
from ..geometry.noise import BootstrapResult, bootstrap_statistic
from .core import stress_of_distances

__all__ = [
    "bootstrap_stress",
]


_KINDS = ("encoding", "distances")


def _induced_distances(encoding_or_distances, kind, n):
    X = encoding_or_distances
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS} (say whether the array is an encoding or distances), "
                         f"got {kind!r}")
    if kind == "distances":
        E = check_distance_matrix(X, "distances")
    else:
        E = pairwise_distances(X)
    if E.shape != (n, n):
        raise ValueError(
            f"the encoding/distances describe {E.shape[0]} positions but the corpus statistics have n={n}; "
            "use the same number of positions"
        )
    return E


def bootstrap_stress(encoding_or_distances, data, *, rng, kind: str, scale: str = "raw",
                     n_boot: int = 200, confidence: float = 0.95, n_positions: int | None = None,
                     vocab_size: int | None = None, pad_id: int | None = None) -> BootstrapResult:
    """Bootstrap confidence interval for the stress of an encoding against the corpus's Hellinger distances.

    Parameters
    ----------
    encoding_or_distances : (n, d) array, (n, n) distance array, or callable
        An encoding ``P`` (rows = positions), the distances ``E`` it induces (for relative schemes), or a callable
        ``D -> P or E`` that is *refitted* on every resample (e.g. ``lambda D: classical_mds(D, rank=3).embedding``)
        so that the interval includes the fitting noise.
    data : SequenceIncidence, or token id sequences
        The corpus; with sequences also pass ``n_positions`` and ``vocab_size`` (and ``pad_id`` to count padding).
        ``mu_i`` is the plug-in distribution of the sequences reaching position ``i``; ``D`` is its Hellinger matrix
        (``d_H^2 = 1 - BC``).
    rng : int or numpy.random.Generator
        Seed of the resampling (required, keyword-only).
    scale : {"raw", "optimal"}, default "raw"
        Raw or scale-optimal stress, as in :func:`posgeom.stress_of_distances`.
    kind : {"encoding", "distances"}
        How to read the array (or what the callable returns): an encoding's rows are positions, distances are an
        ``n x n`` matrix. Required: an ``n x n`` encoding (``d = n``) is also a square array, so the shape cannot tell.
    n_boot : int, default 200
        Number of resamples of the sequences (``>= 2``).
    confidence : float, default 0.95
        Coverage of the percentile interval.
    n_positions : int, optional
        Number of positions ``n`` (token id sequences only).
    vocab_size : int, optional
        Vocabulary size ``V`` (token id sequences only).
    pad_id : int, optional
        Count padding with this id (token id sequences only).

    Returns
    -------
    BootstrapResult
        Scalar ``estimate`` and ``(n_boot,)`` samples of the stress.

    Raises
    ------
    ValueError
        Unknown ``kind`` or ``scale``, an encoding for a different number of positions, or a resample that leaves a
        position without observations.
    TypeError
        ``n_positions``/``vocab_size`` missing for sequences, or passed with a ``SequenceIncidence``.

    Examples
    --------
    >>> from posgeom.corpus import synthetic_corpus
    >>> from posgeom.encodings import sinusoidal_encoding
    >>> X = synthetic_corpus(100, 4, 10, rng=0)
    >>> res = bootstrap_stress(sinusoidal_encoding(4, 4), X, rng=0, kind="encoding", scale="optimal", n_boot=10,
    ...                        n_positions=4, vocab_size=10)
    >>> res.samples.shape, 0.0 <= res.estimate <= 1.0
    ((10,), True)
    """
    inc = _as_incidence(data, n_positions, vocab_size, pad_id)
    n = inc.n_positions
    if callable(encoding_or_distances):
        fit = encoding_or_distances

        def statistic(D):
            return stress_of_distances(_induced_distances(fit(D), kind, n), D, scale=scale)
    else:
        E = _induced_distances(encoding_or_distances, kind, n)

        def statistic(D):
            return stress_of_distances(E, D, scale=scale)

    return bootstrap_statistic(inc, statistic, rng=rng, n_boot=n_boot, confidence=confidence)
