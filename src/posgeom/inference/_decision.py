"""The one decision rule: "a < b", "a > b", "a ≈ b within a margin" or "undetermined", from an interval."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .._validation import check_confidence, check_real


@dataclass(frozen=True)
class Decision:
    """A three-way decision on a difference ``a - b``, with the interval and margin it rests on.

    Attributes
    ----------
    outcome : str
        ``"lower"`` (a < b), ``"higher"`` (a > b), ``"equivalent"`` (within the margin) or ``"undetermined"``.
    estimate, lower, upper : float
    margin : float (0: no equivalence can be declared)
    label : str

    Examples
    --------
    >>> print(Decision("lower", -0.05, -0.08, -0.03, 0.02, "ALiBi - sinusoidal"))
    ALiBi - sinusoidal: a < b, -0.05 [-0.08, -0.03]
    """
    outcome: str
    estimate: float
    lower: float
    upper: float
    margin: float
    label: str = ""

    @property
    def ranked(self) -> bool:
        """Whether the decision orders ``a`` and ``b``."""
        return self.outcome in ("lower", "higher")

    def __str__(self) -> str:
        words = {"lower": "a < b", "higher": "a > b", "equivalent": f"a ≈ b (within ±{self.margin:.3g})",
                 "undetermined": "undetermined"}[self.outcome]
        return f"{self.label + ': ' if self.label else ''}{words}, {self.estimate:+.3g} [{self.lower:+.3g}, " \
               f"{self.upper:+.3g}]"


def family_confidence(n_comparisons: int, *, alpha: float = 0.05) -> float:
    """Confidence ``1 - alpha / n_comparisons`` (Bonferroni): ``decide``'s family-wise false-ranking rate <= alpha.

    Parameters
    ----------
    n_comparisons : int >= 1
    alpha : float in (0, 1)

    Returns
    -------
    float

    Examples
    --------
    >>> family_confidence(1), round(family_confidence(10), 3)
    (0.95, 0.995)
    """
    if isinstance(n_comparisons, bool) or not isinstance(n_comparisons, int) or n_comparisons < 1:
        raise ValueError(f"n_comparisons must be an int >= 1, got {n_comparisons!r}")
    check_confidence(1 - alpha, "1 - alpha")
    return 1 - alpha / n_comparisons


def decide(interval: object, *, margin: float = 0.0, label: str = "") -> Decision:
    """Decide "a < b", "a > b", "a ≈ b" or "undetermined" from an interval for ``a - b``.

    With the margin ``δ >= 0`` fixed before the data: "lower" when the interval lies below ``-δ``, "higher" when above
    ``+δ``, "equivalent" when ``δ > 0`` and it lies inside ``[-δ, δ]``, else "undetermined". With a two-sided interval
    at confidence ``1 - α`` an equal pair is ranked with probability at most ``α``, and equivalence is a TOST at
    ``α / 2`` per side.

    Parameters
    ----------
    interval : object with ``estimate``, ``lower`` and ``upper`` (``Interval``, ``BootstrapEstimate``, ...)
    margin : float >= 0
    label : str

    Returns
    -------
    Decision

    Examples
    --------
    >>> from posgeom.inference import Interval
    >>> decide(Interval(-0.05, -0.08, -0.03, 0.9), margin=0.02).outcome
    'lower'
    """
    try:
        estimate, lower, upper = (float(getattr(interval, k)) for k in ("estimate", "lower", "upper"))
    except (AttributeError, TypeError) as error:
        raise TypeError("interval must have scalar 'estimate', 'lower' and 'upper' (an Interval or a scalar "
                        f"BootstrapEstimate), got {type(interval).__name__}") from error
    if not all(math.isfinite(v) for v in (estimate, lower, upper)):
        raise ValueError(f"the interval must be finite, got estimate {estimate}, [{lower}, {upper}]")
    if lower > upper:
        raise ValueError(f"the interval's lower end {lower} exceeds its upper end {upper}")
    margin = check_real(margin, "margin", strict=False)
    if upper < -margin:
        outcome = "lower"
    elif lower > margin:
        outcome = "higher"
    elif margin > 0 and -margin <= lower and upper <= margin:
        outcome = "equivalent"
    else:
        outcome = "undetermined"
    return Decision(outcome, estimate, lower, upper, margin, label)


def decide_ladder(decisions: Sequence[Decision], *, label: str = "") -> Decision:
    """The common outcome of one comparison on every rung of a ladder, else undetermined (numbers of the first rung).

    Parameters
    ----------
    decisions : non-empty sequence of Decision
    label : str

    Returns
    -------
    Decision

    Examples
    --------
    >>> from posgeom.inference import Interval
    >>> rungs = [decide(Interval(-0.05, -0.08, -0.03, 0.9)), decide(Interval(-0.04, -0.09, 0.01, 0.9))]
    >>> decide_ladder(rungs).outcome
    'undetermined'
    """
    decisions = list(decisions)
    if not decisions or not all(isinstance(d, Decision) for d in decisions):
        raise TypeError("decisions must be a non-empty sequence of Decision (from decide)")
    first, outcomes = decisions[0], {d.outcome for d in decisions}
    outcome = first.outcome if len(outcomes) == 1 else "undetermined"
    return Decision(outcome, first.estimate, first.lower, first.upper, first.margin, label or first.label)
