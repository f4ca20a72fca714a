import numpy as np
import pytest
import torch

from posgeom.nn import TransformerClassifier, seed_everything

SCHEMES_KW = {
    "none": {},
    "sinusoidal": {},
    "learned": {},
    "rope": {},
    "alibi": {},
    "low_rank": {"rank": 2},
    "fixed": {"encoding": np.random.default_rng(0).normal(size=(10, 16))},
}


def build(scheme, causal=False, **kw):
    seed_everything(0)
    return TransformerClassifier(12, 10, 16, 2, 2, positional=scheme, causal=causal, n_classes=3,
                                 **SCHEMES_KW[scheme], **kw).eval()


@pytest.mark.parametrize("scheme", list(SCHEMES_KW))
def test_shapes_and_dtypes(scheme):
    model = build(scheme)
    ids = torch.randint(0, 12, (4, 7))
    assert model(ids).shape == (4, 3)
    assert model(ids, pooled=False).shape == (4, 7, 3)
    assert model(ids).dtype == torch.float32
    assert model(ids.int()).shape == (4, 3)
    assert model.positional.name == scheme


def test_none_encoder_is_permutation_equivariant_and_pooled_invariant():
    model = build("none")
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 12, (5, 10), generator=g)
    perm = torch.randperm(10, generator=g)
    with torch.no_grad():
        torch.testing.assert_close(model(ids, pooled=False)[:, perm], model(ids[:, perm], pooled=False),
                                   atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(model(ids), model(ids[:, perm]), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("scheme", [s for s in SCHEMES_KW if s != "none"])
def test_positional_schemes_break_the_symmetry(scheme):
    model = build(scheme)
    ids = torch.arange(10)[None] % 12
    perm = torch.arange(9, -1, -1) if scheme != "alibi" else torch.tensor([1, 0, 2, 3, 4, 5, 6, 7, 8, 9])
    with torch.no_grad():
        gap = (model(ids, pooled=False)[:, perm] - model(ids[:, perm], pooled=False)).abs().max()
    assert gap > 1e-3


def test_causal_none_is_not_permutation_equivariant():
    model = build("none", causal=True)
    ids = torch.arange(10)[None]
    perm = torch.arange(9, -1, -1)
    with torch.no_grad():
        gap = (model(ids, pooled=False)[:, perm] - model(ids[:, perm], pooled=False)).abs().max()
    assert gap > 1e-3


def test_causal_mask_blocks_the_future():
    model = build("learned", causal=True)
    ids = torch.randint(0, 12, (2, 8))
    changed = ids.clone()
    changed[:, 5:] = (changed[:, 5:] + 1) % 12
    with torch.no_grad():
        a, b = model(ids, pooled=False), model(changed, pooled=False)
    torch.testing.assert_close(a[:, :5], b[:, :5])
    assert (a[:, 5:] - b[:, 5:]).abs().max() > 1e-4


def test_padding_is_ignored():
    model = build("none")
    ids = torch.randint(0, 12, (1, 6))
    padded = torch.cat([ids, torch.zeros(1, 3, dtype=torch.long)], dim=1)
    mask = torch.zeros(1, 9, dtype=torch.bool)
    mask[:, 6:] = True
    with torch.no_grad():
        torch.testing.assert_close(model(ids), model(padded, padding_mask=mask), atol=1e-5, rtol=1e-5)


def test_fully_masked_query_gives_no_nan():
    model = build("none", causal=True)
    ids = torch.randint(0, 12, (1, 5))
    mask = torch.tensor([[True, False, False, False, False]])  # left padding: query 0 sees nothing
    with torch.no_grad():
        out = model(ids, padding_mask=mask, pooled=False)
    assert torch.isfinite(out).all()


def test_bad_inputs():
    model = build("learned")
    with pytest.raises(ValueError, match="n_positions"):
        model(torch.zeros(1, 11, dtype=torch.long))
    with pytest.raises(ValueError, match="shape"):
        model(torch.zeros(11, dtype=torch.long))
    with pytest.raises(TypeError, match="integer"):
        model(torch.zeros(1, 4))
    with pytest.raises(TypeError, match="torch tensor"):
        model(np.zeros((1, 4), dtype=int))
    with pytest.raises(ValueError, match="token ids"):
        model(torch.full((1, 4), 12))
    with pytest.raises(ValueError, match="padding only"):
        model(torch.zeros(1, 4, dtype=torch.long), padding_mask=torch.ones(1, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match="shape of ids"):
        model(torch.zeros(1, 4, dtype=torch.long), padding_mask=torch.zeros(1, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="unknown positional scheme"):
        TransformerClassifier(12, 10, 16, 2, 1, positional="abs")
    with pytest.raises(TypeError, match="causal"):
        TransformerClassifier(12, 10, 16, 2, 1, causal=1)


def test_positional_encoding_accessor():
    assert build("learned").positional_encoding().shape == (10, 16)
    assert build("rope").positional_encoding() is None


def test_model_spec_layer_norm_is_validated():
    from posgeom.nn import ModelSpec

    with pytest.raises(TypeError, match="layer_norm"):
        ModelSpec(vocab_size=5, n_positions=4, d_model=8, layer_norm=1)
    with pytest.raises(TypeError, match="layer_norm"):
        TransformerClassifier(5, 4, 8, 2, 1, layer_norm="no")
    assert ModelSpec(vocab_size=5, n_positions=4, d_model=8).layer_norm is True  # the default is unchanged
    a = ModelSpec(vocab_size=5, n_positions=4, d_model=8)
    assert not a.same_architecture(ModelSpec(vocab_size=5, n_positions=4, d_model=8, layer_norm=False))


def test_without_layer_norm_there_are_no_layer_norm_parameters():
    from posgeom.nn import ModelSpec

    with_ln = ModelSpec(vocab_size=5, n_positions=4, d_model=8, n_layers=2).build(seed=0)
    without = ModelSpec(vocab_size=5, n_positions=4, d_model=8, n_layers=2, layer_norm=False).build(seed=0)
    names_with = {n for n, _ in with_ln.named_parameters()}
    names_without = {n for n, _ in without.named_parameters()}
    ln_names = {n for n in names_with if ".ln" in n or n.startswith("ln_final")}
    assert ln_names and names_without == names_with - ln_names
    assert not any(isinstance(m, torch.nn.LayerNorm) for m in without.modules())
    # the other parameters start from the same draws (LayerNorm's initialisation uses no randomness)
    params = dict(with_ln.named_parameters())
    assert all(torch.equal(p, params[n]) for n, p in without.named_parameters())


def test_default_layer_norm_model_is_unchanged_and_no_layer_norm_is_the_identity():
    ids = torch.tensor([[1, 2, 3, 0], [4, 4, 1, 2]])
    seed_everything(0)
    default = TransformerClassifier(5, 4, 8, 2, 1).eval()
    seed_everything(0)
    explicit = TransformerClassifier(5, 4, 8, 2, 1, layer_norm=True).eval()
    assert torch.equal(default(ids), explicit(ids))
    seed_everything(0)
    plain = TransformerClassifier(5, 4, 8, 2, 1, layer_norm=False).eval()
    # by hand: the pre-LN block with every LayerNorm replaced by the identity
    h = plain.positional.embed(plain.token_embedding(ids))
    block = plain.blocks[0]
    h = h + block.attn(h, plain.positional)
    h = h + block.mlp(h)
    assert torch.allclose(plain(ids), plain.head(h.mean(dim=1)), atol=1e-6)
    assert not torch.allclose(plain(ids), default(ids))
