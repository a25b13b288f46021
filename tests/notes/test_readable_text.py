"""A passage quoted as text on a card or in the answer picker reads as its page shows it."""

from __future__ import annotations

from apps.notes.text import readable_text


def test_a_link_reads_as_its_label_and_a_link_written_in_code_stays_as_written():
    passage = (
        "See [the install guide](https://example.org/install) first.\n"
        "- Write `[label](https://example.org)` to link, or **bold** for emphasis."
    )
    assert readable_text(passage) == (
        "See the install guide first. Write [label](https://example.org) to link, or bold for emphasis."
    )
