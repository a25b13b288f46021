"""The chat's "Gate" table shows each candidate passage as the page reads it, not as Markdown."""

from __future__ import annotations

from apps.chat.models import ContextItem
from apps.chat.services.chat import item_payload


def test_the_gate_shows_a_passage_without_table_pipes_callout_marks_or_task_boxes():
    passage = (
        "> [!tip]- Proofing\n> - [x] Fold the dough\n> - [ ] Shape the loaves\n\n"
        "| Step | Time |\n| --- | ---: |\n| Proof | 2 h |\n| Bake | 40 min |"
    )
    item = ContextItem(text=passage, title="Bread", heading="Bread")
    assert item_payload(item, {})["readable"] == (
        "Proofing Fold the dough Shape the loaves Step · Time; Proof · 2 h; Bake · 40 min"
    )
