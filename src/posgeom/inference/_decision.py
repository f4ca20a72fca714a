"""The one decision rule: "a < b", "a > b", "a ≈ b within a margin" or "undetermined", from an interval."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .._validation import check_confidence, check_real

OUTCOMES = ("lower", "higher", "equivalent", "undetermined")


@dataclass(frozen=True)
class Decision:
    """A three-way decision on a difference ``a - b``, with the interval and margin it rests on.

    Attributes
    ----------
    outcome : str
        ``"lower"`` (a < b), ``"higher"`` (a > b), ``"equivalent"`` (a ≈ b within the margin) or
        ``"undetermined"``.
    estimate, lower, upper : float
        The difference and the ends of its interval.
    margin : float
        The equivalence margin (0: no equivalence can be declared).
    label : str
        What was compared.

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
    """Confidence of each two-sided interval so that ``decide`` ranks falsely with rate <= alpha over a family.

    A false ranking is either directional outcome where the truth is equal; with two-sided intervals at
    ``1 - alpha / n_comparisons`` (Bonferroni) its family-wise rate over ``n_comparisons`` is at most ``alpha``
    (``0.95`` for one comparison). The equivalence outcome then is a TOST at ``alpha / (2 n_comparisons)`` per side,
    conservative.

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
    """Decide between "a < b", "a > b", "a ≈ b" and "undetermined" from an interval for ``a - b``.

    The rule, consistent with its margin ``δ >= 0`` fixed before the data: "lower" when the whole interval lies
    below ``-δ``, "higher" when it lies above ``+δ``, "equivalent" when ``δ > 0`` and it lies inside ``[-δ, δ]``,
    and "undetermined" otherwise. So a difference is never ranked unless it surely exceeds the margin that defines
    "as good as", and with ``δ = 0`` the rule ranks when the interval excludes 0 and never declares equivalence.
    With a two-sided interval at confidence ``1 - α`` the rule ranks an equal pair with probability at most ``α``
    (either direction), and its equivalence outcome is the two one-sided tests (TOST) at ``α / 2`` each;
    ``family_confidence`` gives the level for several comparisons at once.

    Parameters
    ----------
    interval : object with ``estimate``, ``lower`` and ``upper`` (``Interval``, ``BootstrapEstimate``, ...)
        The interval for the difference ``a - b``.
    margin : float >= 0, keyword-only
    label : str, keyword-only

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
    """One decision from the same comparison on every rung of a ladder: their common outcome, else undetermined.

    The numbers are those of the first rung (the whole corpus, by convention).

    Parameters
    ----------
    decisions : non-empty sequence of Decision
    label : str, keyword-only

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
    first = decisions[0]
    outcomes = {d.outcome for d in decisions}
    outcome = first.outcome if len(outcomes) == 1 else "undetermined"
    return Decision(outcome, first.estimate, first.lower, first.upper, first.margin, label or first.label)
