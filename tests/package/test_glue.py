"""``posgeom.glue.figure`` hands the book PNG bytes whatever the matplotlib backend, and refuses an empty figure."""

import sys
import types

import matplotlib
import pytest

matplotlib.use("Agg")  # the backend that, glued as a Figure, would leave only "<Figure size ...>" text in the book
import matplotlib.pyplot as plt  # noqa: E402

from posgeom.glue import figure  # noqa: E402


def test_figure_glues_png_bytes_under_the_agg_backend(monkeypatch):
    glued = {}
    fake = types.ModuleType("myst_nb")
    fake.glue = lambda name, value, display: glued.update({name: (value, display)})
    monkeypatch.setitem(sys.modules, "myst_nb", fake)
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    figure("fig_test", fig)
    value, shown = glued["fig_test"]
    assert shown is False
    assert value.data[:8] == b"\x89PNG\r\n\x1a\n", "the book must receive an image, not the figure's text"
    assert not plt.fignum_exists(fig.number), "the figure is closed once handed over"


def test_an_empty_figure_is_refused_with_its_name():
    fig = plt.figure()
    with pytest.raises(ValueError, match="fig_empty: the figure has no axes"):
        figure("fig_empty", fig)
    plt.close(fig)
