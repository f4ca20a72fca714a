"""A ``{chapter-facts}`` directive: one row per chapter with facts read from the book itself, never typed.

For every notebook in the table of contents (in reading order): its number and title (a link), its reading time
(:func:`reading_minutes`: the prose at ``PROSE_RATE`` words a minute, the definitions, theorems and proofs at
``PROOF_RATE``; exercises and their solutions are lab time, not reading time), both for the page as it opens (its
dropdowns and its Reproducibility section folded: :func:`as_it_opens`) and with everything unfolded, the number
of exercises
(``{exercise}`` directives), the visible code lines (code cells not folded or removed), and the execution time of the
build that produced the page (from myst-nb's execution data, as in ``{nb-exec-table}``). The table is filled in after
every document has been executed, so its times are this build's.

A second directive, ``{chapter-objectives}``, lists each chapter's "After this chapter you can" objectives, read from
the chapter itself, for a course plan.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from myst_nb.sphinx_ import NbMetadataCollector
from sphinx.addnodes import pending_xref
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

KEY = "has_chapter_facts"
FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}
WORD = re.compile(r"[A-Za-z0-9][\w'-]*")
EXERCISE = re.compile(r"^[`:]{3,}\{exercise\}[ \t]*(★*)", re.M)
# Reading rates (words a minute) for technical prose: about half of the 200 or more of ordinary prose for the running
# text, and half again for definitions, theorems and proofs, which a student reads with pencil and paper. A displayed
# equation counts as EQUATION_WORDS words at the slow rate (half a minute), inline math as one word.
PROSE_RATE, PROOF_RATE, EQUATION_WORDS = 100, 50, 25
_BLOCK = re.compile(r"^(`{3,}|:{3,})\{([\w:-]+)\}.*?^\1\s*$", re.M | re.S)
_SLOW = ("prf:", "proof")
_REPRODUCIBILITY = re.compile(r"^## Reproducibility\s*\n(.*?)(?=^## |\Z)", re.M | re.S)
# a gated solution (sphinx-exercise's solution-start ... solution-end): lab time, like a {solution} block
_GATED = re.compile(r"^[`:]{3,}\{solution-start\}.*?^[`:]{3,}\{solution-end\}[^\n]*\n[`:]{3,}[ \t]*$", re.M | re.S)
_LAB = ("exercise", "solution")


class ChapterFactsNode(nodes.General, nodes.Element):
    """Placeholder, replaced by the table once every chapter has been executed."""


class ChapterFacts(SphinxDirective):
    def run(self):
        NbMetadataCollector.set_doc_data(self.env, self.env.docname, KEY, True)
        return [ChapterFactsNode()]


def reading_minutes(markdown: str) -> float:
    """Minutes to read a page's Markdown: definitions, theorems and proofs (``{prf:...}`` and ``{proof}`` blocks) at
    ``PROOF_RATE`` words a minute, exercises and solutions not at all, the rest at ``PROSE_RATE``; each displayed
    equation outside exercises as ``EQUATION_WORDS`` words at ``PROOF_RATE``."""
    markdown = _GATED.sub(" ", markdown)  # solutions are lab time, not reading time
    lab_text = "".join(m.group(0) for m in _BLOCK.finditer(markdown) if m.group(2) in _LAB)
    equations = len(re.findall(r"\$\$.*?\$\$", markdown, flags=re.S)) - len(re.findall(r"\$\$.*?\$\$", lab_text, re.S))
    text = re.sub(r"\$\$.*?\$\$", " ", markdown, flags=re.S)
    slow = lab = 0
    for m in _BLOCK.finditer(text):
        words = len(WORD.findall(re.sub(r"\$[^$\n]*\$", " ", m.group(0))))
        slow += words if m.group(2).startswith(_SLOW) else 0
        lab += words if m.group(2) in _LAB else 0
    total = len(WORD.findall(re.sub(r"\$[^$\n]*\$", " ", text)))
    return (total - slow - lab) / PROSE_RATE + (slow + EQUATION_WORDS * equations) / PROOF_RATE


def as_it_opens(markdown: str) -> str:
    """A page's Markdown without what opens folded: its ``## Reproducibility`` section and its dropdowns (a
    ``{dropdown}`` block, or a block whose ``:class:`` includes ``dropdown``)."""
    text = _REPRODUCIBILITY.sub(lambda m: "## Reproducibility\n" + _opening(m.group(1)), _GATED.sub(" ", markdown))
    return _BLOCK.sub(lambda m: "" if _folded(m.group(0), m.group(2)) else m.group(0), text)


def _opening(section: str) -> str:
    """The paragraphs a folded Reproducibility section still shows: those before its first other block."""
    shown = []
    for block in re.split(r"\n\s*\n", section.strip()):
        if re.match(r"\s*([`:]{3}|[(*|#-])", block):
            break
        shown.append(block)
    return "\n\n".join(shown) + "\n"


def _folded(block: str, kind: str) -> bool:
    """Whether a directive block opens folded."""
    head = block.split("\n\n", 1)[0]  # the directive's own options, not a nested one's
    if re.search(r"^:open:", head, re.M):
        return False
    options = re.search(r"^:class:([^\n]*)$", head, re.M)
    return kind == "dropdown" or bool(options and "dropdown" in options.group(1).split())


def objectives(markdown: str) -> list[str]:
    """The bullets of a page's "After this chapter you can" list (each as Markdown, continuation lines joined)."""
    m = re.search(r"After this chapter you can[^\n]*\n", markdown)
    if not m:
        return []
    items: list[str] = []
    for line in markdown[m.end() :].splitlines():
        if re.match(r"\s*[*-] ", line):
            items.append(re.sub(r"^\s*[*-] ", "", line).strip())
        elif line.startswith("  ") and items:
            items[-1] += " " + line.strip()
        elif line.strip() or items:
            break
    return items


def notebook_facts(path: Path) -> dict:
    """Reading minutes, exercises and visible code lines of one stored notebook."""
    cells = json.loads(path.read_text())["cells"]
    markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    visible = [
        "".join(c["source"])
        for c in cells
        if c["cell_type"] == "code" and not set(c.get("metadata", {}).get("tags", [])) & FOLDED
    ]
    return {
        "minutes": reading_minutes(markdown),
        "minutes as it opens": reading_minutes(as_it_opens(markdown)),
        "exercises": len(EXERCISE.findall(markdown)),
        "by difficulty": [sum(len(stars) == k for stars in EXERCISE.findall(markdown)) for k in (1, 2, 3)],
        "code": sum(1 for source in visible for line in source.splitlines() if line.strip()),
    }


def _entry(*children):
    paragraph = nodes.paragraph()
    paragraph.extend(children)
    return nodes.entry("", paragraph)


def make_table(env, parent: str) -> nodes.table:
    headers = ["chapter", "reading as it opens (min)", "everything unfolded (min)", "exercises (★/★★/★★★)",
               "visible code lines", "execution (s)"]
    table = nodes.table(classes=["colwidths-auto"])
    group = nodes.tgroup(cols=len(headers))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in headers)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body
    row = nodes.row()
    row.extend(_entry(nodes.Text(h)) for h in headers)
    head += row
    data = NbMetadataCollector.get_doc_data(env)
    for docname in _reading_order(env):
        path = Path(env.doc2path(docname))
        if path.suffix != ".ipynb":
            continue
        facts = notebook_facts(path)
        exec_data = data.get(docname, {}).get("exec_data") or {}
        runtime = exec_data.get("runtime")
        link = pending_xref(
            refdoc=parent,
            reftarget=posixpath.relpath(docname, posixpath.dirname(parent)),
            reftype="doc",
            refdomain="std",
            refexplicit=False,
            refwarn=True,
            classes=["xref", "doc"],
        )
        link += nodes.inline(text=docname)
        row = nodes.row()
        row += _entry(link)
        row += _entry(nodes.Text(f"{facts['minutes as it opens']:.0f}"))
        row += _entry(nodes.Text(f"{facts['minutes']:.0f}"))
        row += _entry(nodes.Text(f"{facts['exercises']} ({'/'.join(map(str, facts['by difficulty']))})"))
        row += _entry(nodes.Text(str(facts["code"])))
        row += _entry(nodes.Text("–" if runtime is None else f"{runtime:.0f}"))
        body += row
    return table


def _reading_order(env):
    """Documents in table-of-contents order (sphinx-external-toc's site map), else sorted."""
    site_map = getattr(env, "external_site_map", None)
    if site_map is None:
        return sorted(env.found_docs)
    order = []

    def walk(docname):
        if docname in order:
            return
        order.append(docname)
        for subtree in site_map[docname].subtrees:
            for item in subtree.items:
                if isinstance(item, str):
                    walk(item)

    walk(site_map.root.docname)
    return order


class ChapterObjectives(SphinxDirective):
    """Each chapter's objectives, read from the chapter: a heading line per chapter and its bullets."""

    def run(self):
        lines = []
        for docname in _reading_order(self.env):
            path = Path(self.env.doc2path(docname))
            if path.suffix != ".ipynb":
                continue
            cells = json.loads(path.read_text())["cells"]
            items = objectives("\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown"))
            if items:
                target = posixpath.relpath(docname, posixpath.dirname(self.env.docname))
                lines += [f"**{{doc}}`{target}`**: after it a student can", ""]
                lines += [f"* {item}" for item in items] + [""]
        container = nodes.container(classes=["chapter-objectives"])
        self.state.nested_parse(StringList(lines, source="chapter-objectives"), self.content_offset, container)
        return [container]


class ChapterFactsTransform(SphinxPostTransform):
    default_priority = 8  # before references are resolved

    def run(self, **kwargs):
        for node in list(self.document.findall(ChapterFactsNode)):
            node.replace_self(make_table(self.env, self.env.docname))


def _outdated(app, env):
    if not NbMetadataCollector.new_exec_data(env):
        return None
    return [d for d, data in NbMetadataCollector.get_doc_data(env).items() if data.get(KEY)]


def setup(app):
    app.add_node(ChapterFactsNode)
    app.add_directive("chapter-facts", ChapterFacts)
    app.add_directive("chapter-objectives", ChapterObjectives)
    app.connect("env-updated", _outdated)
    app.add_post_transform(ChapterFactsTransform)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
