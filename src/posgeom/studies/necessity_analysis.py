"""Chapter 3 (necessity): symmetry defects, seeded ensembles, accuracies by independent unit.

* :func:`symmetry_defects` -- equivariance and invariance defects of a model under one permutation
* :func:`defect_table` -- the defects of one random model per scheme
* :func:`train_seeds` -- one configuration trained for several seeds at once
* :func:`unit_accuracy` -- accuracy per independent unit of a test set (row, or swapped pair)
* :func:`plot_scheme_accuracy` -- the chapter's key figure
* :func:`pair_lower_bounds` -- per run, a lower confidence bound on its accuracy from independent pairs
* :func:`interval_power` -- power of "the lower end of the ``t`` interval lies above a reference"
* :func:`detectable_effect` -- the smallest standardised effect that design detects
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import torch
from numpy.typing import ArrayLike
from scipy import optimize, stats

from .._validation import check_positive_int
from ..inference import wilson_interval
from ..nn import ModelSpec, TrainConfig, TransformerClassifier, fit_ensemble, predict, seed_everything

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "symmetry_defects",
    "defect_table",
    "train_seeds",
    "unit_accuracy",
    "plot_scheme_accuracy",
    "pair_lower_bounds",
    "interval_power",
    "detectable_effect",
]

DEFECT_COLUMNS = ["equivariance defect", "invariance defect", "output scale"]


def symmetry_defects(model: torch.nn.Module, ids: ArrayLike, perm: ArrayLike) -> tuple[float, float, float]:
    """Equivariance defect, invariance defect and output scale of ``model`` under the permutation ``perm``.

    Parameters
    ----------
    model : posgeom.nn.TransformerClassifier
    ids : (N, L) LongTensor
    perm : (L,) LongTensor
        A permutation of the positions.

    Returns
    -------
    tuple of float
        ``max |F(Pi X) - Pi F(X)|`` (per-token outputs), ``max |g(Pi X) - g(X)|`` (pooled), ``max |F(X)|``.

    Examples
    --------
    >>> import torch
    >>> from posgeom.nn import TransformerClassifier
    >>> m = TransformerClassifier(5, 4, 8, 2, 1, positional="none").eval()
    >>> ids = torch.randint(0, 5, (3, 4), generator=torch.Generator().manual_seed(0))
    >>> tok, pool, scale = symmetry_defects(m, ids, torch.tensor([3, 2, 1, 0]))
    >>> tok < 1e-5 * scale and pool < 1e-5 * scale
    True
    """
    with torch.no_grad():
        out = model(ids, pooled=False)
        tokens = (model(ids[:, perm], pooled=False) - out[:, perm]).abs().max().item()
        pooled = (model(ids[:, perm]) - model(ids)).abs().max().item()
    return float(tokens), float(pooled), float(out.abs().max().item())


def defect_table(schemes: Sequence[str], ids: ArrayLike, perm: ArrayLike, *, vocab_size: int, d_model: int = 32,
                 n_heads: int = 4, n_layers: int = 2,
                 causal: bool = False, extra: dict | None = None, seed: int = 1) -> pd.DataFrame:
    """:func:`symmetry_defects` of one random model per scheme, each initialised after ``seed_everything(seed)``.

    Parameters
    ----------
    schemes : sequence of str
        Positional schemes (:data:`posgeom.encodings.SCHEMES`).
    ids, perm : LongTensor
        Token ids (N, L) and the permutation (L,).
    vocab_size, d_model, n_heads, n_layers : int
        The architecture.
    causal : bool, default False
    extra : dict, optional
        Options per scheme, e.g. ``{"low_rank": {"rank": 3}}``.
    seed : int, default 1

    Returns
    -------
    pandas.DataFrame
        One row per scheme; columns equivariance defect, invariance defect, output scale.

    Examples
    --------
    >>> import torch
    >>> ids = torch.randint(0, 5, (2, 4), generator=torch.Generator().manual_seed(0))
    >>> t = defect_table(["none", "learned"], ids, torch.tensor([1, 0, 3, 2]), vocab_size=5, d_model=8)
    >>> bool(t.loc["none", "equivariance defect"] < 1e-5 < t.loc["learned", "equivariance defect"])
    True
    """
    rows = {}
    for scheme in schemes:
        seed_everything(seed)
        model = TransformerClassifier(vocab_size, ids.shape[1], d_model, n_heads, n_layers, positional=scheme,
                                      causal=causal, **(extra or {}).get(scheme, {})).eval()
        rows[scheme] = symmetry_defects(model, ids, perm)
    return pd.DataFrame(rows, index=DEFECT_COLUMNS).T


def train_seeds(X: ArrayLike, y: ArrayLike, *, positional: str, seeds: Sequence[int], causal: bool = False,
                n_classes: int = 2,
                vocab_size: int | None = None, d_model: int = 32, n_heads: int = 2, n_layers: int = 1,
                epochs: int = 12, lr: float = 3e-3, batch_size: int = 64) -> list:
    """One trained model per seed, fitted at once by :func:`posgeom.nn.fit_ensemble` (independent runs).

    Parameters
    ----------
    X : (N, L) int array
    y : (N,) or (N, L) int array
        Sequence labels, or token labels.
    positional : str
        The positional scheme.
    seeds : sequence of int
    causal : bool, default False
    n_classes, vocab_size, d_model, n_heads, n_layers : int
        The architecture (``vocab_size`` defaults to ``max id + 1``).
    epochs, lr, batch_size
        The training configuration.

    Returns
    -------
    list of posgeom.nn.TransformerClassifier
        In eval mode, in the order of ``seeds``.

    Examples
    --------
    >>> from posgeom.nn import order_task
    >>> data = order_task(20, 6, 6, rng=0, regime="uniform")
    >>> len(train_seeds(data.X, data.y, positional="learned", seeds=[0, 1], epochs=1))
    2
    """
    X = np.asarray(X)
    V = int(X.max()) + 1 if vocab_size is None else int(vocab_size)
    spec = ModelSpec(vocab_size=V, n_positions=X.shape[1], d_model=d_model, n_heads=n_heads, n_layers=n_layers,
                     positional=positional, causal=causal, n_classes=n_classes)
    config = TrainConfig(epochs=epochs, lr=lr, batch_size=batch_size)
    return [r.model for r in fit_ensemble(spec, (X, y), seeds=list(seeds), config=config)]


def unit_accuracy(model: torch.nn.Module, X: ArrayLike, y: ArrayLike, *, pairs: bool = False) -> np.ndarray:
    """Accuracy per independent unit: a sequence, or with ``pairs=True`` a sequence and its partner ``N/2`` rows below.

    Parameters
    ----------
    model : posgeom.nn.TransformerClassifier
    X : (N, L) int array
    y : (N,) or (N, L) int array
        Sequence labels, or token labels (the unit is then the sequence, mean over its tokens).
    pairs : bool, default False

    Returns
    -------
    numpy.ndarray
        One accuracy per unit.

    Examples
    --------
    >>> from posgeom.nn import order_task
    >>> data = order_task(10, 6, 6, rng=0, regime="uniform")
    >>> m = train_seeds(data.X, data.y, positional="none", seeds=[0], epochs=1)[0]
    >>> unit_accuracy(m, data.X, data.y, pairs=True).shape
    (10,)
    """
    y = np.asarray(y)
    correct = (predict(model, X, pooled=y.ndim == 1).argmax(-1).numpy() == y).astype(float)
    if correct.ndim == 2:
        return correct.mean(axis=1)
    if pairs:
        half = len(correct) // 2
        if 2 * half != len(correct):
            raise ValueError("pairs=True needs an even number of rows (sequences, then their partners)")
        return (correct[:half] + correct[half:]) / 2
    return correct


def plot_scheme_accuracy(table: pd.DataFrame, ceiling: float, *, ax: Axes | None = None) -> Figure:
    """Bar chart of mean test accuracy per configuration with its interval and seeds, and the multiset ceiling.

    Parameters
    ----------
    table : pandas.DataFrame
        (scheme, attention) index; columns ``test accuracy``, ``low``, ``high``, ``seeds`` (per-seed accuracies).
    ceiling : float
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 3.4))
    else:
        fig = ax.figure
    x = np.arange(len(table))
    acc = table["test accuracy"].to_numpy()
    err = [acc - table["low"].to_numpy(), table["high"].to_numpy() - acc]
    ax.bar(x, acc, yerr=np.clip(err, 0, None), capsize=3, color="C0", alpha=0.8)
    for k, seeds in enumerate(table["seeds"]):
        ax.plot(np.full(len(seeds), k), seeds, "k.", ms=3)
    ax.axhline(ceiling, color="C3", ls="--", label="multiset ceiling (test)")
    labels = [f"{s}\n{'causal' if a == 'causal' else 'bidir.'}" for s, a in table.index]
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("test accuracy")
    ax.set_ylim(0, 1.05)
    ax.legend(loc="lower right", fontsize=8)
    return fig


def pair_lower_bounds(models: Sequence[torch.nn.Module], X: ArrayLike, y: ArrayLike, *,
                      confidence: float = 0.99) -> np.ndarray:
    """Per run, the Wilson lower bound of its rate of fully correct pairs (a lower bound on its accuracy).

    Parameters
    ----------
    models : sequence of posgeom.nn.TransformerClassifier
    X, y : (N, L) and (N,) int arrays
        Sampled sequences, then their partners.
    confidence : float, default 0.99

    Returns
    -------
    numpy.ndarray
    """
    bounds = []
    for model in models:
        per_pair = unit_accuracy(model, X, y, pairs=True)
        both = int(np.sum(per_pair == 1.0))
        bounds.append(wilson_interval(both, per_pair.size, confidence=confidence).lower)
    return np.array(bounds)


def interval_power(effect_size: float, n_seeds: int, *, confidence: float = 0.99) -> float:
    """Power of "the lower end of the two-sided ``t`` interval of the mean lies above the reference".

    Scores are ``n_seeds`` normal draws, ``effect_size = delta / sigma``; the statistic is noncentral ``t``.

    Parameters
    ----------
    effect_size : float
        The mean excess over the reference in seed standard deviations.
    n_seeds : int, >= 2
    confidence : float, default 0.99
        Coverage of the interval (the test has level ``(1 - confidence) / 2``).

    Returns
    -------
    float

    Examples
    --------
    >>> round(interval_power(0.0, 5), 4), round(interval_power(3.0, 5), 2)
    (0.005, 0.89)
    """
    n = check_positive_int(n_seeds, "n_seeds", minimum=2)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    critical = stats.t.ppf((1 + confidence) / 2, n - 1)
    return float(stats.nct.sf(critical, n - 1, float(effect_size) * np.sqrt(n)))


def detectable_effect(n_seeds: int, *, confidence: float = 0.99, power: float = 0.8) -> float:
    """The smallest ``delta / sigma`` that :func:`interval_power` detects with ``power``.

    Parameters
    ----------
    n_seeds : int, >= 2
    confidence : float, default 0.99
    power : float, default 0.8
        Above the level ``(1 - confidence) / 2``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(detectable_effect(5), 2)
    2.63
    """
    level = (1 - confidence) / 2
    if not level < power < 1:
        raise ValueError(f"power must lie in ({level}, 1), got {power}")
    return float(optimize.brentq(lambda e: interval_power(e, n_seeds, confidence=confidence) - power, 0.0, 100.0))
