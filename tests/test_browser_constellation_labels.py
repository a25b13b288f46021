"""The constellation's community labels, on a real vault's notes in headless Chromium: none overlaps another or
leaves the drawing, on a wide screen and a phone, and a label cut short shows its whole name on hover."""

from __future__ import annotations

import pytest

from apps.graph.communities import communities_detect
from apps.graph.models import Community
from apps.graph.services import graph_extract_pending
from tests.browser import ARTIFACTS
from tests.corpora import CORPORA
from tests.factories import PASSWORD, make_note, make_user, make_vault

# Every label shown, and the drawing's box, in the page's pixels.
LABELS = """() => {
    const sky = document.getElementById("sky").getBoundingClientRect();
    const labels = [...document.querySelectorAll(".constellation-label")].filter((label) => !label.hidden)
        .map((label) => {
            const box = label.getBoundingClientRect();
            return {text: label.textContent, title: label.title, left: box.left, top: box.top, right: box.right,
                    bottom: box.bottom};
        });
    return {sky: {left: sky.left, top: sky.top, right: sky.right, bottom: sky.bottom}, labels};
}"""


def _apart_and_inside(drawn: dict) -> None:  # type: ignore[type-arg]
    sky, labels = drawn["sky"], drawn["labels"]
    for label in labels:
        assert label["left"] >= sky["left"] and label["right"] <= sky["right"], label
        assert label["top"] >= sky["top"] and label["bottom"] <= sky["bottom"], label
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            apart = (
                a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"]
            )
            assert apart, (a, b)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_community_labels_never_overlap_or_leave_the_drawing(live_server, page):
    owner = make_user("label-reader")
    vault = make_vault(owner, "foam-docs")
    root = CORPORA / "foam-docs"
    for path in sorted((root / "user" / "features").glob("*.md")):
        make_note(vault, str(path.relative_to(root)), path.read_text(), embed=False)
    graph_extract_pending(vault_id=vault.pk)
    communities_detect(vault_id=vault.pk)
    names = set(Community.objects.filter(vault=vault).values_list("name", flat=True))

    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/login/?next=/vaults/{vault.pk}/constellation/")
    page.fill("input[name=username]", owner.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.locator("#constellation[data-drawn]").wait_for()
    wide = page.evaluate(LABELS)
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#sky").screenshot(path=str(ARTIFACTS / "constellation-labels-1366.png"))
    assert len(wide["labels"]) >= 4, wide
    assert all(label["title"] in names for label in wide["labels"])  # the whole name, on hover
    assert all(label["text"] == label["title"] for label in wide["labels"])  # cut by the page, never in the text
    _apart_and_inside(wide)

    page.set_viewport_size({"width": 390, "height": 844})  # the labels are placed again for the narrower drawing
    width = page.evaluate("() => document.getElementById('sky').clientWidth")
    page.locator(f"#sky[data-labelled='{width}']").wait_for()
    narrow = page.evaluate(LABELS)
    page.locator("#sky").screenshot(path=str(ARTIFACTS / "constellation-labels-390.png"))
    assert narrow["labels"], narrow
    _apart_and_inside(narrow)
