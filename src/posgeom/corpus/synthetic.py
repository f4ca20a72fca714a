"""Synthetic corpora whose positional statistics ``mu_i`` are known exactly (indexed in ``posgeom.corpus``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .incidence import SequenceIncidence

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_distributions, check_positive_int, check_rng

__all__ = ["sample_sequences", "REGIMES", "synthetic_distributions", "synthetic_corpus", "zipf_distributions",
           "sample_texts"]

REGIMES = ("stationary", "smooth", "abrupt")


def _mixture_weights(n: int, n_topics: int, regime: str, bandwidth: float) -> np.ndarray:
    if regime == "stationary":
        return np.full((n, n_topics), 1.0 / n_topics)
    if regime == "smooth":
        if not (np.isfinite(bandwidth) and bandwidth > 0):
            raise ValueError(f"bandwidth must be a positive number, got {bandwidth}")
        centres = np.linspace(0, n - 1, n_topics)
        logits = -((np.arange(n)[:, None] - centres[None, :]) ** 2) / (2 * (bandwidth * n) ** 2)
        w = np.exp(logits - logits.max(axis=1, keepdims=True))
        return w / w.sum(axis=1, keepdims=True)
    if regime == "abrupt":
        if n_topics > n:
            raise ValueError(f"the abrupt regime needs n_topics <= n_positions, got {n_topics} > {n}")
        block = (np.arange(n) * n_topics) // n
        return np.eye(n_topics)[block]
    raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}")


def synthetic_distributions(n_positions: int, vocab_size: int, *, rng: int | np.random.Generator,
                            regime: str = "smooth", n_topics: int = 4, bandwidth: float = 0.15,
                            topic_concentration: float = 0.1) -> np.ndarray:
    """The exact positional distributions ``mu_i`` (n x V) of the synthetic model.

    ``mu_i = sum_k w_ik beta_k``, topics ``beta_k ~ Dirichlet(topic_concentration)``; ``w_ik`` uniform
    (``"stationary"``), ``∝ exp(-(i - c_k)^2 / (2 (bandwidth n)^2))`` with evenly spaced ``c_k`` (``"smooth"``), or
    one topic per contiguous block of positions (``"abrupt"``).

    Parameters
    ----------
    n_positions, vocab_size : int
    rng : int or numpy.random.Generator
    regime : {"stationary", "smooth", "abrupt"}, default "smooth"
    n_topics : int, default 4
    bandwidth, topic_concentration : float, default 0.15 and 0.1

    Returns
    -------
    (n, V) float ndarray

    Examples
    --------
    >>> synthetic_distributions(4, 6, rng=0, regime="abrupt", n_topics=2).shape
    (4, 6)
    """
    n = check_positive_int(n_positions, "n_positions")
    rng = check_rng(rng)
    V = check_positive_int(vocab_size, "vocab_size", minimum=2)
    K = check_positive_int(n_topics, "n_topics")
    if not (np.isfinite(topic_concentration) and topic_concentration > 0):
        raise ValueError(f"topic_concentration must be a positive number, got {topic_concentration}")
    weights = _mixture_weights(n, K, regime, float(bandwidth))
    topics = rng.dirichlet(np.full(V, float(topic_concentration)), size=K)
    mu = weights @ topics
    return mu / mu.sum(axis=1, keepdims=True)


def synthetic_corpus(n_sequences: int, n_positions: int, vocab_size: int, *, rng: int | np.random.Generator,
                     regime: str = "smooth", n_topics: int = 4, bandwidth: float = 0.15,
                     topic_concentration: float = 0.1) -> np.ndarray:
    """Token id sequences sampled from the synthetic positional model.

    One stream draws the distributions, then the tokens: for an int seed ``s``, ``synthetic_distributions(...,
    rng=s)`` gives the exact ``mu_i`` of ``synthetic_corpus(..., rng=s)``.

    Parameters
    ----------
    n_sequences, n_positions, vocab_size : int
    rng : int or numpy.random.Generator
    regime, n_topics, bandwidth, topic_concentration
        As in ``synthetic_distributions``.

    Returns
    -------
    (n_sequences, n_positions) int64 ndarray

    Examples
    --------
    >>> synthetic_corpus(3, 5, 10, rng=0).shape
    (3, 5)
    """
    m = check_positive_int(n_sequences, "n_sequences")
    rng = check_rng(rng)
    mu = synthetic_distributions(n_positions, vocab_size, rng=rng, regime=regime, n_topics=n_topics,
                                 bandwidth=bandwidth, topic_concentration=topic_concentration)
    return sample_sequences(mu, m, rng=rng)


def sample_sequences(mu: ArrayLike, n_sequences: int, *, rng: int | np.random.Generator) -> np.ndarray:
    """Sequences whose token at position ``i`` is drawn from ``mu_i``, independently across positions.

    Parameters
    ----------
    mu : (n, V) array_like
    n_sequences : int
    rng : int or numpy.random.Generator

    Returns
    -------
    (n_sequences, n) int64 ndarray

    Examples
    --------
    >>> sample_sequences([[1.0, 0.0], [0.0, 1.0]], 3, rng=0)[0]
    array([0, 1])
    """
    mu = check_distributions(np.asarray(mu, dtype=float), "mu")
    m = check_positive_int(n_sequences, "n_sequences")
    rng = check_rng(rng)
    cdf = np.cumsum(mu, axis=1)
    cdf[:, -1] = 1.0
    u = rng.random((mu.shape[0], m))
    ids = np.stack([np.searchsorted(cdf[i], u[i], side="right") for i in range(mu.shape[0])])
    return np.minimum(ids, mu.shape[1] - 1).T.astype(np.int64)


def zipf_distributions(n_positions: int, vocab_size: int, *, rng: int | np.random.Generator, exponent: float = 1.07,
                       strength: float = 1.0) -> np.ndarray:
    """Position-dependent mixtures of two Zipf laws: a large-vocabulary corpus with known ``mu_i``.

    ``mu_i = (1 - w_i) z + w_i z'``, ``z`` the Zipf law ``p_k ∝ k^-exponent``, ``z'`` the same over a random
    permutation of the tokens, ``w_i = strength * (i / (n - 1))^1.5``.

    Parameters
    ----------
    n_positions, vocab_size : int
    rng : int or numpy.random.Generator
    exponent, strength : float, default 1.07 and 1.0

    Returns
    -------
    (n_positions, vocab_size) ndarray

    Examples
    --------
    >>> zipf_distributions(3, 100, rng=0).shape
    (3, 100)
    """
    n = check_positive_int(n_positions, "n_positions")
    V = check_positive_int(vocab_size, "vocab_size", minimum=2)
    gen = check_rng(rng)
    if not 0 <= float(strength) <= 1:
        raise ValueError(f"strength must lie in [0, 1], got {strength}")
    base = np.arange(1, V + 1, dtype=float) ** -float(exponent)
    base /= base.sum()
    other = base[gen.permutation(V)]
    w = float(strength) * (np.arange(n) / max(n - 1, 1)) ** 1.5
    return (1 - w)[:, None] * base[None, :] + w[:, None] * other[None, :]


def sample_texts(mu: ArrayLike, lengths: ArrayLike, *, rng: int | np.random.Generator) -> SequenceIncidence:
    """Texts of given lengths (in ``[1, n]``) whose token at position ``i`` is drawn from ``mu_i``.

    Parameters
    ----------
    mu : (n, V) array_like
    lengths : 1-D int array
    rng : int or numpy.random.Generator

    Returns
    -------
    SequenceIncidence

    Examples
    --------
    >>> sample_texts([[1.0, 0.0], [0.0, 1.0]], [2, 1, 2], rng=0).lengths
    array([2, 1, 2])
    """
    from .incidence import SequenceIncidence
    mu = check_distributions(np.asarray(mu, dtype=float), "mu")
    n, V = mu.shape
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.ndim != 1 or lengths.size < 1 or lengths.min() < 1 or lengths.max() > n:
        raise ValueError(f"lengths must be a 1-D array of integers in [1, n_positions={n}]")
    gen = check_rng(rng)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    position = np.arange(int(lengths.sum())) - np.repeat(starts, lengths)
    cdf = np.cumsum(mu, axis=1)
    cdf[:, -1] = 1.0
    ids = np.empty(position.size, dtype=np.int64)
    for i in range(n):
        at = np.flatnonzero(position == i)
        ids[at] = np.minimum(np.searchsorted(cdf[i], gen.random(at.size), side="right"), V - 1)
    return SequenceIncidence.from_contiguous(ids, lengths, n, V)
