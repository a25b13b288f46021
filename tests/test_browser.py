"""A person logs in, searches, opens a note and follows its links, and chats with a vault, in headless Chromium."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from apps.chat.models import Conversation, Message, Role
from apps.feedback.models import Feedback
from apps.graph.models import WeightChange
from tests.browser import ARTIFACTS
from tests.factories import PASSWORD, api, import_sample, make_note, make_user, make_vault, share

SIZES = ((1366, 900), (390, 844))
SEVERE = ("serious", "critical")


def _log_in(page, user) -> None:  # type: ignore[no-untyped-def]
    """On the login page a protected address sent the browser to (or /login/ itself)."""
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")


def _accessible_in_both_themes(page, name: str, sizes=SIZES) -> None:  # type: ignore[no-untyped-def]
    """Runs axe-core on the page as it stands, in the light and the dark theme at each size, and keeps a screenshot
    of each under test-artifacts/pages/; fails on any serious or critical finding. The page's size is put back."""
    folder = ARTIFACTS / "pages"
    folder.mkdir(parents=True, exist_ok=True)
    before = page.viewport_size
    if not page.evaluate("typeof window.axe === 'object'"):
        from django.templatetags.static import static

        page.add_script_tag(url=static("vendor/axe-core/axe.min.js"))  # from this site, as the page policy allows
    found = {}
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            found[f"{theme} {width}x{height}"] = page.evaluate(
                """async (severe) => (await axe.run(document, {resultTypes: ["violations"]})).violations
                    .filter((v) => severe.includes(v.impact))
                    .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`)""",
                list(SEVERE),
            )
            page.screenshot(path=str(folder / f"{name}-{theme}-{width}x{height}.png"), full_page=True)
    page.emulate_media(color_scheme="light")
    page.set_viewport_size(before)
    assert not any(found.values()), (name, {where: problems for where, problems in found.items() if problems})


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_log_in_search_open_a_note_and_follow_links(live_server, page):
    user = make_user("reader-in-browser")
    vault = make_vault(user, "Kitchen")
    make_note(vault, "Starter.md", "# Sourdough Starter\nFeed it daily. Used by [[Country Loaf]].\n")
    make_note(
        vault,
        "Country Loaf.md",
        "# Country Loaf\nNeeds the [[Sourdough Starter]] at 220 °C, and "
        "[[Missing Note]].\n<script>document.title='pwned'</script>\n",
    )

    page.goto(f"{live_server.url}/")
    assert "/login/" in page.url
    _accessible_in_both_themes(page, "login")
    _log_in(page, user)

    page.fill("input[name=q]", "220 °C loaf")
    page.click(".searchbar button")
    first = page.locator(".hit .title").first
    assert first.inner_text() == "Country Loaf"
    assert page.locator(".hit mark").count() >= 1  # matched words are highlighted
    _accessible_in_both_themes(page, "search")

    first.click()
    assert page.locator("article .body a", has_text="Sourdough Starter").count() == 1
    assert page.locator("a.unresolved", has_text="Missing Note").count() == 1
    assert page.title() != "pwned"  # a note's HTML is shown as text, never run
    _accessible_in_both_themes(page, "note-links")
    page.locator("article .body a", has_text="Sourdough Starter").click()
    assert page.locator("article h1").inner_text() == "Sourdough Starter"
    assert page.locator("aside a", has_text="Country Loaf").count() >= 1  # backlink


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_bad_query_shows_a_clear_message(live_server, page):
    user = make_user("impatient")
    page.goto(f"{live_server.url}/login/")
    _log_in(page, user)
    page.goto(f"{live_server.url}/?q=%20%20")
    assert "empty" in page.locator("[role=alert]").inner_text()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_chat_streams_a_cited_answer_says_when_the_vault_had_nothing_and_takes_feedback(
    live_server, page, answer_worker, worker_models
):
    owner = make_user("asker")
    vault = make_vault(owner, "Sample vault")
    import_sample(vault)
    page.goto(f"{live_server.url}/chat/")
    _log_in(page, owner)

    page.check("label.vault:has-text('Sample vault') input")
    page.fill("#message", "What is a PTW and when do I need one?")
    page.click("#send")
    first = page.locator(".turn").nth(0)
    first.locator(".badge.grounded").wait_for()
    assert "PTW" in first.locator(".answer").inner_text()
    assert first.locator(".answer a.cite").count() >= 1
    assert first.locator(".research").count() == 0  # one ordinary search: the judge's reasoning is not shown
    assert "No deep research" not in first.inner_text()
    # the new conversation is listed at once, the placeholder gone, without a reload
    assert page.locator("ul.conversations li.current a").inner_text() == "What is a PTW and when do I need one?"
    assert page.locator("ul.conversations li").count() == 1
    listed_now = page.locator("ul.conversations li.current time").inner_text()
    served = page.request.get(f"{live_server.url}/chat/").text()  # the same list as the server writes it
    assert re.search(r'<time class="muted small"[^>]*>([^<]+)</time>', served)[1] == listed_now
    first.locator("details.gate summary").click()
    rated = first.locator("details.gate tr").count() - 1
    passages = first.locator("details.gate td:nth-child(4)").all_inner_texts()
    assert passages and not any("**" in text or "[[" in text or text.startswith("#") for text in passages)
    assert rated > first.locator("ol.sources li").count() >= 1  # every candidate is listed with its score
    # each source shows its [n] once: no list number in front of it
    first_source = first.locator("ol.sources li").first
    assert first_source.locator("a.source-link").inner_text().startswith("[1] ")
    assert first_source.evaluate("li => getComputedStyle(li).listStyleType") == "none"

    first.locator("ol.sources li").first.locator("button[data-signal=confirm]").click()
    first.locator("button.chip.pressed").wait_for()
    vote = Feedback.objects.get()
    assert (vote.signal, vote.user_id, vote.context_item.path) == ("confirm", owner.pk, "ops/Permit to Work.md")

    page.fill("#message", "What is the capital of Mongolia?")
    page.click("#send")
    second = page.locator(".turn").nth(1)
    second.locator(".badge.fallback").wait_for()
    assert second.locator(".badge.fallback").inner_text().startswith("Not from your notes")
    assert second.locator(".answer").inner_text().startswith("Nothing in Sample vault answers this.")
    assert "null" not in second.locator(".reply").inner_text()
    _accessible_in_both_themes(page, "chat")

    # A "why" question is researched by the worker while the page watches: the judge's verdict shows while the
    # (scripted, slow) planner thinks, then each dispatch; the best sub-questions become exploration paths. (The
    # Librarian is off so that nothing it files calls the same scripted model.)
    vault.chat_settings = {"models": {"reasoning": "openai/scripted-planner"}, "librarian": False}
    vault.save(update_fields=["chat_settings"])
    plan = {"sub_questions": ["What caused the Redis outage?", "What changed after the Redis outage?"]}
    worker_models.replies[:] = [{"delay": 2, "content": json.dumps(plan)}]
    page.fill("#message", "Why did the Redis outage happen and what changed after it?")
    page.click("#send")
    third = page.locator(".turn").nth(2)
    third.locator(".research summary", has_text="Deep research:").wait_for()
    assert third.locator(".badge").count() == 0  # progress is shown before the answer exists
    third.locator(".badge.grounded").wait_for()
    assert third.locator(".research .dispatch").count() >= 1
    assert not third.locator("details.research").evaluate("log => log.open")  # the plan is kept, folded
    assert "Redis Outage Postmortem" in third.locator("ol.sources").inner_text()
    # Each passage that passed is listed; the ones the answer does not cite say so.
    cited = set(re.findall(r"\[(\d+)\]", third.locator(".answer").inner_text()))
    for entry in third.locator("ol.sources > li").all():
        number = re.match(r"\[(\d+)\]", entry.inner_text()).group(1)
        assert ("not quoted in the answer" in entry.inner_text()) == (number not in cited), entry.inner_text()
    assert third.locator(".paths button.path").count() == 2

    # A second one is skipped while the planner is still thinking: the answer comes from an ordinary search.
    worker_models.replies[:] = [{"delay": 8, "content": json.dumps(plan)}]
    page.fill("#message", "Why do we need a permit to work, and how does it compare with a risk assessment?")
    page.click("#send")
    fourth = page.locator(".turn").nth(3)
    fourth.locator("button.skip").click()
    fourth.locator(".badge").wait_for()
    assert "Deep research was skipped" in fourth.locator(".extras").inner_text()
    assert fourth.locator(".research .dispatch").count() == 0
    assert "skipped" in fourth.locator(".paths").inner_text()
    answered = Message.objects.get(pk=Message.objects.filter(role="assistant").latest("id").pk)
    assert answered.research["cancelled"] and answered.research["dispatches"] == 0

    # An exploration path fills the box and waits for the user: nothing is sent.
    chosen = third.locator(".paths button.path").first
    chosen.click()
    assert page.input_value("#message") == "What caused the Redis outage?"
    assert page.locator(".turn").count() == 4
    _accessible_in_both_themes(page, "chat-research")

    # The conversation is kept: reloading shows every turn; a citation opens its note.
    page.reload()
    assert page.locator(".turn").count() == 4

    # A courtesy question is small talk: nothing searched, and no answer to point to.
    page.fill("#message", "hello, how are you?")
    page.click("#send")
    fifth = page.locator(".turn").nth(4)
    fifth.locator(".badge.fallback").wait_for()
    assert fifth.locator(".badge.fallback").inner_text().startswith("Casual message")
    assert fifth.locator("button.answers-open").count() == 0
    assert page.locator(".turn").nth(0).locator("button.answers-open").count() == 1

    # The keyboard: letters typed in the ask box stay there; outside it j/k and ]/[ walk the citations, "/" goes
    # back to the box and "?" opens the list of shortcuts.
    page.fill("#message", "")
    page.locator("#message").press("j")
    assert page.input_value("#message") == "j"
    page.fill("#message", "")
    page.locator("#message").blur()
    citations = page.locator("a.cite")
    assert citations.count() >= 2
    focused = "el => el === document.activeElement"
    page.keyboard.press("j")
    assert citations.nth(0).evaluate(focused)
    page.keyboard.press("]")
    assert citations.nth(1).evaluate(focused)
    page.keyboard.press("k")
    assert citations.nth(0).evaluate(focused)
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"  # focus is seen
    page.keyboard.press("/")
    assert page.locator("#message").evaluate(focused) and page.input_value("#message") == ""
    page.locator("#message").blur()
    page.keyboard.press("?")
    assert page.locator("#shortcuts-help").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#shortcuts-help").is_visible()
    page.locator(".turn").nth(0).locator(".answer a.cite").first.click()
    page.wait_for_url("**/notes/**")
    assert page.locator("article h1").inner_text() == "Permit to Work"


def _asked_of_the_sample(live_server, page, username: str, question: str):  # type: ignore[no-untyped-def]
    """A new user's question to the sample vault, answered through the API; its conversation open in the browser."""
    owner = make_user(username)
    vault = make_vault(owner, "Sample vault")
    import_sample(vault)
    reply = api(owner).post("/api/chat/", {"vaults": [vault.pk], "message": question}, format="json").json()
    page.goto(f"{live_server.url}/chat/?c={reply['conversation']}")
    _log_in(page, owner)
    return owner, reply


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_source_rated_below_the_threshold_says_it_passed_in_the_search_order(live_server, page):
    _, reply = _asked_of_the_sample(live_server, page, "wikilinker", "how do wikilinks find the note they point to")
    assert reply["gate"]["passed_by"] == "search order"
    turn = page.locator(".turn").nth(0)
    turn.locator("ol.sources > li").first.wait_for()
    lines = turn.locator("ol.sources > li > a.source-link + span").all_inner_texts()
    ratings = [int(re.search(r"relevance (\d)/5", line)[1]) for line in lines]
    assert min(ratings) < 3  # among notes, the search's order let a passage below the threshold through
    for rating, line in zip(ratings, lines, strict=True):
        assert (rating < 3) == ("passed in the search's order" in line), line
    turn.locator("details.gate summary").click()
    assert "close in meaning" in turn.locator("details.gate summary").inner_text()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_research_plan_counts_the_steps_it_lists_and_says_how_many_it_hid(live_server, page):
    owner, reply = _asked_of_the_sample(live_server, page, "comparer", "Compare the focaccia and the sourdough recipes")
    # Two steps searched; the second only reworded the question and found nothing new, so it is not listed.
    assert (reply["research"]["dispatches"], reply["research"]["hidden"]) == (2, 1)
    plan = page.locator(".turn details.plan")
    plan.locator("summary").click()
    assert plan.locator("summary").inner_text() == (
        "Deep research: 1 of 1 step(s) searched, and 1 not listed that only reworded the question and found nothing new"
    )
    assert plan.locator("li").all_inner_texts() == ["What about the focaccia"]

    # Two steps in a row that found nothing new stop the run: the steps left are listed as not searched.
    cheese = make_vault(owner, "Cheese")
    for i in range(3):
        make_note(cheese, f"n{i}.md", f"# Note {i}\nBread, cheese and wine number {i}.\n")
    question = "Compare Anna, Bruno, Carla and Dario on cheese"
    reply = api(owner).post("/api/chat/", {"vaults": [cheese.pk], "message": question}, format="json").json()
    page.goto(f"{live_server.url}/chat/?c={reply['conversation']}")
    plan = page.locator(".turn details.plan")
    plan.locator("summary").click()
    assert plan.locator("summary").inner_text() == (
        "Deep research: 0 of 2 step(s) searched, and 2 not listed that only reworded the question and found nothing new"
    )
    assert plan.locator("li").all_inner_texts() == [
        "What about Carla on cheese (not searched)",
        "What about Dario on cheese (not searched)",
    ]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_reopened_conversation_ticks_its_vaults_and_a_follow_up_stays_in_them(live_server, page):
    owner = make_user("returning-asker")
    kitchen = make_vault(owner, "Kitchen")
    make_note(kitchen, "Bread.md", "# Bread\nBread dough rests for an hour before baking.")
    garden = make_vault(owner, "Garden")
    make_note(garden, "Beds.md", "# Beds\nThe raised beds rest over winter under straw.")
    page.goto(f"{live_server.url}/chat/")
    _log_in(page, owner)
    page.check("label.vault:has-text('Kitchen') input")
    page.fill("#message", "How long does bread dough rest?")
    page.click("#send")
    first = page.locator(".turn").nth(0)
    first.locator(".badge.grounded").wait_for()
    first.locator("ol.sources li").first.locator("button[data-signal=confirm]").click()
    first.locator("button.chip.pressed").wait_for()
    conversation = Conversation.objects.get(owner=owner)

    page.goto(f"{live_server.url}/chat/?c={conversation.pk}")
    assert page.locator("label.vault:has-text('Kitchen') input").is_checked()
    kept = page.locator(".turn").nth(0).locator("ol.sources li").first.locator("button[data-signal=confirm]")
    assert kept.get_attribute("aria-pressed") == "true" and "pressed" in (kept.get_attribute("class") or "")
    assert not page.locator("label.vault:has-text('Garden') input").is_checked()
    page.fill("#message", "and what rests over winter?")
    page.locator("#message").press("Control+Enter")
    page.locator(".turn").nth(1).locator(".badge").wait_for()
    follow_up = Message.objects.filter(conversation=conversation, role=Role.ASSISTANT).last()
    assert follow_up is not None and follow_up.vault_ids == [kitchen.pk]
    assert not follow_up.context.filter(vault=garden).exists()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_constellation_draws_the_sample_vault_and_a_confirmed_edge_grows(live_server, page):
    from apps.chat.models import ContextItem
    from apps.graph.communities import communities_detect
    from tests.factories import api

    owner = make_user("stargazer")
    vault = make_vault(owner, "Sample vault")
    import_sample(vault)
    communities_detect(vault_id=vault.pk)
    page.goto(f"{live_server.url}/vaults/{vault.pk}/constellation/")
    _log_in(page, owner)
    page.locator("#constellation[data-drawn]").wait_for()
    drawn = page.evaluate("window.constellation")
    assert drawn["nodes"] > 100 and len(drawn["edges"]) > 100
    assert page.locator("#communities li").count() >= 2  # labelled clusters
    assert "communities (modularity" in page.locator("#constellation-status").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#sky").screenshot(path=str(ARTIFACTS / "constellation.png"))
    _accessible_in_both_themes(page, "constellation")
    (ARTIFACTS / "constellation.json").write_text(json.dumps({"drawn_ms": drawn["ms"], "nodes": drawn["nodes"]}))

    client = api(owner)
    reply = client.post(
        "/api/chat/", {"vaults": [vault.pk], "message": "What happened in the Redis outage?"}, format="json"
    ).json()
    walked = next(i for i in ContextItem.objects.filter(message_id=reply["message"]) if i.trace.get("edges"))
    vote = client.post("/api/feedback/", {"context_item": walked.pk, "signal": "confirm"}, format="json")
    assert vote.status_code == 201
    page.reload()
    page.locator("#constellation[data-drawn]").wait_for()
    after = {e["id"]: e for e in page.evaluate("window.constellation")["edges"]}
    before = {e["id"]: e for e in drawn["edges"]}
    confirmed = [e for e in walked.trace["edges"] if e in before and e in after]
    assert confirmed and all(after[e]["width"] > before[e]["width"] for e in confirmed)  # drawn stronger
    assert all(after[e]["hot"] for e in confirmed)  # and walked this week


def _screenshots(tmp_path: Path) -> Path:
    """Where screenshots go: DESIREPATH_SCREENSHOTS if set, else the test's own temporary folder."""
    folder = Path(os.environ.get("DESIREPATH_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_note_page_draws_math_diagrams_callouts_and_embeds_within_the_screen(live_server, page, tmp_path):
    user = make_user("obsidian-reader")
    vault = make_vault(user, "Physics")
    make_note(
        vault, "Euler.md", "# Euler\n\n## Identity\n\nThe most beautiful formula: $e^{i \\pi}+1=0$.\n", embed=False
    )
    wide = "| " + " | ".join(f"column {n}" for n in range(30)) + " |\n|" + "---|" * 30 + "\n"
    note = make_note(
        vault,
        "Lecture.md",
        "# Lecture\n\nInline $\\sqrt{a^2+b^2}$ and a block:\n\n$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\n"
        "> [!tip]- A folded hint\n> Hidden until opened.\n\n> [!warning] Mind the units\n> SI only.\n\n"
        "![[Euler#Identity]]\n\n```mermaid\ngraph TD\n  A[Question] --> B[Answer]\n```\n\n"
        f"```python\nprint('{'x' * 400}')\n```\n\n{wide}\n"
        "A long address: https://example.com/" + "segment/" * 40 + "\n\n<script>document.title='pwned'</script>\n",
        embed=False,
    )
    page.goto(f"{live_server.url}/notes/{note.pk}/")
    _log_in(page, user)
    folder = _screenshots(tmp_path)
    for width, height in ((1366, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_server.url}/notes/{note.pk}/")
        page.locator("article .body[data-diagrams-drawn]").wait_for()
        assert page.locator(".math-inline .katex").count() == 2  # one here, one in the embedded section
        assert page.locator(".math-display .katex-display").count() == 1
        assert page.locator("pre.mermaid svg").count() == 1
        assert "Question" in (page.locator("pre.mermaid svg").text_content() or "")
        assert page.locator("details.callout-tip summary", has_text="A folded hint").count() == 1
        assert not page.locator("details.callout-tip .callout-content").is_visible()  # folded
        assert page.locator("div.callout-warning .callout-title", has_text="Mind the units").count() == 1
        assert "The most beautiful formula" in page.locator(".embed .embed-content").inner_text()
        assert page.title() != "pwned"
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, (width, scroll_width)
        page.screenshot(path=str(folder / f"note-{width}x{height}.png"), full_page=True)
    _accessible_in_both_themes(page, "note-math")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_notes_diagram_is_drawn_again_in_the_theme_the_reader_picks(live_server, page):
    user = make_user("diagram-reader")
    vault = make_vault(user, "Flows")
    note = make_note(
        vault, "Flow.md", "# Flow\n\n```mermaid\ngraph TD\n  A[Question] --> B[Answer]\n```\n", embed=False
    )
    page.emulate_media(color_scheme="light")
    page.goto(f"{live_server.url}/notes/{note.pk}/")
    _log_in(page, user)
    page.goto(f"{live_server.url}/notes/{note.pk}/")
    body = page.locator("article .body[data-diagrams-theme=neutral]")
    body.wait_for()
    node = "pre.mermaid svg .node rect, pre.mermaid svg .node polygon"
    light_fill = page.locator(node).first.evaluate("el => getComputedStyle(el).fill")

    page.select_option("#theme-choice", "dark")
    page.locator("article .body[data-diagrams-theme=dark]").wait_for()
    assert page.locator("pre.mermaid svg").count() == 1  # drawn again, not beside the old one
    assert "Question" in (page.locator("pre.mermaid svg").text_content() or "")
    dark_fill = page.locator(node).first.evaluate("el => getComputedStyle(el).fill")
    assert dark_fill != light_fill

    page.select_option("#theme-choice", "system")  # the system is light: back to the light drawing
    page.locator("article .body[data-diagrams-theme=neutral]").wait_for()
    page.emulate_media(color_scheme="dark")  # the system turns dark while the page is open
    page.locator("article .body[data-diagrams-theme=dark]").wait_for()
    assert page.locator(node).first.evaluate("el => getComputedStyle(el).fill") == dark_fill


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_note_page_draws_its_embedded_image_and_pdf_on_a_phone(live_server, page, tmp_path):
    from apps.notes.models import Note
    from apps.notes.services.ingest import import_job_create, import_job_run
    from tests.notes.test_attachments import PDF, _zip, png

    user = make_user("photo-viewer")
    vault = make_vault(user, "Trips")
    archive = _zip(
        {
            "Trips/Lisbon.md": b"# Lisbon\n\nThe view from the castle:\n\n![[panorama.png]]\n\n![[tickets.pdf]]\n",
            "Trips/assets/panorama.png": png(1600, 40, seed=4),  # far wider than a phone
            "Trips/assets/tickets.pdf": PDF,
        }
    )
    import_job_run(job_id=import_job_create(actor=user, vault=vault, archive=archive, source="trips").pk)
    note = Note.objects.get(vault=vault, path="Lisbon.md")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/notes/{note.pk}/")
    _log_in(page, user)

    image = page.locator("article .body img.embed-image")
    image.scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector('img.embed-image').complete")
    natural, shown = image.evaluate("img => [img.naturalWidth, img.getBoundingClientRect().width]")
    assert natural == 1600 and 0 < shown < 390  # the bytes loaded, scaled down to the screen
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, scroll_width

    # The PDF opens in the browser's own viewer inside the page (the file allows framing by its own site).
    page.locator(".embed-pdf object").scroll_into_view_if_needed()
    pdf_url = f"{live_server.url}/vaults/{vault.pk}/files/assets/tickets.pdf"
    page.wait_for_function(
        "url => performance.getEntriesByType('resource').some(entry => entry.name === url)", arg=pdf_url
    )
    page.wait_for_timeout(1000)
    assert any(frame.url.startswith("chrome-extension://") for frame in page.frames), [f.url for f in page.frames]
    assert page.locator(".embed-pdf a.embed-download").get_attribute("href") == pdf_url.removeprefix(live_server.url)
    page.screenshot(path=str(_screenshots(tmp_path) / "note-files-390.png"), full_page=True)
    _accessible_in_both_themes(page, "note-files")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_api_documentation_and_the_admin_work_under_the_page_policy(live_server, page):
    page.goto(f"{live_server.url}/api/docs/")
    page.locator(".swagger-ui .info .title", has_text="DesirePath API").wait_for()
    assert page.locator(".opblock-tag-section").count() > 3  # the operations are listed, grouped
    page.goto(f"{live_server.url}/admin/login/")
    assert page.locator("input[name=username]").is_visible()


def _no_sideways_scroll(page, where: str) -> None:  # type: ignore[no-untyped-def]
    scroll_width, client_width = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert scroll_width <= client_width, (where, scroll_width, client_width)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("width", "height"), [(1366, 900), (390, 844)])
def test_make_a_vault_upload_a_zip_share_it_by_username_and_the_second_person_reads_it(
    live_server, page, tmp_path, worker, width, height
):
    import io
    import zipfile

    from apps.notes.models import ImportJob
    from apps.vaults.models import Vault

    maker, colleague = make_user(f"vault-maker-{width}"), make_user(f"colleague-{width}")
    folder = _screenshots(tmp_path)
    page.set_viewport_size({"width": width, "height": height})

    def sign_in(user) -> None:  # type: ignore[no-untyped-def]
        page.goto(f"{live_server.url}/login/")
        _log_in(page, user)

    def visited(name: str) -> None:
        _no_sideways_scroll(page, name)
        page.screenshot(path=str(folder / f"vault-{name}-{width}x{height}.png"), full_page=True)
        _accessible_in_both_themes(page, f"vault-{name}", sizes=((width, height),))

    sign_in(maker)
    visited("home")
    page.fill("#new-vault-name", "Workshop handbook with a rather long name for a small phone")
    page.click("form.new-vault button")
    page.locator("h1", has_text="Workshop handbook").wait_for()
    vault = Vault.objects.get(owner=maker, is_personal=False)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        for path in ("safety/Lathe.md", "safety/electrical/Isolation.md", "Welcome.md"):
            zf.writestr(f"Handbook/{path}", f"# {path.rsplit('/', 1)[-1][:-3]}\nWhat to know.\n")
    upload = {"name": "handbook.zip", "mimeType": "application/zip", "buffer": archive.getvalue()}
    page.set_input_files("input[type=file]", files=[upload])
    page.click("button:has-text('Upload zip')")
    page.wait_for_url("**/jobs/*/")
    if page.locator("#stop-refresh").is_visible():
        page.click("#stop-refresh")  # the page holds still while it is checked
    visited("import")
    deadline = time.time() + 120
    while ImportJob.objects.get(vault=vault).status not in ("succeeded", "failed") and time.time() < deadline:
        time.sleep(0.5)
    assert ImportJob.objects.get(vault=vault).status == "succeeded"
    page.goto(f"{live_server.url}/vaults/{vault.pk}/")
    assert page.locator("summary", has_text="safety").locator(".count").inner_text() == "2"
    visited("notes")
    page.fill("#filter", "isolation")
    page.click("form.filter button")
    assert page.locator("ul.tree a").all_inner_texts() == ["Isolation"]  # its folders unfold to show it
    page.click("a.cold-link")
    assert "No deleted notes." in page.inner_text("main")
    visited("cold")

    page.click("nav.tabs >> text=Members")
    page.fill("input[name=who]", "no-such-colleague")
    page.click("button[value=add_user]")
    assert "Nobody here has the username" in page.locator("[role=alert]").inner_text()
    assert page.input_value("input[name=who]") == "no-such-colleague"  # what was typed stays
    page.fill("input[name=who]", colleague.username)
    page.click("button[value=add_user]")
    assert f"{colleague.username} is now a reader." in page.locator("[role=status]").inner_text()
    assert page.locator("ul.members li", has_text=colleague.username).count() == 1
    visited("members")
    page.click("nav.tabs >> text=Settings")
    page.locator("button[value=answering]").wait_for()
    visited("settings")

    page.click("button:has-text('Log out')")
    sign_in(colleague)
    page.click("label.vault a:has-text('Workshop handbook')")
    page.locator("h1", has_text="Workshop handbook").wait_for()
    assert page.locator("ul.tree a", has_text="Lathe").count() == 1
    assert page.locator("input[type=file]").count() == 0  # a reader imports nothing
    visited("notes-as-reader")
    page.click("nav.tabs >> text=Members")
    assert "Only a manager can change who has access" in page.inner_text("main")
    assert page.locator("button[value=add_user]").count() == 0
    visited("members-as-reader")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_contributor_writes_a_linked_note_and_a_stale_save_keeps_both_texts_while_a_reader_gets_no_editor(
    live_server, page, tmp_path
):
    from apps.notes.models import Note
    from apps.notes.services.notes import note_update

    owner, writer, reader = make_user("garden-owner"), make_user("garden-writer"), make_user("garden-reader")
    vault = make_vault(owner, "Garden")
    share(vault, "contributor", user=writer)
    share(vault, "reader", user=reader)
    compost = make_note(vault, "Compost.md", "# Compost\nBrown and green.\n", embed=False)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/vaults/{vault.pk}/")
    _log_in(page, writer)

    page.click("a.button:has-text('New note')")
    page.fill("#note-path", "Beds")
    text = page.locator("#note-body")
    text.fill("# Beds\nFeed them ")
    text.press_sequentially("[[comp")
    page.locator("#wikilink-suggestions button", has_text="Compost").click()  # completion from the vault's titles
    text.press_sequentially(" in spring.")
    assert text.input_value() == "# Beds\nFeed them [[Compost]] in spring."
    page.click("button[value=preview]")
    assert page.locator(".preview article .body a", has_text="Compost").get_attribute("href") == f"/notes/{compost.pk}/"
    assert text.input_value() == "# Beds\nFeed them [[Compost]] in spring."
    page.screenshot(path=str(_screenshots(tmp_path) / "note-preview-1366.png"), full_page=True)
    _accessible_in_both_themes(page, "note-editor-preview")
    page.click("button[value=save]")
    page.locator("article .body a", has_text="Compost").click()  # the saved link resolves to its note
    assert page.locator("article h1").inner_text() == "Compost"

    beds = Note.objects.get(vault=vault, path="Beds.md")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/notes/{beds.pk}/")
    page.click("a.button:has-text('Edit')")
    note_update(actor=owner, note=beds, body="# Beds\nThe owner's rewrite.\n")  # while the writer types
    text.fill("# Beds\nMy careful edit.\n")
    page.click("button[value=save]")
    assert "Not saved: someone changed this note" in page.locator("[role=alert]").inner_text()
    assert text.input_value() == "# Beds\nMy careful edit.\n"  # the writer's text is kept
    assert "The owner's rewrite." in page.locator(".current-version pre").inner_text()  # the current one beside it
    assert Note.objects.get(pk=beds.pk).body == "# Beds\nThe owner's rewrite.\n"
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, scroll_width
    page.screenshot(path=str(_screenshots(tmp_path) / "note-conflict-390.png"), full_page=True)
    _accessible_in_both_themes(page, "note-editor-conflict")

    page.click("button:has-text('Log out')")
    page.goto(f"{live_server.url}/notes/{beds.pk}/")
    _log_in(page, reader)
    assert page.locator("article h1").inner_text() == "Beds"
    assert page.locator("a", has_text="Edit").count() == 0
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    form = {"csrfmiddlewaretoken": csrf, "path": "Beds.md", "body": "# Beds\ntaken over\n", "action": "save"}
    refused = page.request.post(f"{live_server.url}/notes/{beds.pk}/edit/", form=form)
    assert refused.status == 403 and "CSRF" not in refused.text()
    assert Note.objects.get(pk=beds.pk).body == "# Beds\nThe owner's rewrite.\n"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_theme_follows_the_system_until_the_reader_picks_one_which_is_kept_from_the_first_paint(live_server, page):
    user = make_user("night-reader")
    # What the page says about its theme when the parser reaches <body>, before anything is drawn.
    page.add_init_script(
        "new MutationObserver((_, watcher) => { if (document.body) {"
        " window.themeAtFirstBody = document.documentElement.dataset.theme || 'system'; watcher.disconnect(); } })"
        ".observe(document, {childList: true, subtree: true});"
    )
    page.goto(f"{live_server.url}/login/")
    _log_in(page, user)

    def background() -> str:
        return str(page.evaluate("getComputedStyle(document.body).backgroundColor"))

    page.emulate_media(color_scheme="light")
    light = background()
    page.emulate_media(color_scheme="dark")
    dark = background()
    assert light != dark  # the system's setting is followed with nothing chosen
    assert page.input_value("#theme-choice") == "system"

    page.emulate_media(color_scheme="light")
    page.select_option("#theme-choice", "dark")
    assert background() == dark
    page.goto(f"{live_server.url}/chat/")
    assert page.evaluate("window.themeAtFirstBody") == "dark"  # remembered, and on the page before it is drawn
    assert background() == dark and page.input_value("#theme-choice") == "dark"

    page.select_option("#theme-choice", "system")
    page.reload()
    assert page.evaluate("window.themeAtFirstBody") == "system"
    assert background() == light
    page.emulate_media(color_scheme="dark")
    assert background() == dark

    page.keyboard.press("Tab")  # the first control, in the dark theme, shows it has the focus
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_models_page_fits_a_phone_and_shows_a_failing_slot(live_server, page, settings):
    from apps.llm.models import ModelUsage

    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "chat": "openai/team-writer"}
    settings.LLM_SLOT_CONNECTIONS = {
        **settings.LLM_SLOT_CONNECTIONS,
        "chat": {"provider": None, "api_base": "https://llm.example.internal/v1", "api_key_env": "TEAM_WRITER_KEY"},
    }
    ModelUsage.objects.create(
        slot="chat", purpose="answer", model="openai/team-writer", outcome="error", error="APIConnectionError: refused"
    )
    staff = make_user("models-admin", staff=True)
    page.goto(f"{live_server.url}/models/")
    _log_in(page, staff)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_server.url}/models/")
        assert page.locator("[role=alert]", has_text="The chat model").is_visible()  # the banner
        assert page.locator("#slot-chat", has_text="TEAM_WRITER_KEY").locator(".error", has_text="not set").count() == 1
        assert page.locator("#slot-chat", has_text="APIConnectionError: refused").count() == 1
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, (width, scroll_width)
    _accessible_in_both_themes(page, "models")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_streamed_model_answer_shows_as_markdown_with_working_citations(
    live_server, page, answer_worker, worker_models, tmp_path
):
    owner = make_user("markdown-reader")
    vault = make_vault(owner, "Sample vault")
    import_sample(vault)
    vault.chat_settings = {"models": {"chat": "openai/scripted-writer"}, "librarian": False, "deep_research": False}
    vault.save(update_fields=["chat_settings"])
    worker_models.replies[:] = [
        {
            "content": "To work on the line:\n\n- ask the **shift lead** for a permit [1]\n- then run `ptw request` [1]"
            "\n\n<script>document.title='pwned'</script>"
        }
    ]
    page.goto(f"{live_server.url}/chat/")
    _log_in(page, owner)
    page.check("label.vault:has-text('Sample vault') input")
    page.fill("#message", "What is a PTW and when do I need one?")
    page.click("#send")
    turn = page.locator(".turn").nth(0)
    turn.locator(".badge.grounded").wait_for()

    answer = turn.locator(".answer")
    assert answer.locator("ul > li").count() == 2
    assert answer.locator("li strong").inner_text() == "shift lead"
    assert answer.locator("li code").inner_text() == "ptw request"
    shown = answer.inner_text()
    assert "**" not in shown and "`" not in shown and "- ask" not in shown  # no markdown debris
    assert "<script>" in shown and page.title() != "pwned"  # a tag in an answer is text
    page.screenshot(path=str(_screenshots(tmp_path) / "chat-markdown-answer.png"), full_page=True)
    cite = answer.locator("a.cite").first
    href = cite.get_attribute("href")
    assert href is not None and href.startswith("/notes/")
    cite.click()
    page.wait_for_url(f"**{href}")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_pointing_to_the_passage_that_answers_it_brings_it_to_a_similar_question(
    live_server, page, answer_worker, tmp_path
):
    owner = make_user("pointer")
    vault = make_vault(owner, "Sample vault")
    import_sample(vault)
    trieste = "travel/Trieste Weekend.md"
    page.goto(f"{live_server.url}/chat/")
    _log_in(page, owner)
    page.check("label.vault:has-text('Sample vault') input")
    page.fill("#message", "Where should the team go for the offsite?")
    page.click("#send")
    first = page.locator(".turn").nth(0)
    first.locator(".badge").wait_for()
    first.locator("details.gate summary").click()
    assert trieste not in first.locator("details.gate").inner_text()  # search did not bring it

    first.locator("button.answers-open").click()
    dialog = page.locator("dialog.pick")
    dialog.locator("input[type=search]").fill("Trieste weekend")
    choice = dialog.locator("ol.pick-results li", has_text=trieste).first
    choice.wait_for()
    assert choice.locator("p mark").count() >= 1  # the matched words are highlighted, as on the search page
    assert "«" not in choice.inner_text() and "»" not in choice.inner_text()
    page.screenshot(path=str(_screenshots(tmp_path) / "chat-point-to-the-answer.png"), full_page=True)
    choice.locator("button.answers-pick").click()
    dialog.wait_for(state="detached")
    assert "Trieste Weekend" in first.locator(".picked").inner_text()
    vote = Feedback.objects.get(signal="answers")
    assert (vote.user_id, vote.context_item.path) == (owner.pk, trieste)

    page.reload()  # the pick is kept with the answer
    assert "Trieste Weekend" in page.locator(".turn").nth(0).locator(".picked").inner_text()
    page.check("label.vault:has-text('Sample vault') input")
    page.fill("#message", "Which place should we pick for the team offsite?")
    page.click("#send")
    second = page.locator(".turn").nth(1)
    second.locator(".badge").wait_for()
    second.locator("details.gate summary").click()
    assert trieste in second.locator("details.gate").inner_text()  # a question near it now weighs the pick
    page.screenshot(path=str(_screenshots(tmp_path) / "chat-pick-weighed-next.png"), full_page=True)
    _accessible_in_both_themes(page, "chat-pick")

    # Opening a cited note from the answer is an automatic signal on that unit, sent as the page leaves.
    cite = second.locator(".answer a.cite").first
    cite.click()
    page.wait_for_url("**/notes/**")
    deadline = time.monotonic() + 10
    while not Feedback.objects.filter(signal="opened").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    opened = Feedback.objects.get(signal="opened")
    assert opened.user_id == owner.pk and opened.context_item.citation is not None


def _sources(turn) -> list[str]:  # type: ignore[no-untyped-def]
    """The titles of the notes a turn's answer drew on, as the asker sees them under it, in their order."""
    turn.locator(".badge").wait_for()
    if not turn.locator("ol.sources").count():
        return []
    return [link.split("] ", 1)[1] for link in turn.locator("ol.sources a.source-link").all_inner_texts()]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_correction_filed_from_the_feedback_panel_puts_its_note_first_for_a_question_worded_otherwise(
    live_server, page, answer_worker
):
    owner = make_user("corrector")
    vault = make_vault(owner, "Sample vault")
    import_sample(vault)
    shots = ARTIFACTS / "pages"
    shots.mkdir(parents=True, exist_ok=True)
    later = "Where should we hold the team offsite?"
    page.goto(f"{live_server.url}/chat/")
    _log_in(page, owner)
    page.check("label.vault:has-text('Sample vault') input")

    def ask(question: str, turn: int):  # type: ignore[no-untyped-def]
        page.fill("#message", question)
        page.click("#send")
        return page.locator(".turn").nth(turn)

    before = _sources(ask(later, 0))
    assert before and "Trieste Weekend" not in before  # search alone does not bring it

    # The correction, from the feedback panel of an answer to the question worded otherwise: the asker searches
    # their notes for the passage that should have come and picks it.
    first = ask("Where should the team go for the offsite?", 1)
    assert "Trieste Weekend" not in _sources(first)
    first.locator("button.answers-open").click()
    dialog = page.locator("dialog.pick")
    dialog.locator("input[type=search]").fill("Trieste weekend")
    dialog.locator("ol.pick-results li", has_text="travel/Trieste Weekend.md").first.locator(
        "button.answers-pick"
    ).click()
    dialog.wait_for(state="detached")
    assert "Trieste Weekend" in first.locator(".picked").inner_text()
    assert Feedback.objects.get(signal="answers").context_item.path == "travel/Trieste Weekend.md"

    # Asked again, the question gets the picked note first among the sources its answer drew on.
    again = ask(later, 2)
    after = _sources(again)
    again.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "chat-correction-ranked-next.png"), full_page=True)
    assert after[0] == "Trieste Weekend", after
    assert set(after[1:]) <= set(before)  # the rest is what search brought before


def _verdict(page, signal: str):  # type: ignore[no-untyped-def]
    return page.locator(".turn").nth(0).locator("ol.sources li").first.locator(f"button[data-signal={signal}]")


def _pressed(page) -> list[str]:  # type: ignore[no-untyped-def]
    box = page.locator(".turn").nth(0).locator("ol.sources li").first
    return [b.get_attribute("data-signal") for b in box.locator("button[aria-pressed=true]").all()]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_one_verdict_per_passage_survives_a_reload_is_undone_and_a_correction_shows_its_changes(live_server, page):
    from apps.chat.models import ContextItem
    from apps.notes.models import Correction

    owner, reader = make_user("verdict-giver"), make_user("verdict-reader")
    kitchen = make_vault(owner, "Kitchen")
    make_note(kitchen, "Bread.md", "# Bread\nBread dough rests for an hour before baking.")
    share(kitchen, "reader", user=reader)
    shots = ARTIFACTS / "pages"
    shots.mkdir(parents=True, exist_ok=True)
    page.goto(f"{live_server.url}/chat/")
    _log_in(page, owner)
    page.check("label.vault:has-text('Kitchen') input")
    page.fill("#message", "How long does bread dough rest?")
    page.click("#send")
    page.locator(".turn").nth(0).locator(".badge.grounded").wait_for()
    conversation = Conversation.objects.get(owner=owner)
    item = ContextItem.objects.filter(message__conversation=conversation, survived=True).order_by("position").first()
    assert item is not None
    current = Feedback.objects.filter(context_item=item, withdrawn_at__isnull=True)

    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_server.url}/chat/?c={conversation.pk}")
        _verdict(page, "confirm").click()
        page.locator(".choice-status", has_text="Your choice: Helpful").wait_for()
        page.reload()
        assert _pressed(page) == ["confirm"]  # kept with the answer
        first = page.locator(".turn").nth(0).locator("ol.sources li").first
        first.locator("details.more summary").click()
        _verdict(page, "reject").click()  # another choice replaces the first
        first.locator("summary", has_text="More: Wrong").wait_for()
        assert _pressed(page) == ["reject"]
        assert list(current.values_list("signal", flat=True)) == ["reject"]
        _no_sideways_scroll(page, page.url)
        page.screenshot(path=str(shots / f"chat-feedback-chosen-{width}x{height}.png"), full_page=True)
        page.reload()
        assert _pressed(page) == ["reject"] and "More: Wrong" in first.locator("summary").inner_text()
        first.locator("button.undo").click()
        first.locator(".choice-status", has_text="Undone.").wait_for()
        assert _pressed(page) == [] and not current.exists()
        page.reload()
        assert _pressed(page) == [] and first.locator("button.undo").is_hidden()
        _no_sideways_scroll(page, page.url)
    taken_back = WeightChange.objects.filter(reason__startswith="taken back: confirm replaced by reject")
    assert taken_back.exists()  # the replaced helpful vote's effect was reversed on the ledger

    # A correction: the passage, an editor holding it and the words changed; a contributor may apply it.
    page.set_viewport_size({"width": 390, "height": 844})
    first = page.locator(".turn").nth(0).locator("ol.sources li").first
    first.locator("details.more summary").click()
    _verdict(page, "correct").click()
    dialog = page.locator("dialog.correct")
    assert item.text in dialog.locator("blockquote.passage").inner_text()
    assert dialog.locator("textarea").input_value() == item.text
    assert dialog.locator("button.apply").is_disabled()  # nothing changed yet
    dialog.locator("textarea").fill(item.text.replace("an hour", "two hours"))
    assert dialog.locator(".diff del").all_inner_texts() == ["an hour"]  # only the words that changed
    assert dialog.locator(".diff ins").all_inner_texts() == ["two hours"]
    _no_sideways_scroll(page, page.url)
    page.screenshot(path=str(shots / "chat-correction-390x844.png"), full_page=True)
    # The passage changed meanwhile: refused with the reason, the dialog and the typed text stay.
    ContextItem.objects.filter(pk=item.pk).update(chunk=None, text="changed meanwhile")
    dialog.locator("button.apply").click()
    dialog.locator("[role=alert]", has_text="your text is kept").wait_for()
    assert "two hours" in dialog.locator("textarea").input_value()
    ContextItem.objects.filter(pk=item.pk).update(chunk=item.chunk_id, text=item.text)
    dialog.locator("button.apply").click()
    dialog.wait_for(state="detached")
    first.locator(".choice-status", has_text="Applied").wait_for()
    applied = Correction.objects.get(proposed_by=owner)
    assert applied.status == "applied" and "two hours" in applied.successor.body
    _accessible_in_both_themes(page, "chat-feedback")

    # A reader of the vault only proposes.
    page.context.clear_cookies()
    asked = {"vaults": [kitchen.pk], "message": "How long does bread rest?"}
    reply = api(reader).post("/api/chat/", asked, format="json")
    page.goto(f"{live_server.url}/chat/?c={reply.json()['conversation']}")
    _log_in(page, reader)
    first = page.locator(".turn").nth(0).locator("ol.sources li").first
    first.locator("details.more summary").click()
    _verdict(page, "correct").click()
    dialog = page.locator("dialog.correct")
    assert dialog.locator("button.apply").count() == 0
    dialog.locator("textarea").fill("Bread dough rests for two hours.")
    dialog.locator("button.propose").click()
    first.locator(".choice-status", has_text="Proposed to the vault's contributors").wait_for()
    assert Correction.objects.get(proposed_by=reader).status == "proposed"
    _no_sideways_scroll(page, page.url)
    page.screenshot(path=str(shots / "chat-correction-proposed-390x844.png"), full_page=True)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_tokens_page_on_a_phone_keeps_ticks_beside_their_words_and_never_scrolls_sideways(live_server, page):
    from apps.accounts.tokens import token_create

    owner = make_user("token-maker")
    vault = make_vault(owner, "A vault whose name is rather long for a narrow phone screen")
    token_create(user=owner, name="nightly export to the backup machine", read_only=True, vault_ids=[vault.pk])
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/tokens/")
    _log_in(page, owner)
    page.fill("input[name=name]", "laptop sync script")
    page.click("button:has-text('Make token')")
    page.locator(".new-token code.key").wait_for()

    _no_sideways_scroll(page, "tokens")
    read_only = page.locator("label:has(input[name=read_only])")
    tick = read_only.locator("input").bounding_box()
    words = read_only.bounding_box()
    assert tick is not None and words is not None
    assert tick["width"] < 40, tick
    # the tick sits at the start of the first line of its words, however many lines they wrap to
    assert tick["x"] - words["x"] < 8 and tick["y"] - words["y"] < tick["height"], (tick, words)
    _accessible_in_both_themes(page, "tokens", sizes=((390, 844),))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_on_a_phone_the_chat_page_shows_the_ask_box_before_the_conversation_list(live_server, page):
    owner = make_user("phone-asker")
    make_vault(owner, "Pocket")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/chat/")
    _log_in(page, owner)
    ask_box = page.locator("#message").bounding_box()
    conversations = page.locator("ul.conversations").bounding_box()
    assert ask_box is not None and conversations is not None
    assert ask_box["y"] < conversations["y"], (ask_box, conversations)
    assert ask_box["y"] < 844  # within the first screen, without scrolling
    _no_sideways_scroll(page, "chat")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_missing_note_shows_the_site_s_own_page_with_a_way_back(live_server, page):
    user = make_user("lost-reader")
    make_vault(user, "Mine")
    page.goto(f"{live_server.url}/login/")
    _log_in(page, user)
    page.goto(f"{live_server.url}/notes/999999/")
    assert page.locator("main h1").inner_text() == "Page not found"
    assert page.locator("header.top nav a", has_text="Chat").is_visible()
    _accessible_in_both_themes(page, "not-found")
    page.click("main a:has-text('Your vaults and search')")
    page.wait_for_url(f"{live_server.url}/")
    assert "Mine" in page.locator("main").inner_text()  # the person's vaults, one click from the error
