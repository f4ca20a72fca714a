"""Binder installs what the chapters import.

repo2docker builds ``environment.yml`` before the repository is copied into the image, so that file can hold
dependencies only (no ``-e .``, jupyterhub/repo2docker#1265); the top-level ``postBuild`` script then installs the
package itself. These tests read ``environment.yml`` (YAML), ``postBuild`` and ``pyproject.toml`` (tomllib) and check
that, together, they install every top-level module imported by a code cell of ``book/*.ipynb``.

Import names are mapped to distributions with :func:`importlib.metadata.packages_distributions` of the environment
running the tests (``sklearn`` -> ``scikit-learn``), so run them in the book's environment (``.venv``). A module counts
as installed when it is ``posgeom``, in the standard library, or provided by a distribution that environment.yml and
postBuild install: listed there, declared by posgeom in pyproject.toml (when postBuild lets pip install posgeom's
dependencies), or required by one of those (their declared dependencies, read from the installed metadata).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import sys
import warnings
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

tomllib = pytest.importorskip("tomllib", reason="tomllib needs Python 3.11+ (the book's Python)")

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
PACKAGE = "posgeom"


# ---------------------------------------------------------------------------------------------------------------
# What the chapters import


def _code_cells(notebook: Path):
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            yield index, "".join(source) if isinstance(source, list) else source


def _python_source(cell: str) -> str:
    """The cell without IPython magics and shell escapes: a line starting with ``%`` or ``!`` (but not the ``!=`` of
    a continued expression) becomes ``pass``."""
    return re.sub(r"^(\s*)(?:%|!(?!=)).*$", r"\1pass", cell, flags=re.M)


def _top_level_imports(source: str) -> set[str]:
    modules = set()
    with warnings.catch_warnings():  # invalid escapes in the cells' strings are not this test's business
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules


@cache
def notebook_imports() -> dict[str, tuple[str, ...]]:
    """Top-level module -> the notebooks that import it."""
    found: dict[str, set[str]] = {}
    for notebook in sorted(BOOK.glob("*.ipynb")):
        for index, cell in _code_cells(notebook):
            try:
                modules = _top_level_imports(_python_source(cell))
            except SyntaxError as exc:
                raise AssertionError(
                    f"{notebook.name}, code cell {index}: not Python after removing magics: {exc}"
                ) from None
            for module in modules:
                found.setdefault(module, set()).add(notebook.name)
    return {module: tuple(sorted(names)) for module, names in sorted(found.items())}


# ---------------------------------------------------------------------------------------------------------------
# What Binder installs


@cache
def environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))


def _conda_dependencies() -> list[str]:
    return [dep for dep in environment()["dependencies"] if isinstance(dep, str)]


def _pip_lines() -> list[str]:
    pip_sections = [dep["pip"] for dep in environment()["dependencies"] if isinstance(dep, dict) and "pip" in dep]
    assert len(pip_sections) == 1, "environment.yml must have exactly one `pip:` section"
    return [str(line).strip() for line in pip_sections[0]]


def pip_requirements() -> list[Requirement]:
    """The requirements of environment.yml's pip section (option lines such as --extra-index-url skipped)."""
    reqs = []
    for line in _pip_lines():
        if line.startswith("-"):
            continue
        try:
            reqs.append(Requirement(line))
        except InvalidRequirement as exc:
            raise AssertionError(f"environment.yml: {line!r} is not a requirement ({exc})") from None
    return reqs


@cache
def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _declared(group: str | None = None) -> list[Requirement]:
    project = pyproject()["project"]
    specs = project["dependencies"] if group is None else project["optional-dependencies"][group]
    return [Requirement(spec) for spec in specs]


def postbuild_installs() -> list[dict]:
    """Every ``pip install`` of postBuild: its targets, extras of the local package and whether ``--no-deps``."""
    text = (ROOT / "postBuild").read_text(encoding="utf-8")
    installs = []
    for raw in re.sub(r"\\\n", " ", text).splitlines():
        line = raw.split("#", 1)[0].strip()
        if not re.search(r"\bpip3?\s+install\b", line):
            continue
        words = shlex.split(line)
        args = words[words.index("install") + 1 :]
        targets = [w for w in args if not w.startswith("-")]
        local = [re.fullmatch(r"\.(?:\[([^\]]*)\])?", t) for t in targets]
        local = [m for m in local if m]
        extras = {e.strip() for m in local for e in (m.group(1) or "").split(",") if e.strip()}
        installs.append({"line": line, "targets": targets, "local": bool(local), "extras": extras,
                         "no_deps": "--no-deps" in args, "editable": "-e" in args or "--editable" in args})
    return installs


def _with_extras(req: Requirement) -> tuple[str, frozenset[str]]:
    return canonicalize_name(req.name), frozenset(req.extras)


def binder_roots() -> dict[str, frozenset[str]]:
    """Distributions that environment.yml + postBuild install directly, with requested extras."""
    roots: dict[str, set[str]] = {}
    for req in pip_requirements():
        name, extras = _with_extras(req)
        roots.setdefault(name, set()).update(extras)
    for install in postbuild_installs():
        if not install["local"]:
            continue
        roots.setdefault(canonicalize_name(PACKAGE), set()).update(install["extras"])
        if not install["no_deps"]:
            for req in _declared() + [r for extra in install["extras"] for r in _declared(extra)]:
                name, extras = _with_extras(req)
                roots.setdefault(name, set()).update(extras)
    return {name: frozenset(extras) for name, extras in roots.items()}


def _requires(name: str, extras: frozenset[str]) -> list[Requirement]:
    """Declared dependencies of an installed distribution (markers evaluated here; Binder's Python is the same)."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return []
    out = []
    for spec in dist.requires or []:
        req = Requirement(spec)
        if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in ({""} | set(extras))):
            out.append(req)
    return out


@cache
def binder_installs() -> dict[str, str]:
    """Every distribution Binder ends up with (canonical name -> why), following declared dependencies."""
    why: dict[str, str] = {}
    todo = [(name, extras, "listed in environment.yml/postBuild") for name, extras in binder_roots().items()]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, extras, reason = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        why.setdefault(name, reason)
        if name == canonicalize_name(PACKAGE) and any(i["no_deps"] for i in postbuild_installs() if i["local"]):
            continue  # --no-deps: posgeom's own requirements are not installed by postBuild
        for req in _requires(name, extras):
            todo.append((*_with_extras(req), f"a dependency of {name}"))
    return why


def _distributions_of(module: str) -> list[str]:
    return sorted({canonicalize_name(d) for d in metadata.packages_distributions().get(module, [])})


# ---------------------------------------------------------------------------------------------------------------
# The tests


def test_chapters_exist_and_parse():
    notebooks = sorted(BOOK.glob("*.ipynb"))
    assert notebooks, f"no notebooks under {BOOK}"
    imports = notebook_imports()
    assert PACKAGE in imports, "no chapter imports posgeom: the import scan is broken"


@pytest.mark.slow
def test_binder_installs_every_module_the_chapters_import():
    stdlib = set(sys.stdlib_module_names)
    installed = binder_installs()
    missing, unknown = [], []
    for module, notebooks in notebook_imports().items():
        if module == PACKAGE or module in stdlib:
            continue
        dists = _distributions_of(module)
        if not dists:
            unknown.append(f"{module} (imported by {', '.join(notebooks)})")
        elif not any(d in installed for d in dists):
            missing.append(f"{module} -> {'/'.join(dists)} (imported by {', '.join(notebooks)})")
    assert not unknown, (
        f"modules imported by the chapters but not installed in this environment, so their distribution is unknown: "
        f"{unknown}; run the tests in the book's environment (.venv)"
    )
    assert not missing, (
        f"environment.yml + postBuild do not install these chapter imports: {missing}; add the distribution to "
        f"pyproject.toml (dependencies or the book extra) and to environment.yml"
    )


def test_environment_yml_holds_dependencies_only():
    """No local or editable requirement: repo2docker builds the environment before the repository is there."""
    local = [line for line in _pip_lines()
             if line.startswith(("-e", "--editable", ".", "/", "file:")) or re.match(r"^[\w.-]+\s*@\s*file:", line)]
    assert not local, f"environment.yml installs from the repository ({local}); postBuild does that (repo2docker#1265)"
    assert canonicalize_name(PACKAGE) not in {canonicalize_name(r.name) for r in pip_requirements()}
    assert any(re.fullmatch(r"python\s*=+\s*3\.11(\.\*)?", dep) for dep in _conda_dependencies()), \
        "environment.yml must pin python=3.11"
    assert "pip" in _conda_dependencies()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in _pip_lines(), \
        "torch must come from the CPU wheel index (the default index serves a multi-GB CUDA build)"
    torch = [r for r in pip_requirements() if canonicalize_name(r.name) == "torch"]
    assert torch and str(torch[0].specifier) == "==2.13.0"


@pytest.mark.parametrize("group", [None, "offline-model", "book"], ids=["runtime", "offline-model", "book"])
def test_environment_yml_lists_what_pyproject_declares(group):
    """The package's runtime, offline-model and book dependencies, each in environment.yml with the same range.

    A pin of requirements.txt (torch) replaces the range: it is checked against requirements.txt elsewhere.
    """
    listed = {canonicalize_name(r.name): r for r in pip_requirements()}
    pinned = {canonicalize_name(m.group(1)) for m in
              re.finditer(r"^([A-Za-z0-9_.-]+)\s*==", (ROOT / "requirements.txt").read_text(), re.M)}
    problems = []
    for req in _declared(group):
        name = canonicalize_name(req.name)
        if name == canonicalize_name(PACKAGE):
            continue
        if name not in listed:
            problems.append(f"{req} is missing")
        elif name in pinned:
            if not listed[name].specifier or not all(s.operator == "==" for s in listed[name].specifier):
                problems.append(f"{name} must be pinned as in requirements.txt, has {listed[name]}")
        elif listed[name].specifier != req.specifier or listed[name].extras != req.extras:
            problems.append(f"{name}: pyproject.toml says {req}, environment.yml says {listed[name]}")
    where = "dependencies" if group is None else f"optional-dependencies.{group}"
    assert not problems, f"environment.yml out of step with pyproject.toml [{where}]: {problems}"


def test_postbuild_installs_the_package():
    path = ROOT / "postBuild"
    assert path.is_file(), "a top-level postBuild script installs the package on Binder"
    assert os.access(path, os.X_OK), "postBuild must be executable (chmod +x postBuild)"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("#!"), "postBuild needs a shebang line"
    assert "set -e" in text, "postBuild must stop on the first failing command"
    local = [i for i in postbuild_installs() if i["local"]]
    assert len(local) == 1, f"postBuild must pip-install the repository (.) exactly once, found {local}"
    unknown = local[0]["extras"] - set(pyproject()["project"].get("optional-dependencies", {}))
    assert not unknown, f"postBuild asks for extras pyproject.toml does not define: {unknown}"
    for binder_dir in ("binder", ".binder"):
        assert not (ROOT / binder_dir).exists(), f"{binder_dir}/ would make repo2docker ignore the top-level files"


def _config_files() -> list[Path]:
    """Build, packaging and CI configuration: top-level files (not prose) and the files under .ci and book/ (toml)."""
    files = [p for p in ROOT.iterdir() if p.is_file() and p.suffix not in {".md", ".bib"} and p.name != "LICENSE"]
    files += [p for p in (ROOT / ".ci").glob("*") if p.is_file()]
    files += [p for ext in ("toml", "yml", "yaml", "cfg", "ini") for p in BOOK.glob(f"*.{ext}")]
    return sorted(files)


def test_repository_url_is_stated_once_in_config_yml():
    """The repository URL lives in _config.yml only; the launch buttons and the install cells read it from there."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    url = config["repository"]["url"]
    assert url.startswith("https://"), f"_config.yml repository.url is not a URL: {url!r}"
    bare = re.sub(r"^https?://", "", url).rstrip("/").removesuffix(".git")
    elsewhere = [str(p.relative_to(ROOT)) for p in _config_files()
                 if p.name != "_config.yml" and bare.lower() in p.read_text(encoding="utf-8", errors="replace").lower()]
    assert not elsewhere, f"the repository URL {url} is repeated in {elsewhere}: read it from _config.yml instead"


def test_one_version_from_the_package_metadata():
    import re
    from pathlib import Path

    import posgeom

    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert posgeom.__version__ == re.search(r'^version = "([^"]+)"', text, re.M).group(1)


def test_running_the_book_links_the_wheel_of_this_version():
    """"Running the book" offers the package's wheel (built into the site by ``make book``) under the version
    pyproject.toml declares: a version bump without the link's update fails here, not as a dead link on the site."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    page = (BOOK / "running.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"posgeom-([\w.]+)-py3-none-any\.whl", page))
    assert linked == {version}, f"running.md links the wheel of version(s) {sorted(linked)}, pyproject says {version}"
