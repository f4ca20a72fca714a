"""Token sequences checked and flattened once, for every structure built from them (counts, incidences)."""
from __future__ import annotations

import numpy as np

from .._validation import check_positive_int

__all__ = ["check_arguments", "check_ids", "flat_tokens"]


def flat_tokens(sequences, n_positions: int, vocab_size: int, *, pad_id: int | None = None):
    """Flat int64 ``(positions, ids)`` of the first ``n_positions`` tokens of each sequence, ids checked."""
    rows = [np.asarray(s).ravel() for s in sequences]
    if not rows:
        raise ValueError("sequences is empty: pass at least one sequence of token ids")
    rows = [r[:n_positions] for r in rows]
    lengths = np.fromiter((r.size for r in rows), dtype=np.int64, count=len(rows))
    if pad_id is not None:
        rows = [r if r.size == n_positions else np.concatenate([r, np.full(n_positions - r.size, pad_id)])
                for r in rows]
        lengths[:] = n_positions
    ids = np.concatenate(rows) if lengths.sum() else np.zeros(0, dtype=np.int64)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    positions = np.arange(ids.size) - starts
    check_ids(ids, vocab_size)
    return positions.astype(np.int64, copy=False), ids.astype(np.int64, copy=False)


def check_arguments(n_positions, vocab_size, pad_id):
    """``(n_positions, vocab_size, pad_id)`` checked: positive sizes, ``pad_id`` inside the vocabulary or None."""
    n_positions = check_positive_int(n_positions, "n_positions")
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    if pad_id is not None:
        pad_id = check_positive_int(pad_id, "pad_id", minimum=0)
        if pad_id >= vocab_size:
            raise ValueError(f"pad_id={pad_id} is outside the vocabulary [0, {vocab_size})")
    return n_positions, vocab_size, pad_id


def check_ids(ids, vocab_size: int) -> None:
    """Token ids are integers inside ``[0, vocab_size)``, or a clear error."""
    if ids.size and not np.issubdtype(ids.dtype, np.integer):
        if not np.all(np.isfinite(ids)) or not np.all(ids == np.round(ids)):
            raise TypeError("token ids must be integers; got non-integer values in sequences")
    if ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
        bad = int(ids[(ids < 0) | (ids >= vocab_size)][0])
        raise ValueError(f"token id {bad} is outside the vocabulary [0, {vocab_size}); check vocab_size against "
                         "the tokenizer")
