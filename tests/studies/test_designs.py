"""Design files (posgeom.studies.designs): what a confirmatory design and an exploratory file must state, and the
stored results read back as a chapter's result type."""

import dataclasses

import numpy as np
import pytest

from posgeom.studies.designs import Design

CONFIRMATORY = ('question="q"\noutcome="o"\nrule="r"\nalpha=0.05\nmultiplicity="none"\npower_computation="p"\n'
                'n_seeds=2\nseed_start=100\nseed_stop=102\n')


@dataclasses.dataclass(frozen=True)
class _Runs:
    seeds: tuple
    names: tuple
    accuracy: np.ndarray


def _write(tmp_path, text, name="d"):
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name="{name}"\n{text}results="{tmp_path / name}.json"\ncommand="c"\n')
    return path


def test_a_confirmatory_design_states_its_rule_and_an_exploratory_file_its_note(tmp_path):
    assert list(Design.load(_write(tmp_path, CONFIRMATORY)).seeds) == [100, 101]
    with pytest.raises(ValueError, match="rule"):
        Design.load(_write(tmp_path, CONFIRMATORY.replace('rule="r"\n', "")))
    exploratory = 'status="exploratory"\nn_seeds=3\nseed_start=0\nseed_stop=3\n'
    with pytest.raises(ValueError, match="note"):
        Design.load(_write(tmp_path, exploratory))
    assert list(Design.load(_write(tmp_path, exploratory + 'note="earlier runs"\n')).seeds) == [0, 1, 2]


def test_stored_results_read_back_as_the_result_type_bit_for_bit(tmp_path):
    design = Design.load(_write(tmp_path, 'status="exploratory"\nnote="earlier runs"\nn_seeds=2\nseed_start=0\n'
                                          'seed_stop=2\n'))
    runs = _Runs(seeds=(0, 1), names=("a", "b"), accuracy=np.random.default_rng(0).random((2, 2)) / 3)
    design.store(tmp_path / "d.json", names=list(runs.names), accuracy=runs.accuracy.tolist())
    assert design.results()["note"] == "earlier runs"  # an exploratory file says so
    back = design.read(_Runs)
    assert back.seeds == runs.seeds and back.names == runs.names
    assert back.accuracy.tolist() == runs.accuracy.tolist()  # JSON floats round-trip exactly
    other = tmp_path / "e.toml"
    other.write_text(f'name="e"\n{CONFIRMATORY}results="{tmp_path / "d.json"}"\n')
    with pytest.raises(ValueError, match="regenerate"):  # results made under another design are refused
        Design.load(other).results()
