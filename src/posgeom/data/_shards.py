"""A corpus stored as shards (a folder or glob of text, JSONL or Parquet files): ``shard_paths``, ``read_shard``."""
from __future__ import annotations

import glob
import json
import os
from pathlib import Path

__all__ = ["shard_paths", "read_shard"]
_SHARD_SUFFIXES = (".txt", ".jsonl", ".parquet")


def shard_paths(source: str | os.PathLike) -> list[Path]:
    """The shard files of ``source``: every ``.txt``/``.jsonl``/``.parquet`` file under a folder, or a glob pattern."""
    source = str(source)
    if os.path.isdir(source):
        paths = [p for p in Path(source).rglob("*") if p.is_file() and p.suffix in _SHARD_SUFFIXES]
    elif os.path.isfile(source):
        paths = [Path(source)]
    else:
        paths = [Path(p) for p in glob.glob(source, recursive=True) if os.path.isfile(p)]
    paths = sorted(p for p in paths if p.suffix in _SHARD_SUFFIXES)
    if not paths:
        raise FileNotFoundError(f"no shard files ({', '.join(_SHARD_SUFFIXES)}) found at {source!r}; pass a folder, "
                                "a file or a glob such as 'corpus/*.jsonl'")
    return paths


def read_shard(path: str | os.PathLike, *, text_field: str = "text") -> list[str]:
    """Read the documents of one shard."""
    path = Path(path)
    try:
        return _read_shard(path, text_field)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}); convert it to UTF-8") from None


def _read_shard(path: Path, text_field: str) -> list[str]:
    if path.suffix == ".txt":
        with open(path, encoding="utf-8") as fh:
            return [line.rstrip("\n") for line in fh if line.strip()]
    if path.suffix == ".jsonl":
        docs = []
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    docs.append(str(record[text_field]))
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise ValueError(f"{path}:{lineno} is not a JSON object with a {text_field!r} field "
                                     f"({exc}); fix the line or pass text_field=") from None
        return docs
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise ImportError("reading Parquet shards needs pyarrow: pip install 'posgeom[dask]'") from exc
        table = pq.read_table(path, columns=[text_field]) if text_field else pq.read_table(path)
        return [str(t) for t in table.column(text_field).to_pylist()]
    raise ValueError(f"unsupported shard type {path.suffix!r} for {path}; use one of {_SHARD_SUFFIXES}")
