"""Tests of posgeom.studies.separation_seeds (imported by path: the module is not re-exported by posgeom.studies)."""

import itertools

import numpy as np
import pytest

from posgeom.studies import separation_seeds as ss
from posgeom.studies.conditions import order_sensitivity


def _as_label_of(data):
    return {tuple(x): int(y) for x, y in zip(data.X.tolist(), data.y.tolist())}


@pytest.mark.parametrize("cause", ss.CAUSES)
def test_role_task_is_a_population_without_repeats(cause):
    data = ss.role_task(cause)
    assert len({tuple(x) for x in data.X.tolist()}) == len(data)
    assert data.X.shape[1] == 4 and set(data.y.tolist()) == {0, 1, 2, 3}


@pytest.mark.parametrize("cause", ss.CAUSES)
def test_pair_b_order_never_matters(cause):
    label = _as_label_of(ss.role_task(cause))
    for (x0, x1, x2, x3), y in label.items():
        assert label[(x0, x1, x3, x2)] == y  # exchanging positions 2 and 3 keeps the label (and the sequence exists)


def test_pair_a_order_matters_as_the_cause_says():
    # strong: exchanging positions 0 and 1 always changes the label; weak: for 2 of 16 token pairs; none: never
    for cause, share in (("strong", 1.0), ("weak", 2 / 16), ("none", 0.0)):
        label = _as_label_of(ss.role_task(cause))
        changed = [label[(x1, x0, x2, x3)] != y for (x0, x1, x2, x3), y in label.items()]
        assert np.isclose(np.mean(changed), share)


def test_strong_pair_is_non_stationary_and_none_pair_is_stationary():
    strong, none = ss.role_task("strong"), ss.role_task("none")
    # the tokens at positions 0 and 1 have different distributions under the strong cause, equal ones otherwise
    assert not np.array_equal(np.bincount(strong.X[strong.y < 2, 0], minlength=4),
                              np.bincount(strong.X[strong.y < 2, 1], minlength=4))
    assert np.array_equal(np.bincount(none.X[:, 0], minlength=4), np.bincount(none.X[:, 1], minlength=4))
    assert order_sensitivity(strong.X, strong.y).gap > 0


def test_role_task_rejects_bad_arguments():
    with pytest.raises(ValueError):
        ss.role_task("medium")
    with pytest.raises(ValueError):
        ss.role_task("strong", vocab_size=5)


def test_cumulative_decay_matches_the_product_and_is_one_without_decay():
    assert ss.cumulative_decay(0.1, 0.0, 50) == 1.0
    assert np.isclose(ss.cumulative_decay(0.1, 0.5, 4, schedule="constant"), 0.95**4)




def test_sign_flip_p_is_exact_and_uniform_under_symmetry():
    x = np.array([0.5, -0.2, 0.1])
    means = [abs(np.dot(s, x)) / 3 for s in itertools.product((1, -1), repeat=3)]
    assert np.isclose(ss.sign_flip_p(x), np.mean(np.array(means) >= abs(x.mean()) - 1e-12))
    rng = np.random.default_rng(1)
    ps = np.array([ss.sign_flip_p(rng.normal(size=8)) for _ in range(400)])
    assert np.mean(ps <= 0.05) <= 0.05 + 0.03
    with pytest.raises(ValueError):
        ss.sign_flip_p(np.zeros(21))


def test_pair_distances_are_scale_free():
    P = np.random.default_rng(0).normal(size=(3, 4, 5))
    a, b = ss.pair_distances(P), ss.pair_distances(7.0 * P)
    assert all(np.allclose(a[k], b[k]) for k in ss.PAIRS)


def test_train_regularised_is_reproducible_and_reports_its_descent():
    data = ss.role_task("strong")
    one = ss.train_regularised(data, seeds=[0, 3], epochs=2, steps=20)
    two = ss.train_regularised(data, seeds=[0, 3], epochs=2, steps=20)
    assert np.array_equal(one.final, two.final)
    assert one.final.shape == (2, 4, 8) and one.initial.shape == (2, 4, 8)
    assert np.all(one.grad_norm > 0) and one.loss_trace.shape == (20,)
    assert one.loss_trace[-1] < one.loss_trace[0]
    assert 0 < one.decay < 1 and one.lam == 0.01
    assert np.allclose(one.gradient_ratio, one.grad_norm / (one.lam * np.sqrt(2 * one.penalty / one.lam)))
    # the seed draws the initial table: distinct seeds, distinct tables
    assert not np.allclose(one.initial[0], one.initial[1])
