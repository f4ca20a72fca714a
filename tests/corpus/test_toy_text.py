from pathlib import Path

import pytest

from posgeom.corpus.toy_text import _tiny_reviews

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "tiny_reviews.txt"


def test_shipped_corpus_is_the_generator_output():
    assert SHIPPED.read_text(encoding="utf-8").splitlines() == _tiny_reviews(rng=0)


def test_deterministic_and_seed_dependent():
    first = _tiny_reviews(n_reviews=50, rng=3)
    assert first == _tiny_reviews(n_reviews=50, rng=3) != _tiny_reviews(n_reviews=50, rng=4)


@pytest.mark.parametrize("kwargs", [dict(n_reviews=0, rng=0), dict(rng=-1)])
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        _tiny_reviews(**kwargs)
