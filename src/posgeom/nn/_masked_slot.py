"""The finite masked-slot network of the NTK appendix (conventions in ``posgeom.nn.ntk``): its parameters
(:class:`MaskedSlot`, :func:`init_masked_slot`), training (:func:`train_masked_slot`), exact NTK (:func:`ntk_blocks`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from .._validation import check_matrix, check_positive_int, check_real

__all__ = ["init_masked_slot", "train_masked_slot", "ntk_blocks"]

_LOSSES = ("mse", "cross_entropy")
_DTYPE = torch.float64


def _check_loss(loss) -> str:
    """``loss`` if it is a known loss, else a ValueError."""
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {_LOSSES}, got {loss!r}")
    return loss


def _check_targets(targets, loss: str) -> np.ndarray:
    """The (n, V) targets as float64, rows checked to be distributions for the cross-entropy."""
    Y = check_matrix(targets, "targets", min_rows=2)
    if loss == "cross_entropy":
        if Y.min() < 0 or not np.allclose(Y.sum(axis=1), 1.0, atol=1e-8):
            raise ValueError("cross_entropy targets must be probability distributions (rows >= 0 summing to 1)")
    return Y


@dataclass(frozen=True, kw_only=True)
class MaskedSlot:
    """The parameters of the masked-slot network, float64 tensors (from :func:`init_masked_slot`)."""
    P: torch.Tensor
    W: torch.Tensor
    A: torch.Tensor


def _as_dict(params: MaskedSlot) -> dict[str, torch.Tensor]:
    """The parameters as the dict ``torch.func`` differentiates."""
    if not isinstance(params, MaskedSlot):
        raise TypeError(f"params must be a MaskedSlot (from init_masked_slot), got {type(params).__name__}")
    return {"P": params.P, "W": params.W, "A": params.A}


def init_masked_slot(n_positions: int, n_outputs: int, width: int, *, sigma0: float = 0.5, seed: int) -> MaskedSlot:
    """Initial parameters, ``E ||p_i(0)||^2 = sigma0^2``, from a private ``torch.Generator`` seeded with ``seed``."""
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    V = check_positive_int(n_outputs, "n_outputs")
    w = check_positive_int(width, "width")
    sigma0 = check_real(sigma0, "sigma0", strict=False)
    seed = check_positive_int(seed, "seed", minimum=0)
    g = torch.Generator().manual_seed(seed)
    P = torch.randn(n, w, generator=g, dtype=_DTYPE) * (sigma0 / math.sqrt(w))
    W = torch.randn(w, w, generator=g, dtype=_DTYPE)
    return MaskedSlot(P=P, W=W, A=torch.randn(V, w, generator=g, dtype=_DTYPE))


def _masked_slot_logits(params: dict[str, torch.Tensor]) -> torch.Tensor:
    """(n, V) logits ``f_i = A tanh(W p_i / sqrt(w)) / sqrt(w)`` from ``params`` {"P", "W", "A"}."""
    P, W, A = params["P"], params["W"], params["A"]
    w = P.shape[1]
    return torch.tanh(P @ W.T / math.sqrt(w)) @ A.T / math.sqrt(w)


def _masked_slot_loss(logits: torch.Tensor, targets: torch.Tensor, loss: str) -> torch.Tensor:
    """The loss ``loss`` summed over positions."""
    if loss == "mse":
        return 0.5 * ((logits - targets) ** 2).sum()
    return -(targets * torch.log_softmax(logits, dim=-1)).sum()


def train_masked_slot(params: MaskedSlot, targets: np.ndarray, *, loss: str, lr: float, steps: int,
                      linearised: bool = False) -> MaskedSlot:
    """Full-batch gradient descent on the network (or, ``linearised``, on ``f(theta_0) + J(theta_0)(theta -
    theta_0)``); targets ``y_i`` ("mse") or ``mu_i`` ("cross_entropy"); ``lr`` below ``2 / lambda_max`` of the NTK."""
    from torch.func import jvp, vjp
    loss = _check_loss(loss)
    lr = check_real(lr, "lr")
    steps = check_positive_int(steps, "steps")
    if not isinstance(linearised, bool):
        raise TypeError(f"linearised must be True or False, got {linearised!r}")
    Y = _check_targets(targets, loss)
    params = _as_dict(params)
    n, V = params["P"].shape[0], params["A"].shape[0]
    if Y.shape != (n, V):
        raise ValueError(f"targets must have shape (n_positions, n_outputs) = ({n}, {V}), got {Y.shape}")
    Yt = torch.tensor(Y, dtype=_DTYPE)
    theta0 = {k: v.detach().clone() for k, v in params.items()}
    theta = {k: v.clone() for k, v in theta0.items()}
    if linearised:
        f0, vjp_fn = vjp(_masked_slot_logits, theta0)
    for _ in range(steps):
        if linearised:
            delta = {k: theta[k] - theta0[k] for k in theta}
            _, df = jvp(_masked_slot_logits, (theta0,), (delta,))
            f = (f0 + df).requires_grad_(True)
            value = _masked_slot_loss(f, Yt, loss)
            (r,) = torch.autograd.grad(value, f)
            (grads,) = vjp_fn(r)
        else:
            current = {k: v.requires_grad_(True) for k, v in theta.items()}
            value = _masked_slot_loss(_masked_slot_logits(current), Yt, loss)
            grads = dict(zip(current, torch.autograd.grad(value, list(current.values()))))
        if not torch.isfinite(value):
            raise FloatingPointError(f"the loss became {float(value.detach())}; lower lr (now {lr})")
        with torch.no_grad():
            theta = {k: theta[k].detach() - lr * grads[k] for k in theta}
    return MaskedSlot(**{k: v.detach() for k, v in theta.items()})


def ntk_blocks(params: MaskedSlot) -> np.ndarray:
    """The exact empirical NTK as (n, n, V, V) blocks ``Theta[i, j]``, the sum of the parts from ``P``
    (``delta_ij J_i J_i^T``, ``J_i = A diag(phi'_i) W / w``), ``A`` (``<phi_i, phi_j> / w I_V``) and ``W``
    (``<p_i, p_j> / w^2 A diag(phi'_i phi'_j) A^T``), with ``phi_i = tanh(W p_i / sqrt(w))``."""
    params = _as_dict(params)
    P, W, A = (params[k].detach() for k in ("P", "W", "A"))
    w = P.shape[1]
    n, V = P.shape[0], A.shape[0]
    u = P @ W.T / math.sqrt(w)
    phi = torch.tanh(u)
    dphi = 1 - phi**2
    theta = torch.zeros(n, n, V, V, dtype=_DTYPE)
    theta += (phi @ phi.T / w)[:, :, None, None] * torch.eye(V, dtype=_DTYPE)
    gram = P @ P.T / w**2
    theta += gram[:, :, None, None] * torch.einsum("vk,ik,jk,uk->ijvu", A, dphi, dphi, A)
    for i in range(n):
        J = (A * dphi[i]) @ W / w
        theta[i, i] += J @ J.T
    return theta.numpy()
