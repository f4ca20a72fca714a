"""An evaluated stress table: :class:`StressRow` (one encoding) and :class:`StressTable` (rows, formats, contrasts)."""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field

import numpy as np

from .._io import aligned_text
from .._validation import check_positive_int

__all__: list[str] = []  # result types, importable from posgeom.stress and documented in book/api.md

@dataclass(frozen=True)
class StressRow:
    """One evaluated row of a :class:`StressTable` (intervals, biases and Monte Carlo errors ``None`` without a
    bootstrap).

    Attributes
    ----------
    name, description : str, the candidate's label and conventions
    raw, optimal, scale : float
        Raw and scale-optimal stress against ``D`` (``posgeom.stress.core``), and ``a*`` (0 if ``E == 0``).
    raw_ci, optimal_ci, raw_ci_mc, optimal_ci_mc : (float, float) or None
        Bootstrap intervals, and the Monte Carlo standard errors of their ends.
    fitted : bool, whether the row was fitted to ``D`` (and refitted per resample)
    raw_bias, optimal_bias : float or None
        Mean of the replicates minus the estimate; the centred intervals remove it.

    Examples
    --------
    >>> StressRow("line", "", raw=0.25, optimal=0.0, scale=0.5).raw_ci is None
    True
    """
    name: str
    description: str
    raw: float
    optimal: float
    scale: float
    raw_ci: tuple | None = None
    optimal_ci: tuple | None = None
    fitted: bool = False
    raw_bias: float | None = None
    optimal_bias: float | None = None
    raw_ci_mc: tuple | None = None
    optimal_ci_mc: tuple | None = None

    def as_dict(self) -> dict:
        """A flat, JSON-ready dict, intervals split into ``*_ci_low``/``*_ci_high`` (``None`` where there is none).

        Returns
        -------
        dict

        Examples
        --------
        >>> StressRow("line", "", raw=0.25, optimal=0.0, scale=0.5, raw_ci=(0.2, 0.3)).as_dict()["raw_ci_low"]
        0.2
        """
        lo_r, hi_r = self.raw_ci if self.raw_ci is not None else (None, None)
        lo_o, hi_o = self.optimal_ci if self.optimal_ci is not None else (None, None)
        mc_lo_r, mc_hi_r = self.raw_ci_mc if self.raw_ci_mc is not None else (None, None)
        mc_lo_o, mc_hi_o = self.optimal_ci_mc if self.optimal_ci_mc is not None else (None, None)
        return {
            "encoding": self.name, "description": self.description, "raw_stress": self.raw,
            "raw_ci_low": lo_r, "raw_ci_high": hi_r, "optimal_stress": self.optimal, "optimal_ci_low": lo_o,
            "optimal_ci_high": hi_o, "optimal_scale": self.scale, "raw_bias": self.raw_bias,
            "optimal_bias": self.optimal_bias, "fitted": self.fitted, "raw_ci_low_mc": mc_lo_r,
            "raw_ci_high_mc": mc_hi_r, "optimal_ci_low_mc": mc_lo_o, "optimal_ci_high_mc": mc_hi_o,
        }


def row_index(names, name: str) -> int:
    """The index of row ``name`` in ``names`` (a ``KeyError`` listing the rows)."""
    try:
        return list(names).index(name)
    except ValueError:
        raise KeyError(f"no row {name!r}; rows are {list(names)}") from None


def _interval(c, digits: int) -> str:
    """``[lower, upper]`` formatted by ``_fmt``, or ``-``."""
    return "-" if c is None else f"[{_fmt(c[0], digits)}, {_fmt(c[1], digits)}]"


def _fmt(x, digits: int) -> str:
    """``x`` to ``digits`` significant digits (scientific when very small or large), ``-`` for ``None``."""
    if x is None:
        return "-"
    x = float(x)
    if x == 0:
        return "0"
    if abs(x) < 10 ** (-digits) or abs(x) >= 10 ** (digits + 1):
        return f"{x:.{max(digits - 1, 1)}e}"
    return f"{x:.{digits}g}" if abs(x) >= 1 else f"{x:.{digits}f}"


@dataclass(frozen=True)
class StressTable:
    """Stress of several encodings against one target ``D``, with optional bootstrap intervals.

    Attributes
    ----------
    rows : tuple of StressRow, in the order of the candidates
    n_positions, n_resamples : int
        ``n`` of ``D``; resamples behind the intervals (0: no bootstrap).
    confidence, method, seed : float, str, int or None
        The intervals' coverage and form (the bootstrap engine's statement); the bootstrap's int seed, if given.
    title, estimator, estimand : str
        Free text; the label of the estimator of ``D`` (every output format states it); what ``D`` estimates.
    target : (n, n) ndarray or None, the distances ``D`` the rows were evaluated against (read-only)
    replicates : ndarray or None
        ``(n_resamples, 3 * len(rows))``: each row's raw stress, scale-optimal stress and scale, on the same resamples.

    Examples
    --------
    >>> StressTable((StressRow("line", "", raw=0.25, optimal=0.0, scale=0.5),), 3).names
    ['line']
    """
    rows: tuple
    n_positions: int
    n_resamples: int = 0
    confidence: float | None = None
    method: str | None = None
    seed: int | None = None
    title: str = ""
    estimator: str = ""
    target: np.ndarray | None = field(default=None, repr=False, compare=False)
    estimand: str = ""
    replicates: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, name: str) -> StressRow:
        """The row called ``name``."""
        return self.rows[row_index(self.names, name)]

    @property
    def names(self) -> list:
        """The row names, in order."""
        return [r.name for r in self.rows]

    def to_records(self) -> list:
        """One dict per row (``StressRow.as_dict``) plus the table's metadata, ready for ``json.dumps``.

        Returns
        -------
        list of dict

        Examples
        --------
        >>> StressTable((StressRow("line", "", raw=0.25, optimal=0.0, scale=0.5),), 3).to_records()[0]["n_resamples"]
        0
        """
        meta = {"table": self.title, "estimator": self.estimator, "n_positions": self.n_positions,
                "n_resamples": self.n_resamples, "confidence": self.confidence, "method": self.method,
                "seed": self.seed}
        return [{**meta, **r.as_dict()} for r in self.rows]

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        """The records as CSV text (header row first); also written to ``path`` if given.

        Parameters
        ----------
        path : str or os.PathLike, optional

        Returns
        -------
        str

        Examples
        --------
        >>> StressTable((StressRow("line", "", raw=0.25, optimal=0.0, scale=0.5),), 3).to_csv().split(",")[:2]
        ['table', 'estimator']
        """
        records = self.to_records()
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(records)
        text = buffer.getvalue()
        if path is not None:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        return text

    def contrast(self, a: str, b: str, *, scale: str = "optimal"):
        """The paired difference ``stress(a) - stress(b)`` with its interval, on the table's own resamples.

        Parameters
        ----------
        a, b : str
        scale : {"optimal", "raw"}, default "optimal"

        Returns
        -------
        posgeom.inference.BootstrapEstimate, with the engine's centred percentile interval

        Examples
        --------
        >>> reps = np.array([[0, 0.1 + e, 1, 0, 0.5, 1] for e in (-0.02, 0, 0.02)])  # three resamples of two rows
        >>> table = StressTable((StressRow("a", "", 0, 0.1, 1), StressRow("b", "", 0, 0.5, 1)), 3, 3, 0.9,
        ...                     replicates=reps)
        >>> round(table.contrast("a", "b").upper, 3)
        -0.382
        """
        from ..inference._bootstrap import BootstrapEstimate, difference
        if self.replicates is None:
            raise ValueError("contrast needs a bootstrapped table (pass data= and rng= to stress_table)")
        if scale not in ("optimal", "raw"):
            raise ValueError(f"scale must be 'optimal' or 'raw', got {scale!r}")
        k = 1 if scale == "optimal" else 0
        ia, ib = (3 * row_index(self.names, x) + k for x in (a, b))
        est = np.array([getattr(r, s) for r in self.rows for s in ("raw", "optimal", "scale")])
        boot = BootstrapEstimate(est, self.replicates, 0, 0, 0, 0, self.confidence, self.method, "")
        return difference(boot, ia, ib, label=f"{a} - {b}")

    def equivalent(self, a: str, b: str, margin: float, *, scale: str = "optimal") -> bool:
        """Whether the interval of ``stress(a) - stress(b)`` lies in ``(-margin, margin)``, ``margin > 0`` fixed first.

        Parameters
        ----------
        a, b, margin, scale : str, str, float, str

        Returns
        -------
        bool

        Examples
        --------
        >>> reps = np.array([[0, 0.1 + e, 1, 0, 0.5, 1] for e in (-0.02, 0, 0.02)])  # three resamples of two rows
        >>> table = StressTable((StressRow("a", "", 0, 0.1, 1), StressRow("b", "", 0, 0.5, 1)), 3, 3, 0.9,
        ...                     replicates=reps)
        >>> table.equivalent("a", "b", 0.01)
        False
        """
        from ..inference import decide
        if not float(margin) > 0:
            raise ValueError(f"margin must be positive, got {margin}")
        return decide(self.contrast(a, b, scale=scale), margin=float(margin)).outcome == "equivalent"

    def to_markdown(self, digits: int = 3, *, descriptions: bool = True) -> str:
        """A Markdown table of raw and scale-optimal stress and intervals (``descriptions``: a conventions column).

        Parameters
        ----------
        digits, descriptions : int, bool

        Returns
        -------
        str

        Examples
        --------
        >>> print(StressTable((StressRow("x", "", 1, 0, 0.5),), 3, estimator="plug-in").to_markdown(descriptions=False))
        Estimator of D: plug-in.
        <BLANKLINE>
        | encoding | raw stress | raw CI | scale-optimal stress | scale-optimal CI |
        |---|---|---|---|---|
        | x | 1 | - | 0 | - |
        """
        head, *rows = self._cells(digits, descriptions=descriptions)
        lines = []
        if self.title:
            lines += [f"**{self.title}**", ""]
        lines += [f"Estimator of D: {self.estimator}.", ""]
        if self.estimand:
            lines[-1:] = [f"Estimand: {self.estimand}.", ""]
        lines += ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in rows]
        if self.n_resamples:
            mc = max((max(m) for r in self.rows for m in (r.raw_ci_mc, r.optimal_ci_mc) if m is not None),
                     default=float("nan"))
            lines += ["", f"Intervals: {self.method} of the {self.estimator} estimator, seed {self.seed}; fitted "
                          f"rows refitted per resample; largest Monte Carlo error of an interval end "
                          f"{_fmt(mc, digits)}."]
        return "\n".join(lines)

    def to_text(self, *, digits: int = 3) -> str:
        """The table as aligned plain text for a terminal.

        Parameters
        ----------
        digits : int

        Returns
        -------
        str

        Examples
        --------
        >>> print(StressTable((StressRow("x", "", 1, 0, 0.5),), 3, title="toy").to_text().splitlines()[0])
        toy
        """
        head = ([self.title] if self.title else []) + [f"Estimator of D: {self.estimator}."]
        head += [f"Estimand: {self.estimand}."] if self.estimand else []
        tail = [f"Intervals: {self.method}, seed {self.seed}."] if self.n_resamples else []
        cells = self._cells(digits, descriptions=False)
        return "\n".join(head + ["", aligned_text(cells)] + ([""] + tail if tail else []))

    def _cells(self, digits: int, *, descriptions: bool) -> list:
        """The header, then each row's cells (with ``descriptions``, its conventions, ``|`` escaped for Markdown)."""
        digits = check_positive_int(digits, "digits")
        ci = f"{self.confidence:.0%} CI" if self.n_resamples else "CI"
        conventions = ["conventions"] if descriptions else []
        head = ["encoding", *conventions, "raw stress", f"raw {ci}", "scale-optimal stress", f"scale-optimal {ci}"]
        return [head] + [
            [r.name, *([r.description.replace("|", "\\|")] if descriptions else []), _fmt(r.raw, digits),
             _interval(r.raw_ci, digits), _fmt(r.optimal, digits), _interval(r.optimal_ci, digits)] for r in self.rows]

    def _repr_markdown_(self) -> str:  # Jupyter renders the table
        return self.to_markdown()
