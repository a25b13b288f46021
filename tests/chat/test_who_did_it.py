"""A question that puts one person's deed in another's mouth gets the vault's fallback and the reason, not the
other person's deed as an answer; the same question about the one who did it is answered."""

from __future__ import annotations

import pytest

from apps.chat.services.answering import Source, misattribution
from apps.chat.services.attribution import Witness
from apps.chat.services.witnesses import found_turns
from apps.graph.conversation import speakers_in
from apps.graph.services import graph_extract_pending
from apps.vaults.scope import scope_for
from tests.chat.test_chat_api import ask
from tests.factories import make_note, make_vault

pytestmark = pytest.mark.django_db

TURNS = [
    "Melanie: Hey Caroline! I ran a charity race for mental health last Saturday. It made me realize that "
    "self-care is really important.",
    "Caroline: That's awesome, Mel! I went to an LGBTQ support group yesterday and it was so powerful.",
    "Melanie: Wow, how brave of you. What was the group like?",
    "Caroline: The transgender stories were so inspiring. I'm going to keep going every week.",
]


@pytest.fixture
def chat_vault(vault):
    for number, turn in enumerate(TURNS, start=1):
        make_note(vault, f"session_01/D1-{number}.md", f"1:56 pm on 8 May, 2023: {turn}\n")
    return vault


def _turn(path: str, text: str, number: int = 1) -> Source:
    """One turn of a conversation note, shown as the answer's source `number` (its first by default)."""
    return Source(number=number, path=path, text=text, provenance="authored")


def test_a_deed_put_in_the_other_speakers_mouth_gets_the_fallback_and_the_reason(chat_vault):
    reply = ask(chat_vault.owner, "What did Caroline realize after her charity race?", [chat_vault.pk])

    assert (reply["grounded"], reply["fallback"]) == (False, "explicit")
    race = next(item["citation"] for item in reply["context"] if item["path"] == "session_01/D1-1.md")
    assert reply["answer"].startswith(f"Nothing in your notes says Caroline did that; Melanie did [{race}].")
    assert "Nothing in Team vault answers this." in reply["answer"]
    assert "self-care" not in reply["answer"]


def test_the_same_deed_asked_of_the_one_who_did_it_is_answered(chat_vault):
    reply = ask(chat_vault.owner, "What did Melanie realize after her charity race?", [chat_vault.pk])

    assert (reply["grounded"], reply["fallback"]) == (True, None)
    race = next(item["citation"] for item in reply["context"] if item["path"] == "session_01/D1-1.md")
    assert reply["answer"].startswith(f"**I ran a charity race for mental health last Saturday.** [{race}]")
    assert "Nothing in your notes says" not in reply["answer"]


def test_what_a_turn_says_to_the_one_it_addresses_is_said_of_them():
    said_to = _turn(
        "session_01/D2-5.md", "2:10 pm on 9 May, 2023: Melanie: Caroline, you ran the charity race in record time!"
    )
    people = ["Caroline", "Melanie"]  # who speaks in the notes searched, as the graph recorded it
    assert misattribution("How fast did Caroline run the charity race?", [said_to], people) is None
    wrong = misattribution("How fast did Melanie run the charity race?", [said_to], people)
    assert wrong is not None and wrong.reason == "Nothing in your notes says Melanie did that; Caroline did [1]."


def test_when_the_passages_hold_only_the_named_persons_turns_the_lookup_finds_who_did_it(chat_vault):
    question = "What did Caroline realize after her charity race?"
    shown = _turn("session_01/D1-2.md", TURNS[1])
    people = ["Caroline", "Melanie"]
    assert misattribution(question, [shown], people) is None  # nothing shown says it of anyone

    found = found_turns(
        question=question, sources=[shown], speakers=people, scope=scope_for(chat_vault.owner, [chat_vault.pk])
    )
    wrong = misattribution(question, [shown], people, found)

    assert wrong is not None
    assert wrong.reason == "Nothing in your notes says Caroline did that; Melanie did in session_01/D1-1.md."


def test_the_lookup_reads_only_the_vaults_searched(chat_vault, owner):
    elsewhere = make_vault(owner, "Other vault")
    make_note(elsewhere, "talk/1.md", "Ben: I ran a charity race and realized how much I love running.\n")
    question = "What did Caroline realize after her charity race?"
    shown = _turn("session_01/D1-2.md", TURNS[1])

    found = found_turns(
        question=question, sources=[shown], speakers=["Caroline", "Melanie"], scope=scope_for(owner, [chat_vault.pk])
    )

    assert found and {w.path for w in found} <= {f"session_01/D1-{n}.md" for n in range(1, 5)}


def test_what_the_other_speaker_says_of_the_named_person_answers_for_them(vault):
    make_note(
        vault,
        "session_02/D2-1.md",
        "3:10 pm on 12 May, 2023: Melanie: Caroline told me she adopted a puppy named Oscar last week. I can't wait "
        "to meet him!\n",
    )
    make_note(vault, "session_02/D2-2.md", "3:11 pm on 12 May, 2023: Caroline: Hey Mel! How are the kids doing?\n")

    reply = ask(vault.owner, "What is the name of the puppy Caroline adopted?", [vault.pk])

    assert (reply["grounded"], reply["fallback"]) == (True, None)
    assert "Oscar" in reply["answer"]
    assert "Nothing in your notes says" not in reply["answer"]


def test_a_question_asked_of_the_other_is_about_them():
    asked = _turn(
        "session_03/D3-3.md", "4:06 pm on 20 January, 2022: Joanna: Wow, Nate! What's your favorite genre of movies?"
    )
    people = ["Joanna", "Nate"]
    assert misattribution("What is Nate's favorite movie genre?", [asked], people) is None
    wrong = misattribution("What is Joanna's favorite movie genre?", [asked], people)
    assert wrong is not None and wrong.reason == "Nothing in your notes says Joanna did that; Nate did [1]."


def test_a_question_asking_who_did_something_to_the_named_person_is_answered_with_the_doer():
    invite = _turn(
        "session_05/D5-4.md",
        "3:35 pm on 12 May, 2022: Joanna: Haha, now that would be something! Sure, you should come down and join me "
        "on the trails sometime!",
    )
    thanks = _turn(
        "session_05/D5-5.md", "3:35 pm on 12 May, 2022: Nate: Sounds like a plan! Thanks for the invite Joanna!", 2
    )
    people = ["Joanna", "Nate"]

    for asked in (
        "Who invited Nate to join her on the trails sometime?",
        "Can you tell me who invited Nate to join her on the trails sometime?",
    ):
        assert misattribution(asked, [invite, thanks], people) is None
    # asked the other way round, the question still claims Nate invited someone
    for claimed in (
        "Who did Nate invite to join him on the trails sometime?",
        "Who else did Nate invite to join him on the trails sometime?",
        "Who didn't Nate invite to join him on the trails sometime?",
    ):
        wrong = misattribution(claimed, [invite, thanks], people)
        assert wrong is not None and wrong.reason == "Nothing in your notes says Nate did that; Joanna did [1]."


def test_the_chat_answers_who_did_something_to_the_named_person_with_the_doer(vault):
    turns = [
        "Joanna: I found a new trail by the lake last weekend. The waterfall there is gorgeous.",
        "Nate: I'm not really into hiking but I'm curious to see what the trail looks like!",
        "Joanna: Sure, you should come down and join me on the trails sometime!",
        "Nate: Sounds like a plan! Thanks for the invite, Joanna!",
    ]
    for number, turn in enumerate(turns, start=1):
        make_note(vault, f"session_05/D5-{number}.md", f"3:35 pm on 12 May, 2022: {turn}\n")

    reply = ask(vault.owner, "Who invited Nate to join her on the trails sometime?", [vault.pk])

    assert (reply["grounded"], reply["fallback"]) == (True, None)
    assert "Nothing in your notes says" not in reply["answer"]
    assert reply["answer"].startswith("**Joanna**")


def test_a_turn_the_lookup_found_must_carry_more_of_the_claim_than_two_words():
    question = "What skills has Nate helped others learn?"
    shown = _turn("session_06/D6-1.md", "5:44 pm on 3 June, 2022: Nate: They asked for tips, so I said I could help.")
    people = ["Joanna", "Nate"]
    # picked by the lookup for the claim's words: "others" and "helping", said of something else
    tinkering = Witness(
        "session_06/D6-7.md",
        "6:03 pm on 5 September, 2022: Joanna: Just been tinkering with that recipe and a few others. It's helping "
        "me find some comfort.",
    )
    teaching = Witness(
        "session_06/D6-9.md",
        "6:05 pm on 5 September, 2022: Joanna: I've helped others learn new skills at my writing workshop.",
    )

    assert misattribution(question, [shown], people, [tinkering]) is None
    wrong = misattribution(question, [shown], people, [teaching])
    assert wrong is not None
    assert wrong.reason == "Nothing in your notes says Nate did that; Joanna did in session_06/D6-9.md."


def test_the_named_person_saying_most_of_what_the_other_says_is_answered():
    question = "When did Caroline bake sourdough bread for the weekend market?"
    hers = _turn("session_07/D7-2.md", "9:10 am on 2 June, 2023: Caroline: I baked sourdough bread for the market!")
    melanies = _turn(
        "session_07/D7-3.md", "9:12 am on 2 June, 2023: Melanie: I baked sourdough bread for the weekend market too.", 2
    )
    people = ["Caroline", "Melanie"]

    assert misattribution(question, [hers, melanies], people) is None  # four of the claim's words beside five
    only_bread = _turn("session_07/D7-2.md", "9:10 am on 2 June, 2023: Caroline: I love bread from the market!")
    wrong = misattribution(question, [only_bread, melanies], people)  # two beside five
    assert wrong is not None and wrong.reason == "Nothing in your notes says Caroline did that; Melanie did [2]."


def test_a_sentence_opening_with_a_word_and_a_comma_stays_with_its_speaker():
    trip = _turn(
        "session_04/D4-2.md",
        "6:55 pm on 20 October, 2023: Melanie: Yeah, you're right, Caroline. Luckily, the kids loved the lake trip!",
    )
    people = ["Caroline", "Melanie"]
    assert misattribution("How did Melanie's kids like the lake trip?", [trip], people) is None


def test_a_call_out_by_the_start_of_a_name_gives_the_sentence_to_the_one_called():
    cheer = _turn("session_04/D4-3.md", "7:01 pm on 20 October, 2023: Caroline: That charity race sounds great, Mel!")
    people = ["Caroline", "Melanie"]
    wrong = misattribution("When did Caroline run the charity race?", [cheer], people)
    assert wrong is not None and wrong.reason == "Nothing in your notes says Caroline did that; Melanie did [1]."
    assert misattribution("When did Melanie run the charity race?", [cheer], people) is None


def test_a_question_asking_for_a_judgement_is_answered_whoever_the_passages_speak_of():
    praise = _turn(
        "session_05/D5-1.md",
        "1:10 pm on 3 November, 2023: Melanie: Caroline, you're such a supportive friend to the whole community!",
    )
    people = ["Caroline", "Melanie"]
    deed = misattribution("How is Melanie a supportive friend to the community?", [praise], people)
    assert deed is not None and deed.reason == "Nothing in your notes says Melanie did that; Caroline did [1]."
    assert misattribution("Would Melanie be considered a supportive friend to the community?", [praise], people) is None


@pytest.mark.parametrize(
    ("turn", "answered", "asked_of_the_other", "did"),
    [
        # what the speaker tells the other they can do is the speaker's suggestion
        (
            "6:03 pm on 5 September, 2022: Nate: You can swap the butter for coconut oil in any dairy-free bake.",
            "What does Nate suggest instead of butter in dairy-free baking?",
            "What does Joanna suggest instead of butter in dairy-free baking?",
            "Nate",
        ),
        # a sentence whose I only frames what the other did is about the other
        (
            "5:54 pm on 9 November, 2022: Joanna: I bet a week ago you never thought you'd end up with a third turtle!",
            "Why did Nate get a third turtle?",
            "Why did Joanna get a third turtle?",
            "Nate",
        ),
        # a sentence opening with what the other did is about them though it says "me"
        (
            "1:59 pm on 31 July, 2023: Nate: You mentioned your shifts at the homeless shelter and it made me think.",
            "What did Joanna mention about her homeless shelter shifts?",
            "What did Nate mention about his shifts at the homeless shelter?",
            "Joanna",
        ),
        # and these stay with their speaker, who says I of themselves beside the you
        (
            "2:00 pm on 3 May, 2022: Joanna: You're right, I've been painting landscapes a lot lately.",
            "What has Joanna been painting lately?",
            "What has Nate been painting lately?",
            "Joanna",
        ),
        (
            "2:00 pm on 3 May, 2022: Joanna: I think I told you about my new painting of the lake.",
            "What did Joanna paint of the lake?",
            "What did Nate paint of the lake?",
            "Joanna",
        ),
        (
            "2:00 pm on 3 May, 2022: Nate: You can't imagine how tired I am after the tournament.",
            "How tired is Nate after the tournament?",
            "How tired is Joanna after the tournament?",
            "Nate",
        ),
    ],
)
def test_who_a_sentence_speaks_of_when_it_says_you(turn, answered, asked_of_the_other, did):
    said = _turn("session_30/D30-2.md", turn)
    people = ["Joanna", "Nate"]
    assert misattribution(answered, [said], people) is None
    wrong = misattribution(asked_of_the_other, [said], people)
    asked = ({"Joanna", "Nate"} - {did}).pop()
    assert wrong is not None and wrong.reason == f"Nothing in your notes says {asked} did that; {did} did [1]."


def test_a_session_note_s_passage_of_two_turns_is_read_as_turns_of_the_speakers_the_graph_knows(vault):
    session = "\n\n".join(TURNS)
    make_note(vault, "session_01.md", f"# Session 1, 8 May 2023\n\n{session}\n")
    graph_extract_pending(vault_id=vault.pk)
    two_turns = _turn("session_01.md", "\n\n".join(TURNS[:2]))  # a passage whose turns go A then B, never back
    people = speakers_in([vault.pk])
    assert people == ["Caroline", "Melanie"]
    wrong = misattribution("What did Caroline realize after her charity race?", [two_turns], people)
    assert wrong is not None and wrong.reason == "Nothing in your notes says Caroline did that; Melanie did [1]."
    # a label that opens a line is nobody's turn, whoever the graph knows
    evening = _turn("journal/2023-05-08.md", "Evening: Caroline ran a charity race for mental health.")
    assert misattribution("What did Melanie realize after her charity race?", [evening], people) is None
