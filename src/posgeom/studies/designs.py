"""``Design``: a design file (``data/designs/*.toml``), fixed before a chapter's confirmatory runs, and its results."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import tomllib

__all__: list[str] = []  # Design is a result type, importable and documented

#: Where ``data/designs`` and ``data/results`` live: shipped inside the package, so that a chapter run from the
#: installed wheel (Colab, Binder) finds its design and stored runs as a clone does.
ROOT = Path(__file__).resolve().parent / "_shipped"
_REQUIRED = ("name", "question", "outcome", "rule", "alpha", "multiplicity", "power_computation", "n_seeds",
             "seed_start", "seed_stop")


@dataclass(frozen=True)
class Design:
    r"""A design file: ``fields`` (the TOML table), ``text`` (as committed) and ``sha256`` of its bytes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.toml"
    >>> _ = p.write_text('name="d"\nquestion="q"\noutcome="o"\nrule="r"\nalpha=0.05\nmultiplicity="none"\n'
    ...                  'power_computation="p"\nn_seeds=2\nseed_start=100\nseed_stop=102\n')
    >>> list(Design.load(p).seeds)
    [100, 101]
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
        missing = [k for k in _REQUIRED if k not in fields]
        if missing:
            raise ValueError(f"design file {path} lacks {missing}; a design states every one of {list(_REQUIRED)}")
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
        """The JSON results its command stored (``results``, else ``data/results/<name>.json``); an error if made
        under another design."""
        path = self.fields.get("results", f"data/results/{self['name']}.json")
        results = json.loads((ROOT / path).read_text())
        if results.get("design_sha256") != self.sha256 or results.get("seeds") != list(self.seeds):
            raise ValueError(f"{path} was not made under design {self['name']} as it stands (hash or seeds differ); "
                             f"regenerate it: {results.get('command', self.fields.get('command'))}")
        return results

    def store(self, path: str | Path, *, command: str | None = None, **results) -> None:
        """Store per-seed ``results`` (JSON: floats round-trip exactly) with the design's hash, seeds and command."""
        Path(path).write_text(json.dumps({"design": self["name"], "design_sha256": self.sha256, "command": command
                                          or self["command"], "seeds": list(self.seeds), **results}, indent=1) + "\n")
