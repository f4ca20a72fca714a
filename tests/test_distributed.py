"""Sharded counting on a real local Dask cluster equals one pass over the same documents."""

import json

import numpy as np
import pytest

from posgeom.data import (
    CountingConvention,
    corpus_position_counts,
    load_tokenizer,
    read_shard,
    shard_paths,
)

DOCS = [
    "the film is a triumph of style over substance",
    "i did not like it",
    "an unexpectedly moving story , with a great cast and a terrible ending",
    "bad",
    "two hours i will never get back",
    "a quiet , careful , beautiful film",
    "worth seeing twice",
]


@pytest.fixture(scope="module")
def shard_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shards")
    (folder / "a.txt").write_text("\n".join(DOCS[:3]) + "\n\n", encoding="utf-8")
    (folder / "b.jsonl").write_text("\n".join(json.dumps({"text": d, "id": i}) for i, d in enumerate(DOCS[3:5])))
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    pq.write_table(pa.table({"text": DOCS[5:]}), folder / "c.parquet")
    return folder


def test_shards_are_read_in_sorted_order(shard_folder):
    docs = [d for p in shard_paths(shard_folder) for d in read_shard(p)]
    assert docs == DOCS


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


@pytest.mark.parametrize(
    "convention", [CountingConvention(12), CountingConvention(8, special_tokens=False, count_padding=True)]
)
def test_local_cluster_equals_one_pass(shard_folder, cluster, convention):
    from posgeom.data import sharded_position_counts

    one_pass = corpus_position_counts(DOCS, load_tokenizer(), convention)
    reference = sharded_position_counts(shard_folder, convention, scheduler="local-process")
    distributed = sharded_position_counts(str(shard_folder / "*"), convention, scheduler=cluster.scheduler_address)
    assert (reference != one_pass).nnz == 0
    assert (distributed != one_pass).nnz == 0
    assert distributed.dtype == np.int64 and distributed.sum() > 0


def test_bad_sources(tmp_path):
    with pytest.raises(FileNotFoundError, match="no shard files"):
        shard_paths(tmp_path / "nothing-*.txt")
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"body": "no text field"}\n')
    with pytest.raises(ValueError, match="x.jsonl:1"):
        read_shard(bad)


# ---------------------------------------------------------------------------------------------------------------
# The corrected estimator on the sharded route
# ---------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def review_docs():
    from posgeom.corpus import tiny_reviews

    return tiny_reviews(300, rng=0)


@pytest.fixture(scope="module")
def review_shards(review_docs, tmp_path_factory):
    folder = tmp_path_factory.mktemp("review_shards")
    (folder / "a.txt").write_text("\n".join(review_docs[:120]) + "\n", encoding="utf-8")
    (folder / "b.jsonl").write_text("\n".join(json.dumps({"text": d}) for d in review_docs[120:200]) + "\n")
    (folder / "c.txt").write_text("\n".join(review_docs[200:]) + "\n", encoding="utf-8")
    return folder


def _same_counts(xs, ys):
    return len(xs) == len(ys) and all(x.shape == y.shape and (x != y).nnz == 0 for x, y in zip(xs, ys))


@pytest.mark.parametrize(
    "convention", [CountingConvention(6), CountingConvention(8, special_tokens=False, count_padding=True)]
)
def test_sharded_corrected_equals_one_pass(review_docs, review_shards, cluster, convention):
    from posgeom.data.distributed import one_pass_half_counts, sharded_corrected_distances, sharded_half_counts
    from posgeom.geometry import corrected_from_half_counts

    one_a, one_b = one_pass_half_counts(review_docs, convention, n_splits=12, seed=7)
    dask_a, dask_b = sharded_half_counts(review_shards, convention, n_splits=12, seed=7,
                                         scheduler=cluster.scheduler_address)
    assert _same_counts(dask_a, one_a) and _same_counts(dask_b, one_b)  # the merge is exact, split by split
    whole = corpus_position_counts(review_docs, load_tokenizer(), convention)
    assert all((a + b != whole).nnz == 0 for a, b in zip(one_a, one_b))  # the halves partition the documents
    reference = corrected_from_half_counts(one_a, one_b)
    distributed = sharded_corrected_distances(review_shards, convention, n_splits=12, seed=7,
                                              scheduler=cluster.scheduler_address)
    for field in ("distances", "squared", "floors", "mc_spread"):
        np.testing.assert_allclose(getattr(distributed, field), getattr(reference, field), rtol=0, atol=1e-14)
    assert distributed.fraction_clipped == reference.fraction_clipped and distributed.n_splits == 12
    assert distributed.distances[np.triu_indices(convention.n_positions, 1)].min() > 0


def test_sharding_and_order_do_not_change_the_halves(review_docs, review_shards):
    from posgeom.data.distributed import one_pass_half_counts, sharded_half_counts

    convention = CountingConvention(6)
    local = sharded_half_counts(review_shards, convention, n_splits=3, seed=1, scheduler="local-process")
    shuffled = list(np.random.default_rng(0).permutation(np.array(review_docs, dtype=object)))
    one_pass = one_pass_half_counts(shuffled, convention, n_splits=3, seed=1)
    assert _same_counts(local[0], one_pass[0]) and _same_counts(local[1], one_pass[1])
    other_seed = one_pass_half_counts(review_docs, convention, n_splits=3, seed=2)
    assert not _same_counts(other_seed[0], one_pass[0])


def test_half_counts_respect_min_length(review_docs):
    from posgeom.data.distributed import one_pass_half_counts

    convention = CountingConvention(6, min_length=6)
    a, b = one_pass_half_counts(review_docs, convention, n_splits=2, seed=0)
    whole = corpus_position_counts(review_docs, load_tokenizer(), convention)
    assert (a[1] + b[1] != whole).nnz == 0


def test_corrected_from_half_counts_equals_corrected_distances():
    """Given the halves that corrected_distances drew, the half-count route returns its result."""
    from posgeom import synthetic_corpus
    from posgeom.corpus import SequenceIncidence
    from posgeom.geometry import corrected_distances, corrected_from_half_counts

    n, V, m, S = 8, 30, 400, 6
    inc = SequenceIncidence.from_sequences(synthetic_corpus(m, n, V, rng=0), n, V)
    expected = corrected_distances(inc, rng=3, n_splits=S)
    gen = np.random.default_rng(3)  # the permutations corrected_distances draws
    counts_a, counts_b = [], []
    for _ in range(S):
        perm = gen.permutation(m)
        in_a = np.zeros(m)
        in_a[perm[: m // 2]] = 1.0
        counts_a.append(inc.counts(in_a))
        counts_b.append(inc.counts(1.0 - in_a))
    stacked_a = np.stack([c.toarray() for c in counts_a])
    stacked_b = np.stack([c.toarray() for c in counts_b])
    for got in (corrected_from_half_counts(counts_a, counts_b), corrected_from_half_counts(stacked_a, stacked_b)):
        for field in ("distances", "squared", "floors", "mc_spread"):
            np.testing.assert_allclose(getattr(got, field), getattr(expected, field), rtol=0, atol=1e-13)
        assert got.fraction_clipped == expected.fraction_clipped and got.n_splits == S


def test_hash_halves_on_an_incidence_match_the_one_pass_route(review_docs):
    """The same documents and assignment, counted from a SequenceIncidence: the same half counts."""
    from posgeom.data import corpus_incidence
    from posgeom.data.distributed import one_pass_half_counts
    from posgeom.geometry import half_assignment

    convention = CountingConvention(6)
    inc = corpus_incidence(review_docs, load_tokenizer(), convention)
    in_b = half_assignment(review_docs, n_splits=4, seed=5)
    a, b = one_pass_half_counts(review_docs, convention, n_splits=4, seed=5)
    for s in range(4):
        assert (inc.counts(in_b[s].astype(float)) != b[s]).nnz == 0
        assert (inc.counts((~in_b[s]).astype(float)) != a[s]).nnz == 0


def test_half_assignment_is_deterministic_balanced_and_seeded():
    from posgeom.geometry import half_assignment

    keys = [f"document {k}: some text" for k in range(50_000)]
    in_b = half_assignment(keys, n_splits=20, seed=0)
    assert in_b.shape == (20, 50_000) and in_b.dtype == bool
    assert np.array_equal(in_b, half_assignment(keys, n_splits=20, seed=0))
    # roughly balanced: each split's count in half B within 5 binomial standard deviations of m / 2
    m = len(keys)
    assert np.all(np.abs(in_b.sum(axis=1) - m / 2) < 5 * np.sqrt(m) / 2)
    # splits look independent: two splits agree on about half of the documents
    assert abs(np.mean(in_b[0] == in_b[1]) - 0.5) < 5 * 0.5 / np.sqrt(m)
    other = half_assignment(keys, n_splits=20, seed=1)
    assert abs(np.mean(other == in_b) - 0.5) < 5 * 0.5 / np.sqrt(in_b.size)
    # a document's halves depend on its key only: not on the others, their order or n_splits
    assert np.array_equal(half_assignment(keys[::-1], n_splits=20, seed=0), in_b[:, ::-1])
    assert np.array_equal(half_assignment(keys[:10], n_splits=600, seed=0)[:20], in_b[:, :10])
    assert np.array_equal(half_assignment([k.encode() for k in keys[:10]], n_splits=20, seed=0), in_b[:, :10])


def test_half_assignment_does_not_depend_on_the_process():
    import os
    import subprocess
    import sys

    from posgeom.geometry import half_assignment

    code = ("from posgeom.geometry import half_assignment; "
            "print(half_assignment(['a', 'b', 'c', 'd'], n_splits=8, seed=3).astype(int).ravel().tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "123"}).stdout.strip()
    assert out == str(half_assignment(["a", "b", "c", "d"], n_splits=8, seed=3).astype(int).ravel().tolist())


def test_half_assignment_errors():
    from posgeom.geometry import half_assignment

    with pytest.raises(ValueError, match="n_splits must be >= 2"):
        half_assignment(["a", "b"], n_splits=1, seed=0)
    with pytest.raises(TypeError, match="key 1 is int"):
        half_assignment(["a", 3], n_splits=2, seed=0)
    with pytest.raises(TypeError, match="not a single string"):
        half_assignment("abc", n_splits=2, seed=0)
    with pytest.raises(ValueError, match="seed"):
        half_assignment(["a"], n_splits=2, seed=-1)


def test_corrected_from_half_counts_errors():
    import scipy.sparse as sp

    from posgeom.geometry import corrected_from_half_counts

    good = np.array([[2, 1, 0], [0, 1, 2], [1, 1, 1]])
    with pytest.raises(ValueError, match="at least 2 splits"):
        corrected_from_half_counts([good], [good])
    with pytest.raises(ValueError, match="counts_a holds 2 splits but counts_b 3"):
        corrected_from_half_counts([good, good], [good, good, good])
    with pytest.raises(ValueError, match=r"counts_b\[1\] has shape \(2, 3\), expected \(3, 3\)"):
        corrected_from_half_counts([good, good], [good, good[:2]])
    with pytest.raises(ValueError, match="single matrix"):
        corrected_from_half_counts(sp.csr_matrix(good), good)
    empty = good.copy()
    empty[2] = 0
    with pytest.raises(ValueError, match="split 1: position 2 receives no observation in half B.*fewer positions"):
        corrected_from_half_counts([good, good], [good, sp.csr_matrix(empty)])
    with pytest.raises(ValueError, match="negative"):
        corrected_from_half_counts([good, -good], [good, good])


def test_one_pass_reports_an_empty_half_position():
    from posgeom.data.distributed import one_pass_half_counts
    from posgeom.geometry import corrected_from_half_counts

    a, b = one_pass_half_counts(["a good film", "bad"], CountingConvention(5), n_splits=4, seed=0)
    with pytest.raises(ValueError, match="position .* receives no observation in half"):
        corrected_from_half_counts(a, b)
