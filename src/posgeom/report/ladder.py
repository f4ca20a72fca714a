"""The subsampling ladder of a report (``posgeom report --ladder``): which rankings of the encodings a corpus decides.

The stress table is re-estimated on all the texts, a half, a quarter and an eighth of them, at one estimand (for the
resolved estimator: one resolution, fixed on all the texts and planned for the eighth,
:meth:`posgeom.geometry.Resolved.fixed`), with bootstrap intervals on every rung
(:func:`posgeom.stress.stress_ladder`). Two encodings are *ranked* only when

1. the corpus has a geometry at this resolution: the interval of the mean squared distance between positions
   excludes 0 on every rung (a flat corpus, every position one distribution, has none; the stress of an encoding
   against its estimated distances then only says how the encoding fits sampling noise, and such rankings can hold
   on every rung);
2. the paired interval of their scale-optimal stresses excludes 0 on the same side on every rung
   (:meth:`posgeom.geometry.Ladder.decide`, the one decision rule :func:`posgeom.inference.decide` on every rung).

Whether the stresses themselves hold still across the rungs (``Ladder.holds_still``) is
reported, not required: a stress computed from estimated distances is biased upward by their sampling noise, more on
the smaller rungs, so the values can move while the order stays (and the encodings' stresses move together, which
the test's allowance for independent misses does not expect).

Otherwise the pair is *undetermined*: this corpus, at this resolution, does not decide which of the two fits its
geometry better.

The paired intervals are *centred*, like every interval of the table (:meth:`posgeom.stress.StressTable.contrast`):
the estimate plus the quantiles of the paired replicates' deviations from their mean. A resample's estimate averages
fewer random splits than the point estimate, so its stresses are noisier and shifted; the plain percentiles of the
replicates can then exclude the estimate itself, even with the opposite sign.

* :func:`report_ladder`: the ladder of a report, computed, as a JSON-ready dict (``report.json``, key ``"ladder"``).
* ``_ladder_summary``: the same dict from ladders already computed.
* ``ladder_markdown``: its section of ``stress_table.md``; ``ladder_line`` and ``ladder_table``: one sentence and
  the verdicts as a table, for the terminal.
* :func:`plot_ladder`: the figure ``ladder.png``, drawn from the dict alone (so from ``report.json`` too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..corpus.incidence import SequenceIncidence
    from ..stress.candidates import Candidate

from dataclasses import replace
from itertools import combinations

import numpy as np

from .._io import aligned_text
from ..geometry.ladder import Ladder, stability_ladder
from ..inference import decide
from ..inference._bootstrap import difference

__all__ = [
    "report_ladder",
    "plot_ladder",
]

#: The rungs (shares of the texts), the whole corpus first.
FRACTIONS = (1.0, 0.5, 0.25, 0.125)
#: Bootstrap resamples per rung of ``--ladder`` given without a number.
LADDER_RESAMPLES = 200


def _share(f: float) -> str:
    """``"all"``, ``"1/2"``, ``"1/4"``, ... for a rung."""
    if f == 1:
        return "all"
    k = 1 / f
    return f"1/{round(k)}" if abs(k - round(k)) < 1e-9 else f"{f:g}"


#: The sign of a rung's decision in the report's tables.
_SIGNS = {"lower": "<", "higher": ">"}


def _centred(ladder: Ladder, keep) -> Ladder:
    """The ladder restricted to the components ``keep``, its replicates centred on the estimates."""
    keep = np.asarray(keep, dtype=int)
    rungs = []
    for r in ladder.rungs:
        reps = np.asarray(r.replicates, dtype=float)[:, keep]
        est = np.asarray(r.estimate, dtype=float)[keep]
        rungs.append(replace(r, estimate=est, replicates=reps - reps.mean(axis=0) + est,
                             lower=np.asarray(r.lower)[keep], upper=np.asarray(r.upper)[keep],
                             lower_mc_error=np.asarray(r.lower_mc_error)[keep],
                             upper_mc_error=np.asarray(r.upper_mc_error)[keep]))
    return Ladder(fractions=ladder.fractions, rungs=tuple(rungs), estimator=ladder.estimator)


def report_ladder(candidates: Sequence[Candidate], data: SequenceIncidence, estimator: object, *, rng: int,
                  n_resamples: int = LADDER_RESAMPLES,
                  fractions: Sequence[float] = FRACTIONS, groups: Sequence | None = None) -> dict:
    """The ladder of a report: the stress of every row, and the mean squared distance, on every rung.

    Parameters
    ----------
    candidates : sequence of posgeom.stress.Candidate
        The rows of the report's table.
    data : posgeom.corpus.SequenceIncidence
        The texts.
    estimator : PlugIn, CrossFitted or Resolved
        The report's estimator (a :class:`~posgeom.geometry.Resolved` one with its resolution fixed for the
        smallest rung, so that every rung estimates one estimand).
    rng : int
        Seed: both ladders draw the same rungs and the same resamples.
    n_resamples : int, default 200
        Bootstrap resamples per rung.
    fractions : sequence of float, default ``(1, 1/2, 1/4, 1/8)``
    groups : (n_texts,) array, optional
        A label per text: texts with one label (the phrases of one source sentence) are kept, resampled and split
        together on every rung (:func:`posgeom.geometry.stability_ladder`). Default: texts are independent.

    Returns
    -------
    dict
        ``_ladder_summary`` of the two ladders; ``"unit"`` names the resampling unit.

    Examples
    --------
    Eight positions whose token law drifts linearly from one end to the other:

    >>> from posgeom.corpus import SequenceIncidence
    >>> from posgeom.geometry import Resolved
    >>> from posgeom.stress import Candidate
    >>> p = np.array([[1 + 3 * i, 3, 3, 1 + 3 * (7 - i)] for i in range(8)], dtype=float)
    >>> p /= p.sum(axis=1, keepdims=True)
    >>> gen = np.random.default_rng(0)
    >>> inc = SequenceIncidence.from_sequences(np.stack([gen.choice(4, 1600, p=q) for q in p], axis=1), 8, 4)
    >>> line = np.abs(np.subtract.outer(np.arange(8.0), np.arange(8.0)))
    >>> rows = [Candidate("line", "", lambda D: line), Candidate("constant", "", lambda D: 1 - np.eye(8))]
    >>> summary = report_ladder(rows, inc, Resolved().fixed(inc, fraction=1 / 8), rng=0, n_resamples=50)
    >>> summary["geometry"], summary["verdicts"][0]["verdict"]
    (True, 'line < constant')
    """
    from ..stress import stress_ladder

    stresses = stress_ladder(candidates, data, estimator=estimator, rng=rng, fractions=fractions,
                             n_resamples=n_resamples if groups is None else 2)
    if groups is not None:  # stress_ladder has no groups= yet: its rows' statistic, on a ladder of the groups
        from ..geometry._crossfit import distances_from_squared
        from ..stress.table import evaluate_rows

        lad = stability_ladder(stresses.estimator, data, fractions=fractions, rng=rng, n_resamples=n_resamples,
                               statistic=lambda Q: evaluate_rows(candidates, distances_from_squared(Q))[1::3],
                               groups=groups)
        stresses = replace(stresses, ladder=lad)
    iu = np.triu_indices(data.n_positions, 1)
    geometry = stability_ladder(estimator, data, statistic=lambda Q: Q[iu].mean(), fractions=fractions, rng=rng,
                                n_resamples=n_resamples, groups=groups)
    summary = _ladder_summary(stresses, fitted=[c.name for c in candidates if c.fitted], geometry=geometry)
    labels = None if groups is None else np.unique(np.asarray(groups)).size
    summary["unit"] = "texts (independent)" if labels is None else f"groups of texts ({labels:,} groups)"
    return summary


def _ladder_summary(ladder, *, fitted=(), geometry=None) -> dict:
    """The ladder of a report as a JSON-ready dict: every row on every rung, and the verdict on every pair."""
    fitted = set(fitted)
    est, lo, hi = ladder.estimates, ladder.lower, ladder.upper
    rows = [{"encoding": name, "fitted": name in fitted, "optimal_stress": est[:, j].tolist(),
             "lower": lo[:, j].tolist(), "upper": hi[:, j].tolist()} for j, name in enumerate(ladder.names)]
    names = [n for n in ladder.names if n not in fitted]
    encodings = _centred(ladder.ladder, [ladder.names.index(n) for n in names])
    still = bool(encodings.holds_still())
    present = None if geometry is None else bool(np.all(geometry.lower > 0))
    verdicts = []
    for (i, a), (j, b) in combinations(enumerate(names), 2):
        rungs = [difference(r, i, j) for r in encodings.rungs]
        outcome = encodings.decide(i, j).outcome
        signs = {"lower": f"{a} < {b}", "higher": f"{a} > {b}"}.get(outcome, "undetermined")
        verdicts.append({"a": a, "b": b, "verdict": signs if present is not False else "undetermined",
                         "signs_hold": signs, "signs": [_SIGNS.get(decide(d).outcome, "?") for d in rungs],
                         "contrast": [[d.estimate, d.lower, d.upper] for d in rungs]})
    first = ladder.ladder.rungs[0]
    mean_q = None if geometry is None else np.column_stack([geometry.estimates, geometry.lower, geometry.upper])
    return {
        "estimand": ladder.estimand, "fractions": [float(f) for f in ladder.fractions],
        "n_texts": [int(m) for m in ladder.n_texts], "n_resamples": int(np.shape(first.replicates)[0]),
        "confidence": float(first.confidence), "holds_still": still, "geometry": present,
        "mean_squared_distance": None if mean_q is None else mean_q.tolist(), "rows": rows,
        "verdicts": verdicts, "ranked": sum(v["verdict"] != "undetermined" for v in verdicts), "pairs": len(verdicts),
    }


def ladder_markdown(summary: dict, *, digits: int = 3) -> str:
    """The ladder's section of ``stress_table.md``: stress on every rung, then the verdict on every pair.

    Parameters
    ----------
    summary : dict
        From ``_ladder_summary``.
    digits : int, default 3
        Decimals of the stresses.

    Returns
    -------
    str
        Markdown: a heading, the estimand and the rungs, whether the stresses hold still, a table of scale-optimal
        stress with its interval per rung, and a table of the pairwise verdicts with the sign on each rung (``<``:
        the first encoding has the lower stress on that rung, ``>``: the higher, ``?``: the interval contains 0).

    Examples
    --------
    >>> summary = {"estimand": "toy", "fractions": [1.0, 0.5], "n_texts": [8, 4], "n_resamples": 10,
    ...            "confidence": 0.95, "holds_still": True, "ranked": 0, "pairs": 1,
    ...            "rows": [{"encoding": "x", "fitted": False, "optimal_stress": [0.5, 0.4], "lower": [0.4, 0.3],
    ...                      "upper": [0.6, 0.5]}],
    ...            "verdicts": [{"a": "x", "b": "y", "verdict": "undetermined", "signs": ["<", "?"]}]}
    >>> print(ladder_markdown(summary).splitlines()[-1])
    | x vs y | undetermined | < | ? |
    """
    shares = [f"{_share(f)} ({m:,} texts)" for f, m in zip(summary["fractions"], summary["n_texts"])]
    conf = f"{summary['confidence']:.0%}"
    still = ("yes: no rung misses the encodings' stresses on all the texts more often than chance"
             if summary["holds_still"] else "no: some rung misses the encodings' stresses on all the texts more "
                                            "often than chance (sampling noise raises the stresses on small rungs: "
                                            "read their values with care; the order is what the verdicts test)")
    present = summary.get("geometry")
    if present is None:
        geometry = "not tested"
    else:
        cells = ", ".join(f"{e:.2g} [{lo:.2g}, {hi:.2g}]" for e, lo, hi in summary["mean_squared_distance"])
        geometry = (f"{'yes' if present else '**no**'}: mean squared distance between positions {cells} on the "
                    "rungs" + ("" if present else "; its interval reaches 0, so the stresses below may only say "
                                                  "how each encoding fits sampling noise"))
    lines = ["## Subsampling ladder", "",
             f"The stress table re-estimated on {', '.join(shares)}, at one estimand: {summary['estimand']}; "
             f"{summary['n_resamples']} bootstrap resamples per rung, {conf} intervals.", "",
             f"A geometry at this resolution on every rung: {geometry}.", "",
             f"Stresses hold still across the rungs: {still}.", "",
             "Scale-optimal stress on each rung:", "",
             "| encoding | " + " | ".join(shares) + " |", "|---" * (len(shares) + 1) + "|"]
    for r in summary["rows"]:
        cells = [f"{s:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
                 for s, lo, hi in zip(r["optimal_stress"], r["lower"], r["upper"])]
        lines.append(f"| {r['encoding']}{' (fitted)' if r['fitted'] else ''} | " + " | ".join(cells) + " |")
    lines += ["", f"Rankings of the encodings by scale-optimal stress: {summary['ranked']} of {summary['pairs']} "
                  f"pairs ranked. A pair is ranked only when the corpus has a geometry on every rung and the "
                  f"{conf} interval of the paired difference (centred, on the same resamples) "
                  "excludes 0 on the same side on every rung; otherwise it is undetermined "
                  "(this corpus, at this resolution, does not decide it; it is not evidence that the two fit equally "
                  "well). Fitted rows (MDS) fit the sampling noise too: they are shown, not ranked, and their "
                  "in-sample stress grows on the smaller rungs.", "",
              "| pair | verdict | " + " | ".join(_share(f) for f in summary["fractions"]) + " |",
              "|---" * (len(shares) + 2) + "|"]
    for v in summary["verdicts"]:
        lines.append(f"| {v['a']} vs {v['b']} | {v['verdict']} | " + " | ".join(v["signs"]) + " |")
    return "\n".join(lines)


def ladder_line(summary: dict) -> str:
    """One sentence on the ladder's verdicts, for the terminal.

    Parameters
    ----------
    summary : dict
        From ``_ladder_summary``.

    Returns
    -------
    str

    Examples
    --------
    >>> ladder_line({"ranked": 1, "pairs": 2, "verdicts": [{"a": "x", "b": "y", "verdict": "x < y"},
    ...                                                    {"a": "x", "b": "z", "verdict": "undetermined"}]})
    'Ladder (all, 1/2, 1/4, 1/8 of the texts): 1 of 2 pairwise rankings hold on every rung; undetermined: x vs z.'
    """
    shares = ", ".join(_share(f) for f in summary.get("fractions", FRACTIONS))
    open_pairs = [f"{v['a']} vs {v['b']}" for v in summary["verdicts"] if v["verdict"] == "undetermined"]
    tail = f"; undetermined: {', '.join(open_pairs)}" if open_pairs else ""
    return (f"Ladder ({shares} of the texts): {summary['ranked']} of {summary['pairs']} pairwise rankings hold on "
            f"every rung{tail}.")


def ladder_table(summary: dict) -> str:
    """The pairwise verdicts as an aligned text table, for the terminal: pair, verdict, sign on each rung.

    Parameters
    ----------
    summary : dict
        From ``_ladder_summary``.

    Returns
    -------
    str

    Examples
    --------
    >>> print(ladder_table({"fractions": [1.0, 0.5], "verdicts": [{"a": "x", "b": "y", "verdict": "x < y",
    ...                                                            "signs": ["<", "<"]}]}))
    pair    verdict  all  1/2
    x vs y  x < y      <    <
    """
    rungs = [_share(f) for f in summary.get("fractions", FRACTIONS)]
    rows = [[f"{v['a']} vs {v['b']}", v["verdict"], *v["signs"]] for v in summary["verdicts"]]
    rows.insert(0, ["pair", "verdict", *rungs])
    return aligned_text(rows, left=2, min_width=3)


def plot_ladder(summary: dict, *, ax: Axes | None = None, fitted: bool = True) -> Axes:
    """Each encoding's scale-optimal stress with its interval on every rung of the ladder (a forest plot).

    Parameters
    ----------
    summary : dict
        From ``_ladder_summary`` (or the ``"ladder"`` entry of a report's ``report.json``).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if ``None``.
    fitted : bool, default True
        Also draw the fitted rows (MDS).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> summary = {"fractions": [1.0, 0.5], "n_texts": [8, 4],
    ...            "rows": [{"encoding": "x", "fitted": False, "optimal_stress": [0.5, 0.4], "lower": [0.4, 0.3],
    ...                      "upper": [0.6, 0.5]}]}
    >>> fig = plot_ladder(summary)
    >>> fig.axes[0].get_xlabel()
    'scale-optimal stress'
    >>> plt.close("all")
    """
    import matplotlib.pyplot as plt

    rows = [r for r in summary["rows"] if fitted or not r["fitted"]]
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 0.45 * len(rows) + 1.2))
    k = len(summary["fractions"])
    offsets = (np.arange(k) - (k - 1) / 2) * 0.8 / max(k, 1)
    for i, (f, m) in enumerate(zip(summary["fractions"], summary["n_texts"])):
        y = np.arange(len(rows)) + offsets[i]
        x = np.array([r["optimal_stress"][i] for r in rows])
        err = np.array([[x[j] - r["lower"][i], r["upper"][i] - x[j]] for j, r in enumerate(rows)]).T
        ax.errorbar(x, y, xerr=np.clip(err, 0, None), fmt="o", ms=4, capsize=2, label=f"{_share(f)} ({m:,} texts)")
    ax.set_yticks(np.arange(len(rows)))
    ax.set_yticklabels([r["encoding"] for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("scale-optimal stress")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(title="share of the texts", fontsize="small", loc="best")
    return ax.figure
