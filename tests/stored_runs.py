"""``assert_reproduces``: a re-run's values against its stored runs, bit for bit or as a draw of the stored seeds
(:func:`posgeom.checks.reproduces`), for the tests that re-run the first seeds of a stored design."""

from __future__ import annotations

from posgeom.checks import reproduces


def assert_reproduces(again, stored, name: str, *, seeds_axis: int = 0) -> str:
    """Assert that ``again`` (the first seeds re-run) reproduces ``stored`` (every seed) along ``seeds_axis``."""
    ok, how = reproduces(again, stored, axis=seeds_axis)
    assert ok, f"{name}: {how}"
    return how
