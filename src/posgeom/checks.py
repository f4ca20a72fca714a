"""Checks a reader can read: every claim a chapter verifies, stated in words.

===========  ===================================================================================
``check``    print ``✓ claim`` when it holds; raise ``AssertionError`` with the numbers when not
===========  ===================================================================================
"""

from __future__ import annotations

__all__ = ["check"]


def check(claim: str, condition: object, detail: str = "") -> None:
    """Assert ``condition`` and print the claim it verifies.

    Parameters
    ----------
    claim : str
        What holds, in words (e.g. ``"MDS stress is below the sinusoid's at every rank"``).
    condition : bool-like
        The test; numpy booleans are accepted, arrays are refused (use ``.all()`` or ``.any()`` explicitly).
    detail : str, optional
        The numbers behind the claim, printed after it and included in the error.

    Raises
    ------
    AssertionError
        If ``condition`` is false; the message is the claim and the detail.
    TypeError
        If ``claim`` is not a non-empty string or ``condition`` is an array with more than one element.

    Examples
    --------
    >>> check("two is larger than one", 2 > 1)
    ✓ two is larger than one
    >>> check("one is larger than two", 1 > 2, "1 vs 2")
    Traceback (most recent call last):
    ...
    AssertionError: claim does not hold: one is larger than two (1 vs 2)
    """
    if not isinstance(claim, str) or not claim.strip():
        raise TypeError("claim must be a non-empty string stating what is checked")
    size = getattr(condition, "size", 1)
    if size != 1:
        raise TypeError(f"condition must be a single truth value, got an array of size {size}; use .all() or .any()")
    suffix = f" ({detail})" if detail else ""
    if not bool(condition):
        raise AssertionError(f"claim does not hold: {claim}{suffix}")
    print(f"✓ {claim}{suffix}")
