"""The built book, opened page by page in a real browser (headless Chromium through Selenium).

Run after ``make book``; ``make test`` does both. Checks on every page of ``_build/html``: math is rendered by MathJax
(no raw ``$$`` left in the visible text), every image loads, every internal link (and its ``#anchor``) resolves.
Screenshots of the landing page and of one chapter are saved under ``_build/screenshots``.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import tempfile
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
SKIP_DIRS = {"_static", "_sources", "_images", "_sphinx_design_static"}


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


@functools.lru_cache(maxsize=None)
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
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--window-size=1280,1600", f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


_WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
  MathJax.startup.promise.then(() => done(true), () => done(false));
} else { done(null); }
"""

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


@pytest.mark.parametrize("page", CONTENT_PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_page_renders_in_a_browser(page, browser, server):
    browser.get(f"{server}/{page.relative_to(SITE).as_posix()}")
    mathjax = browser.execute_async_script(_WAIT_FOR_MATHJAX)
    report = browser.execute_script(_PAGE_REPORT)
    assert not report["brokenImages"], f"images that did not load: {report['brokenImages']}"
    assert "$$" not in report["text"], "raw $$ left in the rendered text: a math block was not parsed"
    if report["mathSources"]:
        assert mathjax is True, "MathJax did not load or failed: math is shown as raw TeX"
        assert report["rendered"] >= report["mathSources"], (
            f"{report['mathSources']} math elements but only {report['rendered']} rendered by MathJax"
        )


def test_screenshots(browser, server):
    out = ROOT / "_build" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    chapter = min(p for p in PAGES if p.name.startswith("01_"))
    for name, page in (("landing", SITE / "book" / "index.html"), ("chapter", chapter)):
        browser.get(f"{server}/{page.relative_to(SITE).as_posix()}")
        browser.execute_async_script(_WAIT_FOR_MATHJAX)
        target = out / f"{name}.png"
        assert browser.save_screenshot(str(target)), f"could not save {target}"
        assert target.stat().st_size > 10_000, f"{target} is suspiciously small: a blank page?"
