"""The book as one PDF (``make pdf`` writes ``_build/book.pdf``), read back with pypdf.

Checks: every page of the table of contents is in it (the title of each file listed in ``_toc.yml``, read from its
first ``# `` heading, appears in the text); the math was typeset (no raw ``$...$``, ``$$``, ``\\(`` or ``\\[`` left
in the text outside code); the figures were embedded (at least as many distinct raster images in the PDF as image
files in the single-page build; the images are found through the pages' resources, which costs a fraction of a
second, where parsing every content stream for them took half a minute). Text drawn in a monospace font is code
(code cells, their outputs, inline code) and is left out of the math check: a code cell may well contain
``label="$d_H$"``. The PDF is read and its text extracted once per session (cached), and ``make pdf`` runs these
tests, so ``make test`` does not run them a second time.

The text folded into dropdowns on the site (the ledger's details, proofs, solutions) is printed open: the opening words
of every dropdown in the single-page build are in the PDF's text.

Skipped when there is no PDF, unless ``POSGEOM_REQUIRE_PDF=1``.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "_build" / "book.pdf"
SINGLEHTML = ROOT / "_build" / "singlehtml"

if not PDF.is_file():
    if os.environ.get("POSGEOM_REQUIRE_PDF") == "1":
        pytest.fail(f"no PDF at {PDF}: run `make pdf` first", pytrace=False)
    pytest.skip(f"no PDF at {PDF} (run `make pdf`)", allow_module_level=True)

pypdf = pytest.importorskip("pypdf")

_RAW_MATH = [
    ("$$...$$", re.compile(r"\$\$")),
    ("$...$", re.compile(r"\$[^\s$][^$\n]*\$")),
    ("\\( ... \\)", re.compile(r"\\\(")),
    ("\\[ ... \\]", re.compile(r"\\\[")),
]


def _toc_files() -> list[str]:
    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                yield node["file"]
            for key in ("root", "parts", "chapters", "sections"):
                value = node.get(key)
                if isinstance(value, str) and key == "root":
                    yield value
                elif isinstance(value, list):
                    for child in value:
                        yield from walk(child)

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return list(dict.fromkeys(walk(toc)))


def _source(docname: str) -> Path:
    for suffix in (".md", ".ipynb", ".rst"):
        path = ROOT / f"{docname}{suffix}"
        if path.is_file():
            return path
    raise AssertionError(f"_toc.yml lists {docname}, but there is no {docname}.md or .ipynb")


def _markdown_of(path: Path) -> str:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        return "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def _title(path: Path) -> str:
    in_fence = False
    for line in _markdown_of(path).splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and line.startswith("# "):
            return line[2:].strip()
    raise AssertionError(f"{path.relative_to(ROOT)} has no `# ` title")


def _plain(title: str) -> str:
    """The title as a reader sees it: markdown emphasis and code marks removed."""
    title = re.sub(r"`([^`]*)`", r"\1", title)
    title = re.sub(r"(\*\*|__|\*|_)(\S.*?\S|\S)\1", r"\2", title)
    return title


def _normalise(text: str) -> str:
    """Compare text as words: ligatures and typographic quotes/dashes folded, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                                         "\u2013": "-", "\u2014": "-", "\u2011": "-", "\u00ad": ""}))
    return re.sub(r"\s+", " ", text).strip().casefold()


@cache
def _reader():
    return pypdf.PdfReader(str(PDF))


@cache
def _pages() -> tuple[tuple[str, str], ...]:
    """For each PDF page: (all its text, its text outside monospace fonts)."""
    out = []
    for page in _reader().pages:
        prose: list[str] = []

        def visit(text, cm, tm, font, size, prose=prose):
            name = str(font.get("/BaseFont", "")) if font is not None else ""
            prose.append(" " if re.search(r"mono|courier|consol|menlo", name, re.I) else text)

        full = page.extract_text(visitor_text=visit)
        out.append((full, "".join(prose)))
    return tuple(out)


def test_pdf_has_pages():
    assert len(_reader().pages) > 10, f"{PDF} has only {len(_reader().pages)} pages: the build was incomplete"


@pytest.mark.parametrize("docname", _toc_files())
def test_every_toc_page_is_in_the_pdf(docname):
    title = _plain(_title(_source(docname)))
    text = _normalise(" ".join(full for full, _ in _pages()))
    assert _normalise(title) in text, f"the title {title!r} of {docname} is not in {PDF.name}"


def test_math_is_typeset():
    raw = []
    for number, (_, prose) in enumerate(_pages(), start=1):
        for label, pattern in _RAW_MATH:
            for match in pattern.finditer(prose):
                context = prose[max(0, match.start() - 40) : match.end() + 40].replace("\n", " ")
                raw.append(f"page {number}: {label} in ...{context}...")
    assert not raw, f"{len(raw)} pieces of raw TeX in {PDF.name} (MathJax did not typeset them): {raw[:20]}"


def _image_objects() -> set:
    """The distinct image XObjects named in the pages' resources (and in those of nested form XObjects).

    Stricter than counting ``page.images`` (an image repeated on two pages counts once here); Chromium names in a
    page's resources only what the page draws, and draws figures as image XObjects, not inline images."""
    images: set = set()
    forms: set = set()

    def walk(resources):
        xobjects = resources.get_object().get("/XObject") if resources is not None else None
        for ref in (xobjects.get_object().values() if xobjects is not None else ()):
            obj = ref.get_object()
            key = (ref.idnum, ref.generation) if isinstance(ref, pypdf.generic.IndirectObject) else id(obj)
            if obj.get("/Subtype") == "/Image":
                images.add(key)
            elif obj.get("/Subtype") == "/Form" and key not in forms:
                forms.add(key)
                walk(obj.get("/Resources"))

    for page in _reader().pages:
        walk(page.get("/Resources"))
    return images


def test_figures_are_embedded():
    images_dir = SINGLEHTML / "_images"
    if not images_dir.is_dir():
        pytest.skip("no single-page build beside the PDF to count its figures")
    expected = sum(1 for p in images_dir.iterdir() if p.suffix.lower() in {".png", ".jpg", ".jpeg", ".gif"})
    embedded = len(_image_objects())
    assert embedded >= expected, f"{PDF.name} embeds {embedded} distinct raster images, the book has {expected}"


def _dropdown_openings(html: str) -> list[tuple[str, str]]:
    """(title, opening words) of every dropdown in the single-page build: sphinx-design's ``<details>`` and the
    ``dropdown`` admonitions (proofs, solutions); the opening words are the first eight of the first paragraph whose
    start has no math (MathJax's glyphs do not read back as the TeX source)."""
    bs4 = pytest.importorskip("bs4")
    soup = bs4.BeautifulSoup(html, "html.parser")
    out = []
    for node in soup.select("details.sd-dropdown, div.admonition.dropdown"):
        head = node.find(["summary", "p"])
        title = " ".join(head.get_text().split()) if head else ""
        for para in node.find_all("p"):
            if para is head or para.find_parent(["pre", "table"]):
                continue
            words = para.get_text().split()[:8]
            if len(words) >= 5 and not any(mark in " ".join(words) for mark in ("\\(", "\\[", "$")):
                out.append((title, " ".join(words)))
                break
    return out


def test_dropdown_text_is_printed():
    page = SINGLEHTML / "index.html"
    if not page.is_file():
        pytest.skip("no single-page build beside the PDF to read its dropdowns")
    openings = _dropdown_openings(page.read_text(encoding="utf-8"))
    assert len(openings) > 20, f"only {len(openings)} dropdowns found in {page}: the parser missed them"
    # compared without spaces: the PDF spaces inline code apart from its punctuation ("[SEP] ," for "[SEP],")
    text = _normalise(" ".join(full for full, _ in _pages())).replace(" ", "")
    missing = [f"{title}: {words!r}" for title, words in openings if _normalise(words).replace(" ", "") not in text]
    assert not missing, f"{len(missing)} of {len(openings)} dropdowns are folded away in {PDF.name}: {missing[:10]}"
