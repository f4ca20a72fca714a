"""BLAS thread control for the resampling loops."""

from __future__ import annotations

import contextlib

__all__ = ["single_threaded_blas"]


@contextlib.contextmanager
def single_threaded_blas():
    """Run BLAS on one thread: the many small products of a resampling loop gain nothing from threads (on shared
    machines multi-threaded OpenBLAS can be 10-100x slower on them), and one thread makes the sums bit-reproducible
    whatever the core count."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield
