"""Where the corpora's archives come from: a local mirror (``$POSGEOM_DATA``) or a verified download."""
from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Source", "SOURCES", "cache_dir", "find_source", "resolve"]
#: Environment variable naming a local mirror folder.
_DATA_ENV = "POSGEOM_DATA"
#: Environment variable naming the cache folder (downloads and parsed corpora).
_CACHE_ENV = "POSGEOM_CACHE"


@dataclass(frozen=True)
class Source:
    """Where one corpus comes from."""
    name: str
    url: str
    sha256: str
    filename: str
    mirror_filename: str
    mirror_sha256: str
    splits: tuple[str, ...]


#: The two corpora. Tests may swap an entry (``dataclasses.replace``) to point at a local server.
SOURCES: dict[str, Source] = {
    source.name: source
    for source in (  # name, url, sha256, filename, mirror_filename, mirror_sha256, splits
        Source("sst2", "https://dl.fbaipublicfiles.com/glue/data/SST-2.zip",
                "d67e16fb55739c1b32cdce9877596db1c127dc322d93c082281f64057c16deaa", "SST-2.zip", "SST-2.zip",
                "e6f1e99e7f74ee96c7508f0c8dcb599026c4367547a34e590c204edf13ff4837", ("train", "dev")),
        # IMDB's mirror is repacked (the labelled part only), as listed in the mirror's README
        Source("imdb", "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz",
                "c40f74a18d3b61f90feba1e17730e0d38e8b97c05fde7008942e91923d1658fe", "aclImdb_v1.tar.gz",
                "aclImdb_v1_labeled.tar.gz", "09ce8ff34b9058acd31a36adf6d52a127063be13394c8623fc8c62943b6bd7a7",
                ("train", "test")),
    )
}


def cache_dir() -> Path:
    """The folder for downloads and parsed corpora: ``$POSGEOM_CACHE`` if set, else ``pooch.os_cache("posgeom")``."""
    env = os.environ.get(_CACHE_ENV)
    if env:
        return Path(env).expanduser()
    import pooch
    return Path(pooch.os_cache("posgeom"))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _mirror_archive(source: Source, folder: Path, origin: str) -> tuple[Path, str]:
    if not folder.is_dir():
        raise FileNotFoundError(f"{origin} points to {str(folder)!r}, which is not an existing folder. Set it to the "
                                f"folder holding the corpus mirror ({source.mirror_filename}), or unset it to "
                                "download the official archive")
    path = folder / source.mirror_filename
    if not path.is_file():
        raise FileNotFoundError(f"the corpus mirror folder {str(folder)!r} (from {origin}) has no file "
                                f"{source.mirror_filename!r}. Copy the mirror file there, or unset {_DATA_ENV} to "
                                f"download {source.url}")
    digest = _sha256(path)
    if digest != source.mirror_sha256:
        raise ValueError(f"{path} has sha256 {digest}, but the mirror file must have {source.mirror_sha256}: the "
                         "file is corrupted, truncated or not the mirror. Replace it with an intact copy, or unset "
                         f"{_DATA_ENV} to download the official archive")
    return path, digest


def _download_archive(source: Source, *, progress: bool) -> tuple[Path, str]:
    import pooch
    import requests
    folder = cache_dir() / "downloads"
    created = not folder.exists()
    try:
        path = pooch.retrieve(source.url, known_hash=f"sha256:{source.sha256}", fname=source.filename, path=folder,
                              progressbar=progress)
    except (ValueError, OSError, requests.exceptions.RequestException) as exc:
        if created:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only succeeds if empty: never removes anything else
        hint = ("the server sent different bytes than the published archive (a changed file, a proxy or an "
                "interrupted transfer); retry, or use a local mirror" if isinstance(exc, ValueError)
                else "check the network connection, or use a local mirror")
        raise OSError(f"could not download {source.url} into {folder}: {exc}. Nothing was kept. "
                      f"{hint.capitalize()} (set {_DATA_ENV} to a folder holding {source.mirror_filename})") from exc
    return Path(path), source.sha256


def find_source(name: str) -> Source:
    if name not in SOURCES:
        raise ValueError(f"unknown corpus {name!r}; choose one of {sorted(SOURCES)}")
    return SOURCES[name]


def resolve(source: Source, data_dir, progress: bool) -> tuple[Path, str]:
    """The verified archive and its sha256: from the mirror (data_dir or $POSGEOM_DATA), else downloaded once."""
    if data_dir is not None:
        return _mirror_archive(source, Path(data_dir).expanduser(), "data_dir")
    env = os.environ.get(_DATA_ENV)
    if env is not None:
        if not env.strip():
            raise ValueError(f"{_DATA_ENV} is set but empty; set it to the corpus mirror folder, or unset it to "
                             "download")
        return _mirror_archive(source, Path(env).expanduser(), f"${_DATA_ENV}")
    return _download_archive(source, progress=progress)

