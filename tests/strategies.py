"""Hypothesis strategies shared by the property tests."""

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays


@st.composite
def distributions(draw, min_rows=2, max_rows=8, min_cols=2, max_cols=12):
    """Row-stochastic matrices with some exact zeros."""
    n = draw(st.integers(min_rows, max_rows))
    v = draw(st.integers(min_cols, max_cols))
    w = draw(arrays(np.float64, (n, v), elements=st.floats(0, 10, allow_nan=False, allow_infinity=False)))
    w[:, 0] += 1e-3  # every row has mass
    return w / w.sum(axis=1, keepdims=True)


@st.composite
def configurations(draw, min_rows=2, max_rows=10, max_dim=5):
    """Point configurations (rows = points) with coordinates of moderate size."""
    n = draw(st.integers(min_rows, max_rows))
    k = draw(st.integers(1, max_dim))
    return draw(arrays(np.float64, (n, k), elements=st.floats(-10, 10, allow_nan=False, allow_infinity=False)))
