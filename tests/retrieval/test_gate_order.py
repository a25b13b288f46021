"""Passing the gate and coming first are different questions: the search's rank helps a passage pass, but among
what passed the one that answers is cited first even when the search ranked a look-alike above it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from apps.retrieval.candidates import Candidate
from apps.retrieval.gate import Rated, gate, score_of

pytestmark = pytest.mark.django_db


def _candidate(rank: int, text: str, similarity: float) -> Candidate:
    return Candidate(rank + 1, rank + 1, 1, f"turn-{rank}.md", "", "", text, "authored", rank, similarity)


def _note(rank: int, name: str, text: str, similarity: float) -> Candidate:
    return Candidate(rank + 1, rank + 1, 1, f"{name}.md", name, "", text, "authored", rank, similarity)


def test_among_what_passed_the_answer_comes_before_the_search_s_top_look_alike():
    look_alike = _candidate(0, "Maria: Shadow loves the park now, he runs after every ball we throw.", 0.62)
    answer = _candidate(1, "Maria: I adopted Shadow from the shelter on 14 May, best decision ever!", 0.50)
    result = gate("When did Maria adopt Shadow?", [look_alike, answer])
    assert [r.candidate for r in result.survivors] == [answer, look_alike]  # both pass; the answer is cited first
    estimate = {r.candidate.rank: r.probability for r in result.rated}
    assert estimate[0] > estimate[1]  # on the estimate that decides passing, the top search hit is ahead


def test_what_learning_knows_moves_a_fact_past_a_close_one_but_not_past_one_the_scorer_is_nearly_sure_of():
    """A fact that helped once through the question's doors has its odds doubled (`boosts` 2.0): ahead of a passage
    rated a little more likely, still behind one the scorer is nearly sure answers. Scaling the probability instead
    put every lifted fact past 0.5 at the top, tied at 1."""
    sure, helped, close = (
        Candidate(n, n, 1, f"turn-{n}.md", "", "", f"turn {n}", "authored", 0, 0.5) for n in (1, 2, 3)
    )
    estimates = {sure.chunk: 0.99, helped.chunk: 0.90, close.chunk: 0.93}

    def rater(question: str, candidates: list[Candidate]) -> list[Rated]:
        return [Rated(c, score_of(estimates[c.chunk]), estimates[c.chunk]) for c in candidates]

    result = gate("When did Maria adopt Shadow?", [sure, close, helped], boosts={helped.chunk: 2.0}, local_rater=rater)
    assert [r.candidate for r in result.survivors] == [sure, helped, close]
    unlearned = gate("When did Maria adopt Shadow?", [sure, close, helped], local_rater=rater)
    assert [r.candidate for r in unlearned.survivors] == [sure, close, helped]


def test_among_notes_the_search_s_order_decides_what_passes_and_small_talk_still_gets_nothing():
    """A vault of short property notes: the scorer (fitted on conversation turns) rates the template that answers
    low, as it rates every short passage. Among notes, once one candidate reaches the threshold, what the search
    ranked passes in its order; when none does (small talk), nothing passes."""

    def note(rank: int, path: str, text: str, similarity: float) -> Candidate:
        return Candidate(
            rank + 1, rank + 1, 1, path, path.rsplit("/", 1)[-1][:-3], "", text, "authored", rank, similarity
        )

    template = note(0, "Templates/Contact Template.md", "categories: People\nphone:\nemail:\nbirthday:", 0.20)
    advice = note(1, "Clippings/Advice.md", "Write down the names of people you meet. " * 8, 0.30)
    other = note(2, "References/Catan.md", "categories: Board games\nrating: 7", 0.02)
    question = "where do I write down a friend's number?"
    alone = gate(question, [template, advice, other])
    assert [r.candidate for r in alone.survivors] == [advice]  # the scorer alone leaves the answer out

    result = gate(question, [template, advice, other], among_notes=True)
    assert [r.candidate for r in result.survivors] == [template, advice, other]
    small_talk = [replace(c, similarity=0.1) for c in (template, advice, other)]  # far from every note in meaning
    assert gate("haha nice one", small_talk, among_notes=True).survivors == []


def test_among_notes_a_note_close_in_meaning_lets_the_search_s_order_pass_when_the_scorer_rates_all_low():
    """A question whose answer is a note of properties: the scorer rates every note below the threshold, but the
    first note is close to the question in meaning, so the vault speaks to it and the search's order passes; a note
    that only embeds a base says nothing and never passes. As close as questions no vault speaks to come to some
    passage of every vault (below the floor's similarity), or far from every note, nothing passes."""

    def note(rank: int, path: str, text: str, similarity: float) -> Candidate:
        return Candidate(
            rank + 1, rank + 1, 1, path, path.rsplit("/", 1)[-1][:-3], "", text, "authored", rank, similarity
        )

    properties = "categories: Places\ntype: Restaurants\nloc:\nrating:"
    restaurant = note(0, "Templates/Restaurant Template.md", properties, 0.31)
    recipes = note(1, "Categories/Recipes.md", "![[Recipes.base]]", 0.12)
    question = "how do I log somewhere I ate out?"  # no word of the template's, whose properties say "Places"

    def rates_all_low(question: str, candidates: list[Candidate]) -> list[Rated]:
        return [Rated(c, 2, 0.05) for c in candidates]  # the scorer alone passes nothing

    result = gate(question, [restaurant, recipes], among_notes=True, local_rater=rates_all_low)
    assert [r.candidate for r in result.survivors] == [restaurant]
    assert [r.candidate for r in result.rated] == [restaurant, recipes]  # still listed, last
    barely = [replace(restaurant, similarity=0.28), recipes]
    assert gate(question, barely, among_notes=True, local_rater=rates_all_low).survivors == []
    far = [replace(c, similarity=0.1) for c in (restaurant, recipes)]
    assert gate(question, far, among_notes=True, local_rater=rates_all_low).survivors == []


def test_among_notes_what_answered_a_question_near_this_one_passes_first_even_where_the_budget_ended():
    """The asker pointed to a note for a question near this one: it comes first among what passes, though search
    ranked it last (past the budget the first candidates set), and the search's last in the budget makes room."""

    def note(rank: int, name: str) -> Candidate:
        text = f"{name} " + "offsite venue planning notes for the team " * 20
        return Candidate(rank + 1, rank + 1, 1, f"{name}.md", name, "", text, "authored", rank, 0.6)

    venues, plans, people, lunch, trieste = (note(n, name) for n, name in enumerate(("V", "P", "O", "L", "T")))
    notes = [venues, plans, people, lunch, trieste]
    question = "Where should we hold the team offsite?"
    unlearned = gate(question, notes, among_notes=True, budget_top=3)
    assert [r.candidate for r in unlearned.survivors] == [venues, plans, people]

    learned = gate(question, notes, among_notes=True, budget_top=3, priors={trieste.chunk: 1.4})
    assert [r.candidate for r in learned.survivors] == [trieste, venues, plans]


def test_among_notes_a_note_far_from_the_question_in_meaning_and_words_passes_in_no_order():
    """A note the search ranked second shares one incidental word with the question and is far from it in meaning:
    it is no evidence, so it does not pass, and the note after it does not pass in its stead (the budget is what the
    search's first two would inject). Once people said it answered a question near this one, it passes."""

    oven = _note(0, "Focaccia", "Bake the focaccia at 220 °C for 25 minutes until golden on top.", 0.55)
    rack = _note(1, "Server rack", "Point the app at the new primary before you swap the rack's top switch.", 0.12)
    bread = _note(2, "Flatbread", "The flatbread dough rests overnight in the fridge before it is shaped.", 0.41)
    notes = [oven, rack, bread]
    question = "At what temperature and for how long do I bake the focaccia, and which point shows it is done?"
    chunks = frozenset(c.chunk for c in notes)

    result = gate(question, notes, among_notes=True, note_chunks=chunks, budget_top=2)
    assert [r.candidate for r in result.survivors] == [oven]
    assert rack in [r.candidate for r in result.rated[len(result.survivors) :]]  # listed among what did not pass

    wider = gate(question, notes, among_notes=True, note_chunks=chunks, budget_top=3)
    assert [r.candidate for r in wider.survivors] == [oven, bread]

    helped = gate(question, notes, among_notes=True, note_chunks=chunks, budget_top=2, priors={rack.chunk: 1.4})
    assert rack in [r.candidate for r in helped.survivors]


def test_among_notes_far_notes_never_open_the_gate_and_a_looked_up_token_is_never_far():
    """A passage far in words and below the floor's similarity is no evidence: it never passes beside a close one,
    and alone it does not say the vault speaks to the question. A passage that quotes the token the question looks
    up is never far."""

    lint = _note(0, "foam lint", "Check notes for issues; exits with code 2 when issues are found.", 0.27)
    row = _note(1, "Variables", "Name · Description; FOAM_SLUG · The sluggified title of the note.", 0.2)
    daily = _note(2, "Daily Notes", "Create links to recent daily notes using snippets such as /today.", 0.22)
    close = _note(3, "Note Templates", "Templates produce a new note with its variables filled in.", 0.45)
    notes = [lint, row, daily, close]
    chunks = frozenset(c.chunk for c in notes)

    looked_up = gate("what does FOAM_SLUG produce in a template?", notes, among_notes=True, note_chunks=chunks)
    assert row in [r.candidate for r in looked_up.survivors]
    assert daily not in [r.candidate for r in looked_up.survivors]
    # the token inside a longer one is not quoted: "FOAM_SLUGIFY" is another variable, far like the rest, and the
    # passage close to the question passes alone
    other = replace(row, text=row.text.replace("FOAM_SLUG", "FOAM_SLUGIFY"))
    renamed = gate(
        "what does FOAM_SLUG produce in a template?", [lint, other, daily, close], among_notes=True, note_chunks=chunks
    )
    assert [r.candidate for r in renamed.survivors] == [close]

    # below the floor's similarity and sharing only "border": as close as questions no vault speaks to come
    only_far = [_note(0, "Embed styles", "Set the border and the corner radius in your own CSS snippet.", 0.27)]
    asked = "How do I change the border and rounded corners of the box around content pulled in from another page?"
    result = gate(asked, only_far, among_notes=True, note_chunks=frozenset({only_far[0].chunk}))
    assert result.survivors == []


def test_among_notes_a_note_s_other_passage_that_answers_stands_beside_its_first():
    """The search returns a note once, by its closest passage; the walk brings the note's other passages far down.
    One rated at the threshold passes right after its note's first, ahead of other notes the search ranked next; one
    rated below stays where the walk put it. A vault with a stricter threshold is shown only what reaches it."""

    def passage(chunk: int, note: int, rank: int, name: str) -> Candidate:
        return Candidate(
            chunk, note, 1, f"{name}.md", name, "", f"{name} " + "recipe notes " * 20, "authored", rank, 0.6
        )

    timing, soup, herbs, pasta, method, tray = (
        passage(1, 1, 0, "Focaccia"),
        passage(2, 2, 1, "Lentil soup"),
        passage(3, 3, 2, "Balcony herbs"),
        passage(4, 4, 3, "Pasta e ceci"),
        passage(5, 1, 4, "Focaccia"),
        passage(6, 1, 5, "Focaccia"),
    )
    scores = {timing.chunk: 5, soup.chunk: 3, herbs.chunk: 2, pasta.chunk: 2, method.chunk: 3, tray.chunk: 2}

    def rater(question: str, candidates: list[Candidate]) -> list[Rated]:
        return [Rated(c, scores[c.chunk], scores[c.chunk] / 5) for c in candidates]

    notes = [timing, soup, herbs, pasta, method, tray]
    question = "How long does the focaccia bake?"
    result = gate(question, notes, among_notes=True, budget_top=3, local_rater=rater)
    assert [r.candidate for r in result.survivors] == [timing, method, soup]
    assert [r.candidate for r in result.rated][3:] == [herbs, pasta, tray]  # the one rated below stays behind

    strict = gate(question, notes, among_notes=True, budget_top=3, local_rater=rater, threshold=5)
    assert [r.candidate for r in strict.survivors] == [timing]
    # a vault that lowered its threshold to 2 moves no passage rated 2 up beside its note: the walk's tray stays last
    lenient = gate(question, notes, among_notes=True, budget_top=3, local_rater=rater, threshold=2)
    assert [r.candidate for r in lenient.survivors] == [timing, method, soup]
