"""Sharded tokenising on a real local Dask cluster equals one pass over the same documents."""

import json

import numpy as np
import pytest

from posgeom.data import (
    CountingConvention,
    corpus_position_counts,
    load_tokenizer,
    tokenize_corpus,
)
from posgeom.data._shards import read_shard, shard_paths

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


def _same_tokens(got, expected):
    return (np.array_equal(got.indptr, expected.indptr) and np.array_equal(got.ids, expected.ids)
            and got.ids.dtype == expected.ids.dtype and got.max_pieces == expected.max_pieces
            and got.vocab_size == expected.vocab_size
            and (got.cls_id, got.sep_id, got.pad_id) == (expected.cls_id, expected.sep_id, expected.pad_id))


def _same_incidence(got, expected):
    pairs = [(getattr(got, f), getattr(expected, f)) for f in ("indptr", "cell", "cells")]
    return all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in pairs)


@pytest.mark.slow
@pytest.mark.parametrize(
    "convention", [CountingConvention(12), CountingConvention(8, special_tokens=False, count_padding=True)]
)
def test_local_cluster_tokenises_like_one_pass(shard_folder, cluster, convention):
    """Shards tokenised on a cluster and concatenated: the arrays of one pass, hence the same incidence."""
    from posgeom.data._distributed import sharded_tokenized_corpus

    one_pass = tokenize_corpus(DOCS, load_tokenizer(), max_pieces=convention.n_positions)
    reference = sharded_tokenized_corpus(shard_folder, convention.n_positions, scheduler="local-process")
    distributed = sharded_tokenized_corpus(str(shard_folder / "*"), convention.n_positions,
                                           scheduler=cluster.scheduler_address)
    assert _same_tokens(reference, one_pass) and _same_tokens(distributed, one_pass)
    assert _same_incidence(distributed.incidence(convention), one_pass.incidence(convention))
    assert (distributed.counts(convention) != corpus_position_counts(DOCS, load_tokenizer(), convention)).nnz == 0


def _selected(shard_folder, keep, scheduler):
    """Tokens of the documents ``keep`` picked by ``select`` on ``scheduler``, and the sizes ``select`` was shown."""
    from posgeom.data._distributed import sharded_tokenized_corpus

    seen = []

    def select(m):
        seen.append(m)
        return keep

    return sharded_tokenized_corpus(shard_folder, 10, scheduler=scheduler, select=select), seen


@pytest.mark.parametrize("keep", [[1, 4, 6], [3, 4], [0], list(range(7))])
def test_selection_by_corpus_wide_indices(shard_folder, keep):
    """``select`` picks documents by their index in the whole corpus; shards left without one are not tokenised."""
    got, seen = _selected(shard_folder, keep, "local-process")
    assert _same_tokens(got, tokenize_corpus([DOCS[i] for i in keep], load_tokenizer(), max_pieces=10))
    assert seen == [len(DOCS)]


@pytest.mark.slow
@pytest.mark.parametrize("keep", [[1, 4, 6], [0]])
def test_selection_by_corpus_wide_indices_on_a_cluster(shard_folder, cluster, keep):
    """The same selection on a real local Dask cluster."""
    got, seen = _selected(shard_folder, keep, cluster.scheduler_address)
    assert _same_tokens(got, tokenize_corpus([DOCS[i] for i in keep], load_tokenizer(), max_pieces=10))
    assert seen == [len(DOCS)]


def test_empty_shards_and_bad_selections(tmp_path):
    from posgeom.data._distributed import sharded_tokenized_corpus

    (tmp_path / "a.txt").write_text("\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="has no documents"):
        sharded_tokenized_corpus(tmp_path, 8, scheduler="local-process")
    with pytest.raises(ValueError, match="has no documents"):
        sharded_tokenized_corpus(tmp_path, 8, scheduler="local-process", select=lambda m: range(m))
    (tmp_path / "b.txt").write_text("a good film\nbad\n", encoding="utf-8")
    tokens = sharded_tokenized_corpus(tmp_path, 8, scheduler="local-process")  # the empty shard is skipped
    assert _same_tokens(tokens, tokenize_corpus(["a good film", "bad"], load_tokenizer(), max_pieces=8))
    with pytest.raises(ValueError, match="keeps no document"):
        sharded_tokenized_corpus(tmp_path, 8, scheduler="local-process", select=lambda m: [])
    for bad in ([1, 0], [0, 0], [2], [-1]):
        with pytest.raises(ValueError, match="strictly increasing document indices"):
            sharded_tokenized_corpus(tmp_path, 8, scheduler="local-process", select=lambda m, bad=bad: bad)
    with pytest.raises(ValueError, match="max_pieces"):
        sharded_tokenized_corpus(tmp_path, 0, scheduler="local-process")


def test_bad_sources(tmp_path):
    with pytest.raises(FileNotFoundError, match="no shard files"):
        shard_paths(tmp_path / "nothing-*.txt")
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"body": "no text field"}\n')
    with pytest.raises(ValueError, match="x.jsonl:1"):
        read_shard(bad)
