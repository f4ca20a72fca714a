"""Statistical inference shared by every chapter (pure numpy/scipy; the base layer).

The one decision rule ``decide`` (a < b, a > b, a ≈ b within a margin, or undetermined) with ``decide_ladder`` and
``family_confidence``; ``BootstrapEstimate`` (the one bootstrap result), ``paired`` and ``difference`` (a paired
contrast); ``spearman``, ``permutation_p_value``, ``sign_flip_p_value``; intervals over seeds (``t_interval``,
``power_law_fit``) and power (``t_test_power``, ``detectable_effect``, ``tost_power``).
"""
from __future__ import annotations

# ``X as X``: importable from here but not public names (__all__); result types are documented (book/api.md)
from ._bootstrap import BootstrapEstimate as BootstrapEstimate
from ._bootstrap import difference as difference
from ._bootstrap import paired as paired
from ._correlation import PermutationTest as PermutationTest
from ._correlation import permutation_p_value, sign_flip_p_value, spearman
from ._decision import Decision as Decision
from ._decision import decide, decide_ladder
from ._decision import family_confidence as family_confidence
from ._intervals import Interval as Interval
from ._intervals import SlopeFit as SlopeFit
from ._intervals import detectable_effect, power_law_fit, t_interval, t_test_power, tost_power

__all__ = ["spearman", "permutation_p_value", "sign_flip_p_value", "t_interval", "power_law_fit", "t_test_power",
           "detectable_effect", "tost_power", "decide", "decide_ladder"]
