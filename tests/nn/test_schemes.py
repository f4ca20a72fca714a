import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posgeom.encodings._relative import alibi_slopes
from posgeom.encodings._schemes import SCHEMES
from posgeom.nn._schemes import (
    ALiBiPosition,
    FixedPosition,
    LearnedPosition,
    LowRankPosition,
    RotaryPosition,
    make_positional,
)


def test_alibi_slopes_power_of_two_is_geometric():
    for h in (1, 2, 4, 8, 16):
        m = alibi_slopes(h)
        start = 2.0 ** (-8.0 / h)
        np.testing.assert_allclose(m, start ** np.arange(1, h + 1))
    np.testing.assert_allclose(alibi_slopes(8), [2.0**-k for k in range(1, 9)])


def test_alibi_slopes_non_power_of_two_rule():
    # Press et al. reference rule: slopes for 8 heads, then every other slope of the 16-head sequence
    m12 = alibi_slopes(12)
    np.testing.assert_allclose(m12[:8], alibi_slopes(8))
    np.testing.assert_allclose(m12[8:], alibi_slopes(16)[0::2][:4])
    m6 = alibi_slopes(6)
    np.testing.assert_allclose(m6, list(alibi_slopes(4)) + list(alibi_slopes(8)[0::2][:2]))
    assert np.all(np.diff(alibi_slopes(8)) < 0)


def test_alibi_bias_is_minus_slope_times_distance():
    scheme = ALiBiPosition(6, 8, 4)
    b = scheme.bias(5, dtype=torch.float64).numpy()
    i, j = np.meshgrid(np.arange(5), np.arange(5), indexing="ij")
    for h, m in enumerate(alibi_slopes(4)):
        np.testing.assert_allclose(b[h], -m * np.abs(i - j), rtol=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(0, 15), st.integers(0, 15), st.integers(-8, 8))
def test_rope_scores_depend_only_on_offset(seed, i, j, shift):
    g = torch.Generator().manual_seed(seed)
    scheme = RotaryPosition(32, 16, 2)
    q = torch.randn(1, 2, 1, 8, generator=g, dtype=torch.float64)
    k = torch.randn(1, 2, 1, 8, generator=g, dtype=torch.float64)
    L = 32
    qs = q.expand(1, 2, L, 8).clone()
    ks = k.expand(1, 2, L, 8).clone()
    rq, rk = scheme.rotate(qs, ks)
    scores = (rq @ rk.transpose(-1, -2))[0]
    i2, j2 = i + shift, j + shift
    if 0 <= i2 < L and 0 <= j2 < L:
        torch.testing.assert_close(scores[:, i, j], scores[:, i2, j2], atol=1e-5, rtol=1e-5)


def test_rope_preserves_norms_and_is_identity_at_zero():
    scheme = RotaryPosition(10, 8, 1)
    x = torch.randn(2, 1, 10, 8)
    rx, _ = scheme.rotate(x, x)
    torch.testing.assert_close(rx.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(rx[..., 0, :], x[..., 0, :])


def test_absolute_schemes_shapes_and_values():
    for name in ("sinusoidal", "learned"):
        s = make_positional(name, 12, 8, 2)
        assert tuple(s.encoding_matrix().shape) == (12, 8)
        x = torch.zeros(3, 5, 8)
        torch.testing.assert_close(s.embed(x), s.encoding_matrix()[:5].expand(3, 5, 8))
    lr = LowRankPosition(12, 8, 2, rank=3)
    assert torch.linalg.matrix_rank(lr.encoding_matrix().detach()) <= 3
    assert sum(p.numel() for p in lr.parameters()) == 3 * (12 + 8)
    P = np.arange(12 * 8, dtype=float).reshape(12, 8)
    fx = FixedPosition(12, 8, 2, encoding=P)
    np.testing.assert_allclose(fx.encoding_matrix().numpy(), P)
    assert not list(fx.parameters())


def test_learned_table_scale_and_tied_start():
    torch.manual_seed(0)
    std = float(LearnedPosition(64, 32, 2).encoding_matrix().detach().std())
    assert 0.015 < std < 0.025  # N(0, 0.02^2) entries
    assert float(LearnedPosition(8, 4, 2, init_std=0.0).encoding_matrix().detach().abs().max()) == 0.0


def test_none_and_relative_schemes_have_no_matrix():
    for name in ("none", "rope", "alibi"):
        assert make_positional(name, 4, 8, 2).encoding_matrix() is None


def test_bad_inputs():
    with pytest.raises(ValueError, match="unknown positional scheme"):
        make_positional("absolute", 4, 8, 2)
    with pytest.raises(TypeError):
        make_positional(3, 4, 8, 2)
    with pytest.raises(ValueError, match="needs rank"):
        make_positional("low_rank", 4, 8, 2)
    with pytest.raises(ValueError, match="only used by the 'low_rank'"):
        make_positional("learned", 4, 8, 2, rank=2)
    with pytest.raises(ValueError, match="exceeds"):
        make_positional("low_rank", 4, 8, 2, rank=5)
    with pytest.raises(ValueError, match="needs encoding"):
        make_positional("fixed", 4, 8, 2)
    with pytest.raises(ValueError, match="shape"):
        make_positional("fixed", 4, 8, 2, encoding=np.zeros((4, 6)))
    with pytest.raises(ValueError, match="NaN"):
        make_positional("fixed", 4, 8, 2, encoding=np.full((4, 8), np.nan))
    with pytest.raises(ValueError, match="divisible"):
        make_positional("learned", 4, 9, 2)
    with pytest.raises(ValueError, match="even"):
        make_positional("rope", 4, 6, 2)
    with pytest.raises(ValueError, match="n_positions"):
        make_positional("learned", 4, 8, 2).embed(torch.zeros(1, 5, 8))
    with pytest.raises(ValueError, match="n_positions"):
        make_positional("alibi", 4, 8, 2).bias(5, dtype=torch.float32)
    assert set(SCHEMES) == {"none", "sinusoidal", "learned", "rope", "alibi", "fixed", "low_rank"}
    assert math.isclose(float(alibi_slopes(1)[0]), 2.0**-8)
