"""The teaching page's labs match the book: one 90-minute lab for every chapter, section and primer notebook."""

from __future__ import annotations

import re
from pathlib import Path

BOOK = Path(__file__).resolve().parents[2] / "book"
LABS = {  # notebook -> how its lab's title begins
    "primer_encodings": "Primer · positional encodings",
    "primer_attention": "Primer · position inside attention",
    "primer_estimation": "Primer · estimating distances",
    "02_positional_distributions": "Chapter 2 ·",
    "03_text_geometry": "Chapter 3 ·",
    "03_real_text": "Chapter 3a ·",
    "03b_estimating_distances": "Chapter 3b ·",
    "03c_checking_the_verdict": "Chapter 3c ·",
    "01_necessity": "Chapter 1 ·",
    "04_separation": "Chapter 4 ·",
    "05_mds_stress": "Chapter 5 ·",
    "05b_sinusoid": "Chapter 5b ·",
    "06_minimal_parametrisation": "Chapter 6 ·",
    "07_encodings_in_use": "Chapter 7 ·",
    "07_stress_of_encodings": "Chapter 7a ·",
    "07b_checking_the_verdicts": "Chapter 7b ·",
    "08_monotonicity": "Chapter 8 ·",
    "09_stress_vs_accuracy": "Chapter 9 ·",
    "10_your_corpus": "Chapter 10 ·",
    "appendix_ntk": "Appendix ·",
    "lab_numpy": "Lab · the geometry in NumPy",
    "lab_attention": "Lab · position inside attention, in PyTorch",
}


def _lab_titles() -> list[str]:
    text = (BOOK / "teaching.md").read_text(encoding="utf-8")
    section = text.split("## A 90-minute lab for each chapter", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^````\{dropdown\} (.+)$", section, flags=re.M)


def test_every_notebook_has_one_lab_and_every_lab_a_notebook():
    notebooks = {p.stem for p in BOOK.glob("*.ipynb")}
    assert notebooks == set(LABS), (
        f"notebooks without a lab entry here: {notebooks - set(LABS)}; stale: {set(LABS) - notebooks}"
    )
    titles = _lab_titles()
    for stem, start in LABS.items():
        hits = [t for t in titles if t.startswith(start)]
        assert len(hits) == 1, f"{stem}: expected one lab titled '{start} …' in teaching.md, found {hits}"
    orphans = [t for t in titles if not any(t.startswith(s) for s in LABS.values())]
    assert not orphans, f"labs for no notebook in teaching.md: {orphans}"
