import numpy as np
import pytest

import posgeom as pg
from posgeom.stress import stress_by_rank
from posgeom.stress.rank_curve import _strain


def _D(regime="smooth", n=16, V=80, seed=0):
    return pg.hellinger_distances(pg.synthetic_distributions(n, V, rng=seed, regime=regime))


# ---------------------------------------------------------------------------------------------------------------
# strain and rank curves
# ---------------------------------------------------------------------------------------------------------------


def test_strain_zero_at_full_rank_and_classical_minimises_it():
    D = _D()
    full = pg.classical_mds(D)
    assert _strain(full.embedding, D) < 1e-12
    X2 = full.embedding[:, :2]
    rng = np.random.default_rng(0)
    for _ in range(20):  # any other rank-2 configuration has larger strain (Eckart-Young)
        Y = X2 + 0.05 * rng.standard_normal(X2.shape)
        assert _strain(Y, D) >= _strain(X2, D)


def test_strain_is_invariant_to_translation():
    D = _D()
    X = pg.classical_mds(D, rank=2).embedding
    assert np.isclose(_strain(X + 5.0, D), _strain(X, D))


def test_classical_curve_is_monotone_and_matches_direct_computation():
    D = _D()
    curve = stress_by_rank(D, range(1, 6), rng=0)
    assert np.all(np.diff(curve.strain) < 0)
    assert np.all(curve.stress_optimal <= curve.stress_raw + 1e-15)
    X3 = pg.classical_mds(D, rank=3).embedding
    assert np.isclose(curve.stress_raw[2], pg.stress_of_encoding(X3, D))


def test_smacof_curve_wins_on_stress_classical_on_strain():
    D = _D(n=14)
    ranks = [1, 2, 3]
    c = stress_by_rank(D, ranks, rng=0)
    s = stress_by_rank(D, ranks, method="smacof", rng=0)
    assert np.all(s.stress_raw <= c.stress_raw + 1e-12)
    assert np.all(c.strain <= s.strain + 1e-12)


def test_stress_by_rank_validation():
    D = pg.hellinger_distances(pg.synthetic_distributions(12, 40, rng=0, regime="abrupt", n_topics=3))
    with pytest.raises(ValueError, match="positive eigenvalues"):
        stress_by_rank(D, [1, 5], rng=0)  # three distinct distributions: B has rank 2
    with pytest.raises(ValueError, match="method"):
        stress_by_rank(D, [1], method="pca", rng=0)
    with pytest.raises(TypeError, match="rng"):
        stress_by_rank(D, [1], method="smacof", rng=1.5)
    with pytest.raises(ValueError, match="empty"):
        stress_by_rank(D, [], rng=0)
