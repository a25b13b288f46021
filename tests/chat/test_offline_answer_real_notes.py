"""The offline answer on real vault text (foam-docs, logseq-docs, kepano-obsidian, read where they live): its bold
lead is a sentence a reader can use, or the key or command the question asks for. Never a placeholder out of an
example, a heading, the tail of a wrapped line or an embed."""

from __future__ import annotations

import re

import pytest

from apps.notes.markdown import heading_match
from apps.notes.services.chunks import chunks_embed_pending
from tests.corpora import CORPORA
from tests.factories import api, make_note, make_user, make_vault

pytestmark = pytest.mark.django_db

FOAM_FEATURES = ["user/features/embeds.md", "user/features/wikilinks.md", "user/features/block-anchors.md"]


def _vault(corpus: str, paths: list[str]):
    owner = make_user()
    vault = make_vault(owner, corpus)
    for path in paths:
        make_note(vault, path, (CORPORA / corpus / path).read_text(encoding="utf-8-sig"), embed=False)
    chunks_embed_pending(vault_id=vault.pk)
    return vault


def _reply(vault, question: str) -> dict:
    reply = api(vault.owner).post("/api/chat/", {"vaults": [vault.pk], "message": question}, format="json")
    assert reply.status_code == 200, reply.content
    return reply.json()


def _answer(vault, question: str) -> str:
    reply = _reply(vault, question)
    assert reply["grounded"], reply
    return reply["answer"]


def _lead(answer: str) -> str:
    found = re.match(r"\*\*(.+?)\*\* \[\d", answer)
    assert found, answer
    return found.group(1)


def _is_a_statement(text: str) -> bool:
    return len(text.split()) >= 6  # a whole line of prose, not a name, a token or a heading


def test_a_how_to_question_leads_with_a_sentence_not_a_placeholder_out_of_the_example():
    vault = _vault("foam-docs", FOAM_FEATURES)
    for question in (
        "How do I embed a note?",  # the example's `note-name`
        "How do I embed just one section of another note?",  # its `^id`
        "How do I show an embedded note inside a bordered card?",  # its `card` style
    ):
        lead = _lead(_answer(vault, question))
        assert _is_a_statement(lead), (question, lead)


def test_a_heading_in_an_outline_is_never_the_lead():
    vault = _vault("logseq-docs", ["pages/Advanced Queries.md"])
    text = (CORPORA / "logseq-docs/pages/Advanced Queries.md").read_text(encoding="utf-8-sig")
    headings = {found[1] for line in text.splitlines() if (found := heading_match(line.strip().lstrip("- ")))}
    assert "Query Options" in headings  # written `- ### Query Options`
    for question in ("What are the query options?", "What are the special date inputs?"):
        lead = _lead(_answer(vault, question))
        assert lead not in headings and _is_a_statement(lead), (question, lead)


def test_a_wrapped_paragraph_is_read_as_its_sentences_not_its_lines():
    # the note wraps its prose at 80 columns, mid-sentence; "VS Code" in the question asks for no code
    vault = _vault("foam-docs", ["user/recipes/add-images-to-notes.md"])
    question = "What changed in how images are added to notes now that VS Code can paste and drop files itself?"
    lead = _lead(_answer(vault, question))
    assert lead.startswith("VScode (since") and lead.endswith("directly into markdown documents."), lead
    assert "now has the ability to paste images from the clipboard, or drag-and-drop image files" in lead


def test_the_key_or_command_the_answering_sentence_gives_is_still_the_lead():
    navigate = _vault("foam-docs", ["user/recipes/search-and-navigate-notes.md"])
    answer = _answer(navigate, "What is the shortcut to search across all note content?")
    assert answer.startswith("**Cmd+Shift+F** [1]"), answer  # the sentence's key, not the note's first one
    daily = _vault("foam-docs", ["user/features/daily-notes.md", "user/getting-started/first-workspace.md"])
    answer = _answer(daily, "What is the keyboard shortcut to open the daily note?")
    assert answer.startswith("**Alt+D** [1]"), answer  # the line that says "Shortcut:", not the palette's keys
    code = _vault("logseq-docs", ["pages/Code block.md"])
    answer = _answer(code, "How do I insert a snippet of source code with syntax highlighting for a language?")
    assert answer.startswith("**/Code block** [1]"), answer


def test_a_how_to_question_leads_with_the_steps_or_the_keys_and_the_command_typed_after_them():
    # The closest sentence tells how to open a note from the graph; the steps further down tell how to open it.
    graph = _vault("foam-docs", ["user/recipes/search-and-navigate-notes.md", "user/getting-started/navigation.md"])
    answer = _answer(graph, "How do I open the graph?")
    assert re.match(
        r'\*\*Open the Command Palette \(Ctrl\+Shift\+P / Cmd\+Shift\+P\); Run the "Foam: Show Graph" command; '
        r"The graph will open in a new panel\.\*\* \[\d\]",
        answer,
    ), answer
    # The palette's key opens the palette: the command typed into it answers.
    daily = _vault("foam-docs", ["user/features/daily-notes.md", "user/getting-started/first-workspace.md"])
    answer = _answer(daily, "How do I open the daily note?")
    assert answer.startswith('**Ctrl+Shift+P → "Foam: Open Daily Note"** ['), answer


def test_a_note_that_only_embeds_another_is_pointed_to_not_quoted():
    vault = _vault("kepano-obsidian", ["Categories/Meetings.md"])  # nothing but `![[Meetings.base]]`
    answer = _answer(vault, "Where do I find my meetings?")
    assert "Meetings.base" not in answer and "**" not in answer
    assert answer.startswith("The passages found say it in code, tables or links rather than in a sentence"), answer
    assert answer.rstrip().endswith("see [1].")


def test_a_property_or_a_line_of_links_is_never_the_lead_when_a_sentence_is_there():
    whiteboard = _vault(
        "logseq-docs",
        [
            "pages/Whiteboard___Action Bar___Reload.md",  # `alias:: Reload`, then `description:: Reloads the …`
            "pages/Left sidebar.md",  # nothing but `type:: [[UI Element]]`
            "pages/Android.md",
            "pages/Namespaces.md",
            "pages/Whiteboard___Object___iFrame.md",  # `supports:: Reload, Url, Open, Link to page/block, …`
        ],
    )
    answer = _answer(whiteboard, "What does reload do on a whiteboard?")
    assert answer.startswith("**Reloads the embedded content** [1]"), answer  # what the page says, as a sentence
    assert "alias::" not in answer and "type::" not in answer, answer  # nor `type:: Platform` below it
    assert "supports::" not in answer, answer
    zotero = _vault("logseq-docs", ["pages/Zotero.md"])
    lead = _lead(_answer(zotero, "What does the Zotero integration do?"))
    assert lead == "Built in integration that helps import your Zotero items as pages seamlessly.", lead
    publishing = _vault("foam-docs", ["user/index.md"])  # `Examples: [[publish-to-github-pages]], [[…]], [[…]]`
    lead = _lead(_answer(publishing, "What are examples of publishing?"))
    assert lead == "You can publish your Foam notes for consumption in different formats.", lead


def test_a_table_of_contents_entry_is_never_quoted():
    vault = _vault("foam-docs", ["index.md"])
    answer = _answer(vault, "What are the key features of Foam?")
    assert "](#" not in answer  # "[Key Features](#key-features)" would be a link to a heading of a page not shown


def test_what_a_logseq_page_is_is_its_own_description_and_a_code_block_announced_is_read():
    vault = _vault("logseq-docs", ["pages/Cloze.md", "pages/Flashcards.md"])
    assert _lead(_answer(vault, "What is a cloze?")) == (
        "Creates collapsible content that is not shown by default. Usually used with Flashcards"
    )
    foam = _vault("foam-docs", ["user/tools/cli/search.md"])
    lead = _lead(_answer(foam, "How do I find notes that have a due property, whatever its value?"))
    assert lead.endswith(": `foam search --property due`"), lead


def test_what_a_thing_is_is_the_sentence_that_defines_it_not_one_that_mentions_it_on_foam_and_kepano():
    foam = _vault("foam-docs", FOAM_FEATURES)
    # the note titled so opens with it, ahead of "Use `^id` …" or an example's placeholder
    lead = _lead(_answer(foam, "What is a block anchor in Foam?"))
    assert lead.startswith("Block anchors let you link to a specific paragraph, list item, heading, or blockquote"), (
        lead
    )
    evergreen = "Notes/Evergreen notes turn ideas into objects that you can manipulate.md"
    kepano = _vault("kepano-obsidian", ["Categories/Evergreen.md", evergreen])
    assert _lead(_answer(kepano, "What are evergreen notes?")) == "An evergreen note is an idea."


def test_who_someone_is_is_what_their_page_files_them_under_and_the_parts_other_notes_give_them_on_kepano():
    people = ["References/Kevin Kelly.md", "References/Out of Control.md", "References/Well Made 145 Kevin Kelly.md"]
    vault = _vault("kepano-obsidian", people)
    lead = _lead(_answer(vault, "Who is Kevin Kelly?"))  # his page only embeds the bases that list these
    assert lead.startswith("Kevin Kelly: Authors; "), lead
    assert {"author of Out of Control", "guest of Well Made 145 Kevin Kelly"} <= set(lead.split(": ", 1)[1].split("; "))
    met = _vault("kepano-obsidian", ["References/Steph Ango.md", "Notes/2023-09-12 Meeting with Steph.md"])
    assert _lead(_answer(met, "Who is Steph Ango?")) == "Steph Ango: Authors; at 2023-09-12 Meeting with Steph"


def test_a_property_that_says_what_is_asked_is_the_lead_on_kepano_obsidian():
    vault = _vault("kepano-obsidian", ["Notes/2023-09-12 Meeting with Steph.md", "References/Out of Control.md"])
    assert _lead(_answer(vault, "Who wrote Out of Control?")) == "Kevin Kelly"  # its author property, not "Emergence"
    assert _lead(_answer(vault, "How many pages is Out of Control?")) == "528"


def test_a_sentence_that_gives_an_example_leads_with_the_example_on_logseq_docs():
    vault = _vault("logseq-docs", ["pages/Keyboard shortcuts.md"])
    lead = _lead(_answer(vault, "How do I add a custom keyboard shortcut in config.edn?"))
    assert lead.endswith('`:shortcuts {:ui/toggle-theme "mod+c mod+t"}`'), lead  # not "#+BEGIN_EXAMPLE"


def test_the_things_a_table_lists_answer_as_its_column():
    vault = _vault("foam-docs", ["user/tools/cli/lint.md", "user/tools/cli/search.md", "user/tools/cli/links.md"])
    lead = _lead(_answer(vault, "What options does foam lint take?"))
    assert lead.startswith("Option: ") and all(o in lead for o in ("--fix", "--rule", "--workspace", "--format"))


def test_a_line_heading_a_list_heads_its_steps_and_a_recipes_temperature_is_read_on_kepano_obsidian():
    vault = _vault("kepano-obsidian", ["References/Brown butter nectarine tart.md"])
    # "Making and blind-baking the crust" heads the steps, "1. Preheat oven to 425F/220C …" among them
    assert _lead(_answer(vault, "At what temperature do I blind-bake the tart crust?")) == "425F/220C"


def test_a_row_of_a_table_that_names_what_is_asked_answers_on_foam_docs():
    notes = ["user/features/templates.md", "user/features/daily-notes.md", "user/tools/cli/lint.md"]
    vault = _vault("foam-docs", notes)
    lead = _lead(_answer(vault, "what does FOAM_SLUG produce in a template?"))
    assert lead.startswith("Name: FOAM_SLUG · Description: The sluggified title of the note"), lead


def test_a_list_a_line_says_holds_the_options_asked_for_answers_on_foam_docs():
    vault = _vault("foam-docs", FOAM_FEATURES)
    # "Available options:" over the setting's values, under the example that sets it
    lead = _lead(_answer(vault, "what options are there for foam.preview.embedNoteType?"))
    assert lead.startswith("Available options: full-card (default); full-inline"), lead
    assert "content-inline" in lead


def test_a_property_of_a_note_with_a_body_answers_what_its_key_names():
    vault = _vault(
        "kepano-obsidian",
        [
            "Notes/2023-09-12 Meeting with Steph.md",
            "Clippings/Buy wisely.md",
            "Clippings/In good hands.md",
            "Notes/Minimal Theme.md",
        ],
    )
    # the meeting's body only says what was discussed; its date is a property
    assert _lead(_answer(vault, "When was my meeting with Steph?")) == "12 September 2023"
    assert _lead(_answer(vault, "When was Buy wisely published?")) == "29 September 2023"
    assert _lead(_answer(vault, "Who wrote Buy wisely?")) == "Steph Ango"
    # a property the question names by its key is answered with its value, not with the note's to-do list
    assert _lead(_answer(vault, "What is the url of Minimal Theme?")) == "https://minimal.guide"
    assert _lead(_answer(vault, "What year did Minimal Theme start?")) == "2020"


EVERGREEN = "Notes/Evergreen notes turn ideas into objects that you can manipulate.md"


def test_a_number_or_date_of_a_note_the_question_never_speaks_of_is_not_the_lead_on_kepano_and_logseq():
    books = ["References/Out of Control.md", "References/Bass on Top.md", "References/Brown butter nectarine tart.md"]
    vault = _vault("kepano-obsidian", [*books, "Templates/Evergreen Template.md", EVERGREEN])
    assert _lead(_answer(vault, "How many pages does Out of Control have?")) == "528"
    # another book's page count, a tart's baking minutes: each answers something else
    for question, other in (
        ("How many pages does War and Peace have?", "528"),
        ("How many calories are in a banana?", "10"),
    ):
        reply = _reply(vault, question)
        assert not reply["answer"].startswith("**"), (question, reply["answer"])
        assert f"**{other}**" not in reply["answer"]
    # the album's genre and category are the question's words, beside its rating
    assert _lead(_answer(vault, "Which jazz album is rated, and what rating does it have?")) == "7"
    # a property is said of its note: "tags: 0🌲" in Evergreen Template, not a sentence that says "evergreen" elsewhere
    assert _lead(_answer(vault, "What tag does the Evergreen Template use?")) == "0🌲"
    logseq = _vault("logseq-docs", ["pages/one year in logseq.md"])
    reply = _reply(logseq, "What year did the Berlin Wall fall?")  # the page's title says "year", and only that
    assert not reply["answer"].startswith("**"), reply["answer"]
    assert "{:height 560, :width 960}" not in reply["answer"]  # a line that only shows a sized image says nothing


def test_a_note_whose_properties_name_the_person_asked_about_is_of_them_on_kepano_obsidian():
    advice = "Clippings/68 Bits of Unsolicited Advice.md"
    vault = _vault("kepano-obsidian", [advice, "References/Well Made 145 Kevin Kelly.md"])
    # the advice's text never says "Kevin Kelly"; its `author:` property does, as the podcast episode's `guests:` does
    lead = _lead(_answer(vault, "What advice did Kevin Kelly give on his 68th birthday about deadlines?"))
    assert lead != "guests: Kevin Kelly" and lead in (CORPORA / "kepano-obsidian" / advice).read_text(), lead


def test_a_property_that_names_no_one_does_not_answer_who_on_kepano_obsidian():
    vault = _vault("kepano-obsidian", ["References/Well Made 145 Kevin Kelly.md", "References/Kevin Kelly.md"])
    assert _lead(_answer(vault, "Who was the guest on episode 145 of Well Made?")) == "Kevin Kelly"
    # the episode's note names its guest and its show, not who hosts the show: "episode: 145" says the question back
    answer = _reply(vault, "Who hosts the podcast where Kevin Kelly was on episode 145?")["answer"]
    assert not answer.startswith("**"), answer


def test_a_template_asked_about_is_laid_out_as_its_fields_on_kepano_obsidian():
    root = CORPORA / "kepano-obsidian"
    vault = _vault("kepano-obsidian", sorted(str(path.relative_to(root)) for path in root.rglob("*.md")))
    born = _lead(_answer(vault, "Where would I keep the date a person was born?"))
    assert born.startswith("People Template: birthday, org, created to fill in"), born  # not "Don't be the smartest …"
    food = _lead(_answer(vault, "What do I fill in for a snack or grocery item, such as its price?"))
    assert food == "Food Template: maker, rating, price, last, created to fill in; sets categories: Food", food
    # a question about a game played, not about how its note is laid out, is answered from the game's note: the
    # Board Game Template (`last: {{date}}`) is found beside it
    assert _lead(_answer(vault, "When did I last log a game of Catan?")) == "1 September 2023"
    # a template that sets no variable is one all the same: its title says so and it leaves its fields to fill
    beans = _lead(_answer(vault, "What should I fill in when I log a bag of beans from a roaster?"))
    assert beans.startswith("Coffee Template: maker, producer, country"), beans  # not a tart's "fill with dried beans"
    # asked as "what", keeping a record asks for a value, which a template has none of
    assert "to fill in" not in _reply(vault, "What price did I record for the Brown butter nectarine tart?")["answer"]
    # Foam's page about templates quotes template variables in its examples: it is no template itself
    foam = _vault("foam-docs", ["user/features/templates.md"])
    answer = _answer(foam, "How do I fill in the title of a new note from a template?")
    assert "to fill in" not in answer, answer


def test_a_property_that_says_the_question_back_answers_with_its_note_on_kepano_obsidian():
    vault = _vault(
        "kepano-obsidian",
        [
            "References/The Legend of Zelda Breath of the Wild.md",
            "Templates/Monthly Note Template.md",
            "Templates/Book Template.md",
            "Templates/Daily Note Template.md",
        ],
    )
    # "aliases: BOTW" only says the question's own words: the note that has them is what "which note" asks for
    assert _lead(_answer(vault, "Which note has the alias BOTW?")) == "The Legend of Zelda Breath of the Wild"
    # a template's "tags: to-read" is no book still to read: no lead, rather than the question's own "to-read"
    answer = _reply(vault, "Which book in the vault is still tagged to-read?")["answer"]
    assert not answer.startswith("**"), answer


def test_what_a_thing_in_the_app_is_is_its_pages_description_and_a_namespaced_page_shows_its_name_on_logseq():
    vault = _vault("logseq-docs", ["pages/Namespaces.md", "pages/Filename format.md", "pages/setting___theme modes.md"])
    # "in Logseq" names the app the vault is about, not the page: "Namespaces" describes itself
    assert _lead(_answer(vault, "What is a namespace in Logseq?")) == "Used to group a set of related pages"
    reply = _reply(vault, "How do I switch to dark mode?")
    assert _lead(reply["answer"]) == "t t"
    themes = next(item for item in reply["context"] if item["path"] == "pages/setting___theme modes.md")
    assert themes["title"] == "setting/theme modes"  # as its page and Logseq name it, not its file name


def test_who_was_at_a_meeting_is_its_people_property_not_a_topic_it_names_on_kepano_obsidian():
    vault = _vault(
        "kepano-obsidian", ["Notes/2023-09-12 Meeting with Steph.md", "Daily/2023-09-12.md", "Notes/2023 Japan Trip.md"]
    )
    # "people: Steph Ango", not "Emergence", the topic the meeting's one line names
    assert _lead(_answer(vault, "Who did I meet on 2023-09-12?")) == "Steph Ango"


def test_a_key_for_another_action_is_not_how_to_do_what_is_asked_on_logseq_docs():
    vault = _vault("logseq-docs", ["pages/Flashcards.md", "pages/tutorial.md", "pages/Tasks.md"])
    # "press t c (toggle cards) to review all of your cards" is how to review them, and "right click" holds no "t c"
    made = _lead(_answer(vault, "How do I make a flashcard?"))
    assert made.startswith('You can right click the bullet to "Make a Flashcard"'), made
    # "press Ctrl/Cmd + Enter inside a block to cycle through different TODO statuses" writes no query
    answer = _reply(vault, "How do I write a query that lists all my TODO tasks?")["answer"]
    assert not answer.startswith(("**Ctrl", "**Cmd")), answer


def test_a_lead_in_the_questions_own_words_is_not_followed_by_a_hedge_or_passages_about_something_else():
    notes = [
        "References/Kevin Kelly.md",
        "References/Out of Control.md",
        "References/Well Made 145 Kevin Kelly.md",
        "Notes/2023-09-12 Meeting with Steph.md",
    ]
    vault = _vault("kepano-obsidian", notes)
    answer = _answer(vault, "Who is Kevin Kelly?")
    assert _lead(answer).startswith("Kevin Kelly: Authors; ")
    assert "in so many words" not in answer, answer
    asked = _reply(vault, "Which book came up during that remote catch-up last September?")
    body = {"vaults": [vault.pk], "message": "who wrote it?", "conversation": asked["conversation"]}
    followed = api(vault.owner).post("/api/chat/", body, format="json").json()
    assert _lead(followed["answer"]) == "Kevin Kelly"
    assert "in so many words" not in followed["answer"], followed["answer"]  # "it" is the book: its note says so
