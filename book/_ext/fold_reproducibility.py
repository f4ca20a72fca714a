"""One fold for each page's "Reproducibility" section: its opening paragraph shown, everything after it in one dropdown.

The section gathers a page's checks (each a folded cell printing ``✓ claim``), its statistical protocol and its
design files. Folded cell by cell it still showed a column of two dozen toggles; here the whole of it sits behind one,
whose title counts the ``✓`` lines inside (a page builds only when every check holds: ``allow_errors: false``). A link
to an anchor inside the fold opens it (a small script, for the browsers that do not do so themselves). In the HTML
builds only: the PDF prints the section in full.
"""

from __future__ import annotations

from docutils import nodes

TITLE = "Reproducibility"

_CHEVRON = (
    '<svg version="1.1" width="1.5em" height="1.5em" class="sd-octicon sd-octicon-chevron-right" viewBox="0 0 24 24"'
    ' aria-hidden="true"><path d="M8.72 18.78a.75.75 0 0 1 0-1.06L14.44 12 8.72 6.28a.751.751 0 0 1 .018-1.042.751.751'
    ' 0 0 1 1.042-.018l6.25 6.25a.75.75 0 0 1 0 1.06l-6.25 6.25a.75.75 0 0 1-1.06 0Z"></path></svg>'
)

# open every fold around the element a link points at, on load and when the fragment changes
_OPEN_TARGET = """
(function () {
  function openTarget(hash) {
    var id;
    try { id = decodeURIComponent((hash || location.hash).slice(1)); } catch (e) { return; }
    var el = id && document.getElementById(id);
    if (!el) return;
    for (var d = el.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) d.open = true;
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', function () { openTarget(); });
  document.addEventListener('DOMContentLoaded', function () { openTarget(); });
  // a second click on the same link fires no hashchange: open the fold on the click itself
  document.addEventListener('click', function (ev) {
    var a = ev.target.closest && ev.target.closest('a[href*="#"]');
    if (a && a.pathname === location.pathname) setTimeout(function () { openTarget(a.hash); }, 0);
  });
})();
"""


def count_checks(section: nodes.Node) -> int:
    """The number of ``✓`` lines the section's cell outputs print."""
    return sum(
        line.startswith("✓")
        for block in section.findall(nodes.literal_block)
        for line in block.astext().splitlines()
    )


def summary_text(n_checks: int) -> str:
    """The fold's title: how many checks it holds, and what else."""
    if n_checks == 0:
        return "Show the protocol"
    checks = "the check" if n_checks == 1 else f"the {n_checks} checks"
    return f"Show {checks} (all passed: ✓), with their protocol"


def fold(section: nodes.section) -> bool:
    """Wrap what follows the section's title and opening paragraphs in one dropdown; False when nothing follows."""
    body = list(section.children[1:])
    lead = 0
    while lead < len(body) and isinstance(body[lead], nodes.paragraph):
        lead += 1
    if lead == len(body):
        return False
    opening = (
        '<details class="sd-sphinx-override sd-dropdown sd-card sd-mb-3 pg-reproducibility">'
        '<summary class="sd-summary-title sd-card-header">'
        f'<span class="sd-summary-text">{summary_text(count_checks(section))}</span>'
        f'<span class="sd-summary-state-marker sd-summary-chevron-right">{_CHEVRON}</span></summary>'
        '<div class="pg-reproducibility-body">'
    )
    section.insert(1 + lead, nodes.raw("", opening, format="html"))
    section.append(nodes.raw("", "</div></details>", format="html"))
    return True


def fold_page(doctree: nodes.Node, builder_format: str, builder_name: str) -> int:
    """Fold every section titled "Reproducibility" in an HTML page (not the single page the PDF prints); how many."""
    if builder_format != "html" or builder_name == "singlehtml":
        return 0
    sections = [s for s in doctree.findall(nodes.section) if s.children and s[0].astext().strip() == TITLE]
    return sum(fold(section) for section in sections)


def _on_resolved(app, doctree, docname):
    fold_page(doctree, app.builder.format, app.builder.name)


def setup(app):
    app.add_js_file(None, body=_OPEN_TARGET)
    app.connect("doctree-resolved", _on_resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
