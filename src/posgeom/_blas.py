"""BLAS thread control for the resampling loops."""

from __future__ import annotations

import contextlib

__all__ = ["single_threaded_blas"]


@contextlib.contextmanager
def single_threaded_blas():
    """Run BLAS on one thread: a resampling loop's many small products gain nothing from threads, and one thread
    makes the sums bit-reproducible whatever the core count.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield
