"""Checks a reader can read: :func:`check` prints ``✓ claim`` when it holds and raises with the numbers when not."""

from __future__ import annotations

__all__ = ["check"]


def check(claim: str, condition: object, detail: str = "") -> None:
    """Assert ``condition`` and print the claim it verifies.

    Parameters
    ----------
    claim : str
    condition : bool-like
        The test; numpy booleans are accepted, arrays are refused (use ``.all()`` or ``.any()``).
    detail : str, optional
        The numbers behind the claim, printed after it and in the ``AssertionError`` raised when it fails.

    Examples
    --------
    >>> check("two is larger than one", 2 > 1)
    ✓ two is larger than one
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
