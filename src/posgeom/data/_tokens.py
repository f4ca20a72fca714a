"""Word pieces of raw texts as a counting convention assembles them (shared by the streamed counts and the
tokenised corpus)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._validation import check_positive_int

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

    from .conventions import CountingConvention

__all__ = ["check_texts", "special_ids", "iter_token_sequences", "assemble"]


def special_ids(tokenizer):
    return tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id


def check_texts(texts):
    """The texts as a sequence (a list if they came as an iterator), or a clear error if empty or one string."""
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not one string; wrap it in a list")
    if not hasattr(texts, "__iter__"):
        raise TypeError(f"texts must be a sequence of strings, got {type(texts).__name__}")
    if not hasattr(texts, "__len__") or not hasattr(texts, "__getitem__"):
        texts = list(texts)
    if len(texts) == 0:
        raise ValueError("texts is empty: pass at least one document")
    return texts


def iter_token_sequences(texts: Sequence[str], tokenizer: PreTrainedTokenizerFast, convention: CountingConvention, *,
                         batch_size: int = 1024, progress: bool = False) -> Iterator[list[np.ndarray]]:
    """Yield, batch by batch, the token id sequences that a convention counts."""
    from .conventions import CountingConvention
    if not isinstance(convention, CountingConvention):
        raise TypeError(f"convention must be a CountingConvention, got {type(convention).__name__}")
    texts = check_texts(texts)
    batch_size = check_positive_int(batch_size, "batch_size")
    n = convention.n_positions
    specials = convention.special_tokens
    cls_id, sep_id, _ = special_ids(tokenizer)
    if specials and (cls_id is None or sep_id is None):
        raise ValueError("this tokenizer has no [CLS]/[SEP] tokens; use special_tokens=False")
    # A private copy of the Rust tokenizer, no padding, word pieces truncated at n: enough to know every count
    # below and whether the sequence reaches n.
    from tokenizers import Tokenizer
    backend = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
    backend.no_padding()
    backend.enable_truncation(max_length=n)
    encode = getattr(backend, "encode_batch_fast", backend.encode_batch)
    starts = range(0, len(texts), batch_size)
    if progress:
        from tqdm.auto import tqdm
        starts = tqdm(starts, total=len(starts), unit="batch", desc="tokenise+count")
    for start in starts:
        batch = texts[start:start + batch_size]
        if not all(isinstance(t, str) for t in batch):
            bad = next(t for t in batch if not isinstance(t, str))
            raise TypeError(f"texts must be strings, found {type(bad).__name__} {bad!r:.60}")
        encodings = encode(list(batch), add_special_tokens=False)
        out = []
        for enc in encodings:
            seq = assemble(np.asarray(enc.ids, dtype=np.int64), convention, cls_id, sep_id)
            if seq is not None:
                out.append(seq)
        yield out


def assemble(pieces, convention: CountingConvention, cls_id, sep_id):
    """The counted sequence built from a text's word pieces (at least ``min(L, n)`` of them), or None if dropped."""
    n = convention.n_positions
    if convention.special_tokens:
        # the full length is L + 2; pieces truncated at n suffice: min(L, n) + 2 decides any min_length <= n
        full_len = pieces.size + 2
        if convention.truncation == "model" and pieces.size > n - 2:
            seq = np.concatenate(([cls_id], pieces[: n - 2], [sep_id]))
        else:
            seq = np.concatenate(([cls_id], pieces[: n - 1], [sep_id]))[:n]
    else:
        full_len = pieces.size
        seq = pieces[:n]
    if convention.min_length is not None and full_len < convention.min_length:
        return None
    return seq
