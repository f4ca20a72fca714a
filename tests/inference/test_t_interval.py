"""The t interval used for the seed-level designs (the studies' own tests are in tests/studies)."""

import numpy as np
import pytest
from scipy.stats import t as student_t

from posgeom.inference import t_interval


def test_t_interval_uses_n_minus_1_degrees_of_freedom():
    x = np.array([0.7, 0.8, 0.75, 0.9, 0.65])
    r = t_interval(x)
    half = student_t.ppf(0.975, 4) * x.std(ddof=1) / np.sqrt(5)
    assert r.estimate == pytest.approx(x.mean()) and r.upper - r.estimate == pytest.approx(half)
