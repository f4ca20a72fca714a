import numpy as np
import pytest

from posgeom.studies import (
    SeparationSweep,
    order_mixture_task,
    pair_distributions,
    separation_sweep,
    train_from_tied,
    transposition_task,
)


def test_pair_distributions_interpolate_between_equal_and_disjoint():
    a, b = pair_distributions(6, 0.0)
    assert np.allclose(a, b) and np.isclose(a.sum(), 1)
    a, b = pair_distributions(6, 1.0)
    assert np.all(a * b == 0) and np.isclose(b.sum(), 1)
    with pytest.raises(ValueError):
        pair_distributions(5, 0.5)
    with pytest.raises(ValueError):
        pair_distributions(6, 1.5)


def test_transposition_task_at_zero_shift_classes_are_identically_distributed():
    data = transposition_task(20000, shift=0.0, vocab_size=4, rng=0)
    for label in (0, 1):
        freq = np.bincount(data.X[data.y == label, 0], minlength=4) / np.sum(data.y == label)
        assert np.allclose(freq, 0.25, atol=0.02)
    data = transposition_task(2000, shift=1.0, vocab_size=4, rng=0)
    assert np.all((data.X[:, 0] < 2) == (data.y == 1))


def test_order_mixture_task_labels():
    data = order_mixture_task(3000, order_weight=0.0, vocab_size=6, rng=1)
    swapped = data.X.copy()
    swapped[:, [0, 1]] = swapped[:, [1, 0]]
    assert np.all(data.y == (swapped[:, 0] + swapped[:, 1] >= 6)), "w = 0: every label is blind to the order"
    assert np.all(data.X[:, 0] != data.X[:, 1])
    data = order_mixture_task(3000, order_weight=0.5, vocab_size=6, rng=1)
    assert 0.45 < np.mean(data.X[:, 4] == 6) < 0.55
    with pytest.raises(ValueError):
        order_mixture_task(10, order_weight=-0.1, rng=0)


def test_train_from_tied_is_deterministic_and_starts_tied():
    data = transposition_task(64, shift=1.0, rng=0)
    a, b = train_from_tied(data, seed=3, epochs=5), train_from_tied(data, seed=3, epochs=5)
    assert np.array_equal(a.encoding, b.encoding)
    assert a.distance(0, 1) > 0
    with pytest.raises(TypeError):
        train_from_tied(data.X, seed=0)


def test_separation_sweep_shapes_and_t_interval():
    res = separation_sweep(lambda s, n, rng: transposition_task(n, shift=s, rng=rng), [0.0, 1.0], seeds=[0, 1, 2],
                        n_sequences=32, epochs=3)
    assert isinstance(res, SeparationSweep) and res.pair.shape == res.null.shape == (2, 3)
    mean, lo, hi = res.t_interval(res.excess)
    assert np.all(lo <= mean) and np.all(mean <= hi)
    with pytest.raises(ValueError):
        SeparationSweep(res.doses, res.seeds[:1], res.pair[:, :1], res.null[:, :1], res.accuracy[:, :1]).t_interval(
            res.pair[:, :1])
    with pytest.raises(TypeError):
        separation_sweep(None, [0.0], seeds=[0])


def test_sweep_t_interval_is_the_package_t_interval():
    from posgeom.inference import t_interval

    rng = np.random.default_rng(0)
    values = rng.normal(size=(3, 5))
    res = SeparationSweep(np.arange(3.0), np.arange(5), values, np.zeros((3, 5)), np.ones((3, 5)))
    for level in (0.9, 0.95):
        mean, lo, hi = res.t_interval(values, level=level)
        for k, row in enumerate(values):
            ref = t_interval(row, confidence=level)
            assert (mean[k], lo[k], hi[k]) == (ref.estimate, ref.lower, ref.upper)
    with pytest.raises(ValueError):
        res.t_interval(values[0])
