"""Induced distances of the positional schemes and the rank correlation (what remained here once the studies'
tasks moved to tests/studies/test_tasks.py)."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from posgeom.encodings._relative import _rope_distances, alibi_slopes
from posgeom.encodings._schemes import induced_distances
from posgeom.inference import spearman


def test_induced_distances():
    m = np.linalg.norm(alibi_slopes(2))
    assert np.allclose(induced_distances("alibi", 4, d_model=8, n_heads=2)[0], m * np.arange(4))
    # RoPE over all heads has the sinusoid's scale: sqrt(n_heads) times one head's distance.
    assert np.allclose(induced_distances("rope", 6, d_model=8, n_heads=2), np.sqrt(2) * _rope_distances(6, 4))
    with pytest.raises(ValueError, match="unknown scheme"):
        induced_distances("bogus", 8, d_model=8, n_heads=2)


def test_spearman_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 4, 12).astype(float), rng.normal(size=12)
    assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic)
    with pytest.raises(ValueError, match="constant"):
        spearman(np.ones(4), np.arange(4))
