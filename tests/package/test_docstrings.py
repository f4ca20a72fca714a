"""Every public callable has a complete numpydoc docstring.

Public means: named in ``__all__`` of ``posgeom.<sub>`` for the subpackages below and of the top-level modules
below, plus the result types they return (documented in book/api.md, not public names), plus the public methods
and properties those classes define themselves. Complete means:

* functions and methods: a summary, a ``Parameters`` section naming every parameter of the signature (``self`` and
  ``cls`` excepted), a ``Returns`` (or ``Yields``) section unless the return annotation is ``None``, and an
  ``Examples`` section;
* classes: a summary, every parameter of the constructor named under ``Parameters`` or (for dataclasses, whose
  fields are their parameters) ``Attributes``, and an ``Examples`` section;
* properties: a summary.

The docstrings are parsed with :mod:`numpydoc.docscrape` when numpydoc is installed, else with the small section
parser below. All offenders are reported in one assertion. That the examples *run* is checked by
``pytest --doctest-modules src/posgeom``.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re

import pytest

SUBPACKAGES = ("corpus", "geometry", "encodings", "stress", "data", "nn", "studies")
MODULES = ("inference", "checks", "report.ladder", "plotting", "glue")
TARGETS = tuple(f"posgeom.{name}" for name in SUBPACKAGES + MODULES)

_SECTION = re.compile(r"^(?P<title>[A-Z][A-Za-z ]+)\n-{3,}\s*$", re.MULTILINE)


def _sections_fallback(doc: str) -> tuple[str, dict[str, list[str]]]:
    """Summary and ``{section title: parameter names}`` of a numpydoc docstring, without numpydoc."""
    doc = inspect.cleandoc(doc)
    matches = list(_SECTION.finditer(doc))
    head = doc[: matches[0].start()] if matches else doc
    summary = head.strip().split("\n\n")[0].strip()
    sections: dict[str, list[str]] = {}
    for k, match in enumerate(matches):
        end = matches[k + 1].start() if k + 1 < len(matches) else len(doc)
        body = doc[match.end() : end]
        names = []
        for line in body.splitlines():
            if line and not line[0].isspace():
                names.append(line.split(" : ")[0].strip())
        sections[match.group("title").strip()] = names
    return summary, sections


def _sections(doc: str) -> tuple[str, dict[str, list[str]]]:
    """Summary and ``{section title: entry names}``, parsed by numpydoc when it is installed."""
    try:
        from numpydoc.docscrape import NumpyDocString
    except ImportError:  # pragma: no cover - depends on the environment
        return _sections_fallback(doc)
    parsed = NumpyDocString(doc)
    summary = " ".join(parsed["Summary"]).strip()
    sections: dict[str, list[str]] = {}
    for title in ("Parameters", "Other Parameters", "Attributes", "Returns", "Yields", "Raises"):
        if parsed[title]:
            sections[title] = [entry.name for entry in parsed[title]]
    if "".join(parsed["Examples"]).strip():
        sections["Examples"] = []
    return summary, sections


def _names(entries: list[str]) -> set[str]:
    """Parameter names in section entries: ``x, y`` lists two, ``*args`` and ``**kwargs`` lose their stars."""
    return {part.strip().lstrip("*") for entry in entries for part in entry.split(",") if part.strip()}


def _parameters(obj) -> list[str]:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # pragma: no cover - builtins without signatures
        return []
    return [name for name in signature.parameters if name not in ("self", "cls")]


def _returns_none(obj) -> bool:
    try:
        annotation = inspect.signature(obj).return_annotation
    except (TypeError, ValueError):  # pragma: no cover
        return False
    return annotation is None or annotation == "None"


def _check(label: str, obj, kind: str) -> list[str]:
    """What is missing from ``obj``'s docstring, as ``label: missing part`` strings."""
    doc = inspect.getdoc(obj)
    if not doc:
        return [f"{label}: no docstring"]
    summary, sections = _sections(doc)
    problems = []
    if not summary:
        problems.append("summary")
    if kind != "property":
        documented = _names(sections.get("Parameters", []) + sections.get("Other Parameters", []))
        if kind == "class" and dataclasses.is_dataclass(obj):
            documented |= _names(sections.get("Attributes", []))
        missing = [name for name in _parameters(obj) if name not in documented]
        if missing:
            problems.append("Parameters (" + ", ".join(missing) + ")")
        if kind == "function" and not _returns_none(obj) and not ({"Returns", "Yields"} & set(sections)):
            problems.append("Returns")
        if "Examples" not in sections:
            problems.append("Examples")
    return [f"{label}: missing {part}" for part in problems]


def _own_members(cls):
    """Public methods and properties defined in ``cls`` itself (inherited ones are checked where defined)."""
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            yield name, member, "property"
        elif isinstance(member, (classmethod, staticmethod)):
            yield name, getattr(cls, name), "function"
        elif inspect.isfunction(member):
            yield name, member, "function"


def _targets():
    """``(module name, object)`` for every name in the targets' ``__all__``, then the result types those return."""
    from test_api_page import result_types  # the result types book/api.md documents (not public names)

    for module_name in TARGETS:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            yield module_name, getattr(module, name)
    for cls in result_types():
        if not cls.__module__.startswith("posgeom.studies."):  # the studies' modules are not targets
            yield cls.__module__, cls


def _public_objects():
    """``(label, object, kind)`` for every public callable of the targets, each object once."""
    seen: set[int] = set()
    for _module_name, obj in _targets():
        if not (inspect.isclass(obj) or inspect.isfunction(obj)) or id(obj) in seen:
            continue
        seen.add(id(obj))
        label = f"{obj.__module__}.{obj.__qualname__}"
        if inspect.isfunction(obj):
            yield label, obj, "function"
            continue
        yield label, obj, "class"
        for member_name, member, kind in _own_members(obj):
            if id(member) not in seen:
                seen.add(id(member))
                yield f"{label}.{member_name}", member, kind


def test_targets_declare_all():
    missing = [name for name in TARGETS if not hasattr(importlib.import_module(name), "__all__")]
    assert not missing, f"modules without __all__: {missing}"


def test_fallback_parser_agrees_with_numpydoc_on_a_sample():
    doc = """Summary line.

    Parameters
    ----------
    x, y : int
        Two.
    **kwargs
        More.

    Returns
    -------
    int
        Sum.

    Examples
    --------
    >>> 1
    1
    """
    summary, sections = _sections_fallback(doc)
    assert summary == "Summary line."
    assert _names(sections["Parameters"]) == {"x", "y", "kwargs"}
    assert {"Returns", "Examples"} <= set(sections)


def test_public_docstrings_are_complete():
    objects = list(_public_objects())
    assert len(objects) > 100, "the walk over __all__ found suspiciously few public callables"
    offenders = [problem for label, obj, kind in objects for problem in _check(label, obj, kind)]
    if offenders:
        pytest.fail(f"{len(offenders)} incomplete docstrings:\n" + "\n".join(offenders), pytrace=False)
