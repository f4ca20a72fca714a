"""Estimators of the Hellinger distances between positional distributions from a finite corpus.

The *plug-in* estimator puts the empirical ``mu_i`` (token frequencies at position ``i``) into the Hellinger formula.
It is biased upward: two independent samples of one distribution are not at distance 0 (see
:mod:`posgeom.geometry.noise` for the noise floor). Every function here says which estimator it computes, and the
book labels every number with it.
"""

from __future__ import annotations

import numpy as np

from .._blas import single_threaded_blas
from ..corpus.incidence import SequenceIncidence
from .hellinger import hellinger_distances

__all__ = ["plugin_distances"]


def plugin_distances(incidence: SequenceIncidence, *, weights=None) -> np.ndarray:
    """Plug-in Hellinger distances between the empirical ``mu_i`` of a sequence incidence.

    Parameters
    ----------
    incidence : SequenceIncidence
        Which (position, token) cell each token of each sequence falls in (its counting convention decides what
        enters ``mu_i``).
    weights : (m,) array, optional
        Multiplicity of each sequence (a bootstrap resample); default 1 for every sequence.

    Returns
    -------
    (n, n) ndarray
        ``d_H(mu_i, mu_j)`` of the empirical distributions, in ``[0, 1]``; biased upward by sampling noise.

    Raises
    ------
    TypeError
        If ``incidence`` is not a :class:`~posgeom.corpus.SequenceIncidence`.
    ValueError
        If a position receives no observation, or ``weights`` has the wrong shape or negative entries.

    Notes
    -----
    Computed with single-threaded BLAS, as in the resampling loops, so an estimate computed here and the same
    estimate inside :func:`~posgeom.geometry.bootstrap_statistic` agree to the last bit.

    Examples
    --------
    >>> import numpy as np
    >>> from posgeom.corpus import SequenceIncidence
    >>> inc = SequenceIncidence.from_sequences(np.array([[0, 1], [0, 1]]), 2, 2)
    >>> plugin_distances(inc).round(3)
    array([[0., 1.],
           [1., 0.]])
    """
    if not isinstance(incidence, SequenceIncidence):
        raise TypeError(f"incidence must be a SequenceIncidence (e.g. SequenceIncidence.from_sequences(...) or "
                        f"posgeom.data.corpus_incidence(...)), got {type(incidence).__name__}")
    S = incidence.sqrt_distributions(weights)
    with single_threaded_blas():
        return hellinger_distances(S * S)
