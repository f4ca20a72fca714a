"""book/api.md documents every public name and every result type a public function returns.

The ``{eval-rst}`` blocks of book/api.md are generated from the package by :func:`api_blocks` (the prose between them
is written by hand). Public names are documented by ``automodule`` of the module whose ``__all__`` lists them (or
``autodata`` for constants); result types that are not public names (scipy's convention: returned and documented,
not importable as public names) by ``autoclass`` under the path of their subpackage, so that the cross-references of
the docstrings and of the annotations (the defining module's path, registered by autodoc as the canonical name)
resolve with Sphinx's ``nitpicky`` on. Regenerate the page after changing an ``__all__`` or a result type::

    .venv/bin/python tests/package/test_api_page.py
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

from test_api_contract import _public_module_names

import posgeom

ROOT = Path(posgeom.__file__).resolve().parents[2]
API = ROOT / "book" / "api.md"

#: (heading of the section in book/api.md, the subpackage it documents); the last section holds the top-level modules.
SECTIONS = [
    ("## Corpus statistics", "corpus"),
    ("## Geometry", "geometry"),
    ("## Encodings", "encodings"),
    ("## Stress", "stress"),
    ("## Models (torch)", "nn"),
    ("## Data", "data"),
    ("## Studies", "studies"),
    ("## The report", "report"),
]
REST_HEADING = "## Inference, checks"
REST = ["inference", "checks", "plotting", "glue"]
TOP_HEADING = "## The numpy core at the top level"


def public_names() -> dict[str, set[str]]:
    """Every public module and the names of its ``__all__``."""
    return {m: set(getattr(importlib.import_module(m), "__all__", ())) for m in _public_module_names()}


def _submodules(pkg_name: str) -> list[str]:
    pkg = importlib.import_module(pkg_name)
    return [f"{pkg_name}.{info.name}" for info in pkgutil.iter_modules(pkg.__path__) if not info.name.startswith("_")]


def _classes_in(annotation, namespace: dict) -> list[type]:
    """posgeom classes named in an annotation (a string under ``from __future__ import annotations``)."""
    if not isinstance(annotation, str):
        annotation = getattr(annotation, "__name__", "") if inspect.isclass(annotation) else str(annotation)
    found = []
    for word in re.findall(r"[A-Za-z_][A-Za-z_0-9.]*", annotation):
        obj = namespace.get(word.split(".")[0])
        for part in word.split(".")[1:]:
            obj = getattr(obj, part, None)
        if inspect.isclass(obj) and obj.__module__.startswith("posgeom") and obj not in found:
            found.append(obj)
    return found


def _referenced_classes(obj) -> list[type]:
    """posgeom classes named by the annotations that autodoc renders for a public function or class."""
    found: list[type] = []

    def visit(fn):
        fn = inspect.unwrap(fn)
        namespace = getattr(fn, "__globals__", {})
        for annotation in getattr(fn, "__annotations__", {}).values():
            found.extend(c for c in _classes_in(annotation, namespace) if c not in found)

    if inspect.isfunction(obj):
        visit(obj)
    elif inspect.isclass(obj):
        namespace = vars(sys.modules[obj.__module__])
        if dataclasses.is_dataclass(obj):
            for field in dataclasses.fields(obj):
                found.extend(c for c in _classes_in(field.type, namespace) if c not in found)
        for member in vars(obj).values():  # dunders too: ``table["MDS"]`` returns a row
            if isinstance(member, (classmethod, staticmethod)):
                member = member.__func__
            if isinstance(member, property):
                member = member.fget
            if inspect.isfunction(member):
                visit(member)
    return found


def result_types() -> list[type]:
    """Classes that public functions and classes return or hold but that no ``__all__`` lists (transitively)."""
    public = {id(getattr(importlib.import_module(m), n)) for m, names in public_names().items() for n in names}
    todo = [getattr(importlib.import_module(m), n) for m, names in public_names().items() for n in sorted(names)]
    seen: set[int] = set()
    found: list[type] = []
    while todo:
        obj = todo.pop(0)
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        for cls in _referenced_classes(obj):
            if id(cls) not in public and cls not in found and not cls.__name__.startswith("_"):
                found.append(cls)
                todo.append(cls)
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


def documented_path(cls: type) -> str:
    """The path a result type is documented under: its subpackage's, if the subpackage exposes it, else its module's."""
    parts = cls.__module__.split(".")
    for depth in range(2, len(parts) + 1):
        candidate = ".".join(parts[:depth])
        if not any(p.startswith("_") for p in parts[1:depth]) and getattr(
                importlib.import_module(candidate), cls.__qualname__, None) is cls:
            return f"{candidate}.{cls.__qualname__}"
    return f"{cls.__module__}.{cls.__qualname__}"


def _section_of(cls: type) -> str:
    sub = cls.__module__.split(".")[1]
    return sub if sub in dict((s, s) for _, s in SECTIONS) else "rest"


def _autoclass(cls: type) -> list[str]:
    return [f".. autoclass:: {documented_path(cls)}", "   :members:"]


def _constants(module_name: str) -> list[str]:
    """``autodata`` for the constants a package re-exports (automodule documents a module's own ``#:`` constants)."""
    module = importlib.import_module(module_name)
    if not hasattr(module, "__path__"):
        return []
    return [f".. autodata:: {module_name}.{n}" for n in module.__all__
            if not (inspect.isclass(getattr(module, n)) or callable(getattr(module, n)))]


def api_blocks() -> dict[str, str]:
    """The ``{eval-rst}`` block of every section of book/api.md, keyed by the section's heading."""
    results = result_types()
    blocks = {}
    for heading, sub in SECTIONS:
        name = f"posgeom.{sub}"
        pkg = importlib.import_module(name)
        lines = []
        if sub != "studies":  # link targets for :mod: roles to the modules the subpackage is made of
            lines += [f".. py:module:: {m}" for m in _submodules(name) if m.rsplit(".", 1)[1] not in pkg.__all__]
        lines += [f".. automodule:: {name}", "   :members:"] + _constants(name)
        if sub != "studies":  # public names of a module that the subpackage does not list (posgeom.corpus.counts)
            for m in _submodules(name):
                module = importlib.import_module(m)
                for n in getattr(module, "__all__", ()):
                    if n not in pkg.__all__:
                        obj = getattr(module, n)
                        kind = "autoclass" if inspect.isclass(obj) else "autofunction" if callable(obj) else "autodata"
                        lines += [f".. {kind}:: {m}.{n}"] + (["   :members:"] if kind == "autoclass" else [])
        if sub == "studies":  # one chapter's experiment per module, each with its own __all__
            for m in _submodules(name):
                lines += [f".. automodule:: {m}", "   :members:"] + _constants(m)
        for cls in results:
            if _section_of(cls) == sub:
                lines += _autoclass(cls)
        blocks[heading] = "\n".join(["```{eval-rst}", *lines, "```"])
    lines = []
    for m in REST:
        lines += [f".. automodule:: posgeom.{m}", "   :members:"] + _constants(f"posgeom.{m}")
        if m == "inference":
            lines += [line for cls in results if _section_of(cls) == "rest" for line in _autoclass(cls)]
    blocks[REST_HEADING] = "\n".join(["```{eval-rst}", *lines, "```"])
    # the numpy core as the chapters call it (pg.classical_mds); each name is documented again in its subpackage
    top_classes = [n for n in posgeom.__all__ if inspect.isclass(getattr(posgeom, n))]
    lines = [".. automodule:: posgeom", "   :members:"]
    if top_classes:
        lines.append("   :exclude-members: " + ", ".join(top_classes))
    lines += _constants("posgeom")
    blocks[TOP_HEADING] = "\n".join(["```{eval-rst}", *lines, "```"])
    return blocks


def _replace_block(text: str, heading: str, block: str) -> str:
    start = text.index("\n" + heading)
    i = text.index("```{eval-rst}", start)
    j = text.index("```", i + len("```{eval-rst}")) + 3
    return text[:i] + block + text[j:]


def regenerated_page() -> str:
    text = API.read_text(encoding="utf-8")
    for heading, block in api_blocks().items():
        text = _replace_block(text, heading, block)
    return text


def _documented_names(text: str) -> set[str]:
    """Names the directives of the page document: automodule members (the module's ``__all__``) and explicit ones."""
    names = set()
    for line in text.splitlines():
        if line.startswith(".. automodule:: "):
            names |= set(getattr(importlib.import_module(line.split()[-1]), "__all__", ()))
        elif line.startswith((".. autodata:: ", ".. autoclass:: ", ".. autofunction:: ")):
            names.add(line.split()[-1].rsplit(".", 1)[1])
    return names


def test_api_page_is_generated_from_the_package():
    assert API.read_text(encoding="utf-8") == regenerated_page(), (
        "book/api.md is stale (an __all__ or a result type changed): "
        "run .venv/bin/python tests/package/test_api_page.py")


def test_api_page_documents_every_public_name():
    text = API.read_text(encoding="utf-8")
    public = set().union(*public_names().values())
    missing = sorted(public - _documented_names(text))
    assert not missing, f"public names that book/api.md does not document: {missing}"


def test_api_page_documents_every_result_type():
    text = API.read_text(encoding="utf-8")
    missing = [documented_path(c) for c in result_types() if f".. autoclass:: {documented_path(c)}\n" not in text]
    assert not missing, f"result types of public functions that book/api.md does not document: {missing}"


def test_result_types_are_found():
    """The walk finds a result type that only a return annotation names (so the check above can fail)."""
    from posgeom.nn._fit import FitResult

    public = [getattr(importlib.import_module(m), n) for m, names in public_names().items() for n in names]
    assert any(obj is FitResult for obj in public) or FitResult in result_types()


if __name__ == "__main__":
    API.write_text(regenerated_page(), encoding="utf-8")
    print(f"wrote {API}: {len(set().union(*public_names().values()))} public names, {len(result_types())} result types")
