"""The book's two real corpora with their sentiment labels: ``Corpus``, ``load_sst2``, ``load_imdb`` (indexed in
``posgeom.data``). Archives (``data._archives``) are parsed in place, the result cached as JSON keyed by sha256."""
from __future__ import annotations

import dataclasses
import gzip
import json
import os
import re
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._io import atomic_open
from .._validation import check_rng
from ._archives import Source, cache_dir, find_source, resolve
from ._phrases import source_groups

__all__ = ["load_sst2", "load_imdb"]
# Bump when the parsed-cache layout or the parsing conventions change: old entries are then ignored.
_PARSE_VERSION = 1


@dataclass(frozen=True, eq=False)
class Corpus:
    """A labelled text corpus split.

    Attributes
    ----------
    name, split, source : str
        ``"sst2"`` or ``"imdb"``; ``"train"``, ``"dev"`` or ``"test"``; the path of the archive read.
    texts : list of str, the documents in the order stated by :func:`load_sst2` and :func:`load_imdb`
    labels : (m,) int64 array of sentiment labels: 1 positive, 0 negative
    ids : list of str
        A stable identifier per document (SST-2: ``"train:<line number>"``; IMDB: ``"train/pos/123_9"``).

    Examples
    --------
    >>> corpus = Corpus("toy", "train", ["good", "bad", "fine"], np.array([1, 0, 1]), ["a", "b", "c"], "memory")
    >>> len(corpus), corpus.subset([2, 0]).texts
    (3, ['fine', 'good'])
    """
    name: str
    split: str
    texts: list[str]
    labels: np.ndarray
    ids: list[str]
    source: str

    def __len__(self) -> int:
        return len(self.texts)

    def subset(self, indices) -> Corpus:
        """The documents at ``indices`` (kept in the given order).

        Parameters
        ----------
        indices : 1-D int array_like in ``[0, len(self))`` (repeats are allowed)

        Returns
        -------
        Corpus

        Examples
        --------
        >>> corpus = Corpus("toy", "train", ["good", "bad"], np.array([1, 0]), ["a", "b"], "memory")
        >>> corpus.subset([1]).labels
        array([0])
        """
        idx = np.asarray(indices)
        if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
            raise TypeError("indices must be a 1-D integer array")
        if idx.size and (idx.min() < 0 or idx.max() >= len(self)):
            raise ValueError(f"indices must lie in [0, {len(self)})")
        return dataclasses.replace(self, texts=[self.texts[i] for i in idx], labels=self.labels[idx],
                                   ids=[self.ids[i] for i in idx])

    def sample(self, size: int, *, rng) -> Corpus:
        """A random subset of ``size`` documents in corpus order, stratified by label (each keeps its share,
        rounded; the remainder goes to the largest classes first).

        Parameters
        ----------
        size : int, ``1 <= size <= len(self)``
        rng : int or numpy.random.Generator

        Returns
        -------
        Corpus

        Examples
        --------
        >>> corpus = Corpus("toy", "train", list("abcdef"), np.array([1, 1, 1, 1, 0, 0]), list("012345"), "memory")
        >>> corpus.sample(3, rng=0).labels
        array([1, 1, 0])
        """
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= len(self):
            raise ValueError(f"size must be an integer in [1, {len(self)}], got {size!r}")
        rng = check_rng(rng)
        classes, counts = np.unique(self.labels, return_counts=True)
        quota = np.floor(size * counts / counts.sum()).astype(int)
        for k in np.argsort(-counts, kind="stable")[: size - quota.sum()]:
            quota[k] += 1
        chosen = [rng.choice(np.flatnonzero(self.labels == c), q, replace=False) for c, q in zip(classes, quota)]
        return self.subset(np.sort(np.concatenate(chosen)))

    def source_groups(self, *, min_shared: int = 8) -> np.ndarray:
        """The source sentence of every text, as a group id: the unit to split or resample, not the texts.

        SST-2's training texts are the phrases of about 6,900 sentences. Texts are compared as whitespace-separated
        words; a *maximal* text is no word run of another. Two texts are related if (1) they are the same words; (2)
        one is a word run of the other, the only maximal text holding it (a phrase and its sentence); (3) one, of at
        least ``min_shared`` words, is a run of the other; (4) both start with the same ``min_shared`` words (the same
        tokens at the same positions: the dependence that biases a cross-fitted Gram). Groups are the connected
        components; a text with no words, or a shorter phrase held by several sentences, is a group of its own.
        ``min_shared`` = 8 because shorter stock phrases tie unrelated sentences (on SST-2's training set, 5 words
        merge up to 189 texts into one group, 8 at most 35). Runs are found by 64-bit hashes, checked word by word.

        Parameters
        ----------
        min_shared : int, default 8
            Words a phrase held by several sentences, or a shared opening, must have to tie texts (rules 3, 4).

        Returns
        -------
        (m,) int64 ndarray
            Group of each text, numbered ``0, 1, ...`` in order of first appearance. Compute it on the whole corpus
            and subset it with the same indices as the texts (a sample may miss the phrases that link two others).

        Examples
        --------
        >>> texts = ["the film is a quiet triumph .", "a quiet triumph", "the film", "dull and long", "dull"]
        >>> Corpus("toy", "train", texts, np.ones(5, dtype=int), list("abcde"), "memory").source_groups()
        array([0, 0, 0, 1, 1])
        """
        return source_groups(self.texts, min_shared=min_shared)

    def __repr__(self) -> str:
        pos = int(self.labels.sum())
        return f"Corpus({self.name!r}, {self.split!r}, {len(self)} texts, {pos} positive, source={self.source!r})"


def _corrupt(path: Path, exc: BaseException, source: Source) -> ValueError:
    """The error for an unreadable archive."""
    return ValueError(f"cannot read the archive {path}: {type(exc).__name__}: {exc}. The file is truncated or "
                      "corrupted; delete it so that it is downloaded again, or replace the mirror copy "
                      f"({source.mirror_filename})")


def _parse_sst2(path: Path, source: Source) -> dict:
    out = {}
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            for name in names:
                _check_member_name(name, path)
            for split in source.splits:
                member = f"SST-2/{split}.tsv"
                if member not in names:
                    raise ValueError(f"the archive {path} has no member {member!r}; it is not GLUE's SST-2.zip")
                text = zf.read(member).decode("utf-8")
                lines = text.splitlines()
                if not lines or lines[0].split("\t") != ["sentence", "label"]:
                    raise ValueError(f"{path}:{member} does not start with the header 'sentence<TAB>label'; it is "
                                     "not GLUE's SST-2")
                texts, labels, ids = [], [], []
                for lineno, line in enumerate(lines[1:], start=2):
                    if not line.strip():
                        continue
                    sentence, sep, label = line.rpartition("\t")
                    if not sep or label.strip() not in ("0", "1"):
                        raise ValueError(f"{path}:{member} line {lineno} is not 'sentence<TAB>0|1': {line[:80]!r}")
                    texts.append(sentence.strip())
                    labels.append(int(label))
                    ids.append(f"{split}:{lineno}")
                out[split] = {"texts": texts, "labels": labels, "ids": ids}
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, UnicodeDecodeError) as exc:
        raise _corrupt(path, exc, source) from exc
    return out


def _check_member_name(name: str, path: Path, *, link: bool = False) -> None:
    """Refuse an archive with a member that could escape a folder if it were extracted (absolute, ``..``, links)."""
    parts = name.replace("\\", "/").split("/")
    if link or name.startswith(("/", "\\")) or ".." in parts or re.match(r"^[A-Za-z]:", name):
        raise ValueError(f"the archive {path} has an unsafe member {name!r} (absolute path, '..' or link); refusing "
                         "to read it. Delete it and use the official archive")


_IMDB_MEMBER = re.compile(r"^aclImdb/(train|test)/(pos|neg)/(\d+)_(\d+)\.txt$")


def _parse_imdb(path: Path, source: Source) -> dict:
    found = {split: [] for split in source.splits}
    try:
        with gzip.open(path, "rb") as gz:
            # One forward pass over the decompressed stream (members are read in archive order, so the gzip file
            # is never rewound); nothing is extracted to disk.
            with tarfile.open(fileobj=gz, mode="r:") as tf:
                for member in tf:
                    _check_member_name(member.name, path, link=member.issym() or member.islnk())
                    match = _IMDB_MEMBER.match(member.name)
                    if match is None or not member.isfile():
                        continue
                    split, polarity, doc_id, rating = match.groups()
                    fh = tf.extractfile(member)
                    text = fh.read().decode("utf-8")
                    label = 1 if polarity == "pos" else 0
                    found[split].append((label, int(doc_id), f"{split}/{polarity}/{doc_id}_{rating}", text))
            # A truncated stream can look like a shorter archive to tarfile; reading the gzip stream to its end
            # checks its length and CRC (EOFError / BadGzipFile otherwise), so no partial corpus is ever returned.
            while gz.read(1 << 20):
                pass
    except (tarfile.TarError, zlib.error, EOFError, OSError, UnicodeDecodeError) as exc:
        raise _corrupt(path, exc, source) from exc
    out = {}
    for split, rows in found.items():
        if not rows:
            raise ValueError(f"the archive {path} holds no reviews under aclImdb/{split}/{{pos,neg}}/; it is not the "
                             "IMDB archive")
        rows.sort(key=lambda r: (r[0], r[1]))
        out[split] = {"texts": [r[3] for r in rows], "labels": [r[0] for r in rows], "ids": [r[2] for r in rows]}
    return out


_PARSERS = {"sst2": _parse_sst2, "imdb": _parse_imdb}


def _parsed(source: Source, path: Path, digest: str, use_cache: bool) -> dict:
    entry = cache_dir() / "parsed" / f"{source.name}-v{_PARSE_VERSION}-{digest[:16]}.json"
    if use_cache and entry.is_file():
        try:
            with open(entry, encoding="utf-8") as fh:
                payload = json.load(fh)
            if payload.get("sha256") == digest:
                return payload["splits"]
        except (OSError, ValueError, KeyError, AttributeError):
            pass  # unreadable cache entry: rebuild it below
    splits = _PARSERS[source.name](path, source)
    if use_cache:
        try:
            with atomic_open(entry, "w", encoding="utf-8") as fh:
                json.dump({"sha256": digest, "archive": str(path), "splits": splits}, fh, ensure_ascii=False)
        except OSError:
            pass  # a read-only cache is not an error: the corpus is simply re-parsed next time
    return splits


def _load(name: str, split, data_dir, progress: bool, use_cache: bool) -> Corpus:
    """One split of a named corpus, parsed or read from the cache."""
    source = find_source(name)
    if not isinstance(split, str):
        raise TypeError(f"split must be a string, one of {source.splits}; got {type(split).__name__}")
    if split not in source.splits:
        what = "an empty string" if not split else repr(split)
        raise ValueError(f"split must be one of {source.splits} for {name}, got {what}")
    path, digest = resolve(source, data_dir, progress)
    data = _parsed(source, path, digest, use_cache)[split]
    return Corpus(name=name, split=split, texts=list(data["texts"]), labels=np.asarray(data["labels"], dtype=np.int64),
                  ids=list(data["ids"]), source=str(path))


def load_sst2(split: str, *, data_dir: str | os.PathLike | None = None, progress: bool = False,
              cache: bool = True) -> Corpus:
    """Load SST-2 (GLUE version): ``"train"`` (67,349 phrases) or ``"dev"`` (872 sentences).

    Parameters
    ----------
    split : {"train", "dev"}
    data_dir : path, optional
        A mirror folder holding ``SST-2.zip``; overrides ``$POSGEOM_DATA``. If neither is set, the official archive
        is downloaded into the cache folder (once) and verified.
    progress, cache : bool, default False, True
        Show a download progress bar; read/write the parsed corpus in ``cache_dir() / "parsed"`` (atomically).

    Returns
    -------
    Corpus
        Texts (GLUE's lower-cased, space-tokenised text, stripped) and labels (1 positive, 0 negative), in file
        order (:cite:`socher2013`, :cite:`wang2018glue`); the GLUE test split has no labels and is not offered.

    Examples
    --------
    >>> dev = load_sst2("dev")  # from the mirror named by $POSGEOM_DATA (a download without it)
    >>> len(dev), int(dev.labels.sum()), dev.ids[0]
    (872, 444, 'dev:2')
    """
    return _load("sst2", split, data_dir, progress, cache)


def load_imdb(split: str, *, html_breaks: str = "keep", data_dir: str | os.PathLike | None = None,
              progress: bool = False, cache: bool = True) -> Corpus:
    """Load the IMDB Large Movie Review Dataset: ``"train"`` or ``"test"`` (25,000 labelled reviews each).

    Parameters
    ----------
    split : {"train", "test"}
    html_breaks : {"keep", "space"}, default "keep"
        ``"keep"`` returns the reviews exactly as distributed, with their HTML line breaks ``<br />`` (which the
        WordPiece tokenizer turns into the four tokens ``<``, ``br``, ``/``, ``>``); ``"space"`` replaces every
        ``<br />`` (and ``<br/>``, ``<br>``) by one space.
    data_dir, progress, cache
        As in :func:`load_sst2` (the mirror file is ``aclImdb_v1_labeled.tar.gz``).

    Returns
    -------
    Corpus
        Negative reviews (label 0, rating <= 4) then positive ones (label 1, rating >= 7), each by increasing
        numeric file id, whatever the archive's member order (:cite:`maas2011`); the unlabelled ``unsup`` part is
        not used.

    Examples
    --------
    >>> test = load_imdb("test", html_breaks="space")
    >>> len(test), int(test.labels.sum()), "<br" in test.texts[0]
    (25000, 12500, False)
    """
    if html_breaks not in ("keep", "space"):
        raise ValueError(f"html_breaks must be 'keep' or 'space', got {html_breaks!r}")
    corpus = _load("imdb", split, data_dir, progress, cache)
    if html_breaks == "space":
        pattern = re.compile(r"<br\s*/?>", flags=re.IGNORECASE)
        corpus = dataclasses.replace(corpus, texts=[pattern.sub(" ", t) for t in corpus.texts])
    return corpus
