"""Hand a chapter's numbers (:func:`record`) and figures (:func:`figure`) to the book and its ledger (myst-nb glue)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["record", "figure"]


def record(name: str, value: object) -> object:
    """Glue ``value`` under ``name`` for the ledger (without displaying it) and return it unchanged.

    Parameters
    ----------
    name : str, the ledger's key (a Python identifier unique within the chapter)
    value : object

    Returns
    -------
    object
        ``value`` itself, so that ``x = record("x", compute())`` reads naturally.

    Examples
    --------
    >>> record("mds_rank", 3)  # outside a book build the value is returned as it is
    3
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"glue names must be identifiers (letters, digits, _), got {name!r}")
    try:
        from myst_nb import glue
    except ImportError:  # outside a book build the value is simply returned
        return value
    glue(name, value, display=False)
    return value


def figure(name: str, fig: Figure) -> None:
    """Hand a matplotlib figure to the book under ``name`` for a ``{glue:figure}`` block (glued in a book build,
    displayed inline elsewhere), then close it, so that it is shown exactly once.

    Parameters
    ----------
    name, fig : str, matplotlib.figure.Figure
        The glue key (an identifier unique within the chapter); the figure.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> figure("fig_example", plt.subplots()[0]) is None
    True
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"glue names must be identifiers (letters, digits, _), got {name!r}")
    from matplotlib.figure import Figure
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if not fig.axes:
        raise ValueError(f"{name}: the figure has no axes, so nothing to show; draw on it before handing it over")
    import matplotlib.pyplot as plt
    from IPython.core.pylabtools import print_figure
    from IPython.display import Image, display
    try:
        from myst_nb import glue
    except ImportError:  # Colab or plain Jupyter: show it where it was made
        display(fig)
    else:  # PNG bytes made here, as the inline backend makes them: no MPLBACKEND can turn the figure into text
        png = print_figure(fig, "png", bbox_inches="tight", dpi=200)  # shown at half its pixels: sharp when zoomed
        glue(name, Image(png, width=int.from_bytes(png[16:20], "big") // 2), display=False)
    plt.close(fig)
