"""The infinite-width (kernel-regime) predictions of the NTK appendix for the masked-slot model.

* :func:`output_trajectory` -- ``F_t(y)``, the infinite-width dynamics of one position's logits;
* :func:`kernel_regime_distances` -- the infinite-width prediction of the trained distances ``||p_i - p_j||``.

Conventions (also of the finite network, ``posgeom.nn._masked_slot``): NTK parametrisation with one width ``w``
(``W``, ``A`` i.i.d. ``N(0, 1)``), ``P`` i.i.d. ``N(0, sigma0^2 / w)`` so that ``||p_i(0)|| ~ sigma0`` at every
width :cite:`jacot2018`; losses summed over positions (``"mse"``: ``sum_i ||f_i - y_i||^2 / 2``;
``"cross_entropy"``: ``-sum_i sum_v mu_i(v) log softmax(f_i)_v``), so that time is ``t = lr * steps``; float64.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int, check_real
from ._masked_slot import _check_loss, _check_targets

__all__ = ["output_trajectory", "kernel_regime_distances"]


def output_trajectory(targets: np.ndarray, *, loss: str, lr: float, steps: int) -> np.ndarray:
    """``F_t(y)`` for every row, the infinite-width dynamics of a position's logits: ``f <- f - lr * grad_f loss(f;
    y)`` from ``f = 0``, with the network's ``lr`` and ``steps`` (``"mse"``: ``(1 - (1 - lr)^steps) y``).

    Parameters
    ----------
    targets : (n, V) array
        ``y_i`` for ``"mse"``; distributions ``mu_i`` for ``"cross_entropy"``.
    loss : {"mse", "cross_entropy"}
    lr, steps : float, int

    Returns
    -------
    (n, V) numpy.ndarray, row ``i`` is ``F_t(y_i)``

    Examples
    --------
    >>> output_trajectory(np.array([[1.0, 0.0], [0.5, 0.5]]), loss="mse", lr=0.5, steps=2)
    array([[0.75 , 0.   ],
           [0.375, 0.375]])
    """
    loss = _check_loss(loss)
    lr = check_real(lr, "lr")
    steps = check_positive_int(steps, "steps")
    Y = _check_targets(targets, loss)
    if loss == "mse":
        return (1.0 - (1.0 - lr) ** steps) * Y
    f = np.zeros_like(Y)
    for _ in range(steps):
        q = np.exp(f - f.max(axis=1, keepdims=True))
        q /= q.sum(axis=1, keepdims=True)
        f = f - lr * (q - Y)
    return f


def kernel_regime_distances(targets: np.ndarray, *, loss: str, lr: float, steps: int, sigma0: float) -> np.ndarray:
    """The infinite-width prediction of the trained distances ``||p_i(t) - p_j(t)||``.

    ``sqrt(||F_t(y_i) - F_t(y_j)||^2 + 2 sigma0^2)`` off the diagonal: the displacement is an isometric image of
    the logit trajectory ``F_t`` (``J J^T -> I_V``), and the initial embeddings add ``2 sigma0^2``.

    Parameters
    ----------
    targets, loss, lr, steps, sigma0
        As in :func:`output_trajectory`; the initial norm ``||p_i(0)||``.

    Returns
    -------
    (n, n) numpy.ndarray, symmetric, zero diagonal

    Examples
    --------
    >>> round(float(kernel_regime_distances(np.eye(2), loss="mse", lr=1.0, steps=1, sigma0=0.0)[0, 1]), 6)
    1.414214
    """
    sigma0 = check_real(sigma0, "sigma0", strict=False)
    F = output_trajectory(targets, loss=loss, lr=lr, steps=steps)
    sq = np.sum((F[:, None, :] - F[None, :, :]) ** 2, axis=-1) + 2.0 * sigma0**2
    D = np.sqrt(sq)
    np.fill_diagonal(D, 0.0)
    return D
