from pathlib import Path

import pytest

from posgeom.corpus import tiny_reviews

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "tiny_reviews.txt"


def test_shipped_corpus_is_the_generator_output():
    assert SHIPPED.read_text(encoding="utf-8").splitlines() == tiny_reviews()


def test_deterministic_and_seed_dependent():
    assert tiny_reviews(n_reviews=50, rng=3) == tiny_reviews(n_reviews=50, rng=3) != tiny_reviews(n_reviews=50, rng=4)


@pytest.mark.parametrize("kwargs", [dict(n_reviews=0), dict(rng=-1)])
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        tiny_reviews(**kwargs)
