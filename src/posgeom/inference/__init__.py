"""Statistical inference shared by every chapter (pure numpy/scipy; the base layer).

==========================  =======================================================================================
``BootstrapEstimate``       the one bootstrap result: estimate, replicates, interval, Monte Carlo error of its ends
``spearman``                Spearman's rho of two vectors
``PermutationTest``         a statistic, its permutation null and p-value
``permutation_p_value``     p-value against a permutation null (never 0 for a Monte Carlo null)
``sign_flip_p_value``       exact sign-flip p-value of a mean over independent units
``Interval``                a point estimate with a two-sided interval
``t_interval``              Student-t interval for a mean over seeds
``power_law_fit``           exponent of a power law with its t interval
``Equivalence``             result of ``equivalence_test``
``equivalence_test``        two one-sided t tests (TOST) against a margin fixed in advance
``tost_power``              exact power of that TOST
``t_test_power``            power of the one-sample t test over seeds (two-sided or greater)
``detectable_effect``       the smallest standardised effect a t test over seeds detects with a given power
``Decision``                a three-way decision on a difference, with its interval and margin
``decide``                  the one decision rule: a < b, a > b, a ≈ b within a margin, or undetermined
``decide_ladder``           one decision from the same comparison on every rung of a ladder
``family_confidence``       the interval level that keeps ``decide``'s family-wise error at alpha
==========================  =======================================================================================
"""

from __future__ import annotations

# ``X as X``: result types, importable from here and documented (book/api.md) but not public names (__all__)
from ._bootstrap import BootstrapEstimate as BootstrapEstimate
from ._correlation import PermutationTest as PermutationTest
from ._correlation import permutation_p_value, sign_flip_p_value, spearman
from ._decision import Decision as Decision
from ._decision import decide, decide_ladder
from ._decision import family_confidence as family_confidence
from ._intervals import Equivalence as Equivalence
from ._intervals import Interval as Interval
from ._intervals import SlopeFit as SlopeFit
from ._intervals import detectable_effect, equivalence_test, power_law_fit, t_interval, t_test_power, tost_power

__all__ = [
    "spearman",
    "permutation_p_value",
    "sign_flip_p_value",
    "t_interval",
    "power_law_fit",
    "t_test_power",
    "detectable_effect",
    "tost_power",
    "equivalence_test",
    "decide",
    "decide_ladder",
]
