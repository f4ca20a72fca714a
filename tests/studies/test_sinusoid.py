import numpy as np
import pytest

import posgeom as pg
from posgeom.geometry import hellinger_distances, shift_equivariant_distributions, subspace_alignment
from posgeom.studies.sinusoid import SinusoidAlignment, reference_subspaces, sinusoid_alignment


def test_random_subspaces_are_orthonormal_centred_and_at_chance_on_average():
    Q = reference_subspaces(12, 3, n_draws=400, rng=0)
    assert Q.shape == (400, 12, 3)
    assert np.allclose(np.einsum("bnr,bns->brs", Q, Q), np.eye(3))
    assert np.allclose(Q.sum(axis=1), 0.0)
    F = pg.geometry.fourier_basis(12, 3)
    mean = np.mean([subspace_alignment(q, F) for q in Q])
    assert abs(mean - 3 / 11) < 0.03, "a random subspace scores r/(n-1) on average"
    with pytest.raises(ValueError):
        reference_subspaces(4, 4, n_draws=1, rng=0)
    with pytest.raises(ValueError, match="kind"):
        reference_subspaces(4, 2, kind="steps", rng=0)


def test_shift_equivariant_statistics_are_aligned_and_stationary_noise_is_not():
    D = hellinger_distances(shift_equivariant_distributions(24, width=3.0))
    res = sinusoid_alignment(D, 3, d_model=64, rng=0, n_null=300)
    assert isinstance(res, SinusoidAlignment) and 0 < res.alignment_threshold < res.alignment <= 1
    assert res.directions.shape == (24, 3) and np.allclose(res.directions.T @ res.directions, np.eye(3))
    assert res.aligned and res.share_exceeds_null
    assert res.variance_share <= res.variance_ceiling + 1e-12
    # negative control: an MDS subspace of pure sampling noise is not aligned beyond chance
    tokens = pg.synthetic_corpus(2000, 24, 200, rng=1, regime="stationary")
    D0 = pg.hellinger_distances(pg.position_distributions(pg.position_counts(tokens, 24, 200)))
    assert not sinusoid_alignment(D0, 3, d_model=64, rng=0, n_null=300).aligned


def test_result_is_deterministic():
    D = hellinger_distances(shift_equivariant_distributions(10, width=1.5))
    a = sinusoid_alignment(D, 2, d_model=16, rng=3, n_null=50)
    b = sinusoid_alignment(D, 2, d_model=16, rng=3, n_null=50)
    assert (a.alignment_threshold, a.share_threshold, a.alignment) == (b.alignment_threshold, b.share_threshold,
                                                                       b.alignment)


def test_bad_inputs():
    D = hellinger_distances(shift_equivariant_distributions(6))
    with pytest.raises(ValueError):
        sinusoid_alignment(np.zeros((6, 6)), 1, d_model=8, rng=0)
    with pytest.raises(ValueError):
        sinusoid_alignment(D, 3, d_model=4, rng=0)
    with pytest.raises(ValueError):
        sinusoid_alignment(D, 1, d_model=8, rng=0, quantile=1.0)
    with pytest.raises(ValueError):
        sinusoid_alignment(D, 6, d_model=16, rng=0)


def test_step_subspaces_span_the_centred_block_indicators():
    import itertools

    Q = reference_subspaces(10, 2, kind="all steps", rng=0)
    cuts = list(itertools.combinations(range(1, 10), 2))
    assert Q.shape == (len(cuts), 10, 2)
    assert np.allclose(np.einsum("bnr,bns->brs", Q, Q), np.eye(2))
    assert np.allclose(Q.sum(axis=1), 0.0)
    for q, cut in zip(Q, cuts):
        block = np.searchsorted(cut, np.arange(10), side="right")
        for k in range(3):
            ind = (block == k) - np.mean(block == k)
            assert np.allclose(q @ (q.T @ ind), ind), "every centred block indicator lies in the subspace"
    R = reference_subspaces(12, 3, kind="step", n_draws=500, rng=0)
    assert R.shape == (500, 12, 3) and np.allclose(R.sum(axis=1), 0.0)
    assert np.array_equal(R, reference_subspaces(12, 3, kind="step", n_draws=500, rng=0))
    # a random step subspace is one of all the step subspaces (same projector)
    A = reference_subspaces(12, 3, kind="all steps", rng=0)
    projectors = np.einsum("bnr,bmr->bnm", A, A)
    assert np.min(np.abs(projectors - R[0] @ R[0].T).max(axis=(1, 2))) < 1e-10


def test_alignment_statistic_matches_sinusoid_alignment_and_is_basis_free():
    from posgeom.studies.sinusoid import _AlignmentStatistic as AlignmentStatistic

    D = hellinger_distances(shift_equivariant_distributions(20, width=2.5))
    stat = AlignmentStatistic(20, (1, 3), 64, rng=0, n_null=300)
    alignment, threshold = stat(D**2)[1], stat.thresholds[1]
    ref = sinusoid_alignment(D, 3, d_model=64, rng=0, n_null=300)
    assert alignment == pytest.approx(ref.alignment, abs=1e-10)
    # the null of a random subspace does not depend on which fixed subspace it is compared with
    assert threshold == pytest.approx(ref.alignment_threshold, abs=0.05)
    S = ref.directions
    assert np.allclose(S.T @ S, np.eye(3)) and np.allclose(S.sum(axis=0), 0.0)
    # pure noise in Q: the MDS subspace is a random one and scores below the null's 99th percentile
    gen = np.random.default_rng(5)
    scores = []
    for _ in range(40):
        E = gen.standard_normal((20, 20))
        scores.append(stat(E + E.T)[1])
    assert np.mean(np.array(scores) > threshold) < 0.1
    with pytest.raises(ValueError):
        stat(np.zeros((5, 5)))
    with pytest.raises(ValueError):
        AlignmentStatistic(20, (1, 40), 64, rng=0)
    assert AlignmentStatistic(20, (3,), 64, rng=0, n_null=50)(D**2).shape == (1,)


def test_real_text_alignment_is_aligned_on_smooth_text_and_not_on_its_flat_control():
    from posgeom.corpus import SequenceIncidence
    from posgeom.studies.sinusoid import real_text_alignment

    inc = SequenceIncidence.from_sequences(pg.synthetic_corpus(4000, 12, 30, rng=0, regime="smooth"), 12, 30)
    res = real_text_alignment(inc, rank=2, ranks=(1, 2, 3), d_model=64, rng=0, n_resamples=40)
    assert res.verdict == "aligned"
    assert res.flat_verdict != "aligned", "negative control: a flat corpus has no MDS direction to align"
    assert res.ladder.fractions == (1.0, 0.5, 0.25, 0.125) and "resolved" in res.estimand
    U = res.leading_directions  # the whole corpus's two leading MDS directions: orthonormal and centred
    assert U.shape == (12, 2) and np.allclose(U.T @ U, np.eye(2)) and np.allclose(U.sum(axis=0), 0.0)
    # a stationary corpus (no positional signal): not aligned
    noise = SequenceIncidence.from_sequences(pg.synthetic_corpus(4000, 12, 30, rng=1, regime="stationary"), 12, 30)
    assert real_text_alignment(noise, rank=2, ranks=(1, 2, 3), d_model=64, rng=0, n_resamples=40).verdict != "aligned"
    with pytest.raises(ValueError):
        real_text_alignment(inc, rank=4, ranks=(1, 2, 3), d_model=64, rng=0)
