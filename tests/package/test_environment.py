"""The Binder environment and the `make` environment pin the same things."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pins(text):
    pattern = r"^\s*-?\s*([A-Za-z0-9_.-]+)\s*((?:==|>=|<|,)[^#\n]*)"
    return {m.group(1).lower(): m.group(2).strip() for m in re.finditer(pattern, text, re.M)}


def test_environment_yml_pins_what_requirements_txt_pins():
    req = _pins((ROOT / "requirements.txt").read_text())
    env = _pins((ROOT / "environment.yml").read_text())
    assert req["torch"] == "==2.13.0"
    for name, spec in req.items():
        assert env.get(name) == spec, f"environment.yml must pin {name}{spec} like requirements.txt ({env.get(name)})"


def test_package_dependencies_are_ranges_not_pins():
    text = (ROOT / "pyproject.toml").read_text()
    deps = re.search(r"^dependencies = \[(.*?)\]", text, re.S | re.M).group(1)
    assert "==" not in deps, "pyproject.toml dependencies must be ranges so Colab keeps its own torch"
