"""Chapter 3 (necessity): symmetry defects, and seeded runs scored by independent test unit.

* :func:`defect_table` -- equivariance and invariance defects of one random model per scheme
* :class:`SeedRuns` -- the runs of one configuration: models, accuracies, intervals
* :func:`train_runs` -- one configuration trained once per seed, each seed on its own training set
* :func:`plot_scheme_accuracy` -- the chapter's key figure
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import torch
from numpy.typing import ArrayLike

from ..inference import Interval, t_interval
from ..inference._intervals import wilson_interval
from ..nn import ModelSpec, TrainConfig, TransformerClassifier, fit_ensemble, predict, seed_everything

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["defect_table", "SeedRuns", "train_runs", "plot_scheme_accuracy"]

_CONFIG = TrainConfig(epochs=12, lr=3e-3, batch_size=64)


def defect_table(schemes: Sequence[str], ids: ArrayLike, perm: ArrayLike, *, vocab_size: int, d_model: int = 32,
                 n_heads: int = 4, n_layers: int = 2, causal: bool = False, extra: dict | None = None,
                 seed: int = 1) -> pd.DataFrame:
    """``max |F(PX) - PF(X)|`` (per token), ``max |g(PX) - g(X)|`` (pooled) and ``max |F(X)|`` of random models.

    Parameters
    ----------
    schemes, ids, perm : sequence of str, (N, L) and (L,) int arrays or LongTensors
        Positional schemes, one model each, built after ``seed_everything(seed)``; token ids; a permutation of them.
    vocab_size, d_model, n_heads, n_layers, causal, extra, seed
        The architecture, options per scheme (e.g. ``{"low_rank": {"rank": 3}}``), the seed of the initialisation.

    Returns
    -------
    pandas.DataFrame
        One row per scheme; columns equivariance defect, invariance defect, output scale.

    Examples
    --------
    >>> t = defect_table(["none", "learned"], np.arange(8).reshape(2, 4) % 5, [1, 0, 3, 2], vocab_size=5, d_model=8)
    >>> bool(t.loc["none", "equivariance defect"] < 1e-5 < t.loc["learned", "equivariance defect"])
    True
    """
    ids, perm = torch.as_tensor(np.asarray(ids)).long(), torch.as_tensor(np.asarray(perm)).long()
    if ids.ndim != 2 or sorted(perm.tolist()) != list(range(ids.shape[1])):
        raise ValueError(f"perm must reorder the {ids.shape[-1]} positions of ids (N, L); got {perm.tolist()}")
    rows = {}
    for scheme in schemes:
        seed_everything(seed)
        model = TransformerClassifier(vocab_size, ids.shape[1], d_model, n_heads, n_layers, positional=scheme,
                                      causal=causal, **(extra or {}).get(scheme, {})).eval()
        with torch.no_grad():
            out = model(ids, pooled=False)
            tokens = (model(ids[:, perm], pooled=False) - out[:, perm]).abs().max().item()
            pooled = (model(ids[:, perm]) - model(ids)).abs().max().item()
        rows[scheme] = (tokens, pooled, out.abs().max().item())
    return pd.DataFrame(rows, index=["equivariance defect", "invariance defect", "output scale"]).T


@dataclass(frozen=True)
class SeedRuns:
    """The runs of one configuration, from :func:`train_runs`.

    ``models`` (one per seed, eval mode), ``train_accuracy`` (S,), ``unit_accuracy`` (S, units: a swapped pair or a
    sequence), ``interval`` (``t``, of its mean across runs), ``run_lower`` (S,: Wilson's bound on fully correct pairs,
    or ``t``'s over sequences)."""
    models: tuple[TransformerClassifier, ...]
    train_accuracy: np.ndarray
    unit_accuracy: np.ndarray
    interval: Interval
    run_lower: np.ndarray

    @property
    def accuracy(self) -> np.ndarray:
        """Per run, the test accuracy (mean over units)."""
        return self.unit_accuracy.mean(axis=1)


def train_runs(train: Sequence[object], test: object, *, positional: str, seeds: Sequence[int], vocab_size: int,
               causal: bool = False, n_classes: int = 2, confidence: float = 0.99) -> SeedRuns:
    """Train one configuration per seed with :func:`posgeom.nn.fit_ensemble`, seed ``k`` on ``train[k]``; score it.

    ``d_model=32``, two heads, one layer, mean pooling; 12 epochs of AdamW at ``lr=3e-3``, batches of 64. Test unit:
    the pair (sequence labels; ``test``: sequences, then partners, as from :func:`posgeom.nn.order_task`) or sequence.

    ``train``: one training set per seed (TaskData or (X, y)); ``test``: shared by the runs; ``confidence``: the level
    of the interval and of each run's lower bound.
    """
    if not isinstance(train, (list, tuple)) or not all(hasattr(d, "X") or isinstance(d, tuple) for d in train):
        raise TypeError("train must be a list of training sets (TaskData or (X, y)), one per seed")
    if len(train) != len(seeds):
        raise ValueError(f"train must hold one training set per seed: {len(train)} sets for {len(seeds)} seeds")
    X, y = (test.X, test.y) if hasattr(test, "X") else map(np.asarray, test[:2])
    spec = ModelSpec(vocab_size=vocab_size, n_positions=X.shape[1], d_model=32, n_heads=2, n_layers=1,
                     positional=positional, causal=causal, n_classes=n_classes)
    fits = fit_ensemble(spec, list(train), seeds=list(seeds), config=_CONFIG)
    correct = np.stack([predict(f.model, X, pooled=y.ndim == 1).argmax(-1).numpy() == y for f in fits]).astype(float)
    if y.ndim == 2:
        units = correct.mean(axis=2)
        lower = [t_interval(u, confidence=confidence).lower for u in units]
    else:
        half = len(y) // 2
        if 2 * half != len(y):
            raise ValueError("test with sequence labels needs sequences, then their partners (an even number)")
        units = (correct[:, :half] + correct[:, half:]) / 2
        lower = [wilson_interval(int(np.sum(u == 1)), half, confidence=confidence).lower for u in units]
    return SeedRuns(models=tuple(f.model for f in fits), train_accuracy=np.array([f.train_accuracy for f in fits]),
                    unit_accuracy=units, interval=t_interval(units.mean(axis=1), confidence=confidence),
                    run_lower=np.array(lower))


def plot_scheme_accuracy(runs: Mapping[tuple[str, bool], SeedRuns], ceiling: float, *,
                         ax: Axes | None = None) -> Figure:
    """Mean test accuracy per (scheme, causal) configuration with its interval and runs, and the ceiling (dashed).

    Returns the figure."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.4)) if ax is None else (ax.figure, ax)
    for k, r in enumerate(runs.values()):
        iv = r.interval
        ax.bar(k, iv.estimate, yerr=[[max(iv.estimate - iv.lower, 0)], [max(iv.upper - iv.estimate, 0)]],
               capsize=3, color="C0", alpha=0.8)
        ax.plot(np.full(len(r.accuracy), k), r.accuracy, "k.", ms=3)
    ax.axhline(ceiling, color="C3", ls="--", label="multiset ceiling (test)")
    ax.set_xticks(range(len(runs)), [f"{s}\n{'causal' if c else 'bidir.'}" for s, c in runs], fontsize=8)
    ax.set_ylabel("test accuracy")
    ax.set_ylim(0, 1.05)
    ax.legend(loc="lower right", fontsize=8)
    return fig
