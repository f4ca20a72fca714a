"""A tiny English corpus (shipped as ``data/tiny_reviews.txt``): ``_tiny_reviews``, from a seeded template grammar."""
from __future__ import annotations

import numpy as np

from .._validation import check_positive_int, check_rng

__all__: list[str] = []  # the toy corpus serves the tests and the CLI's examples only

_SUBJECTS = ["this film", "the movie", "this picture", "the new thriller", "the sequel", "this documentary",
             "the remake", "this comedy", "the drama", "this animated feature"]
_OPENERS = ["honestly ,", "frankly ,", "in short ,", "to be fair ,", "sadly ,", "happily ,", "", "", "", ""]
_VERBS = ["is", "feels", "looks", "seems", "plays"]
_ADJ_POS = ["wonderful", "moving", "sharp", "funny", "gorgeous", "clever", "tender", "gripping"]
_ADJ_NEG = ["dull", "clumsy", "tedious", "shallow", "forgettable", "noisy", "lifeless", "confused"]
_MIDDLES = ["and the cast is {adj}", "but the script is {adj}", "with a {adj} score", "and the ending is {adj}",
            "though the pacing is {adj}", "with {adj} performances all round"]
_VERDICTS_POS = ["i loved it .", "see it twice .", "a small triumph .", "highly recommended .", "bring friends ."]
_VERDICTS_NEG = ["i want my money back .", "skip it .", "a long two hours .", "not recommended .", "avoid ."]


def _tiny_reviews(*, n_reviews: int = 2000, rng: int | np.random.Generator) -> list[str]:
    """Generate ``n_reviews`` short, lowercased, space-tokenised reviews (deterministic for a given seed)."""
    n_reviews = check_positive_int(n_reviews, "n_reviews")
    rng = check_rng(rng)
    pick = lambda words: words[int(rng.integers(len(words)))]  # noqa: E731
    reviews = []
    for _ in range(n_reviews):
        positive = bool(rng.integers(2))
        adjectives = _ADJ_POS if positive else _ADJ_NEG
        words = [pick(_OPENERS), pick(_SUBJECTS), pick(_VERBS), pick(adjectives)]
        for _ in range(int(rng.integers(0, 3))):
            mixed = _ADJ_NEG if positive and rng.random() < 0.3 else adjectives
            words.append(pick(_MIDDLES).format(adj=pick(mixed)))
        words.append(pick(_VERDICTS_POS if positive else _VERDICTS_NEG))
        reviews.append(" ".join(w for w in words if w))
    return reviews
