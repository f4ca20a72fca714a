"""learned_position_embeddings against the models themselves, one tiny random checkpoint per family.

Each checkpoint is built offline from a config (hidden width 8, one layer, two heads, 16 positions), saved with
``save_pretrained(..., safe_serialization=True)`` and read back by :func:`posgeom.data.learned_position_embeddings`.
Row ``i`` of the result must be the vector the model adds at position ``i``, obtained twice from the model:

* from its own embedding module called with its own position ids (``create_position_ids_from_input_ids`` for
  RoBERTa-style models, the attention mask for OPT, ``arange`` for the others);
* from a real forward pass, by hooking the position embedding module and recording what it returns.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from posgeom.data import learned_position_embeddings  # noqa: E402

MAX_POS = 16
TOKEN = 5  # an ordinary token id: not the padding id of any config below
SMALL = dict(hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16,
             max_position_embeddings=MAX_POS, vocab_size=32)


def _config(family: str):
    T = transformers
    if family == "bert":
        return T.BertConfig(**SMALL)
    if family == "roberta":
        return T.RobertaConfig(**SMALL, pad_token_id=1)
    if family == "xlm-roberta":
        return T.XLMRobertaConfig(**SMALL, pad_token_id=1)
    if family == "camembert":
        return T.CamembertConfig(**SMALL, pad_token_id=1)
    if family == "electra":
        return T.ElectraConfig(**SMALL, embedding_size=4)  # ELECTRA's embeddings are narrower than its layers
    if family == "distilbert":
        return T.DistilBertConfig(dim=8, n_layers=1, n_heads=2, hidden_dim=16, max_position_embeddings=MAX_POS,
                                  vocab_size=32)
    if family == "opt":
        return T.OPTConfig(hidden_size=8, num_hidden_layers=1, num_attention_heads=2, ffn_dim=16,
                           max_position_embeddings=MAX_POS, vocab_size=32, word_embed_proj_dim=8,
                           pad_token_id=1, bos_token_id=2, eos_token_id=2)
    if family == "gpt2":
        return T.GPT2Config(n_embd=8, n_layer=1, n_head=2, n_positions=MAX_POS, vocab_size=32,
                            bos_token_id=0, eos_token_id=0)
    if family == "llama":
        return T.LlamaConfig(**SMALL, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    raise AssertionError(family)


# (family, model class, rows the model uses: MAX_POS less the reserved ones)
CASES = [
    ("bert", "BertModel", MAX_POS),
    ("bert", "BertForMaskedLM", MAX_POS),
    ("roberta", "RobertaModel", MAX_POS - 2),
    ("roberta", "RobertaForMaskedLM", MAX_POS - 2),
    ("xlm-roberta", "XLMRobertaModel", MAX_POS - 2),
    ("xlm-roberta", "XLMRobertaForMaskedLM", MAX_POS - 2),
    ("camembert", "CamembertForMaskedLM", MAX_POS - 2),
    ("distilbert", "DistilBertModel", MAX_POS),
    ("distilbert", "DistilBertForMaskedLM", MAX_POS),
    ("electra", "ElectraModel", MAX_POS),
    ("electra", "ElectraForMaskedLM", MAX_POS),
    ("opt", "OPTModel", MAX_POS),
    ("opt", "OPTForCausalLM", MAX_POS),
    ("gpt2", "GPT2Model", MAX_POS),
    ("gpt2", "GPT2LMHeadModel", MAX_POS),
]


def _build(family: str, class_name: str, seed: int = 0):
    torch.manual_seed(seed)
    model = getattr(transformers, class_name)(_config(family))
    return model.eval()


def _save(model, folder):
    model.save_pretrained(folder, safe_serialization=True)
    assert (folder / "model.safetensors").is_file() or (folder / "model.safetensors.index.json").is_file()
    assert not list(folder.glob("*.bin"))
    return folder


def _position_module(model):
    """The module that turns position ids into the vectors added to the tokens."""
    base = model.base_model  # e.g. model.bert for BertForMaskedLM, model.model for OPTForCausalLM
    if hasattr(base, "embeddings"):
        return base.embeddings.position_embeddings
    if hasattr(base, "decoder"):
        return base.decoder.embed_positions
    return base.wpe


def _added_by_own_ids(family: str, model, length: int) -> np.ndarray:
    """Vectors added at positions 0..length-1, from the family's embedding module and its own position ids."""
    base = model.base_model
    with torch.no_grad():
        if family in ("roberta", "xlm-roberta", "camembert"):
            emb = base.embeddings
            input_ids = torch.full((1, length), TOKEN, dtype=torch.long)
            make_ids = getattr(emb, "create_position_ids_from_input_ids", None)
            if make_ids is None:  # transformers 4.x: a module-level function
                make_ids = __import__(type(emb).__module__, fromlist=["_"]).create_position_ids_from_input_ids
            position_ids = make_ids(input_ids, emb.padding_idx)
            assert position_ids[0, 0].item() == model.config.pad_token_id + 1  # positions start after padding
            out = emb.position_embeddings(position_ids)[0]
        elif family == "opt":
            # OPTLearnedPositionalEmbedding.forward(attention_mask, cache_length/past_key_values_length=0, ...)
            out = base.decoder.embed_positions(torch.ones((1, length), dtype=torch.long))[0]
        elif family == "gpt2":
            out = base.wpe(torch.arange(length))
        else:  # bert, distilbert, electra
            out = base.embeddings.position_embeddings(torch.arange(length))
    return out.double().numpy()


def _added_by_forward(model, length: int) -> np.ndarray:
    """Vectors added at positions 0..length-1 during a real forward pass (hook on the position module)."""
    seen = []
    handle = _position_module(model).register_forward_hook(lambda module, args, output: seen.append(output))
    try:
        with torch.no_grad():
            model(input_ids=torch.full((1, length), TOKEN, dtype=torch.long))
    finally:
        handle.remove()
    assert len(seen) == 1
    out = seen[0]
    return out.reshape(-1, out.shape[-1]).double().numpy()


@pytest.mark.parametrize(("family", "class_name", "n_positions"), CASES,
                         ids=[f"{f}-{c}" for f, c, _ in CASES])
def test_row_i_is_the_vector_added_at_position_i(tmp_path, family, class_name, n_positions):
    model = _build(family, class_name)
    folder = _save(model, tmp_path / class_name)
    assert json.loads((folder / "config.json").read_text())["model_type"] == family
    P = learned_position_embeddings(model=folder)
    assert P.dtype == np.float64 and P.flags.c_contiguous
    width = model.config.embedding_size if family == "electra" else (model.config.hidden_size if family != "gpt2"
                                                                     else model.config.n_embd)
    assert P.shape == (n_positions, width)
    np.testing.assert_array_equal(P, _added_by_own_ids(family, model, n_positions))
    np.testing.assert_array_equal(P, _added_by_forward(model, n_positions))
    assert np.min(np.linalg.norm(P[1:] - P[:-1], axis=1)) > 0  # random rows: an off-by-one could not pass


@pytest.mark.parametrize("family", ["roberta", "opt"])
def test_reserved_rows_are_dropped(tmp_path, family):
    """The raw table has rows no position uses (RoBERTa's padding rows, OPT's offset): they are not returned."""
    from safetensors import safe_open

    class_name = {"roberta": "RobertaForMaskedLM", "opt": "OPTForCausalLM"}[family]
    folder = _save(_build(family, class_name), tmp_path / family)
    key = {"roberta": "roberta.embeddings.position_embeddings.weight",
           "opt": "model.decoder.embed_positions.weight"}[family]
    with safe_open(str(folder / "model.safetensors"), framework="np") as fh:
        raw = fh.get_tensor(key).astype(np.float64)
    P = learned_position_embeddings(model=folder)
    np.testing.assert_array_equal(P, raw[2:])
    assert raw.shape[0] == P.shape[0] + 2


def test_roberta_pad_token_id_is_read_from_the_config(tmp_path):
    """Positions start at pad_token_id + 1 whatever the padding id is (here 3: rows 0..3 reserved)."""
    torch.manual_seed(0)
    config = transformers.RobertaConfig(**SMALL, pad_token_id=3)
    model = transformers.RobertaModel(config).eval()
    folder = _save(model, tmp_path / "pad3")
    P = learned_position_embeddings(model=folder)
    assert P.shape == (MAX_POS - 4, 8)
    np.testing.assert_array_equal(P, _added_by_own_ids("roberta", model, MAX_POS - 4))
    np.testing.assert_array_equal(P, _added_by_forward(model, MAX_POS - 4))


def test_sharded_checkpoint_from_save_pretrained(tmp_path):
    model = _build("roberta", "RobertaForMaskedLM")
    folder = tmp_path / "sharded"
    model.save_pretrained(folder, safe_serialization=True, max_shard_size="2KB")
    assert (folder / "model.safetensors.index.json").is_file() and not (folder / "model.safetensors").exists()
    np.testing.assert_array_equal(learned_position_embeddings(model=folder), _added_by_forward(model, MAX_POS - 2))


def test_bfloat16_checkpoint(tmp_path):
    model = _build("bert", "BertForMaskedLM").to(torch.bfloat16)
    folder = _save(model, tmp_path / "bf16")
    P = learned_position_embeddings(model=folder)
    assert P.dtype == np.float64
    np.testing.assert_array_equal(P, model.bert.embeddings.position_embeddings.weight.detach().double().numpy())


@pytest.mark.parametrize("class_name", ["LlamaModel", "LlamaForCausalLM"])
def test_rope_model_has_no_learned_table(tmp_path, class_name):
    folder = _save(_build("llama", class_name), tmp_path / class_name)
    with pytest.raises(ValueError) as info:
        learned_position_embeddings(model=folder)
    message = str(info.value)
    assert "no learned absolute position embeddings" in message and "'llama'" in message and "RoPE" in message
    assert str(folder) in message  # names the model
    assert "embed_tokens.weight" in message  # and the tensors found


def _edit_config(folder, **changes):
    """The saved model ``folder`` with ``changes`` written into its config.json."""
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))
    return folder


def test_relative_position_embedding_type_has_no_absolute_table(tmp_path):
    """transformers 4.x BERT with position_embedding_type='relative_key' keeps a table but never adds it."""
    folder = _save(_build("bert", "BertModel"), tmp_path / "relative")
    _edit_config(folder, position_embedding_type="relative_key")
    with pytest.raises(ValueError, match="position_embedding_type='relative_key'.*no learned absolute"):
        learned_position_embeddings(model=folder)


def test_unsupported_model_type_is_a_clear_error(tmp_path):
    folder = _edit_config(_save(_build("bert", "BertModel"), tmp_path / "other"), model_type="bart")
    with pytest.raises(ValueError, match="model_type 'bart'.*does not support.*Supported families"):
        learned_position_embeddings(model=folder)


def test_config_and_weights_must_agree(tmp_path):
    """A GPT-2 config over BERT weights: the family's table is missing, and the error says so."""
    folder = _save(_build("bert", "BertModel"), tmp_path / "mismatch")
    (folder / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    with pytest.raises(ValueError, match="no tensor named 'wpe.weight'.*does not match its config"):
        learned_position_embeddings(model=folder)
