"""The torch layer's input checks, each written once (real options and seeds: ``posgeom._validation``)."""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import ArrayLike

from .._validation import check_matrix, check_positive_int
from ..encodings._schemes import SCHEMES

#: Target value of a token that does not count in the loss or the accuracy (torch's cross-entropy convention).
IGNORE_INDEX = -100

#: The option each scheme needs and no other scheme takes.
_OPTION_OF = {"low_rank": "rank", "fixed": "encoding"}


def check_heads(d_model, n_heads) -> tuple[int, int]:
    """``(d_model, n_heads)`` as positive integers, ``d_model`` divisible by ``n_heads``."""
    d_model, n_heads = check_positive_int(d_model, "d_model"), check_positive_int(n_heads, "n_heads")
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}; change one of them")
    return d_model, n_heads


def check_scheme(name, *, rank, encoding) -> str:
    """The scheme ``name``, with ``rank`` exactly for ``"low_rank"`` and ``encoding`` exactly for ``"fixed"``."""
    if not isinstance(name, str):
        raise TypeError(f"positional must be a scheme name (str), got {type(name).__name__}")
    if name not in SCHEMES:
        raise ValueError(f"unknown positional scheme {name!r}; choose one of {SCHEMES}")
    for owner, option in _OPTION_OF.items():
        given = {"rank": rank, "encoding": encoding}[option] is not None
        if name == owner and not given:
            hint = ("<int between 1 and min(n_positions, d_model)>" if option == "rank"
                    else "<(n_positions, d_model) matrix>")
            raise ValueError(f"the {owner!r} scheme needs {option}={hint}, got None")
        if name != owner and given:
            raise ValueError(f"{option} is only used by the {owner!r} scheme, not {name!r}; drop {option}=")
    return name


def check_table(value, name: str, n_positions: int, d_model: int) -> np.ndarray:
    """A finite (n_positions, d_model) position table, from an array or a tensor, as a float64 array."""
    P = check_matrix(value.detach().cpu().numpy() if torch.is_tensor(value) else value, name)
    if P.shape != (n_positions, d_model):
        raise ValueError(f"{name} must have shape (n_positions, d_model) = ({n_positions}, {d_model}), got "
                         f"{P.shape}; embed an r-dimensional encoding into R^d first (e.g. pad with zero columns)")
    return P


def check_ids(X: ArrayLike, name: str = "X") -> np.ndarray:
    """``X`` as a non-empty (N, L) array of non-negative integer ids."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty 2-D array (n_sequences, length) of token ids, got {X.shape}")
    if not np.issubdtype(X.dtype, np.integer):
        raise TypeError(f"{name} must hold integer token ids, got dtype {X.dtype}")
    if X.min() < 0:
        raise ValueError(f"{name} has negative token ids; ids must be >= 0")
    return X.astype(np.int64, copy=False)


def check_labels(y: ArrayLike, n: int) -> np.ndarray:
    """``y`` as (n,) integer labels, one per sequence."""
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},), one label per sequence, got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"y must hold integer class labels, got dtype {y.dtype}")
    return y.astype(np.int64, copy=False)
