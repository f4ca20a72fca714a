"""Number the figures, tables, exercises and theorems of an unnumbered page on their own, with a letter: P.1, A.1.

Sphinx numbers an item on a numbered chapter by the chapter (Fig. 3.1, Exercise 5.2), but every page outside the
numbered parts shares one counter per kind: the primer's figures were Fig. 1 to 6 and the appendix's only figure
Fig. 7, so "Fig. 7" in a list of Fig. 7.1 and Fig. 8.1 named neither its page nor its place. After Sphinx has numbered
everything (``env-get-updated``), this extension renumbers each unnumbered page's items from 1 under the page's letter
in ``PREFIXES``. An unnumbered page with numbered items and no letter is a build warning (an error under ``-W``).

A companion section filed under a chapter (``COMPANIONS``: every convention, estimation and checks under Chapter 3, the
sinusoid section under Chapter 5, the verdicts in every convention and the checks under Chapter 7) would be numbered
after the chapter's exercises (3.9, its figures 3.3 on); it is numbered as itself instead, 3b with sections 3b.1,
3b.2 and items Fig. 3b.1, Exercise 3b.1, everywhere a number is printed.
"""

from __future__ import annotations

from sphinx.util import logging

logger = logging.getLogger(__name__)

PREFIXES = {
    "book/primer_encodings": "P",
    "book/primer_attention": "M",
    "book/primer_estimation": "E",
    "book/appendix_ntk": "A",
    "book/lab_numpy": "L",
    "book/lab_attention": "T",
}
COMPANIONS = {"book/03_real_text": "3a", "book/03b_estimating_distances": "3b", "book/03c_checking_the_verdict": "3c",
              "book/05b_sinusoid": "5b", "book/07_stress_of_encodings": "7a",
              "book/07b_checking_the_verdicts": "7b"}


def prefix_numbers(fignumbers, secnumbers, prefixes):
    """Renumber the items of unnumbered documents as ``(letter, k)``; return the documents whose numbers changed."""
    changed = []
    for docname, by_type in fignumbers.items():
        if secnumbers.get(docname) or not any(by_type.values()):
            continue
        if docname not in prefixes:
            logger.warning(f"{docname} is outside the numbered chapters but numbers figures or exercises, which "
                           f"would share one counter with every such page: give it a letter in PREFIXES of {__name__}")
            continue
        for figtype, numbers in by_type.items():
            in_order = sorted(numbers, key=numbers.get)
            by_type[figtype] = {ident: (prefixes[docname], k) for k, ident in enumerate(in_order, start=1)}
        changed.append(docname)
    return changed


def companion_numbers(fignumbers, secnumbers, companions):
    """Number each companion's sections ``(label, ...)`` after its own number, its items ``(label, k)``; return them."""
    changed = []
    for docname, label in companions.items():
        sections = secnumbers.get(docname)
        if not sections or not sections.get(""):
            continue
        base = tuple(sections[""])
        secnumbers[docname] = {a: (label, *n[len(base):]) if tuple(n[:len(base)]) == base else n
                               for a, n in sections.items()}
        for figtype, numbers in fignumbers.get(docname, {}).items():
            in_order = sorted(numbers, key=numbers.get)
            fignumbers[docname][figtype] = {ident: (label, k) for k, ident in enumerate(in_order, start=1)}
        changed.append(docname)
    return changed


def _renumber(app, env):
    changed = prefix_numbers(env.toc_fignumbers, env.toc_secnumbers, PREFIXES)
    before = {d: dict(env.toc_secnumbers.get(d, {})) for d in COMPANIONS}
    done = companion_numbers(env.toc_fignumbers, env.toc_secnumbers, COMPANIONS)
    for docname in done:
        old, new = before[docname], env.toc_secnumbers[docname]
        swap = {tuple(old[a]): list(new[a]) for a in old}
        for node in [*env.tocs[docname].findall(), env.titles.get(docname)]:
            number = node.get("secnumber") if node is not None and hasattr(node, "get") else None
            if number and tuple(number) in swap:
                node["secnumber"] = swap[tuple(number)]
    return changed + done


def setup(app):
    app.connect("env-get-updated", _renumber, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
