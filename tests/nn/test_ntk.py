"""Tests of posgeom.nn.ntk: the masked-slot network, its exact NTK, the linearisation and the infinite-width limit."""

import numpy as np
import pytest
import torch
from scipy import stats
from torch.func import jacrev

import posgeom as pg
from posgeom.geometry import pairwise_distances
from posgeom.nn import kernel_regime_distances, output_trajectory
from posgeom.nn._masked_slot import _as_dict, init_masked_slot, ntk_blocks, train_masked_slot
from posgeom.nn._masked_slot import _masked_slot_logits as masked_slot_logits
from posgeom.nn._masked_slot import _masked_slot_loss as masked_slot_loss


def smooth_targets(n=8, V=5, seed=0):
    mu = pg.synthetic_distributions(n, V, rng=seed, regime="smooth", n_topics=3)
    return mu


def test_init_shapes_scale_and_reproducibility():
    th = init_masked_slot(6, 4, 400, sigma0=0.5, seed=3)
    assert th.P.shape == (6, 400) and th.W.shape == (400, 400) and th.A.shape == (4, 400)
    assert th.P.dtype == torch.float64
    norms = th.P.norm(dim=1)
    assert torch.all((norms > 0.4) & (norms < 0.6))  # ||p_i(0)|| ~ sigma0
    again = init_masked_slot(6, 4, 400, sigma0=0.5, seed=3)
    assert all(torch.equal(getattr(th, k), getattr(again, k)) for k in "PWA")
    assert torch.all(init_masked_slot(6, 4, 10, sigma0=0.0, seed=0).P == 0)


def test_ntk_blocks_match_autograd_jacobian():
    th = init_masked_slot(4, 3, 6, sigma0=1.0, seed=0)
    jac = jacrev(masked_slot_logits)(_as_dict(th))  # dict of (n, V, *param_shape)
    n, V = 4, 3
    flat = torch.cat([jac[k].reshape(n * V, -1) for k in ("P", "W", "A")], dim=1)
    full = (flat @ flat.T).reshape(n, V, n, V).permute(0, 2, 1, 3).numpy()
    np.testing.assert_allclose(ntk_blocks(th), full, atol=1e-12)


def test_ntk_tends_to_identity_blocks():
    dev = []
    for w in (32, 512):
        K = ntk_blocks(init_masked_slot(4, 3, w, sigma0=0.5, seed=1))
        target = np.einsum("ij,vu->ijvu", np.eye(4), np.eye(3))
        dev.append(np.abs(K - target).max())
    assert dev[1] < dev[0] / 2


def test_linearised_training_matches_network_for_tiny_steps_and_differs_otherwise():
    mu = smooth_targets()
    th = init_masked_slot(8, 5, 16, sigma0=0.5, seed=0)
    a = train_masked_slot(th, mu, loss="cross_entropy", lr=1e-4, steps=1)
    b = train_masked_slot(th, mu, loss="cross_entropy", lr=1e-4, steps=1, linearised=True)
    for k in "PWA":  # one step from theta_0: identical gradients
        torch.testing.assert_close(getattr(a, k), getattr(b, k), rtol=0, atol=1e-12)
    a = train_masked_slot(th, np.sqrt(mu), loss="mse", lr=0.5, steps=30)
    b = train_masked_slot(th, np.sqrt(mu), loss="mse", lr=0.5, steps=30, linearised=True)
    assert (a.P - b.P).norm() > 1e-3  # width 16 is far from the kernel regime
    # The inputs are not modified.
    assert torch.equal(th.P, init_masked_slot(8, 5, 16, sigma0=0.5, seed=0).P)


def test_linear_model_mse_converges_to_targets():
    Y = np.sqrt(smooth_targets())
    th = init_masked_slot(8, 5, 64, sigma0=0.3, seed=0)
    out = train_masked_slot(th, Y, loss="mse", lr=0.5, steps=60, linearised=True)
    from torch.func import jvp

    delta = {k: getattr(out, k) - getattr(th, k) for k in "PWA"}
    f0, df = jvp(masked_slot_logits, (_as_dict(th),), (delta,))
    np.testing.assert_allclose((f0 + df).numpy(), Y, atol=1e-5)


def test_output_trajectory_closed_form_and_cross_entropy_limit():
    mu = smooth_targets()
    np.testing.assert_allclose(output_trajectory(mu, loss="mse", lr=0.5, steps=3), (1 - 0.5**3) * mu)
    F = output_trajectory(mu, loss="cross_entropy", lr=1.0, steps=4000)
    q = np.exp(F) / np.exp(F).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(q, mu, atol=1e-3)


def _loglog_interval(widths, values, level=0.99):
    """OLS slope of log(values) on log(widths) and its t interval (df = points - 2)."""
    fit = stats.linregress(np.log(widths), np.log(values))
    q = stats.t.ppf(1 - (1 - level) / 2, len(values) - 2)
    return fit.slope - q * fit.stderr, fit.slope + q * fit.stderr


def test_wide_network_approaches_kernel_prediction_at_rate_minus_one_half():
    # Proposition (appendix): the RMS distance error of the squared loss is C Z w^(-1/2) + O(1/w).
    mu = smooth_targets(n=10, V=4)
    pred = kernel_regime_distances(np.sqrt(mu), loss="mse", lr=0.5, steps=10, sigma0=0.5)
    iu = np.triu_indices(10, 1)
    widths, errs = [], []
    for k, w in enumerate((64, 128, 256, 512)):
        for s in range(5):
            th = init_masked_slot(10, 4, w, sigma0=0.5, seed=100 * k + s)
            out = train_masked_slot(th, np.sqrt(mu), loss="mse", lr=0.5, steps=10)
            D = pairwise_distances(out.P.numpy())
            widths.append(w)
            errs.append(np.sqrt(np.mean((D[iu] - pred[iu]) ** 2)))
    low, high = _loglog_interval(widths, errs)
    assert low <= -0.5 <= high and high < 0


def test_ntk_deviation_rates():
    # Diagonal blocks deviate from I by O(w^(-1/2)) (Wishart), off-diagonal blocks are O(w^(-3/2)).
    widths, diag, off = [], [], []
    for k, w in enumerate((64, 128, 256, 512, 1024)):
        for s in range(4):
            K = ntk_blocks(init_masked_slot(4, 3, w, sigma0=0.5, seed=10 * k + s))
            widths.append(w)
            diag.append(np.sqrt(np.mean([((K[i, i] - np.eye(3)) ** 2).sum() for i in range(4)])))
            off.append(np.sqrt(np.mean([(K[i, j] ** 2).sum() for i in range(4) for j in range(4) if i != j])))
    low, high = _loglog_interval(widths, diag)
    assert low <= -0.5 <= high
    low, high = _loglog_interval(widths, off)
    assert low <= -1.5 <= high


def test_zero_initial_embeddings():
    th = init_masked_slot(5, 3, 32, sigma0=0.0, seed=0)
    assert torch.all(masked_slot_logits(_as_dict(th)) == 0)
    K = ntk_blocks(th)  # p_i = 0: no A or W part, the same P part J J^T for every position
    np.testing.assert_allclose(K[0, 1], 0.0, atol=0)
    np.testing.assert_allclose(K[0, 0], K[3, 3], atol=1e-14)
    mu = smooth_targets(n=5, V=3)
    D = kernel_regime_distances(np.sqrt(mu), loss="mse", lr=0.5, steps=8, sigma0=0.0)
    np.testing.assert_allclose(D, (1 - 0.5**8) * np.sqrt(2) * pg.hellinger_distances(mu), atol=1e-12)


def test_masked_slot_loss_values():
    f = torch.tensor([[0.0, 0.0], [1.0, -1.0]], dtype=torch.float64)
    y = torch.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=torch.float64)
    assert float(masked_slot_loss(f, y, "mse")) == pytest.approx(0.5 * (1 + 0.25 + 2.25))
    lse = np.log(np.exp(1.0) + np.exp(-1.0))  # log-sum-exp of the second row's logits
    expected = np.log(2) + 0.5 * ((lse - 1) + (lse + 1))
    assert float(masked_slot_loss(f, y, "cross_entropy")) == pytest.approx(expected)


def test_kernel_prediction_preserves_hellinger_ranks_for_mse_on_sqrt_mu():
    mu = smooth_targets(n=12, V=6)
    D = kernel_regime_distances(np.sqrt(mu), loss="mse", lr=0.5, steps=10, sigma0=0.7)
    H = pg.hellinger_distances(mu)
    iu = np.triu_indices(12, 1)
    assert np.all(np.argsort(D[iu], kind="stable") == np.argsort(H[iu], kind="stable"))
    assert np.all(np.diag(D) == 0)


def test_bad_inputs():
    th = init_masked_slot(3, 2, 4, seed=0)
    with pytest.raises(ValueError, match="loss"):
        train_masked_slot(th, np.ones((3, 2)) / 2, loss="hinge", lr=0.1, steps=1)
    with pytest.raises(ValueError, match="shape"):
        train_masked_slot(th, np.ones((4, 2)) / 2, loss="mse", lr=0.1, steps=1)
    with pytest.raises(ValueError, match="probability"):
        train_masked_slot(th, np.ones((3, 2)), loss="cross_entropy", lr=0.1, steps=1)
    with pytest.raises(ValueError, match="lr"):
        train_masked_slot(th, np.ones((3, 2)), loss="mse", lr=0.0, steps=1)
    with pytest.raises(TypeError, match="linearised"):
        train_masked_slot(th, np.ones((3, 2)), loss="mse", lr=0.1, steps=1, linearised="yes")
    with pytest.raises(FloatingPointError, match="lower lr"):
        train_masked_slot(init_masked_slot(3, 2, 4, seed=0, sigma0=1.0), 100 * np.ones((3, 2)), loss="mse",
                          lr=50.0, steps=200)
    with pytest.raises(ValueError, match="sigma0"):
        init_masked_slot(3, 2, 4, sigma0=-1.0, seed=0)
    with pytest.raises(TypeError, match="seed"):
        init_masked_slot(3, 2, 4, seed=None)
    with pytest.raises(ValueError, match="n_positions"):
        init_masked_slot(1, 2, 4, seed=0)
