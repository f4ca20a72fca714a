"""Positional counts of a sharded corpus on Dask (``dask.distributed``), and the corrected estimator from them.

Counting is a sum over documents, so it scales out: each task reads one shard, tokenises it and counts it with
:func:`posgeom.data.corpus_position_counts`; the partial counts are merged exactly with
:func:`posgeom.merge_counts`. The result is identical, to the last count, to one pass over the same documents
(:func:`sharded_position_counts` with ``scheduler="local-process"``), whatever the number of workers.

The corrected (cross-fitted) estimator needs, per random split of the documents, the counts of the two halves
(:mod:`posgeom.geometry.crossfit`). :func:`sharded_half_counts` computes them shard by shard: the half of a document
in each split is a seeded hash of the document's **text** (:func:`posgeom.geometry.half_assignment`), so no shard
needs another, and re-sharding or re-ordering the corpus changes nothing. Text keys rather than (shard path, line
number): equal texts, which are the only keys that collide, then fall in the same half of every split. A document
duplicated in the corpus cannot sit in both halves and make them dependent (which would shrink the estimated noise
floors), and the assignment can be recomputed from the texts alone, in one process
(:func:`one_pass_half_counts`, the reference result). :func:`sharded_corrected_distances` merges the half counts
and returns the corrected distances.

Dask is an optional dependency: ``pip install 'posgeom[dask]'``.
"""

from __future__ import annotations

import functools
import os

import numpy as np
import scipy.sparse as sp

from ..corpus.counts import merge_counts
from ..geometry.crossfit import corrected_from_half_counts, half_assignment
from .shards import read_shard, shard_paths

__all__ = [
    "sharded_position_counts",
    "one_pass_half_counts",
    "sharded_half_counts",
    "sharded_corrected_distances",
]


@functools.lru_cache(maxsize=4)
def _tokenizer(model: str):
    from .text import load_tokenizer

    return load_tokenizer(model)


def _count_shard(path, convention, model: str, text_field: str, batch_size: int) -> sp.csr_matrix:
    from .text import corpus_position_counts

    docs = read_shard(path, text_field=text_field)
    tokenizer = _tokenizer(model)
    if not docs:
        return sp.csr_matrix((convention.n_positions, len(tokenizer)), dtype="int64")
    return corpus_position_counts(docs, tokenizer, convention, batch_size=batch_size)


def sharded_position_counts(
    source: str | os.PathLike,
    convention,
    *,
    model: str = "all-MiniLM-L6-v2",
    scheduler: str | None = None,
    n_workers: int = 2,
    text_field: str = "text",
    batch_size: int = 1024,
) -> sp.csr_matrix:
    """Positional counts of every document in a sharded corpus, computed shard by shard and merged.

    Parameters
    ----------
    source : folder, file or glob
        The shards (see :mod:`posgeom.shards` for the formats).
    convention : posgeom.data.CountingConvention
        What is counted (special tokens, padding, truncation, which sequences); applied identically on every shard.
    model : str, default "all-MiniLM-L6-v2"
        Tokenizer name or path, loaded once per worker process.
    scheduler : str, optional
        ``None``: start a local Dask cluster with ``n_workers`` single-threaded worker processes for this call.
        An address such as ``"tcp://10.0.0.5:8786"``: use that running cluster (its workers need ``posgeom``).
        ``"local-process"``: no Dask at all, one pass in this process (the reference result).
    n_workers : int, default 2
        Workers of the local cluster (ignored with an address).
    text_field : str, default "text"
        Field (JSONL) or column (Parquet) holding the documents.
    batch_size : int, default 1024
        Texts per tokenizer call.

    Returns
    -------
    (n, V) CSR int64 matrix
        Exactly the counts of one pass over the concatenated shards.

    Raises
    ------
    FileNotFoundError
        ``source`` holds no shard.
    ImportError
        Dask is needed (any ``scheduler`` but ``"local-process"``) and not installed.

    Examples
    --------
    ``"local-process"`` gives the reference result without Dask; the other schedulers give the same counts.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from posgeom.data import CountingConvention
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.txt").write_text("a good film\\nbad\\n", encoding="utf-8")
    ...     _ = (Path(tmp) / "b.txt").write_text("fine\\n", encoding="utf-8")
    ...     counts = sharded_position_counts(tmp, CountingConvention(4), scheduler="local-process")
    >>> counts.shape, counts.sum(axis=1).A.ravel()
    ((4, 30522), array([3, 3, 3, 1]))
    """
    paths = [str(p) for p in shard_paths(source)]
    task = functools.partial(
        _count_shard, convention=convention, model=model, text_field=text_field, batch_size=batch_size
    )
    if scheduler == "local-process":
        return merge_counts(task(p) for p in paths)
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise ImportError("distributed counting needs Dask: pip install 'posgeom[dask]'") from exc
    if scheduler is None:
        with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            with Client(cluster) as client:
                return _run(client, task, paths)
    with Client(scheduler) as client:
        return _run(client, task, paths)


def _run(client, task, paths) -> sp.csr_matrix:
    futures = client.map(task, paths)
    return merge_counts(client.gather(futures))


# ---------------------------------------------------------------------------------------------------------------
# Half counts for the corrected estimator
# ---------------------------------------------------------------------------------------------------------------


def _keyed_sequences(texts, tokenizer, convention, batch_size: int):
    """The counted sequences of ``texts`` under ``convention`` and the texts they come from (their keys)."""
    from .text import _assemble, tokenize_corpus

    tc = tokenize_corpus(texts, tokenizer, max_pieces=convention.n_positions, batch_size=batch_size)
    tc._check(convention)  # special tokens / padding the tokenizer lacks
    sequences, keys = [], []
    for text, a, b in zip(texts, tc.indptr[:-1], tc.indptr[1:]):
        seq = _assemble(tc.ids[a:b].astype(np.int64), convention, tc.cls_id, tc.sep_id)
        if seq is not None:  # dropped by min_length
            sequences.append(seq)
            keys.append(text)
    pad_id = tc.pad_id if convention.count_padding else None
    return sequences, keys, tc.vocab_size, pad_id


def _half_counts(texts, tokenizer, convention, n_splits: int, seed: int, batch_size: int):
    """``(counts_a, counts_b)``: per split, the (n, V) int64 CSR counts of the texts in half A and in half B."""
    from ..corpus.incidence import SequenceIncidence

    n = convention.n_positions
    sequences, keys, vocab_size, pad_id = _keyed_sequences(texts, tokenizer, convention, batch_size) if len(texts) \
        else ([], [], len(tokenizer), None)
    in_b = half_assignment(keys, n_splits=n_splits, seed=seed)
    if not sequences:
        empty = sp.csr_matrix((n, vocab_size), dtype=np.int64)
        return [empty.copy() for _ in range(n_splits)], [empty.copy() for _ in range(n_splits)]
    inc = SequenceIncidence.from_sequences(sequences, n, vocab_size, pad_id=pad_id)
    total = inc.cell_counts()
    rows, cols = inc.positions, inc.tokens

    def csr(cell_counts):
        keep = cell_counts > 0
        out = sp.csr_matrix((cell_counts[keep], (rows[keep], cols[keep])), shape=(n, vocab_size), dtype=np.int64)
        out.sum_duplicates()
        return out

    counts_a, counts_b = [], []
    for s in range(n_splits):
        b = np.rint(inc.cell_counts(in_b[s].astype(np.float64))).astype(np.int64)  # exact: integer sums < 2**53
        counts_a.append(csr(total - b))
        counts_b.append(csr(b))
    return counts_a, counts_b


def _merge_halves(parts, n_splits: int):
    """Sum the per-shard half counts, split by split and half by half (exact integer sums)."""
    parts = list(parts)
    counts_a = [merge_counts(p[0][s] for p in parts) for s in range(n_splits)]
    counts_b = [merge_counts(p[1][s] for p in parts) for s in range(n_splits)]
    return counts_a, counts_b


def one_pass_half_counts(texts, convention, *, n_splits: int = 20, seed: int = 0, model: str = "all-MiniLM-L6-v2",
                         tokenizer=None, batch_size: int = 1024):
    """The half counts of :func:`sharded_half_counts`, computed in one pass over a list of documents in this process.

    Parameters
    ----------
    texts : sequence of str
        The documents (their texts are the keys of :func:`posgeom.geometry.half_assignment`).
    convention : posgeom.data.CountingConvention
        What is counted.
    n_splits : int, default 20
        Number of splits (at least 2).
    seed : int, default 0
        Seed of the hash assignment.
    model : str, default "all-MiniLM-L6-v2"
        Tokenizer name or path (ignored if ``tokenizer`` is given).
    tokenizer : transformers fast tokenizer, optional
        An already loaded tokenizer.
    batch_size : int, default 1024
        Texts per tokenizer call.

    Returns
    -------
    (counts_a, counts_b) : tuple of two lists of (n, V) CSR int64 matrices
        ``counts_a[s]`` counts the documents in half A of split ``s``, ``counts_b[s]`` those in half B; for every
        split ``counts_a[s] + counts_b[s]`` are the counts of :func:`posgeom.data.corpus_position_counts`. Pass
        them to :func:`posgeom.geometry.corrected_from_half_counts`.

    Raises
    ------
    ValueError
        Empty ``texts``, ``n_splits < 2``, or a convention the tokenizer cannot serve.
    TypeError
        Invalid texts or convention.

    Examples
    --------
    >>> from posgeom.data import CountingConvention
    >>> a, b = one_pass_half_counts(["a good film", "bad", "fine", "so dull"], CountingConvention(4), n_splits=3)
    >>> len(a), a[0].shape, (a[0] + b[0]).sum(axis=1).A.ravel()
    (3, (4, 30522), array([4, 4, 4, 2]))
    """
    from .text import _check_texts

    texts = list(_check_texts(texts))
    n_splits = _check_splits(n_splits)
    if tokenizer is None:
        tokenizer = _tokenizer(model)
    return _half_counts(texts, tokenizer, convention, n_splits, seed, batch_size)


def _check_splits(n_splits) -> int:
    from .._validation import check_positive_int

    return check_positive_int(n_splits, "n_splits", minimum=2)


def _half_count_shard(path, convention, model: str, text_field: str, batch_size: int, n_splits: int, seed: int):
    docs = read_shard(path, text_field=text_field)
    return _half_counts(docs, _tokenizer(model), convention, n_splits, seed, batch_size)


def sharded_half_counts(
    source: str | os.PathLike,
    convention,
    *,
    n_splits: int = 20,
    seed: int = 0,
    model: str = "all-MiniLM-L6-v2",
    scheduler: str | None = None,
    n_workers: int = 2,
    text_field: str = "text",
    batch_size: int = 1024,
):
    """Per split, the position counts of the two halves of a sharded corpus, computed shard by shard and merged.

    Each shard assigns its documents to halves by :func:`posgeom.geometry.half_assignment` of their texts, counts
    each half of each split, and the counts are summed across shards: exactly the counts of
    :func:`one_pass_half_counts` on the concatenated documents, whatever the sharding and the number of workers.

    Parameters
    ----------
    source : folder, file or glob
        The shards (see :mod:`posgeom.shards` for the formats).
    convention : posgeom.data.CountingConvention
        What is counted; applied identically on every shard.
    n_splits : int, default 20
        Number of splits (at least 2).
    seed : int, default 0
        Seed of the hash assignment.
    model : str, default "all-MiniLM-L6-v2"
        Tokenizer name or path, loaded once per worker process.
    scheduler : str, optional
        As :func:`sharded_position_counts`: ``None`` (a local cluster for this call), an address, or
        ``"local-process"`` (no Dask, shard after shard in this process).
    n_workers : int, default 2
        Workers of the local cluster (ignored with an address).
    text_field : str, default "text"
        Field (JSONL) or column (Parquet) holding the documents.
    batch_size : int, default 1024
        Texts per tokenizer call.

    Returns
    -------
    (counts_a, counts_b) : tuple of two lists of (n, V) CSR int64 matrices
        The merged counts of half A and half B of every split.

    Raises
    ------
    FileNotFoundError
        ``source`` holds no shard.
    ImportError
        Dask is needed and not installed.
    ValueError
        ``n_splits < 2``, or an unreadable shard.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from posgeom.data import CountingConvention
    >>> docs = ["a good film", "bad", "fine", "so dull"]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.txt").write_text("\\n".join(docs[:3]), encoding="utf-8")
    ...     _ = (Path(tmp) / "b.txt").write_text(docs[3], encoding="utf-8")
    ...     a, b = sharded_half_counts(tmp, CountingConvention(4), n_splits=3, scheduler="local-process")
    >>> ref_a, ref_b = one_pass_half_counts(docs, CountingConvention(4), n_splits=3)
    >>> all((x != y).nnz == 0 for x, y in zip(a + b, ref_a + ref_b))
    True
    """
    n_splits = _check_splits(n_splits)
    paths = [str(p) for p in shard_paths(source)]
    task = functools.partial(_half_count_shard, convention=convention, model=model, text_field=text_field,
                             batch_size=batch_size, n_splits=n_splits, seed=seed)
    if scheduler == "local-process":
        return _merge_halves((task(p) for p in paths), n_splits)
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise ImportError("distributed counting needs Dask: pip install 'posgeom[dask]'") from exc
    if scheduler is None:
        with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            with Client(cluster) as client:
                return _merge_halves(client.gather(client.map(task, paths)), n_splits)
    with Client(scheduler) as client:
        return _merge_halves(client.gather(client.map(task, paths)), n_splits)


def sharded_corrected_distances(source: str | os.PathLike, convention, *, n_splits: int = 20, seed: int = 0,
                                **options):
    """Corrected (cross-fitted) Hellinger distances of a sharded corpus, counted on Dask.

    :func:`sharded_half_counts` then :func:`posgeom.geometry.corrected_from_half_counts`. The splits are the hash
    halves of the documents' texts, not the random permutations of :func:`posgeom.geometry.corrected_distances`:
    the two routes estimate the same quantity, and differ on a given corpus by the randomness of the splits (of the
    order of ``mc_spread``).

    Parameters
    ----------
    source : folder, file or glob
        The shards.
    convention : posgeom.data.CountingConvention
        What is counted.
    n_splits : int, default 20
        Number of splits (at least 2).
    seed : int, default 0
        Seed of the hash assignment.
    **options
        ``model``, ``scheduler``, ``n_workers``, ``text_field``, ``batch_size`` of :func:`sharded_half_counts`.

    Returns
    -------
    posgeom.geometry.CorrectedDistances
        The corrected distances, with floors, ``fraction_clipped``, ``mc_spread`` and ``n_splits``.

    Raises
    ------
    FileNotFoundError, ImportError, ValueError
        As :func:`sharded_half_counts`; ``ValueError`` also when a position receives no document of a half (the
        message names the split, the position and the fix).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from posgeom.corpus import tiny_reviews
    >>> from posgeom.data import CountingConvention
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "r.txt").write_text("\\n".join(tiny_reviews(40, rng=0)), encoding="utf-8")
    ...     est = sharded_corrected_distances(tmp, CountingConvention(4), n_splits=4, scheduler="local-process")
    >>> est.distances.shape, est.n_splits
    ((4, 4), 4)
    """
    counts_a, counts_b = sharded_half_counts(source, convention, n_splits=n_splits, seed=seed, **options)
    return corrected_from_half_counts(counts_a, counts_b)
