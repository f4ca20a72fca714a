"""Hand computed numbers from a chapter to the book's claims ledger.

:func:`record` stores a value under a name with myst-nb's ``glue`` when the book is being built (the ledger then
pastes it with ``{glue:text}`chapter.ipynb::name:format```), and is a no-op elsewhere (Colab, plain Jupyter), so
chapters run anywhere. Numbers in the ledger are therefore never typed in: they are what the chapters computed.
"""

from __future__ import annotations

__all__ = [
    "record",
]


def record(name: str, value):
    """Glue ``value`` under ``name`` for the ledger (without displaying it) and return it unchanged."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"glue names must be identifiers (letters, digits, _), got {name!r}")
    try:
        from myst_nb import glue
    except ImportError:  # outside a book build the value is simply returned
        return value
    glue(name, value, display=False)
    return value
