"""Downloadable notebooks that read cleanly outside the book: MyST roles become plain Markdown, glued numbers values.

A page's download button offers ``_sources/<page>.ipynb``, a copy of the source notebook, whose Markdown is MyST: in
Jupyter or Colab a number such as ``{glue:text}`ch07_k:d``` shows as the role itself. After an HTML build
(``build-finished``) this extension rewrites each copy's Markdown cells with :func:`plain_markdown`:

* ``{glue:text}`` and ``{glue}`` roles take the value the chapter glued (``jupyter_execute/<page>.glue.json``),
  formatted as the role asks (:func:`format_glue`); a key the store lacks is left as it is;
* cross-references become their text: ``{term}`shown <target>``` is ``shown``, ``{doc}`` the page's title,
  ``{numref}`` the item's number (``Fig. 7.1``), ``{ref}`` the section's title;
* API roles (``{func}``, ``{class}``, …) become code, badges bold, ``{cite}`` a bracketed key.

Directives become plain Markdown (:func:`plain_directives`): a figure's caption, a dropdown's or an exercise's text
under a bold lead; a target label's line, ``(sec-name)=``, goes; code blocks and the rest stay as they are. Code cells
are not touched, so a downloaded chapter runs as the book's does. In the student edition the solutions are left out of
the notebook too (:func:`drop_solutions`), as they are of its pages; either edition also offers every chapter's
notebook without solutions in one archive, ``_static/student-notebooks.zip``, for a course to hand out. The student
edition's Markdown pages are downloaded as students read them too (:func:`student_markdown`).
"""

from __future__ import annotations

import ast
import json
import os
import re
import zipfile
from pathlib import Path

from sphinx.util import logging

from student_edition import ANSWER_CELL_TAG, LECTURER_CLASS, STUDENT_CLASS, is_student_edition

logger = logging.getLogger(__name__)

ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
API_ROLES = {"func", "meth", "class", "mod", "attr", "data", "obj", "exc", "py:func", "py:class", "py:meth"}
CROSS_ROLES = {"term", "doc", "ref", "numref", "prf:ref", "eq", "download"}
NUMBER_NAMES = {"figure": "Fig.", "table": "Table", "code-block": "Listing"}
NOTE = """*A chapter of* {title}*, downloaded from the book.* Its text gives the numbers of the book's own run;
running the cells from the top recomputes them. The first code cell installs the book's package where it is missing:
from the wheel on the book's site (`posgeom-<version>-py3-none-any.whl`) if it sits next to this notebook (in Colab,
upload it to the session's files first), otherwise from the book's repository.
A figure appears here as its caption; its picture is on the book's page, or in the output of the cell that draws it.
"""
#: Where the full edition puts every chapter's notebook without solutions, zipped, for a course's students.
STUDENT_ZIP = "_static/student-notebooks.zip"
STUDENT_NOTE = ("This is the student edition: the exercises' solutions are left out, and so are the numbers an "
                "exercise asks you to find.\n")
_WRAPPED = re.compile(r"^(?:np|numpy)\.\w+\((.*)\)$", flags=re.S)  # np.float64(0.25), numpy's repr since 2.0


def format_glue(raw: str, spec: str) -> str:
    """A glued value's text/plain representation, formatted with ``spec`` as ``{glue:text}`key:spec``` would be."""
    text = raw.strip()
    wrapped = _WRAPPED.match(text)
    try:
        value = ast.literal_eval(wrapped.group(1) if wrapped else text)
    except (ValueError, SyntaxError):
        value = text
    if not spec:
        return str(value)
    try:
        return format(value, spec)
    except (ValueError, TypeError):
        return str(value)


def _target(content: str) -> tuple[str | None, str]:
    """``shown <target>`` → (shown, target); ``target`` → (None, target)."""
    m = re.fullmatch(r"(?s)(.*?)\s*<([^<>]+)>\s*", content)
    return (m.group(1).strip(), m.group(2).strip()) if m else (None, content.strip())


def plain_markdown(text: str, glue: dict[str, str], *, titles: dict[str, str] | None = None,
                   numbers: dict[str, str] | None = None, sections: dict[str, str] | None = None) -> str:
    """Rewrite the MyST roles of a Markdown cell as plain Markdown (see the module's docstring).

    ``glue`` maps a key to its text/plain value (another page's as ``"<page>.ipynb::<key>"``); ``titles`` a page
    name to its title; ``numbers`` a label to its printed number (``"Fig. 7.1"``); ``sections`` a label to its
    section's title. What a mapping lacks falls back to the role's own text.
    """
    titles, numbers, sections = titles or {}, numbers or {}, sections or {}

    def replace(m: re.Match) -> str:
        role, content = m.group(1), m.group(2)
        if role in ("glue:text", "glue"):
            page, _, rest = content.rpartition("::")  # "07_stress_of_encodings.ipynb::key:spec", another page's
            key, _, spec = rest.partition(":")
            key = f"{page}::{key}" if page else key
            if key not in glue:
                logger.warning(f"no glued value {key!r} for a downloadable notebook: the role is left as it is")
                return m.group(0)
            return format_glue(glue[key], spec)
        if role in API_ROLES:
            return f"`{content.lstrip('~')}`"
        if role == "cite":
            return f"[{content}]"
        if role == "math":
            return f"${content}$"
        shown, target = _target(content)
        if role.startswith("bdg"):
            return f"**{shown or target}**"
        if role in CROSS_ROLES:
            if shown:
                return shown
            if role == "doc":
                return titles.get(target.split("/")[-1], target)
            if role in ("numref", "prf:ref"):
                return numbers.get(target, target)
            if role == "ref":
                return sections.get(target, target)
            return target
        return m.group(0)

    return ROLE.sub(replace, text)


_FENCE = re.compile(r"^(`{3,}|:{3,})\{([\w:-]+)\}[ \t]*(.*)$")
_OPTION = re.compile(r"^:[\w-]+:")
_LABEL = re.compile(r"^\([\w:.-]+\)=[ \t]*$")  # a MyST target, (sec-ch07-data)=, which only the book resolves
#: How a directive's opening line reads in plain Markdown ({arg}: the directive's argument).
HEADINGS = {
    "admonition": "**{arg}**", "dropdown": "**{arg}**", "exercise": "**Exercise {arg}**",
    "solution": "**Solution**", "solution-start": "**Solution**", "solution-end": "",
    "glue:figure": "*Figure:*", "important": "**Important.**", "note": "**Note.**", "tip": "**Tip.**",
    "warning": "**Warning.**", "prf:proof": "*Proof.*",
}


def _lead(name: str, arg: str, number: str | None) -> str:
    """The bold or italic line a directive's opening becomes, with its printed number when it has one."""
    if name.startswith("prf:") and name not in HEADINGS:  # prf:definition, prf:theorem, ...: its kind and title
        kind = number or name[4:].title()
        return f"**{kind}{' (' + arg + ')' if arg else ''}.**"
    if number and name == "exercise":
        return f"**{f'{number} {arg}'.strip()}**"
    if number and name == "glue:figure":
        return f"*{number}:*"
    if number and name in ("solution", "solution-start"):
        return f"**Solution to {number}**"
    return HEADINGS[name].format(arg=arg).replace("** **", "").strip()


def plain_directives(text: str, numbers: dict[str, str] | None = None) -> str:
    """Directives as plain Markdown: each opening line becomes a bold or italic lead (``HEADINGS``; a
    ``prf:`` block its kind and title), its option lines and closing fence go; code blocks and unknown directives
    (a glossary, an include) stay as they are. With ``numbers`` (label to printed number), an exercise, a figure, a
    theorem and a solution lead with the number the book prints (from the ``:label:`` or ``:name:`` option, or a
    solution's argument)."""
    numbers = numbers or {}
    out, open_fences, skipping, opening = [], [], False, None
    for line in text.split("\n"):
        if _LABEL.match(line):
            continue
        m = _FENCE.match(line)
        if m and (m.group(2) in HEADINGS or m.group(2).startswith("prf:")):
            name, arg = m.group(2), m.group(3).strip()
            number = numbers.get(arg) if name in ("solution", "solution-start") else None
            lead = _lead(name, arg, number)
            opening = (len(out), name, arg) if lead.strip("*") else None
            if opening:
                out.append(lead)
            open_fences.append(m.group(1))
            skipping = True
            continue
        if open_fences and line.strip() == open_fences[-1]:
            open_fences.pop()
            continue
        if skipping and _OPTION.match(line):
            key, _, value = line[1:].partition(":")
            if opening and key in ("label", "name") and value.strip() in numbers:
                at, name, arg = opening
                out[at] = _lead(name, arg, numbers[value.strip()])
            continue
        skipping, opening = False, None
        out.append(line)
    return "\n".join(out)


_SOLUTION = re.compile(r"^(`{3,}|:{3,})\{solution\}.*?^\1[ \t]*$\n?", flags=re.M | re.S)
_START = re.compile(r"^(`{3,}|:{3,})\{solution-start\}.*?^\1[ \t]*$", flags=re.M | re.S)
_END = re.compile(r"^(`{3,}|:{3,})\{solution-end\}.*?^\1[ \t]*$\n?", flags=re.M | re.S)


def _outside_solutions(text: str, inside: bool) -> tuple[str, bool]:
    """The parts of one Markdown cell outside gated solutions, and whether a solution is still open at its end."""
    kept, pos = [], 0
    while True:
        m = (_END if inside else _START).search(text, pos)
        if m is None:
            return "".join(kept) + ("" if inside else text[pos:]), inside
        if not inside:
            kept.append(text[pos : m.start()])
        pos, inside = m.end(), not inside


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a code cell binds and the names it reads (IPython magics and shell lines left out)."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(), set()
    return _module_bindings(tree), _global_reads(tree)


_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _global_reads(node: ast.AST) -> set[str]:
    """The names a cell reads from the notebook's namespace: a function's parameters and locals are its own."""
    read = set()
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, *_SCOPES)):
            names = [n for n in ast.walk(child) if isinstance(n, ast.Name)]
            local = {n.id for n in names if not isinstance(n.ctx, ast.Load)}
            local |= {a.arg for a in ast.walk(child) if isinstance(a, ast.arg)}
            read |= {n.id for n in names if isinstance(n.ctx, ast.Load)} - local
        elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            read.add(child.id)
        else:
            read |= _global_reads(child)
    return read


def _module_bindings(node: ast.AST) -> set[str]:
    """The names a cell binds in the notebook's namespace: not a function's, a class's or a comprehension's locals."""
    bound = set()
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in child.names)
        elif not isinstance(child, _SCOPES):
            if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
                bound.add(child.id)
            bound |= _module_bindings(child)
    return bound


def drop_solutions(cells: list[dict]) -> list[dict]:
    """The cells without the exercises' solutions: ``{solution}`` blocks, and every cell or part of one from a
    ``{solution-start}`` to its ``{solution-end}`` (a gated solution's code cells included), and every code cell tagged
    ``answer-cell`` (its code states answers), as the student edition; then every later code cell that reads a name
    only a dropped cell bound, so that the notebook still runs."""
    out, inside, lost = [], False, set()
    for cell in cells:
        if cell["cell_type"] != "markdown":
            bound, read = _names("".join(cell["source"]))
            answers = ANSWER_CELL_TAG in cell.get("metadata", {}).get("tags", [])
            if inside or answers or read & lost:
                lost |= bound
            else:
                lost -= bound
                out.append(cell)
            continue
        text, inside = _outside_solutions(_SOLUTION.sub("", "".join(cell["source"])), inside)
        if text.strip():
            out.append({**cell, "source": text.strip("\n").splitlines(keepends=True)})
    if inside:
        logger.warning("a {solution-start} without its {solution-end}: the rest of the notebook was left out")
    return out


def _labels(env) -> tuple[dict[str, str], dict[str, str]]:
    """The printed number of every numbered label (figures, tables, exercises) and the title of every section label."""
    numbers, sections = {}, {}
    for label, (docname, node_id, title) in env.domaindata.get("std", {}).get("labels", {}).items():
        if title:
            sections[label] = title
        for figtype, ids in env.toc_fignumbers.get(docname, {}).items():
            if node_id in ids:
                number = ".".join(str(n) for n in ids[node_id])
                numbers[label] = f"{NUMBER_NAMES.get(figtype, figtype.capitalize())} {number}"
    for label, item in getattr(env, "proof_list", {}).items():  # sphinx-proof: theorems, definitions, ...
        ids = env.toc_fignumbers.get(item["docname"], {}).get(item.get("countertype"), {})
        name = item["realtype"].title()
        numbers[label] = f"{name} {'.'.join(str(n) for n in ids[label])}" if label in ids else name
    return numbers, sections


def _glue_store(path: Path) -> dict[str, str]:
    """The text/plain value of every key a chapter glued (none if it glued nothing)."""
    if not path.is_file():
        return {}
    items = json.loads(path.read_text(encoding="utf-8")).items()
    return {key: item["data"]["text/plain"] for key, item in items if "text/plain" in item.get("data", {})}


_EDITION = re.compile(  # an edition's container, whole: its fence, class, text and closing fence
    rf"^(`{{3,}}|:{{3,}})\{{container\}} ({LECTURER_CLASS}|{STUDENT_CLASS})[ \t]*\n(.*?)^\1[ \t]*$\n?",
    flags=re.M | re.S,
)


def for_edition(text: str, *, student: bool) -> str:
    """Markdown as one edition reads it: a ``pg-lecturer`` container's text kept in the full edition and dropped in
    the student one, a ``pg-student`` container's the other way round; the fences go."""
    def keep(m):
        return m.group(3) if (m.group(2) == STUDENT_CLASS) == student else ""
    return _EDITION.sub(keep, text)


def student_markdown(text: str) -> str:
    """A Markdown page's source as the student edition offers it for download: no ``pg-lecturer`` container, no
    solution (whole or gated), as :func:`drop_solutions` reads a Markdown cell."""
    return _outside_solutions(_SOLUTION.sub("", for_edition(text, student=True)), False)[0]


def _reader_notebook(notebook: dict, glue: dict[str, str], *, title: str, student: bool, **labels) -> dict:
    """A copy of ``notebook`` as a reader downloads it: a first cell saying what it is, plain Markdown, and (for
    students) no solutions."""
    cells = drop_solutions(notebook["cells"]) if student else list(notebook["cells"])
    cells = [{**c, "source": plain_directives(plain_markdown(for_edition("".join(c["source"]), student=student), glue,
                                                             **labels), labels.get("numbers"))
              .splitlines(keepends=True)} if c["cell_type"] == "markdown" else c for c in cells]
    note = NOTE.format(title=title) + (STUDENT_NOTE if student else "")
    first = {"cell_type": "markdown", "id": "reader-note", "metadata": {}, "source": note.splitlines(keepends=True)}
    return {**notebook, "cells": [first, *cells]}


def _write_text(path: Path, text: str) -> None:
    """Write a file whole or not at all (a temporary file, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _write(path: Path, notebook: dict) -> None:
    """Write a notebook whole or not at all."""
    _write_text(path, json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")


def rewrite_sources(app, exception) -> None:
    """Rewrite every notebook copied to ``_sources`` for readers (HTML builds only), and in the student edition every
    Markdown page's copy too; write the notebooks without solutions to ``_static/student-notebooks``, zipped as
    ``STUDENT_ZIP``."""
    if exception is not None or app.builder.name != "html" or not app.config.html_copy_source:
        return
    env, outdir = app.env, Path(app.outdir)
    store = outdir.parent / "jupyter_execute"
    titles = {d.split("/")[-1]: env.titles[d].astext() for d in env.found_docs if d in env.titles}
    numbers, sections = _labels(env)
    labels = {"titles": titles, "numbers": numbers, "sections": sections}
    title, student = app.config.html_title or app.config.project, is_student_edition()
    stores = {docname: _glue_store(store / f"{docname}.glue.json") for docname in env.found_docs}
    every = {f"{d.split('/')[-1]}.ipynb::{k}": v for d, values in stores.items() for k, v in values.items()}
    handouts = []
    for docname in sorted(env.found_docs):
        original = Path(env.doc2path(docname))  # not the copy, which an earlier build may have rewritten
        page = outdir / "_sources" / f"{docname}.md"
        if student and page.is_file():  # a Markdown page's download, as students read it
            _write_text(page, student_markdown(original.read_text(encoding="utf-8")))
        copy = outdir / "_sources" / f"{docname}.ipynb"
        if not copy.is_file():
            continue
        glue, source = {**every, **stores[docname]}, json.loads(original.read_text(encoding="utf-8"))
        reader = _reader_notebook(source, glue, title=title, student=student, **labels)
        _write(copy, reader)
        handout = outdir / "_static" / "student-notebooks" / copy.name  # in either edition
        _write(handout, reader if student else _reader_notebook(source, glue, title=title, student=True, **labels))
        handouts.append(handout)
    if handouts:
        archive = outdir / STUDENT_ZIP
        tmp = archive.with_name(archive.name + ".tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for path in handouts:
                z.write(path, arcname=f"student-notebooks/{path.name}")
        os.replace(tmp, archive)


def setup(app):
    app.connect("build-finished", rewrite_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
