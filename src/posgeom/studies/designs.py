"""``Design``: a design file (``data/designs/*.toml``) fixed before a chapter's confirmatory runs (or, of ``status =
"exploratory"``, its earlier runs: a ``note``, no rule) and its stored results; ``main``, the command."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np
import tomllib

__all__: list[str] = []  # Design is a result type, importable and documented

#: Where ``data/designs`` and ``data/results`` live: shipped inside the package, so that a chapter run from the
#: installed wheel (Colab, Binder) finds its design and stored runs as a clone does.
ROOT = Path(__file__).resolve().parent / "_shipped"
_REQUIRED = ("name", "n_seeds", "seed_start", "seed_stop")
_CONFIRMATORY = ("question", "outcome", "rule", "alpha", "multiplicity", "power_computation")


@dataclasses.dataclass(frozen=True)
class Design:
    """A design file: ``fields`` (the TOML table), ``text`` (as committed) and ``sha256`` of its bytes.

    Examples
    --------
    >>> design = Design.load("ch08_trend")
    >>> design["status"], design.seeds
    ('confirmatory', range(100100, 100112))
    """
    fields: dict
    text: str
    sha256: str

    @classmethod
    def load(cls, path: str | Path) -> Design:
        """Read a design file (or the one named so in ``data/designs``) and check it states what a design must."""
        if not str(path).endswith(".toml"):
            path = ROOT / "data" / "designs" / f"{path}.toml"
        raw = Path(path).read_bytes()
        fields = tomllib.loads(raw.decode("utf-8"))
        required = _REQUIRED + (("note",) if fields.get("status") == "exploratory" else _CONFIRMATORY)
        if missing := [k for k in required if k not in fields]:
            raise ValueError(f"design file {path} lacks {missing}; it must state every one of {list(required)}")
        if fields["seed_stop"] - fields["seed_start"] != fields["n_seeds"]:
            raise ValueError(f"design file {path}: seed_start..seed_stop and n_seeds={fields['n_seeds']} disagree")
        return cls(fields, raw.decode("utf-8"), hashlib.sha256(raw).hexdigest())

    def __getitem__(self, key: str):
        """The field ``key``."""
        return self.fields[key]

    @property
    def seeds(self) -> range:
        """The design's seed range."""
        return range(self["seed_start"], self["seed_stop"])

    def results(self) -> dict:
        """The stored results (``results``, else ``data/results/<name>.json``); an error if another design made them."""
        path = self.fields.get("results", f"data/results/{self['name']}.json")
        results = json.loads((ROOT / path).read_text())
        if results.get("design_sha256") != self.sha256 or results.get("seeds") != list(self.seeds):
            raise ValueError(f"{path} was not made under design {self['name']} as it stands (hash or seeds differ); "
                             f"regenerate it: {results.get('command', self.fields.get('command'))}")
        return results

    def read(self, cls):
        """``results()`` as the dataclass ``cls``, whose fields are stored by name (``np.ndarray`` ones as arrays)."""
        r = self.results()
        return cls(**{f.name: np.array(r[f.name]) if "ndarray" in str(f.type) else tuple(r[f.name])
                      for f in dataclasses.fields(cls)})

    def store(self, path: str | Path, *, command: str | None = None, **results) -> None:
        """Store per-seed ``results`` (JSON: floats round-trip exactly) with the design's hash, seeds and command."""
        note = {"note": self["note"]} if "note" in self.fields else {}  # an exploratory file says so
        Path(path).write_text(json.dumps({"design": self["name"], **note, "design_sha256": self.sha256, "command":
                                          command or self["command"], "seeds": list(self.seeds), **results},
                                         indent=1) + "\n")


def main(design_runs, *, command: str | None = None) -> None:  # pragma: no cover - the designs' commands
    """``python -m posgeom.studies.<module> DESIGN OUT``: store ``design_runs(design)``, a dict or a dataclass."""
    import sys
    design = Design.load(sys.argv[1])
    if dataclasses.is_dataclass(runs := design_runs(design)):
        runs = {k: np.asarray(v).tolist() for k, v in dataclasses.asdict(runs).items() if k != "seeds"}
    design.store(sys.argv[2], command=command, **runs)
