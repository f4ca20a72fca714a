"""Chapter 1 (necessity): :func:`defect_table` (symmetry defects of random models), :func:`train_runs` (one
configuration per seed, scored by independent test unit, as :class:`SeedRuns`); ``design_runs`` (``ch03_runs``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from numpy.typing import ArrayLike

from ..inference import Interval, t_interval
from ..inference._intervals import wilson_interval
from ..nn import ModelSpec, TrainConfig, TransformerClassifier, fit_ensemble, predict, seed_everything

__all__ = ["defect_table", "SeedRuns", "train_runs"]

def defect_table(schemes: Sequence[str], ids: ArrayLike, perm: ArrayLike, *, vocab_size: int, d_model: int = 32,
                 n_heads: int = 4, n_layers: int = 2, causal: bool = False, extra: dict | None = None,
                 seed: int = 1) -> pd.DataFrame:
    """Per scheme (one model built after ``seed_everything(seed)``, ``extra`` options per scheme), the equivariance
    defect ``max |F(PX) - PF(X)|``, invariance defect ``max |g(PX) - g(X)|`` and output scale ``max |F(X)|`` on
    the token ids ``ids`` (N, L) and the permutation ``perm`` of their positions.

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
    """Result of :func:`train_runs`: ``models`` (one per seed, eval mode), ``train_accuracy`` (S,), ``unit_accuracy``
    (S, units: a swapped pair or a sequence), ``interval`` (``t``, of its mean across runs), ``run_lower`` (S,:
    Wilson's bound on fully correct pairs, or ``t``'s over sequences)."""
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
               causal: bool = False, n_classes: int = 2, confidence: float = 0.99, epochs: int = 12) -> SeedRuns:
    """Train one configuration per seed (``d_model=32``, two heads, one layer, AdamW at ``lr=3e-3``, batches of 64),
    seed ``k`` on ``train[k]``; score it on the shared ``test`` by unit: the pair (sequence labels; sequences, then
    partners, as from ``posgeom.nn.order_task``) or the sequence, at the level ``confidence``."""
    if not isinstance(train, (list, tuple)) or not all(hasattr(d, "X") or isinstance(d, tuple) for d in train):
        raise TypeError("train must be a list of training sets (TaskData or (X, y)), one per seed")
    if len(train) != len(seeds):
        raise ValueError(f"train must hold one training set per seed: {len(train)} sets for {len(seeds)} seeds")
    X, y = (test.X, test.y) if hasattr(test, "X") else map(np.asarray, test[:2])
    spec = ModelSpec(vocab_size=vocab_size, n_positions=X.shape[1], d_model=32, n_heads=2, n_layers=1,
                     positional=positional, causal=causal, n_classes=n_classes)
    config = TrainConfig(epochs=epochs, lr=3e-3, batch_size=64)
    fits = fit_ensemble(spec, list(train), seeds=list(seeds), config=config)
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


#: The design's configurations (``data/designs/ch03_runs.toml``): (positional scheme, causal).
CONFIGS = (("none", False), ("learned", False), ("sinusoidal", False), ("rope", False), ("alibi", False),
           ("none", True), ("alibi", True))


def design_runs(design) -> dict:
    """The per-run results the design file ``ch03_runs`` fixes, on its seeds, for JSON (torch on one thread)."""
    from ..nn import multiset_bound, order_task, probe_data
    seed_everything(0, threads=1)
    seeds = list(design.seeds)
    train = [order_task(600, 8, 8, rng=np.random.default_rng([s, 0]), regime="uniform") for s in seeds]
    test = order_task(500, 8, 8, rng=1, regime="uniform")
    X, n = test.X, len(test.X)
    X_rev = np.ascontiguousarray(np.concatenate([X, X[:, ::-1]]))
    y_rev = (np.argmax(X_rev == 0, axis=1) < np.argmax(X_rev == 1, axis=1)).astype(np.int64)
    out = {"ceiling": float(multiset_bound(X, test.y)),
           "train_ceiling": [float(multiset_bound(d.X, d.y)) for d in train]}
    for scheme, causal in CONFIGS:
        r = train_runs(train, test, positional=scheme, causal=causal, seeds=seeds, vocab_size=8)
        out[f"{scheme}_{'causal' if causal else 'bidirectional'}"] = {
            k: getattr(r, k).tolist() for k in ("accuracy", "run_lower", "train_accuracy")}
        if (scheme, causal) == ("none", False):  # a sequence and its swapped partner: the same logits
            logits = [predict(m, X) for m in r.models]
            out["none_logit_gap"] = [float((z[: n // 2] - z[n // 2 :]).abs().max() / z.abs().max()) for z in logits]
        if (scheme, causal) == ("alibi", False):  # a sequence and its reversal: the same class
            preds = [predict(m, X_rev).argmax(-1) for m in r.models]
            out["alibi_reversal_accuracy"] = [float((p.numpy() == y_rev).mean()) for p in preds]
            out["alibi_reversal_same"] = [bool(torch.equal(p[:n], p[n:])) for p in preds]
    probe_test = probe_data(600, 8, bos=8, rng=6)
    probe_train = [probe_data(600, 8, bos=8, rng=np.random.default_rng([s, 1])) for s in seeds]
    for causal in (False, True):
        r = train_runs(probe_train, probe_test, positional="none", causal=causal, seeds=seeds, vocab_size=9,
                       n_classes=8)
        out[f"probe_none_{'causal' if causal else 'bidirectional'}"] = {k: getattr(r, k).tolist() for k in
                                                                        ("accuracy", "run_lower")}
    partial = train_runs(train, test, positional="learned", seeds=seeds, vocab_size=8, epochs=5)
    out["learned_5_epochs"] = partial.accuracy.tolist()
    return out


if __name__ == "__main__":  # pragma: no cover - the design's command
    from .designs import main
    main(design_runs)
