"""Chapter 9, seeds as the unit: :func:`xor_task` (a control), :func:`seeded_dose_response`, :func:`toward_line` (the
order-keeping dose), :func:`within_seed_power`, :func:`extrapolation_runs`; ``stored_exploratory``."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from .._validation import check_distance_matrix, check_positive_int, check_rng, check_seeds
from ..corpus import position_counts, position_distributions
from ..encodings import mds_encoding, sinusoidal_encoding
from ..geometry import classical_mds, hellinger_distances, pairwise_distances
from ..inference import Interval, permutation_p_value, t_interval
from ..inference._correlation import pearson_rows, rank
from ..nn import ModelSpec, TrainConfig, centre_task, fit, fit_ensemble, order_task
from ..nn.tasks import TaskData, _background, _check_task_args
from ..stress import stress_of_distances
from .designs import ROOT, main

__all__ = ["xor_task", "seeded_dose_response", "toward_line", "within_seed_power", "extrapolation_runs"]


def _split_pairs(data: TaskData, n_first: int) -> tuple[TaskData, TaskData]:
    """Split a paired task (rows ``k`` and ``P + k`` are partners) into two, partners kept together."""
    if len(data) % 2 or not 0 < n_first < (P := len(data) // 2):
        raise ValueError(f"need an even number of sequences and 0 < n_first < {P} pairs, got n_first={n_first}")
    first, second = np.r_[0:n_first, P : P + n_first], np.r_[n_first:P, P + n_first : 2 * P]
    return TaskData(data.X[first], data.y[first]), TaskData(data.X[second], data.y[second])


def _scaled_mds_encoding(D: np.ndarray, d_model: int) -> np.ndarray:
    """The MDS encoding of ``D`` in width ``d_model``, scaled to the RMS pair distance of the sinusoidal one."""
    D = check_distance_matrix(D, "D")
    P = mds_encoding(D, d_model, rank=min(classical_mds(D).rank, d_model), rng=0)
    if (spread := np.mean(pairwise_distances(P) ** 2)) == 0:
        raise ValueError("D is zero: every position has the same distribution and the MDS encoding is a point")
    return np.sqrt(np.mean(pairwise_distances(sinusoidal_encoding(D.shape[0], d_model)) ** 2) / spread) * P


def _permute_rows(P: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Move ``round(fraction * n)`` uniformly chosen rows (two if that is one) by a derangement among themselves."""
    k = int(round(float(fraction) * P.shape[0]))
    if k == 0:
        return P.copy()
    moved = np.sort(rng.choice(P.shape[0], size=max(k, 2), replace=False))
    while True:  # rejection sampling of a derangement; succeeds with probability about 1/e per draw
        perm = rng.permutation(moved.size)
        if np.all(perm != np.arange(moved.size)):
            break
    Q = P.copy()
    Q[moved] = P[moved[perm]]
    return Q


def _rms(P: np.ndarray) -> float:
    """Root mean square distance between the rows of ``P``."""
    return float(np.sqrt(np.mean(pairwise_distances(P) ** 2)))


def toward_line(P: np.ndarray, fraction: float, rng: np.random.Generator, *, growth: float = 0.0) -> np.ndarray:
    """``P`` moved by ``fraction`` toward points in the positions' order on its first principal axis, evenly spaced
    (``growth=0``) or at ``expm1(growth i)`` (first ones crowded), scaled to ``P``'s RMS pair distance; ``rng`` unused.

    Examples
    --------
    >>> P = np.random.default_rng(0).normal(size=(6, 3))
    >>> Q = toward_line(P, 1.0, None)
    >>> bool(np.allclose(np.linalg.matrix_rank(Q - Q.mean(axis=0)), 1)), round(_rms(Q) / _rms(P), 6)
    (True, 1.0)
    """
    i = np.expm1(growth * np.arange(len(P))) / growth if growth > 0 else np.arange(len(P)) - (len(P) - 1) / 2
    centred, i = P - P.mean(axis=0), i - i.mean()  # evenly spaced: centred already, exactly
    axis = np.linalg.svd(centred, full_matrices=False)[2][0]
    line = np.outer(i * (np.sign(i @ centred @ axis) or 1.0), axis)
    Q = (1 - fraction) * P + fraction * line * _rms(P) / _rms(line)
    return Q * _rms(P) / _rms(Q)


def xor_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng: int | np.random.Generator,
             regime: str = "smooth") -> TaskData:
    """A control whose label ignores positions: 1 iff exactly one of the tokens 0 and 1 is present (arguments of
    ``posgeom.nn.order_task``, ``2 n_pairs`` sequences)."""
    n_pairs, n, vocab_size, rng = _check_task_args(n_pairs, n_positions, vocab_size, rng)
    X = _background(2 * n_pairs, n, vocab_size, rng, regime)
    fill = X[rng.permutation(2 * n_pairs)]  # background tokens at the same positions, from other sequences
    keep = rng.integers(0, 2, size=(2 * n_pairs, 2)).astype(bool)
    for row, other, (ka, kb) in zip(X, fill, keep):
        i, j = rng.choice(n, size=2, replace=False)
        row[i] = 0 if ka else other[i]
        row[j] = 1 if kb else other[j]
    return TaskData(X, (keep[:, 0] ^ keep[:, 1]).astype(np.int64))


def _within_seed_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's correlation of the matching rows of ``x`` and ``y`` (0 for a constant row)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r = pearson_rows(rank(x, axis=1), rank(y, axis=1))
    return np.nan_to_num(np.asarray(r, dtype=float), nan=0.0)


@dataclass(frozen=True)
class Association:
    """Result of :meth:`DoseRuns.association`: ``r_s`` (S,), each seed's Spearman correlation of stress and test
    accuracy; its mean's t ``interval``; the two-sided ``p_value`` of permuting the doses within every seed; the
    ``verdict``: "lower stress, higher/lower accuracy", "no association detected" (powered) or "undetermined"."""
    r_s: np.ndarray
    interval: Interval
    p_value: float
    verdict: str


@dataclass(frozen=True)
class DoseRuns:
    """Result of :func:`seeded_dose_response`: ``fractions`` (F,), ``seeds`` (S) and (S, F) arrays: ``stress``
    (scale-optimal, of each frozen encoding against its seed's training corpus) and ``test_accuracy``."""
    fractions: np.ndarray
    seeds: tuple
    stress: np.ndarray
    test_accuracy: np.ndarray

    def association(self, *, power: float, rng: int | np.random.Generator, first_dose: int = 0,
                    n_permutations: int = 10000, target_power: float = 0.8) -> Association:
        """The within-seed association of stress and accuracy over the doses from ``first_dose`` on; an interval
        holding 0 reads "no association detected" if ``power`` (the design's) reaches ``target_power``."""
        x, y = self.stress[:, first_dose:], self.test_accuracy[:, first_dose:]
        if x.shape[1] < 2:
            raise ValueError(f"need at least two doses from first_dose={first_dose} on, got {x.shape[1]}")
        r_s = _within_seed_spearman(x, y)
        B, (S, F) = check_positive_int(n_permutations, "n_permutations"), y.shape
        keys = check_rng(rng).random((B, S, F)).argsort(axis=2)
        shuffled = np.take_along_axis(np.broadcast_to(y, (B, S, F)), keys, axis=2)
        null = _within_seed_spearman(np.broadcast_to(x, shuffled.shape).reshape(-1, F),
                                     shuffled.reshape(-1, F)).reshape(B, S).mean(axis=1)
        ci = t_interval(r_s)
        if ci.upper < 0 or ci.lower > 0:
            verdict = f"lower stress, {'higher' if ci.upper < 0 else 'lower'} accuracy"
        else:
            verdict = "no association detected" if power >= target_power else "undetermined"
        p_value = permutation_p_value(r_s.mean(), null, alternative="two-sided")
        return Association(r_s=r_s, interval=ci, p_value=p_value, verdict=verdict)


def seeded_dose_response(task: Callable[..., TaskData], *, seeds: Sequence[int], fractions: Sequence[float],
                         n_pairs: int, n_test_pairs: int, n_positions: int, vocab_size: int, config: TrainConfig,
                         d_model: int = 16, n_heads: int = 2, n_layers: int = 1,
                         dose: Callable[..., np.ndarray] | None = None) -> DoseRuns:
    """Stress and accuracy of the frozen MDS encoding ``P`` at growing doses ``f`` in [0, 1], seed by seed: seed ``s``
    draws its paired ``task`` with ``rng=[s, 0]`` and gives dose ``f`` the encoding ``dose(P, f, rng)``
    (``rng=[s, 1]``; default: ``round(f n)`` rows deranged); all models train at once (seeds ``sF + a``)."""
    seeds, fractions = check_seeds(seeds), np.asarray(fractions, dtype=float)
    if fractions.ndim != 1 or fractions.size < 2 or np.any((fractions < 0) | (fractions > 1)):
        raise ValueError(f"fractions must be at least two numbers in [0, 1], got {fractions}")
    if dose is not None and not callable(dose):
        raise TypeError(f"dose must be callable(P, fraction, rng) -> encoding, or None, got {type(dose).__name__}")
    stress, specs, trains, tests, F = np.zeros((len(seeds), fractions.size)), [], [], [], fractions.size
    for b, s in enumerate(seeds):
        data = task(n_pairs + n_test_pairs, n_positions, vocab_size, rng=np.random.default_rng([s, 0]))
        train, test = _split_pairs(data, n_pairs)
        D = hellinger_distances(position_distributions(position_counts(train.X, train.length, train.vocab_size)))
        P, rng = _scaled_mds_encoding(D, d_model), np.random.default_rng([s, 1])
        Qs = [(dose or _permute_rows)(P, float(f), rng) for f in fractions]
        stress[b] = [stress_of_distances(pairwise_distances(Q), D, scale="optimal") for Q in Qs]
        specs += [ModelSpec(vocab_size=vocab_size, n_positions=n_positions, d_model=d_model, n_heads=n_heads,
                            n_layers=n_layers, positional="fixed", encoding=Q) for Q in Qs]
        trains, tests = trains + [train] * F, tests + [test] * F
    fits = fit_ensemble(specs, trains, seeds=[s * F + a for s in seeds for a in range(F)], config=config)
    accuracy = np.reshape([f.accuracy(t) for f, t in zip(fits, tests)], (len(seeds), F))
    return DoseRuns(fractions=fractions, seeds=seeds, stress=stress, test_accuracy=accuracy)


def within_seed_power(n_seeds: int, n_doses: int, rho: float, *, rng: int | np.random.Generator,
                      alpha: float = 0.05, n_sim: int = 4000) -> float:
    """Power of the two-sided ``t`` test on the mean within-seed Spearman correlation, by ``n_sim`` simulations:
    each of ``n_seeds`` (>= 2) draws ``n_doses`` (>= 3) normal pairs of correlation ``rho`` in (-1, 1)."""
    n_seeds = check_positive_int(n_seeds, "n_seeds", minimum=2)
    n_doses = check_positive_int(n_doses, "n_doses", minimum=3)
    if not -1 < float(rho) < 1:
        raise ValueError(f"rho must lie in (-1, 1), got {rho!r}")
    z = check_rng(rng).standard_normal((2, check_positive_int(n_sim, "n_sim") * n_seeds, n_doses))
    r = _within_seed_spearman(z[0], rho * z[0] + np.sqrt(1 - rho**2) * z[1]).reshape(-1, n_seeds)
    t = r.mean(axis=1) / (r.std(axis=1, ddof=1) / np.sqrt(n_seeds))
    return float(np.mean(np.abs(t) > stats.t.ppf(1 - alpha / 2, n_seeds - 1)))


@dataclass(frozen=True)
class ExtrapolationRuns:
    """Result of :func:`extrapolation_runs`: ``seeds``; (S,) accuracies ``at_n``, ``at_n_again`` (fresh), ``at_2n``."""
    seeds: tuple
    at_n: np.ndarray
    at_n_again: np.ndarray
    at_2n: np.ndarray


def extrapolation_runs(scheme: str, task: Callable[..., TaskData], *, seeds: Sequence[int], n_pairs: int,
                       n_test_pairs: int, n_positions: int, vocab_size: int, config: TrainConfig, d_model: int = 16,
                       n_heads: int = 2, causal: bool = False) -> ExtrapolationRuns:
    """Train ``scheme`` at ``n`` (causal mask if ``causal``); test on fresh sets at ``n``, again at ``n``, and at
    ``2n``. Seed ``s`` draws its sets with ``rng=[s, 0]`` (the long one ``[s, 1]``) and trains with seed s."""
    if scheme not in ("sinusoidal", "rope", "alibi", "none"):
        raise ValueError(f"scheme {scheme!r} has no positional signal beyond the training length")
    seeds, n = check_seeds(seeds), check_positive_int(n_positions, "n_positions")
    spec = ModelSpec(vocab_size=vocab_size, n_positions=2 * n, d_model=d_model, n_heads=n_heads, positional=scheme,
                     causal=causal)
    acc = []
    for s in seeds:
        train, tests = _split_pairs(task(n_pairs + 2 * n_test_pairs, n, vocab_size, rng=np.random.default_rng([s, 0])),
                                    n_pairs)
        long = task(n_test_pairs, 2 * n, vocab_size, rng=np.random.default_rng([s, 1]))
        model = fit(spec, train, seed=s, config=config)
        acc.append([model.accuracy(t) for t in (*_split_pairs(tests, n_test_pairs), long)])
    return ExtrapolationRuns(seeds, *np.array(acc).T)  # at n, at n again, at 2n


#: Chapter 9's settings, shared by its design's runs and its exploratory runs.
_SETTINGS = dict(fractions=(0.0, 0.25, 0.5, 0.75, 1.0), n_pairs=150, n_test_pairs=200, n_positions=8, vocab_size=24,
                 config=TrainConfig(epochs=12, lr=2e-2, batch_size=100))
_EXPLORATORY = "data/results/ch09_exploratory.json"


def design_runs(design) -> DoseRuns:
    """The order-keeping dose runs a design file (``ch09_line``, ``ch09_spaced``) fixes: its seeds, its ``growth``."""
    dose = functools.partial(toward_line, growth=float(design.fields.get("growth", 0.0)))
    return seeded_dose_response(order_task, seeds=design.seeds, dose=dose, **_SETTINGS)


def exploratory_runs(seeds: Sequence[int] = range(24)) -> dict:
    """Chapter 9's exploratory dose runs (order, centre, xor) as JSON lists, one entry per task."""
    runs = {name: seeded_dose_response(task, seeds=seeds, **_SETTINGS)
            for name, task in (("order", order_task), ("centre", centre_task), ("xor (control)", xor_task))}
    return {k: {f: getattr(r, f).tolist() for f in ("fractions", "stress", "test_accuracy")} for k, r in runs.items()}


def stored_exploratory() -> dict[str, DoseRuns]:
    """The exploratory runs, stored once by ``python -m posgeom.studies.dose_response exploratory <path>``."""
    data = json.loads((ROOT / _EXPLORATORY).read_text())
    return {k: DoseRuns(fractions=np.array(v["fractions"]), seeds=tuple(data["seeds"]), stress=np.array(v["stress"]),
                        test_accuracy=np.array(v["test_accuracy"])) for k, v in data["runs"].items()}


if __name__ == "__main__" and sys.argv[1] == "exploratory":  # pragma: no cover - the exploratory runs' command
    command = f"python -m posgeom.studies.dose_response exploratory {_EXPLORATORY}"
    Path(sys.argv[2]).write_text(json.dumps({"command": command, "seeds": list(range(24)), "runs": exploratory_runs()},
                                            indent=1) + "\n")
elif __name__ == "__main__":  # pragma: no cover - the design's command
    main(design_runs)
