"""Input and output only: the SST-2 and IMDB loaders (download or local mirror), tokenising conventions, shards and
the Dask route, and pretrained position tables. Nothing in the numpy core (corpus, geometry, encodings, stress)
imports this subpackage.
"""
from __future__ import annotations

from .datasets import (
    CACHE_ENV,
    DATA_ENV,
    SOURCES,
    Corpus,
    Source,
    archive_path,
    cache_dir,
    load_imdb,
    load_sst2,
)
from .distributed import sharded_tokenized_corpus
from .pretrained import (
    DEFAULT_MODEL,
    learned_position_embeddings,
    offline_model_dir,
    resolve_model,
)
from .shards import (
    SHARD_SUFFIXES,
    read_shard,
    shard_paths,
)
from .text import (
    CountingConvention,
    TokenizedCorpus,
    cached_tokenized_corpus,
    corpus_incidence,
    corpus_position_counts,
    iter_token_sequences,
    load_tokenizer,
    tokenize_corpus,
)

__all__ = [
    "DATA_ENV",
    "CACHE_ENV",
    "Source",
    "SOURCES",
    "Corpus",
    "cache_dir",
    "archive_path",
    "load_sst2",
    "load_imdb",
    "CountingConvention",
    "load_tokenizer",
    "iter_token_sequences",
    "corpus_position_counts",
    "corpus_incidence",
    "TokenizedCorpus",
    "tokenize_corpus",
    "cached_tokenized_corpus",
    "DEFAULT_MODEL",
    "offline_model_dir",
    "resolve_model",
    "learned_position_embeddings",
    "SHARD_SUFFIXES",
    "shard_paths",
    "read_shard",
    "sharded_tokenized_corpus",
]
