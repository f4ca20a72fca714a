import numpy as np
import pytest

import posgeom as pg
from posgeom.geometry import (
    fourier_alignment,
    fourier_basis,
    shift_equivariant_distributions,
    subspace_alignment,
)


def _D(regime="smooth", n=16, V=80, seed=0):
    return pg.hellinger_distances(pg.synthetic_distributions(n, V, rng=seed, regime=regime))


# ---------------------------------------------------------------------------------------------------------------
# shift-equivariant statistics and Fourier modes
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cyclic", [False, True])
def test_shift_equivariant_distances_are_toeplitz(cyclic):
    mu = shift_equivariant_distributions(20, width=2.0, cyclic=cyclic)
    assert np.allclose(mu.sum(axis=1), 1)
    D = pg.hellinger_distances(mu)
    for k in range(1, 20):
        diag = np.diag(D, k)
        assert np.allclose(diag, diag[0], atol=1e-12)
    circulant = np.allclose(D[0, 1:], D[0, 1:][::-1], atol=1e-12)
    assert circulant == cyclic


@pytest.mark.parametrize("kind", ["dct", "dft"])
@pytest.mark.parametrize("n", [7, 8])
def test_fourier_basis_is_orthonormal_and_centred(kind, n):
    F = fourier_basis(n, n - 1, kind=kind)
    assert np.allclose(F.T @ F, np.eye(n - 1), atol=1e-12)
    assert np.allclose(F.sum(axis=0), 0, atol=1e-12)


def test_subspace_alignment_bounds_and_basis_invariance():
    rng = np.random.default_rng(0)
    U = rng.standard_normal((10, 3))
    assert np.isclose(subspace_alignment(U, U @ rng.standard_normal((3, 3))), 1.0)
    E = np.eye(10)
    assert np.isclose(subspace_alignment(E[:, :3], E[:, 3:6]), 0.0)
    with pytest.raises(ValueError, match="linearly dependent"):
        subspace_alignment(np.ones((5, 2)), E[:5, :2])


def test_circulant_mds_is_exactly_fourier():
    D = pg.hellinger_distances(shift_equivariant_distributions(24, width=2.0, cyclic=True))
    for m in (2, 4, 6):
        assert fourier_alignment(D, m, kind="dft") > 1 - 1e-9


def test_toeplitz_mds_is_close_to_cosine_modes_and_abrupt_is_not():
    D = pg.hellinger_distances(shift_equivariant_distributions(24, width=4.0))
    chance = 3 / 23
    assert fourier_alignment(D, 3, kind="dct") > 0.9 > chance
    A = _D("abrupt", n=24)
    assert fourier_alignment(A, 1, kind="dct") < fourier_alignment(D, 1, kind="dct")


def test_shift_validation():
    with pytest.raises(ValueError, match="width"):
        shift_equivariant_distributions(5, width=0)
    with pytest.raises(ValueError, match="non-constant"):
        fourier_basis(4, 4)
    with pytest.raises(ValueError, match="kind"):
        fourier_basis(4, 2, kind="wavelet")
