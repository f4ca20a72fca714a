"""Input and output only: the SST-2 and IMDB loaders (download or local mirror), tokenising conventions, shards and
the Dask route, and pretrained position tables. Nothing in the numpy core (corpus, geometry, encodings, stress)
imports this subpackage.
"""
from __future__ import annotations

from .datasets import (
    DATA_ENV,
    CACHE_ENV,
    Source,
    SOURCES,
    Corpus,
    cache_dir,
    archive_path,
    load_sst2,
    load_imdb,
)
from .text import (
    CountingConvention,
    load_tokenizer,
    iter_token_sequences,
    corpus_position_counts,
    corpus_incidence,
    TokenizedCorpus,
    tokenize_corpus,
    cached_tokenized_corpus,
)
from .pretrained import (
    DEFAULT_MODEL,
    offline_model_dir,
    resolve_model,
    learned_position_embeddings,
)
from .shards import (
    SHARD_SUFFIXES,
    shard_paths,
    read_shard,
)
from .distributed import (
    sharded_position_counts,
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
    "sharded_position_counts",
]
