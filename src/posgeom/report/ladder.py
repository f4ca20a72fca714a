"""The ladder of ``posgeom report --ladder``: :func:`report_ladder` (the dict in ``report.json``), its writers
``ladder_markdown``, ``ladder_line``, ``ladder_table``, and :func:`plot_ladder` (``ladder.png``).

A pair is ranked only when the mean squared distance between positions excludes 0 on every rung and the centred
paired interval of the two stresses excludes 0 on one side on every rung; else it is *undetermined*.
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

__all__ = ["report_ladder", "plot_ladder"]

#: The rungs (shares of the texts), the whole corpus first.
FRACTIONS = (1.0, 0.5, 0.25, 0.125)
#: Bootstrap resamples per rung of ``--ladder`` given without a number.
LADDER_RESAMPLES = 200


def _share(f: float) -> str:
    """``"all"``, ``"1/2"``, ``"1/4"``, ... for a rung."""
    k = 1 / f
    return "all" if f == 1 else f"1/{round(k)}" if abs(k - round(k)) < 1e-9 else f"{f:g}"


#: The sign of a rung's decision in the report's tables.
_SIGNS = {"lower": "<", "higher": ">"}


def _centred(ladder: Ladder, keep) -> Ladder:
    """The ladder restricted to the components ``keep``, its replicates centred on the estimates."""
    keep, rungs = np.asarray(keep, dtype=int), []
    for r in ladder.rungs:
        reps, est = np.asarray(r.replicates, dtype=float)[:, keep], np.asarray(r.estimate, dtype=float)[keep]
        rungs.append(replace(r, estimate=est, replicates=reps - reps.mean(axis=0) + est, **{
            f: np.asarray(getattr(r, f))[keep] for f in ("lower", "upper", "lower_mc_error", "upper_mc_error")}))
    return Ladder(fractions=ladder.fractions, rungs=tuple(rungs), estimator=ladder.estimator)


def report_ladder(candidates: Sequence[Candidate], data: SequenceIncidence, estimator: object, *, rng: int,
                  n_resamples: int = LADDER_RESAMPLES,
                  fractions: Sequence[float] = FRACTIONS, groups: Sequence | None = None) -> dict:
    """The ladder of a report: the stress of every row, and the mean squared distance, on every rung.

    Parameters
    ----------
    candidates, data : sequence of posgeom.stress.Candidate, posgeom.corpus.SequenceIncidence
    estimator : PlugIn, CrossFitted or Resolved
        The report's estimator (a ``Resolved`` one fixed for the smallest rung).
    rng, n_resamples, fractions : int, int, sequence of float
        Seed (both ladders draw the same rungs and resamples); resamples per rung; the rungs.
    groups : (n_texts,) array, optional, one label per text (the unit of resampling on every rung)

    Returns
    -------
    dict
        ``_ladder_summary`` of the two ladders; ``"unit"`` names the resampling unit.

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> from posgeom.geometry import Resolved
    >>> from posgeom.stress import mds_candidate
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(1600, 6, 20, rng=0), 6, 20)
    >>> report_ladder([mds_candidate(rank=None, name="MDS")], inc, Resolved().fixed(inc, fraction=1 / 8), rng=0,
    ...               n_resamples=50)["geometry"]
    True
    """
    from ..stress import stress_ladder
    stresses = stress_ladder(candidates, data, estimator=estimator, rng=rng, fractions=fractions,
                             n_resamples=n_resamples, groups=groups)
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
    """The ladder's section of ``stress_table.md``: stress on every rung, then the verdict and signs of every pair."""
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
    """One sentence on the ladder's verdicts, for the terminal."""
    shares = ", ".join(_share(f) for f in summary.get("fractions", FRACTIONS))
    open_pairs = [f"{v['a']} vs {v['b']}" for v in summary["verdicts"] if v["verdict"] == "undetermined"]
    tail = f"; undetermined: {', '.join(open_pairs)}" if open_pairs else ""
    return (f"Ladder ({shares} of the texts): {summary['ranked']} of {summary['pairs']} pairwise rankings hold on "
            f"every rung{tail}.")


def ladder_table(summary: dict) -> str:
    """The pairwise verdicts as an aligned text table, for the terminal: pair, verdict, sign on each rung."""
    rungs = [_share(f) for f in summary.get("fractions", FRACTIONS)]
    rows = [[f"{v['a']} vs {v['b']}", v["verdict"], *v["signs"]] for v in summary["verdicts"]]
    rows.insert(0, ["pair", "verdict", *rungs])
    return aligned_text(rows, left=2, min_width=3)


def plot_ladder(summary: dict, *, ax: Axes | None = None, fitted: bool = True) -> Axes:
    """Each encoding's scale-optimal stress with its interval on every rung of the ladder (a forest plot).

    Parameters
    ----------
    summary : dict from :func:`report_ladder` (or ``report.json``'s ``"ladder"``)
    ax, fitted : matplotlib.axes.Axes, bool
        Where to draw (default a new figure); whether to draw the fitted rows (MDS, default True).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> row = {"encoding": "x", "fitted": False, "optimal_stress": [0.5], "lower": [0.4], "upper": [0.6]}
    >>> plot_ladder({"fractions": [1.0], "n_texts": [8], "rows": [row]}).axes[0].get_xlabel()
    'scale-optimal stress'
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
