"""Atomic file writing for caches (a reader never sees a half-written file), and aligned plain-text tables."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["aligned_text", "atomic_open"]


@contextlib.contextmanager
def atomic_open(path, mode: str = "wb", **kwargs):
    """Open a temporary file beside ``path``; on success it replaces ``path``, on any error it is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def aligned_text(rows, *, left: int | None = None, min_width: int = 0) -> str:
    """Rows of strings as columns two spaces apart: the first ``left`` (default all) left-justified, the rest right."""
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    left = len(widths) if left is None else left
    return "\n".join("  ".join(c.ljust(w) if k < left else c.rjust(max(w, min_width))
                               for k, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows)
