r"""The built book, opened page by page in a real browser (headless Chromium through Selenium).

Run after ``make book``; ``make test`` does both. Checks on every page of ``_build/html``: math is rendered by MathJax
(no raw ``$$`` left in the visible text), every image loads, every internal link (and its ``#anchor``) resolves.

What a reader sees in a 1280-px-wide window, on every page (one test per page and check, so a failure names both):

* no raw pipe-table text: no line of the visible text outside code matches ``^\s*\|.*\|\s*$`` (a Markdown table
  that was not parsed, or printed as text);
* no unrendered math: no ``$...$``, ``$$``, ``\(`` or ``\[`` in the visible text outside code;
* no raw markup: no stray closing ``**``, unparsed ``{role}`` or directive fence in the visible text outside code;
* no horizontal overflow: no code cell, output, table or displayed equation is wider than its box
  (``scrollWidth > clientWidth + 1``), and the page itself does not scroll sideways
  (``document.documentElement.scrollWidth <= window.innerWidth``);
* a caption on every figure: each image in a cell output sits in a ``<figure>`` with a non-empty ``<figcaption>``
  (a glued ``{glue:figure}`` with a caption, or a cell with ``mystnb.figure.caption`` metadata, renders so);
* a launch button (Binder or Colab, pointing at the page's notebook) on every chapter written as a notebook;
* figures legible at their displayed size: tick labels at least ``MIN_TICK_PX`` = 9 px tall on screen, that is a
  figure's natural width at most ``max_shrink(dpi)`` times its displayed width (see :func:`max_shrink`).

"Code" is what is set as code: code cells' input, literal blocks, inline code, text outputs (``pre``) and API
signatures (``.sig``); MathJax's own output is not text to check. Screenshots of the landing page, one chapter
and the claims ledger are saved under ``_build/screenshots``.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
SKIP_DIRS = {"_static", "_sources", "_images", "_sphinx_design_static", "student", "student.partial"}  # student: below
WIDTH = 1280  # the reader's window, in CSS pixels


def _pages() -> list[Path]:
    if not (SITE / "book" / "index.html").is_file():
        if os.environ.get("POSGEOM_REQUIRE_SITE"):
            pytest.fail(f"no built book at {SITE}: run `make book` first")
        return []
    return sorted(p for p in SITE.rglob("*.html") if not SKIP_DIRS & set(p.relative_to(SITE).parts))


PAGES = _pages()
pytestmark = pytest.mark.skipif(not PAGES, reason="the book is not built (run `make book`)")


class _LinkParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


@functools.cache
def _parse(path: Path) -> _LinkParser:
    parser = _LinkParser()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_internal_links_resolve(page):
    broken = []
    for href in _parse(page).links:
        url = urlparse(href)
        if url.scheme or href.startswith("//") or href.startswith("mailto:"):
            continue
        target_path, fragment = urldefrag(href)
        target = (page.parent / unquote(target_path)).resolve() if target_path else page
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            broken.append(f"{href} (no file {target})")
        elif fragment and target.suffix == ".html" and unquote(fragment) not in _parse(target).ids:
            broken.append(f"{href} (no anchor #{fragment} in {target.name})")
    assert not broken, f"{page.relative_to(SITE)} has broken internal links: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_images_are_described_by_their_captions(page):
    """Every image has an alternative text of words, not its file's path: a figure's its caption, a figure glued from
    another page the paragraph after it (book/_ext/figure_alt.py)."""
    bare = []
    for img in re.findall(r"<img\b[^>]*>", page.read_text(encoding="utf-8")):
        alt, src = re.search(r'alt="([^"]*)"', img), re.search(r'src="([^"]*)"', img)
        if not alt or not alt.group(1).strip() or (src and alt.group(1) == src.group(1)):
            bare.append(src.group(1) if src else img[:80])
    assert not bare, f"{page.relative_to(SITE)}: images without a description: {bare[:5]}"


@pytest.fixture(scope="module")
def server():
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not (chromium and driver_path):
        pytest.fail("headless Chromium is needed: apt-get install chromium chromium-driver (make test does this)")
    profile = tempfile.mkdtemp(prefix="posgeom-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size={WIDTH},1600",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


# Chromium can hand the page back before its deferred scripts ran (readyState "interactive", or the previous
# document still in place): poll until the page asked for is complete and MathJax, if the page loads it, has
# started, then wait for its typesetting. null means the page loads no MathJax or it never started (30 s).
_WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
const wanted = arguments[0];
const deadline = Date.now() + 30000;
(function poll() {
  const here = location.href.split('#')[0] === wanted && document.readyState === 'complete';
  const asks = !!document.querySelector('script[src*="tex-chtml"]');
  const started = !!(window.MathJax && MathJax.startup && MathJax.startup.promise);
  if (here && started) {
    MathJax.startup.promise.then(() => done(true), () => done(false));
  } else if ((here && !asks) || Date.now() > deadline) {
    done(null);
  } else {
    setTimeout(poll, 50);
  }
})();
"""


def _open(browser, server: str, page: Path):
    """Load ``page`` and wait for it (and MathJax); True, False (MathJax failed) or None (no MathJax)."""
    url = f"{server}/{page.relative_to(SITE).as_posix()}"
    browser.get(url)
    return browser.execute_async_script(_WAIT_FOR_MATHJAX, url)


_PAGE_REPORT = """
const imgs = Array.from(document.images);
return {
  mathSources: document.querySelectorAll('.math').length,
  rendered: document.querySelectorAll('mjx-container').length,
  text: document.body.innerText,
  brokenImages: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
  images: imgs.length,
};
"""


def _is_redirect(page: Path) -> bool:
    return re.search(r'http-equiv="refresh"', page.read_text(encoding="utf-8"), re.I) is not None


CONTENT_PAGES = [p for p in PAGES if not _is_redirect(p)]


def test_redirect_pages_point_to_built_pages():
    for page in PAGES:
        if _is_redirect(page):
            target = re.search(r'url=([^"\s>]+)', page.read_text(encoding="utf-8"), re.I).group(1)
            assert (page.parent / target).resolve().is_file(), f"{page.name} redirects to a missing page {target}"


def _rows_below_half_not_coarse(html: str) -> list[str]:
    """Ledger table rows that give a share of the mass below 50% without saying the verdict is coarse."""
    bad = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", html, flags=re.S):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row))
        shares = [int(s) for s in re.findall(r"(\d+) ?% of the mass", text)]
        if shares and min(shares) < 50 and "coarse" not in text:
            bad.append(text[:80])
    return bad


def test_ledger_rows_below_half_the_mass_say_coarse():
    assert _rows_below_half_not_coarse("<tr><td>R9</td><td>K = 5 , 17% of the mass</td></tr>"), "can fail"
    page = SITE / "book" / "claims_ledger.html"
    assert page.is_file(), "no built claims ledger"
    bad = _rows_below_half_not_coarse(page.read_text(encoding="utf-8"))
    assert not bad, f"ledger rows below half the mass not labelled coarse: {bad}"


def _closing(html: str, start: int, tag: str) -> int:
    """The index just past the ``</tag>`` that closes the element opened at ``start`` (nested ones counted)."""
    depth = 0
    for m in re.finditer(rf"<(/?){tag}\b[^>]*>", html[start:]):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return start + m.end()
    raise AssertionError(f"<{tag}> opened at {start} is never closed")


def _ticks(html: str) -> int:
    """The ``✓`` lines of the cell outputs in ``html``."""
    return len(re.findall(r"(?m)(?:^|<pre><span></span>)✓", html))


def _folds(html: str) -> list[tuple[int | None, int, int]]:
    """Per Reproducibility section: the check count its fold's title gives (None: no fold), the ``✓`` lines inside
    the fold and those left outside it."""
    found = []
    for sec in re.finditer(r'<section id="reproducibility[^"]*">', html):
        section = html[sec.start() : _closing(html, sec.start(), "section")]
        m = re.search(r'<details class="[^"]*pg-reproducibility[^"]*">.*?summary-text">([^<]*)</span>', section, re.S)
        if m is None:
            found.append((None, 0, _ticks(section)))
            continue
        end = _closing(section, m.start(), "details")
        said = re.search(r"the (\d+) checks|(the check)", m.group(1))
        count = 0 if said is None else int(said.group(1)) if said.group(1) else 1
        found.append((count, _ticks(section[m.start() : end]), _ticks(section[: m.start()] + section[end:])))
    return found


def test_the_fold_reader_finds_checks_left_outside():
    inside = (
        '<details class="pg-reproducibility"><summary><span class="summary-text">Show the 1 checks</span></summary>'
    )
    html = (
        '<section id="reproducibility"><p>x</p>' + inside + "<details><pre><span></span>✓ a</pre></details>"
        "</details><pre><span></span>✓ b</pre></section>"
    )
    assert _folds(html) == [(1, 1, 1)]
    assert _folds('<section id="reproducibility"><pre><span></span>✓ a</pre></section>') == [(None, 0, 1)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_reproducibility_is_one_fold_counting_its_checks(page):
    """A page's Reproducibility section shows its opening and one dropdown that holds every check and whose title
    counts them (book/_ext/fold_reproducibility.py)."""
    for said, inside, outside in _folds(page.read_text(encoding="utf-8")):
        assert said is not None, "a Reproducibility section without its fold"
        assert outside == 0, f"{outside} checks outside the fold"
        assert said == inside, f"the fold's title says {said} checks, it holds {inside}"


STUDENT = SITE / "student"  # the student edition, published with the book by `make book`


def test_the_student_edition_is_published_with_the_book_without_solutions():
    """`make book` publishes the student edition in student/: every page of the full edition, titled "student
    edition", each exercise kept and every solution left out; the full edition's links to it resolve."""
    assert (STUDENT / "book" / "index.html").is_file(), "no student edition in the built site: run `make book`"
    assert not (SITE / "student.partial").exists(), "a half-copied student edition is left beside the book"
    exercises = 0
    for page in CONTENT_PAGES:
        rel = page.relative_to(SITE)
        assert (STUDENT / rel).is_file(), f"{rel} is missing from the student edition"
        full, student = page.read_text(encoding="utf-8"), (STUDENT / rel).read_text(encoding="utf-8")
        assert "student edition" in student, f"{rel}: the student edition's page does not say which edition it is"
        assert 'class="solution' not in student, f"{rel}: a solution is left in the student edition"
        # a launch button opens the repository's notebook, solutions included: the student edition has none
        assert "colab.research.google.com" not in student and "mybinder.org" not in student, f"{rel}: a launch button"
        assert student.count('class="exercise') == full.count('class="exercise'), f"{rel}: an exercise went missing"
        exercises += full.count('class="exercise')
        for href in re.findall(r'href="([^"#]*student/[^"#]*)"', full):
            assert (page.parent / unquote(href)).resolve().is_file(), f"{rel}: the link {href} leads nowhere"
    assert exercises > 0, "no exercise in the book: the check above would pass on an empty edition"
    chapter = (SITE / "book" / "lab_attention.html").read_text(encoding="utf-8")
    assert "colab.research.google.com" in chapter, "the full edition lost its launch buttons: the check above is void"


def _tagged_cells(html: str, tag: str) -> list[str]:
    """The HTML of each notebook cell carrying ``tag`` (from its opening to the next cell's)."""
    starts = [m.start() for m in re.finditer(r'<div class="cell[ "]', html)] + [len(html)]
    chunks = [html[a:b] for a, b in zip(starts, starts[1:])]
    return [c for c in chunks if re.match(rf'<div class="cell[^"]*\btag_{re.escape(tag)}\b', c)]


def test_the_student_edition_withholds_the_answers():
    """In the student edition the unit keeps its objectives, readings, activities and problem set but not the
    lecturer's containers (class plans, expected answers, rubric), the cells tagged answer-output (the lab's tests,
    which print the numbers its exercises ask for) show no output, and the cells tagged answer-cell (whose code states
    the answers) are left out, as is the lab's figure of Exercise L.6's stresses (in that exercise's solution); the
    full edition keeps them all (book/_ext/student_edition.py)."""
    full, student = ((d / "book" / "unit_two_lectures.html").read_text(encoding="utf-8") for d in (SITE, STUDENT))
    for said in ("Expected answer", "Model answer", "Marking rubric", "In class, 50 minutes"):
        assert said in full, f"the full edition's unit lost its {said!r}"
        assert said not in student, f"the student edition's unit shows {said!r}"
    for kept in ("Objectives.", "Before class", "Activity.", "Problem set", "Question 1"):
        assert kept in student, f"the student edition's unit lost its {kept!r}"
    # the page's download button offers its source: the student edition's holds what its page shows
    full, student = ((d / "_sources" / "book" / "unit_two_lectures.md").read_text(encoding="utf-8")
                     for d in (SITE, STUDENT))
    for said in ("Expected answer", "Model answer", "Marking rubric"):
        assert said in full and said not in student, f"the student edition's downloaded unit gives {said!r}"
    assert "Problem set" in student, "the student edition's downloaded unit lost its problem set"
    full, student = ((d / "book" / "lab_numpy.html").read_text(encoding="utf-8") for d in (SITE, STUDENT))
    shown, hidden = _tagged_cells(full, "answer-output"), _tagged_cells(student, "answer-output")
    assert shown and len(shown) == len(hidden), f"{len(shown)} tagged cells in the full lab, {len(hidden)} in the other"
    assert all("cell_output" in c for c in shown), "the full edition shows every tagged cell's output"
    assert not any("cell_output" in c for c in hidden), "a tagged cell shows its output in the student edition"
    whole = _tagged_cells(full, "answer-cell")
    assert whole, "no cell of the full lab is tagged answer-cell (its tests state the answers)"
    assert not _tagged_cells(student, "answer-cell"), "a cell tagged answer-cell is left in the student edition"
    for answer in ("1/13", "14/17"):  # Exercise L.6's answers, written in the tests' code
        assert answer in full and answer not in student, f"the student edition's lab gives away {answer}"
    # Fig L.1 draws Exercise L.6's three stresses: it belongs to the exercise's solution
    assert 'id="fig-lab-floor"' in full, "the full lab lost its figure of Exercise L.6's stresses"
    assert 'id="fig-lab-floor"' not in student, "the student edition's lab draws Exercise L.6's stresses"
    # the result box's number and figure are Exercise L.8's answer: the student edition names the target only
    figure = 'id="fig-lab-imdb"'
    assert figure in full and figure not in student, "the student lab's box gives L.8's answer"
    said = "leaves the number and its figure for you to find"
    assert said in student and said not in full, "each edition's lab box is its own"
    full, student = ((d / "book" / "lab_attention.html").read_text(encoding="utf-8") for d in (SITE, STUDENT))
    figure, said = 'id="fig-lt-result"', "leaves the numbers and the figure"
    assert figure in full and figure not in student, "the student PyTorch lab's box gives Exercise T.4's answer"
    assert said in student and said not in full, "each edition's PyTorch lab box is its own"


DOWNLOADS = sorted((SITE / "_sources").rglob("*.ipynb"))


def test_the_handout_archive_holds_every_chapter_without_solutions():
    """The full edition's student-notebooks.zip: one notebook per downloadable chapter, no solution in any, and no
    hand answer in the lab's test code."""
    archive = SITE / "_static" / "student-notebooks.zip"
    assert archive.is_file(), "no student-notebooks.zip in the built site"
    with zipfile.ZipFile(archive) as z:
        names = sorted(Path(n).name for n in z.namelist())
        texts = {n: z.read(n).decode("utf-8") for n in z.namelist()}
    assert names == sorted(p.name for p in DOWNLOADS if p.parent.name == "book")
    solution = re.compile(r"\{solution|\*\*Solution( to [^*]+)?\*\*")  # a directive, or the plain lead it becomes
    leaks = [n for n, t in texts.items() if solution.search(t)]
    assert not leaks, f"solutions in the handout notebooks: {leaks}"
    lab = texts["student-notebooks/lab_numpy.ipynb"]
    assert "leaves the number and its figure" in lab, "the handout lab's box is not the student edition's"
    assert "pg-lecturer" not in lab and "pg-student" not in lab, "the handout lab keeps an edition container's fence"
    assert "def mistakes" not in lab, "the handout lab keeps its Reproducibility cell's classic mistakes"
    for answer in ("1/13", "1 / 13", "14/17", "2 sqrt 2", "2 * np.sqrt(2)"):  # the lab's hand answers
        assert answer not in lab, f"the handout lab's code gives away {answer!r} (test against posgeom instead)"
    full = [p for p in DOWNLOADS if solution.search(p.read_text(encoding="utf-8"))]
    assert full, "the full edition's own downloads keep their solutions (the archive is what leaves them out)"


@pytest.mark.parametrize("notebook", DOWNLOADS, ids=lambda p: p.stem)
def test_downloaded_notebooks_read_without_myst_roles(notebook):
    """The download button's notebook shows numbers and plain text in Jupyter and Colab, not MyST roles."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    left = sorted(
        set(re.findall(r"\{(?:glue:text|glue|term|doc|numref|ref|prf:ref|func|class|meth|cite)\}`[^`]*`", markdown))
    )
    assert not left, f"{notebook.name}: {len(left)} MyST roles left in the downloadable notebook: {left[:5]}"
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code and all(not c.get("outputs") for c in code), "the code cells are the source's, unexecuted"


@pytest.mark.parametrize("page", CONTENT_PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_page_renders_in_a_browser(page, browser, server):
    mathjax = _open(browser, server, page)
    report = browser.execute_script(_PAGE_REPORT)
    assert not report["brokenImages"], f"images that did not load: {report['brokenImages']}"
    assert "$$" not in report["text"], "raw $$ left in the rendered text: a math block was not parsed"
    if report["mathSources"]:
        assert mathjax is True, "MathJax did not load or failed: math is shown as raw TeX"
        assert report["rendered"] >= report["mathSources"], (
            f"{report['mathSources']} math elements but only {report['rendered']} rendered by MathJax"
        )


def _reading_path():
    """The core path's steps, from the index card, as book/_ext/reading_path.py reads them."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import reading_path

    return reading_path, reading_path.steps_from_index((ROOT / "book" / "index.md").read_text(encoding="utf-8"))


def test_the_sidebar_marks_each_page_of_the_path(browser, server):
    """On the index, every page of the core path carries its step in the sidebar, in the path's order
    (book/_ext/reading_path.py); on a page of the path, its box at the end is shown above the theme's buttons."""
    reading_path, steps = _reading_path()
    path = [s.doc for s in steps]
    _open(browser, server, SITE / "index.html")
    marks = browser.execute_script(
        "return Array.from(document.querySelectorAll('.bd-sidenav .pg-path-step'))"
        ".map(m => [m.parentElement.getAttribute('href').split('/').pop(), m.textContent]);"
    )
    steps = {href.split("#")[0]: text for href, text in marks}
    assert len(marks) == len(path), f"{len(marks)} marks for a path of {len(path)} pages (a page marked twice?)"
    hidden = browser.execute_script(  # a step inside a chapter's folded section is shown, its section opened
        "return Array.from(document.querySelectorAll('.bd-sidenav .pg-path-step'))"
        ".filter(m => { for (let d = m.closest('details'); d; d = d.parentElement.closest('details'))"
        " if (!d.open) return true; return false; }).map(m => m.textContent);"
    )
    assert not hidden, f"path steps hidden in folded sidebar sections: {hidden}"
    assert steps == {f"{d.split('/')[-1]}.html": f"Core {k + 1}" for k, d in enumerate(path)}, steps
    _open(browser, server, SITE / "book" / f"{path[2].split('/')[-1]}.html")  # a page on the path: its own link
    own = browser.execute_script(
        "const m = document.querySelector('.bd-sidenav a.current .pg-path-step'); return m && m.textContent;"
    )
    assert own == "Core 3", f"the current page's own sidebar link is marked {own!r}, not 'Core 3'"
    box = browser.execute_script(
        f"const b = document.querySelector('article .{reading_path.BOX_CLASS}'), "
        "f = document.querySelector('footer.prev-next-footer');"
        "if (!b) return null; const r = b.getBoundingClientRect();"
        "return {text: b.innerText, height: r.height, overflows: b.scrollWidth > b.clientWidth + 1,"
        " aboveFooter: !f || r.bottom <= f.getBoundingClientRect().top};"
    )
    assert box is not None, "no path box in the page's article"
    assert box["text"].startswith(f"The core, step 3 of {len(path)}"), box["text"]
    assert box["height"] > 0 and not box["overflows"] and box["aboveFooter"], box
    strip = browser.execute_script(
        "const h = document.querySelector('article.bd-article h1'), s = h && h.nextElementSibling;"
        f"if (!s || !s.classList.contains('{reading_path.STRIP_CLASS}')) return null;"
        "const r = s.getBoundingClientRect();"
        "return {text: s.innerText, height: r.height, overflows: s.scrollWidth > s.clientWidth + 1};"
    )
    assert strip is not None, "the page's title is not followed by the path's strip"
    assert strip["text"].startswith(f"The core · step 3 of {len(path)} · next: "), strip["text"]
    assert strip["height"] > 0 and not strip["overflows"], strip
    assert _footer_subtitles(browser) == [
        ("previous in book order", "Previous in book order"),
        ("next in book order", "Next in book order"),
    ], "on a page of the path, the theme's buttons are not named for the book's order"
    stems = {d.split("/")[-1] for d in path}
    with_both = [p for p in CONTENT_PAGES if p.read_text(encoding="utf-8").count('class="prev-next-subtitle"') == 2]
    off = next((p for p in with_both if p.parent == SITE / "book" and p.stem not in stems), None)
    assert off is not None, "no page off the path with both of the theme's buttons"
    _open(browser, server, off)
    assert _footer_subtitles(browser) == [("previous", "Previous"), ("next", "Next")], f"{off.name}, off the path"


def _footer_subtitles(browser) -> list[tuple[str, str]]:
    """The subtitles of the theme's previous/next buttons on the open page: (their text, as shown)."""
    return [
        tuple(pair)
        for pair in browser.execute_script(
            "return Array.from(document.querySelectorAll('footer.prev-next-footer .prev-next-subtitle'))"
            ".map(p => [p.textContent.trim(), p.innerText.trim()]);"
        )
    ]


def _sidebar_titles(html: str) -> dict[str, str]:
    """The sidebar's links on a built page: file name -> the title it shows."""
    nav = html[html.index('<nav class="bd-links bd-docs-nav"') :]
    nav = nav[: nav.index("</nav>")]
    return {
        href.split("/")[-1]: " ".join(re.sub(r"<[^>]+>", "", text).split())
        for href, text in re.findall(r'<a class="[^"]*reference internal[^"]*" href="([^"#]+)">(.*?)</a>', nav, re.S)
    }


def _path_boxes(html: str, kind: str = "pg-path-nav") -> list[tuple[str, list[tuple[str, str]]]]:
    """The path boxes (or strips, ``kind="pg-path-strip"``) on a built page: each one's text and links (href, text)."""
    found = []
    for box in re.findall(rf'<div class="{kind}[^"]*">(.*?)</div>', html, re.S):
        links = [
            (h, " ".join(re.sub(r"<[^>]+>", "", t).split()))
            for h, t in re.findall(r'<a [^>]*href="([^"]*)"[^>]*>(.*?)</a>', box, re.S)
        ]
        found.append((" ".join(re.sub(r"<[^>]+>", "", box).split()), links))
    return found


def test_the_path_box_reader_finds_the_box():
    html = (
        '<div class="pg-path-nav docutils container">\n<p><strong>The core, step 2 of 3</strong> · '
        '← previous: <a class="reference internal" href="a.html">1. A</a> · next: '
        '<a class="reference internal" href="c.html">C</a><span class="pg-path-note"> (the recap)</span> →</p>\n</div>'
    )
    assert _path_boxes(html) == [
        (
            "The core, step 2 of 3 · ← previous: 1. A · next: C (the recap) →",
            [("a.html", "1. A"), ("c.html", "C")],
        )
    ]
    assert _path_boxes("<div class='other'></div>") == []
    strip = (
        '</h1>\n<div class="pg-path-strip docutils container">\n<p><strong>The core · step 2 of 3</strong>'
        ' · next: <a class="reference internal" href="c.html">C</a> →</p>\n</div>'
    )
    assert _path_boxes(strip, "pg-path-strip") == [("The core · step 2 of 3 · next: C →", [("c.html", "C")])]
    assert _path_boxes(strip) == [], "a strip is not a box"


def _card_anchor(card_id: str) -> str:
    """The text just after the element of the built index with id ``card_id`` (the path's card, if it is one)."""
    html = (SITE / "book" / "index.html").read_text(encoding="utf-8")
    at = html.find(f'id="{card_id}"')
    return "" if at < 0 else " ".join(re.sub(r"<[^>]+>", " ", html[html.index(">", at) + 1 :][:2000]).split())


def test_each_page_of_the_path_ends_with_a_box_to_its_neighbours():
    """Every page of the core path ends, after its last section and before the theme's previous/next
    buttons, with one box giving its step in the index card's order and linking to the path's previous and next pages,
    named as the sidebar names them and followed by the card's note on them; the last links back to the card.
    No other page has a box (book/_ext/reading_path.py)."""
    reading_path, steps = _reading_path()
    files = [SITE / f"book/{s.doc}.html" for s in steps]
    n = len(steps)
    for k, page in enumerate(files):
        html = page.read_text(encoding="utf-8")
        boxes = _path_boxes(html)
        assert len(boxes) == 1, f"{page.name}: {len(boxes)} path boxes, not one"
        text, links = boxes[0]
        assert text.startswith(f"The core, step {k + 1} of {n} · "), f"{page.name}: {text}"
        at, footer = html.index(f'class="{reading_path.BOX_CLASS}'), html.find('class="prev-next-footer')
        assert footer < 0 or at < footer, f"{page.name}: the box comes after the theme's previous/next buttons"
        assert "</section>" not in html[at:footer], f"{page.name}: the box is not after the page's last section"
        titles = _sidebar_titles(html)
        expected = [files[j] for j in (k - 1, k + 1) if 0 <= j < n]
        targets = [(page.parent / unquote(urldefrag(h)[0])).resolve() for h, _ in links]
        if k == n - 1:
            href, label = links[-1]
            assert "the end of the path" in text and "#" in href, f"{page.name}: the last step does not end the path"
            assert targets[-1] == (SITE / "book" / "index.html").resolve(), f"{page.name}: {href} is not the index"
            assert _card_anchor(urldefrag(href)[1]).startswith("The core"), f"{href} is not the card"
            links, targets = links[:-1], targets[:-1]
        assert targets == [p.resolve() for p in expected], f"{page.name}: links {links}, expected {expected}"
        for (_, label), target in zip(links, expected):
            assert label == titles[target.name], f"{page.name}: {label!r} is not the sidebar's {titles[target.name]!r}"
            note = steps[files.index(target)].note
            assert not note or f"{label} ({note})" in text, f"{page.name}: the card's note on {target.name} is missing"
    others = [p for p in CONTENT_PAGES if p not in files and _path_boxes(p.read_text(encoding="utf-8"))]
    assert not others, f"pages off the path with a path box: {others}"


def test_each_page_of_the_path_opens_with_a_strip_to_the_next_step():
    """Right after the title (the h1) of every page of the core path, one strip gives its step and links
    to the path's next page, named as the sidebar names it, as the box at its end does; the last links back to the
    index's card. No other page has a strip (book/_ext/reading_path.py)."""
    reading_path, steps = _reading_path()
    files = [SITE / f"book/{s.doc}.html" for s in steps]
    n = len(steps)
    for k, page in enumerate(files):
        html = page.read_text(encoding="utf-8")
        strips = _path_boxes(html, reading_path.STRIP_CLASS)
        assert len(strips) == 1, f"{page.name}: {len(strips)} path strips, not one"
        title_end = html.index("</h1>", html.index('<article class="bd-article"')) + len("</h1>")  # the page's h1
        after_title = re.match(rf'\s*<div class="{reading_path.STRIP_CLASS}[ "]', html[title_end:])
        assert after_title, f"{page.name}: the strip is not right after the page's title"
        text, links = strips[0]
        assert text.startswith(f"The core · step {k + 1} of {n} · "), f"{page.name}: {text}"
        assert len(links) == 1, f"{page.name}: the strip links to {links}, not to one page"
        href, label = links[0]
        target = (page.parent / unquote(urldefrag(href)[0])).resolve()
        if k == n - 1:
            assert "the last step" in text and target == (SITE / "book" / "index.html").resolve(), (
                f"{page.name}: {text}"
            )
            assert _card_anchor(urldefrag(href)[1]).startswith("The core"), f"{href} is not the card"
        else:
            assert target == files[k + 1].resolve(), f"{page.name}: the strip leads to {href}, not {files[k + 1].name}"
            assert label == _sidebar_titles(html)[files[k + 1].name], f"{page.name}: {label!r} is not the sidebar's"
            assert text.endswith(f"next: {label} →"), f"{page.name}: {text}"
        assert (href, label) in _path_boxes(html)[0][1], f"{page.name}: the strip and the box lead to different pages"
    others = [p for p in CONTENT_PAGES if p not in files and reading_path.STRIP_CLASS in p.read_text(encoding="utf-8")]
    assert not others, f"pages off the path with a path strip: {others}"


def test_the_theme_buttons_name_the_books_order_on_the_path():
    """On the pages of the core path, the theme's previous/next buttons (which follow the book's order)
    are subtitled "previous in book order" and "next in book order"; elsewhere "previous" and "next"."""
    reading_path, steps = _reading_path()
    files = {(SITE / f"book/{s.doc}.html").resolve() for s in steps}
    for page in CONTENT_PAGES:
        subtitles = re.findall(r'<p class="prev-next-subtitle">([^<]*)</p>', page.read_text(encoding="utf-8"))
        words = [reading_path.BOOK_ORDER[w] for w in ("previous", "next")]
        on_path = page.resolve() in files
        assert set(subtitles) <= set(words if on_path else ["previous", "next"]), (
            f"{page.relative_to(SITE)}: {subtitles}"
        )
        assert subtitles or not on_path, f"{page.relative_to(SITE)}: no previous/next buttons on a page of the path"


def test_screenshots(browser, server):
    out = ROOT / "_build" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    chapter = min(p for p in PAGES if p.name.startswith("01_"))
    shots = [("landing", SITE / "book" / "index.html"), ("chapter", chapter)]
    shots += [("ledger", p) for p in PAGES if p.name == "claims_ledger.html"]
    for name, page in shots:
        _open(browser, server, page)
        target = out / f"{name}.png"
        assert browser.save_screenshot(str(target)), f"could not save {target}"
        assert target.stat().st_size > 10_000, f"{target} is suspiciously small: a blank page?"


# ---------------------------------------------------------------------------------------------------------------
# What a reader sees at 1280 px

_CODE_SELECTOR = (
    "div.cell_input, div.highlight, pre, code, kbd, samp, tt, .sig, script, style, noscript, textarea, "
    "mjx-container, mjx-assistive-mml, .MathJax"
)

# Measures overflow first (on the page as laid out), then hides code and math output to read the remaining text.
_READER_REPORT = """
const CODE = arguments[0];
const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
const kind = el =>
  el.closest('div.cell_input') ? 'code cell' :
  el.closest('div.cell_output, div.output') ? 'cell output' :
  el.closest('table, .pst-scrollable-table-container, .table-wrapper') || el.matches('.pst-scrollable-table-container')
    ? 'table' :
  el.closest('mjx-container, div.math-wrapper') ? 'equation' : 'code block';
const describe = el => {
  const where = el.closest('section[id]');
  const words = (el.innerText || el.textContent || '').trim().replace(/\\s+/g, ' ');
  const text = Array.from(words).slice(0, 60).join('');  // whole code points: a cut surrogate pair breaks the driver
  return `${kind(el)} in #${where ? where.id : '?'} `
    + `(${el.scrollWidth} px of content in ${el.clientWidth} px): "${text}"`;
};
const BOXES = ['div.cell_input', 'div.cell_output', 'div.output', 'div.highlight', 'div.highlight pre',
               'div.cell_output pre', 'div.output pre', 'table', '.pst-scrollable-table-container',
               '.table-wrapper', 'div.math-wrapper', 'mjx-container[display="true"]'].join(', ');
const overflowing = Array.from(document.querySelectorAll(BOXES))
  .filter(el => shown(el) && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1);
// Report the innermost overflowing box only: its scrolling ancestors overflow because of it.
const innermost = overflowing.filter(el => !overflowing.some(other => other !== el && el.contains(other)));

const figures = Array.from(document.querySelectorAll('div.cell_output img, div.output img, figure img'))
  .filter(img => !img.closest('header, nav, .bd-header, .header-article, .dropdown-launch-buttons'))
  .map(img => {
    const fig = img.closest('figure');
    const cap = fig && fig.querySelector('figcaption');
    const where = img.closest('section[id]');
    return {src: (img.getAttribute('src') || '').split('/').pop(), section: where ? where.id : '?',
            caption: cap ? cap.textContent.trim() : null};  // textContent: a closed dropdown has no innerText
  });

const sizes = Array.from(article_images())
  .map(img => ({src: img.currentSrc || img.src, natural: img.naturalWidth,
                shown: img.getBoundingClientRect().width,
                section: (img.closest('section[id]') || {id: '?'}).id}));
function article_images() {
  const root = document.querySelector('article.bd-article, main') || document.body;
  return Array.from(root.querySelectorAll('img'))
    .filter(img => !img.closest('header, nav, .bd-header, .header-article, .dropdown-launch-buttons, .sd-badge'));
}

const launch = Array.from(document.querySelectorAll(
  '.dropdown-launch-buttons a, a[href*="mybinder.org/v2/"], a[href*="colab.research.google.com/"]'))
  .map(a => a.href);

// The readers' standard: code a reader sees unfolded, words outside dropdowns and outputs, the result box's place.
const visibleCells = Array.from(document.querySelectorAll('div.cell_input')).filter(shown)
  .map(el => (el.innerText || '').split('\\n').filter(line => line.trim()).length);
const article = document.querySelector('article.bd-article, main') || document.body;
const box = Array.from(article.querySelectorAll('.admonition'))
  .find(el => /result/i.test((el.querySelector('.admonition-title') || {}).innerText || ''));
const top = el => el ? el.getBoundingClientRect().top + window.scrollY : null;
const prose = document.createElement('style');
prose.textContent = CODE + ', div.cell_output, div.output, .sd-dropdown, details, .toggle-details, '
  + '.admonition.dropdown, .dropdown-launch-buttons { display: none !important; }';
document.head.appendChild(prose);
const proseWords = (article.innerText || '').split(/\\s+/).filter(w => /[A-Za-z0-9]/.test(w)).length;
prose.remove();

const style = document.createElement('style');
style.textContent = CODE + ' { display: none !important; }';
document.head.appendChild(style);
const text = document.body.innerText;
style.remove();

return {
  innerWidth: window.innerWidth,
  pageWidth: document.documentElement.scrollWidth,
  overflow: innermost.map(describe),
  figures: figures,
  sizes: sizes,
  launch: launch,
  text: text,
  visibleCells: visibleCells,
  proseWords: proseWords,
  resultBoxTop: top(box),
  resultFigureTop: top(box && box.querySelector('img')),
};
"""

_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_RAW_MATH = [
    ("$$", re.compile(r"\$\$")),
    ("$...$", re.compile(r"\$[^\s$][^$]*\$")),  # also across line breaks
    ("$ before TeX", re.compile(r"\$\\[A-Za-z]")),  # an unmatched opening $ (e.g. its closing $ lost)
    ("\\(", re.compile(r"\\\(")),
    ("\\)", re.compile(r"\\\)")),
    ("\\[", re.compile(r"\\\[")),
]


def _is_notebook_page(page: Path) -> bool:
    return (ROOT / page.relative_to(SITE).with_suffix(".ipynb")).is_file()


NOTEBOOK_PAGES = [p for p in CONTENT_PAGES if _is_notebook_page(p)]
_ids = {"ids": lambda p: str(p.relative_to(SITE))}


@pytest.fixture(scope="module")
def reader(browser, server):
    """``reader(page)``: what the page shows at 1280 px (each page is loaded once for all the checks below)."""
    seen: dict[Path, dict] = {}

    def look(page: Path) -> dict:
        if page not in seen:
            _open(browser, server, page)
            report = browser.execute_script(_READER_REPORT, _CODE_SELECTOR)
            assert report["innerWidth"] == WIDTH, f"the window is {report['innerWidth']} px wide, not {WIDTH}"
            seen[page] = report
        return seen[page]

    return look


def _context(text: str, start: int, end: int) -> str:
    return text[max(0, start - 30) : end + 30].replace("\n", " ").strip()


@pytest.mark.parametrize("page", CONTENT_PAGES, **_ids)
def test_no_raw_pipe_tables(page, reader):
    rows = [line.strip() for line in reader(page)["text"].splitlines() if _PIPE_ROW.match(line)]
    assert not rows, (
        f"{len(rows)} lines of raw pipe-table text outside code (a Markdown table that was not rendered): {rows[:5]}"
    )


def _matches(text: str, patterns) -> list[str]:
    """Each match of the ``(label, pattern)`` pairs in ``text``, labelled and shown in its context."""
    return [
        f"{label}: ...{_context(text, m.start(), m.end())}..."
        for label, pattern in patterns
        for m in pattern.finditer(text)
    ]


@pytest.mark.parametrize("page", CONTENT_PAGES, **_ids)
def test_no_unrendered_math(page, reader):
    raw = _matches(reader(page)["text"], _RAW_MATH)
    assert not raw, f"{len(raw)} pieces of raw TeX in the visible text outside code: {raw[:5]}"


_RAW_MARKUP = [
    ("a stray closing **", re.compile(r"[^\s*]\*\*(?=\s|$)")),  # bold that did not parse (an unpaired **)
    ("an unparsed role", re.compile(r"\{[a-z]+(?::[a-z-]+)?\}`")),  # {term}`...`, {glue:text}`...` shown as text
    ("an unparsed directive fence", re.compile(r"^\s*(`{3,}|:{3,})\{?[a-z]", re.M)),
]


@pytest.mark.parametrize("page", CONTENT_PAGES, **_ids)
def test_no_raw_markup(page, reader):
    """No Markdown or MyST syntax shows as text: it is a sign that a construct did not parse (outside code)."""
    raw = _matches(reader(page)["text"], _RAW_MARKUP)
    assert not raw, f"{len(raw)} pieces of raw markup in the visible text outside code: {raw[:5]}"


def test_raw_markup_patterns_catch_what_they_name():
    stray, role, fence = (pattern for _, pattern in _RAW_MARKUP)
    assert stray.search("rests on the unmoved encoding.**") and not stray.search("replace(**changes)")
    assert stray.search("a **bold** word left unparsed") and not stray.search("a bold word, as rendered")
    assert role.search("see {term}`stress`") and role.search("{glue:text}`x`") and not role.search("a {set} of")
    assert fence.search("```{dropdown} Methods") and not fence.search("text ``` inline")


@pytest.mark.parametrize("page", CONTENT_PAGES, **_ids)
def test_no_horizontal_overflow(page, reader):
    report = reader(page)
    problems = []
    if report["pageWidth"] > report["innerWidth"]:
        problems.append(f"the page is {report['pageWidth']} px wide in a {report['innerWidth']} px window")
    if report["overflow"]:
        problems.append(
            f"{len(report['overflow'])} code cells, outputs, tables or equations wider than their box: "
            f"{report['overflow'][:5]}"
        )
    assert not problems, f"horizontal scrolling at {WIDTH} px: {'; '.join(problems)}"


@pytest.mark.parametrize("page", CONTENT_PAGES, **_ids)
def test_every_figure_has_a_caption(page, reader):
    bare = [f"{f['src']} (in #{f['section']})" for f in reader(page)["figures"] if not f["caption"]]
    assert not bare, (
        f"{len(bare)} output images without a caption (use {{glue:figure}} with a caption, or the cell metadata "
        f"mystnb.figure.caption): {bare[:8]}"
    )


@pytest.mark.parametrize("page", NOTEBOOK_PAGES, **_ids)
def test_chapter_has_a_launch_button(page, reader):
    notebook = page.relative_to(SITE).with_suffix(".ipynb").as_posix()
    links = [href for href in reader(page)["launch"] if notebook in href]
    assert links, f"no Binder or Colab launch button for {notebook} (launch links found: {reader(page)['launch']})"


# ---------------------------------------------------------------------------------------------------------------
# The readers' standard, as rendered, on the chapters rebuilt to it (their list lives with the notebook-level test)


def _standard_chapters() -> list[str]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("_standard", ROOT / "tests" / "book" / "test_readers_standard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.STANDARD


STANDARD_PAGES = [p for p in NOTEBOOK_PAGES if p.stem in _standard_chapters()]
FIRST_SCREENS = 1200  # px from the top of the page within which the result box and its figure must start


@pytest.mark.parametrize("page", STANDARD_PAGES, **_ids)
def test_rendered_chapter_meets_the_readers_standard(page, reader):
    report = reader(page)
    cells = report["visibleCells"]
    assert sum(cells) <= 150, f"{sum(cells)} visible code lines (at most 150)"
    assert max(cells, default=0) <= 25, f"a visible code cell of {max(cells)} lines (at most 25)"
    assert report["proseWords"] <= 2500, f"{report['proseWords']} words outside dropdowns and outputs (at most 2,500)"
    assert report["resultBoxTop"] is not None, "no result box (an admonition titled with the result)"
    assert report["resultBoxTop"] <= FIRST_SCREENS, f"the result box starts at {report['resultBoxTop']:.0f} px"
    assert report["resultFigureTop"] is not None, "the result box holds no figure"
    assert report["resultFigureTop"] <= FIRST_SCREENS, f"the key figure starts at {report['resultFigureTop']:.0f} px"


# ---------------------------------------------------------------------------------------------------------------
# Figures legible at their displayed size

TICK_PT = 10  # matplotlib's default tick-label size (xtick.labelsize "medium" of font.size 10); the book keeps it
MIN_TICK_PX = 9  # the smallest tick label a reader should have to read, in CSS px at 1280 px


def max_shrink(dpi: float, tick_pt: float = TICK_PT) -> float:
    """The largest natural / displayed width ratio at which tick labels stay ``MIN_TICK_PX`` tall on screen.

    A label of ``tick_pt`` points (its em height) is ``tick_pt * dpi / 72`` px tall in a PNG saved at ``dpi``; a figure
    shown at ``displayed / natural`` of its width shrinks it by the same factor, to
    ``tick_pt * dpi / 72 * displayed / natural`` px. That is at least ``MIN_TICK_PX`` when
    ``natural / displayed <= tick_pt * dpi / (72 * MIN_TICK_PX)``: 1.54 for the book's 10-point labels at 100 dpi.
    Since ``natural = width_in * dpi``, the rule is ``width_in <= displayed * tick_pt / (72 * MIN_TICK_PX)`` whatever
    the dpi: a figure shown 593 px wide (a result box at 1280 px) may be at most 9.2 inches wide.
    """
    return tick_pt * dpi / (72 * MIN_TICK_PX)


def png_dpi(path: Path, default: float = 100.0) -> float:
    """The resolution a PNG records (its pHYs chunk, in pixels per metre), else ``default`` (matplotlib's dpi)."""
    import struct

    data = path.read_bytes()
    at = 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        if kind == b"pHYs":
            ppm_x, _, unit = struct.unpack(">IIB", data[at + 8 : at + 17])
            return ppm_x * 0.0254 if unit == 1 else default
        if kind == b"IDAT":
            break
        at += 12 + length
    return default


def test_legibility_rule_on_the_figures_the_issue_names():
    assert max_shrink(100) == pytest.approx(1.543, abs=1e-3)
    assert 1694 / 593 > max_shrink(100), "Figure 7.1 as it was (1,694 px shown at 593 px) must fail"
    assert 790 / 672 <= max_shrink(100), "an 8-inch figure in the main column must pass"


def test_png_dpi_reads_what_matplotlib_writes(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, _ = plt.subplots(figsize=(2, 1))
    fig.savefig(tmp_path / "f.png", dpi=150)
    plt.close(fig)
    assert png_dpi(tmp_path / "f.png") == pytest.approx(150, abs=0.1)


@pytest.mark.parametrize("page", CONTENT_PAGES, **_ids)
def test_figures_are_legible_at_their_displayed_size(page, reader):
    small = []
    for img in reader(page)["sizes"]:
        path = SITE / unquote(urlparse(img["src"]).path).lstrip("/")
        if not img["shown"] or img["natural"] <= img["shown"] or path.suffix.lower() != ".png" or not path.is_file():
            continue  # not shrunk, or not a raster figure of the book
        ratio, limit = img["natural"] / img["shown"], max_shrink(png_dpi(path))
        if ratio > limit:
            tick = TICK_PT * png_dpi(path) / 72 / ratio
            small.append(
                f"{path.name} in #{img['section']}: {img['natural']} px shown at {img['shown']:.0f} px "
                f"(ratio {ratio:.2f} > {limit:.2f}; tick labels {tick:.1f} px)"
            )
    assert not small, (
        f"{len(small)} figures whose tick labels are under {MIN_TICK_PX} px on screen at {WIDTH} px (make the figure "
        f"narrower in inches, or split it): {small}"
    )
