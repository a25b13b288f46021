"""The answer written without a model leads with what the question asks for, quoted from the passages and cited;
markup debris is never an answer."""

from __future__ import annotations

from dataclasses import replace

from apps.chat.services.answering import Source, extractive, lead, sources_prompt


def source(text: str, number: int = 1) -> Source:
    return Source(number=number, path=f"note-{number}.md", text=text, provenance="authored")


def _note(title: str, text: str, number: int = 1, heading: str = "") -> Source:
    return Source(number=number, path=f"{title}.md", text=text, provenance="authored", heading=heading, title=title)


def test_when_is_answered_with_the_date_resolved_against_the_passage():
    turn = source("1:56 pm on 8 May, 2023: Melanie: I ran a charity race for mental health last Saturday!")
    assert lead("When did Melanie run a charity race?", [turn]).text == "6 May 2023"
    yesterday = source("1:56 pm on 8 May, 2023: Caroline: I went to a LGBTQ support group yesterday.")
    assert lead("When did Caroline go to the support group?", [yesterday]).text == "7 May 2023"
    last_year = source("1:56 pm on 8 May, 2023: Melanie: Yeah, I painted that lake sunrise last year!")
    assert lead("When did Melanie paint a sunrise?", [last_year]).text == "2022"
    retro = source("Sprint retro plus the review of INC-2041, the Redis outage from 2 May.")
    assert lead("When was the Redis outage?", [retro]).text == "2 May"  # no year said: none made up
    birthday = source("1:56 pm on 8 May, 2023: Melanie: My daughter's birthday is on August 13th, so we'll party!")
    assert lead("When is Melanie's daughter's birthday?", [birthday]).text == "13 August 2023"
    moved = source("1:00 pm on 3 March, 2023: Jon: We moved in on 20 December, right before the holidays.")
    assert lead("When did Jon move in?", [moved]).text == "20 December 2022"  # the nearest 20 December, not ahead
    count = source("The incident in March 2 services went down, on 14 March.")
    assert lead("When did the services go down?", [count]).text == "14 March"  # "March 2 services" is a count
    modal = source("We may 2 of us ship it with the release on 14 June.")
    assert lead("When can we ship the release?", [modal]).text == "14 June"  # "may 2" is no date


def test_who_how_many_and_how_do_i_get_a_person_a_number_and_the_key():
    assert lead("Who signs a permit to work?", [source("A permit to work is signed by Priya Shah.")]).text == (
        "Priya Shah"
    )
    assert lead("How many kilns does the studio have?", [source("The studio has three kilns.")]).text == "three"
    palette = source("# Command palette\n\nTo open it:\n\n- Press Ctrl+P to open the command palette.\n")
    found = lead("What is the shortcut to open the command palette?", [palette])
    assert (found.text, found.number) == ("Ctrl+P", 1)
    code = source("## Restart\n\nRun `systemctl restart desirepath` on the host.\n")
    assert lead("How do I restart the service?", [code]).text == "systemctl restart desirepath"


def test_headings_table_rows_callouts_and_empty_items_are_never_the_answer():
    debris = source(
        "# To embed a note:\n\n| | task-todo: |\n|---|---|\n> [!Example]\n- \n- [ ] \n"
        "Embedding a note shows its content inline with an exclamation mark before the link.\n"
    )
    answer = "".join(extractive("How do I embed a note?", [debris]))
    assert answer.startswith("**Embedding a note shows its content inline with an exclamation mark before the link.")
    for junk in ("To embed a note:", "|", "[!Example]", "- \n", "- [ ]"):
        assert junk not in answer
    assert answer.count("Embedding a note shows") == 1  # the lead is the whole sentence: not said again below it


def test_a_sentence_several_sources_say_is_said_once_and_cites_them_all():
    same = "Daily notes are named after the date they were created."
    sources = [source(same, 1), source(same, 2), source("Templates fill a new daily note.", 3), source(same, 4)]
    answer = "".join(extractive("How are daily notes named?", sources))
    assert answer.count(same) == 1
    assert answer.startswith(f"**{same}** [1][2][4]")
    assert "- Templates fill a new daily note. [3]" in answer


def test_a_passage_of_headings_only_gives_no_lead():
    assert lead("What is in the runbook?", [source("# Runbook\n## Steps\n")]) is None


def test_an_abbreviation_does_not_cut_a_sentence_in_two():
    note = source("The daily note template is used when creating daily notes (e.g. the one for today). Dates vary.")
    answer = "".join(extractive("Which template is used when creating daily notes?", [note]))
    assert "**The daily note template is used when creating daily notes (e.g. the one for today).** [1]" in answer
    assert "(e.g. [1]" not in answer


def test_a_property_or_a_line_of_links_is_the_answer_only_when_no_sentence_is():
    page = source(
        "type:: [[Command]]\nplatforms:: [[All Platforms]] except [[Publish Web]]\n\n"
        "- Related: [[Slash commands]] · [[Shortcuts]]\n- [[Command palette]], [[Commands]]\n"
        "- Type a slash to open the command menu anywhere in a block.\n"
    )
    place = source("categories: Places\ntype: Cities\n", 2)  # a note made only of properties, as its chunk reads
    answer = "".join(extractive("What type of command is it, and on which platforms?", [page, place]))
    assert answer.startswith("**Type a slash to open the command menu anywhere in a block.** [1]"), answer
    for named in ("type::", "platforms::", "Related:", "Command palette", "categories", "Cities"):
        assert named not in answer
    described = source("alias:: Reload\ntype:: [[Tool]]\ndescription:: Reloads the embedded content\n")
    assert lead("What does reload do?", [described]).text == "description:: Reloads the embedded content"  # prose
    assert lead("What rating did I give it?", [source("categories: [[Places]]\nrating: 7\n")]).text == "7"  # its value


def test_a_labelled_sentence_with_commas_is_a_sentence_and_a_list_of_names_is_not():
    labelled = source("Note: open the file, then save it\n")
    elsewhere = source("Files are kept in the vault folder.\n", 2)
    assert lead("What do I do with the file?", [labelled, elsewhere]).text == "Note: open the file, then save it"
    listed = source("supports:: Reload, Url, Open, Link to page/block, Mobile context menu\n")
    described = source("An iFrame embeds a website; reload it from the action bar.\n", 2)
    assert lead("What does an iFrame support?", [listed, described]).text == described.text.strip()


def test_a_number_or_a_name_answers_only_in_the_form_asked_and_in_a_sentence_about_the_question():
    bake = source("Start at 18:00 the day before. Bake at 220 °C for an hour and a half, until deep gold.")
    assert lead("How long does the loaf bake?", [bake]).text == "an hour and a half"
    paid = source("We spent three weeks on the migration. The contractor was paid $1,200,000 in the end.")
    assert lead("How much time did we spend on the migration?", [paid]).text == "three weeks"
    assert lead("How much was the contractor paid?", [paid]).text == "$1,200,000"
    restore = source("Nightly backups, and a restore test once every two weeks.")
    assert lead("How often is the restore tested?", [restore]).text == "once every two weeks"
    tickets = source("By 12/06 we had sold 300 tickets for the concert.")
    assert lead("How many tickets were sold for the concert?", [tickets]).text == "300"
    party = source("The party was great, lots of people showed up. We left after 2 drinks.")
    assert lead("How many people came to the party?", [party]).text == "The party was great, lots of people showed up."
    met = source("Met with Anna on Monday about the offsite. The budget is signed off by finance.")
    assert lead("Who signs off on the budget?", [met]).text == "The budget is signed off by finance."
    assert lead("Who signs off on the budget?", [source("Maria signs off on the budget.")]).text == "Maria"


def test_a_list_announced_in_the_lead_is_said_once_with_its_own_items_only():
    rota = source(
        "- Alerts go to phones through ntfy, and only three of them page the on-call person at night:\n"
        "  - API health check failing.\n  - Ingestion lag.\n"
        "    - above 10 minutes\n  - Backup job failed.\n- Everything else waits for the morning.\n"
    )
    answer = "".join(extractive("Which alerts page at night?", [rota]))
    assert answer.startswith(
        "**Alerts go to phones through ntfy, and only three of them page the on-call person at night: API health check"
        " failing; Ingestion lag; Backup job failed.** [1]"
    )
    assert answer.count("only three of them") == 1 and "morning" not in answer.split("\n")[0]


def test_a_number_word_a_pronoun_or_a_label_is_nobody():
    rota = source("One week per person, handover on Monday at 10:00. Compensation: one free day per week on call.")
    assert lead("Who takes the handover on call each week?", [rota]).text == (
        "One week per person, handover on Monday at 10:00."
    )
    party = source("We celebrated my daughter's birthday with a concert. Everyone was there!")
    assert lead("Who was at the daughter's birthday concert?", [party]).text == (
        "We celebrated my daughter's birthday with a concert."
    )
    # A word that opens a sentence without being its subject (no verb follows it) is nobody; a name with its verb is.
    retro = source("Sprint retro plus the review of INC-2041, the Redis outage from 2 May.")
    assert lead("Who reviewed the Redis outage?", [retro]).text == retro.text
    detail = source("Full detail in the outage postmortem.")
    assert lead("Who wrote the outage postmortem?", [detail]).text == detail.text
    signs = source("Maria signs off on the budget.")
    assert lead("Who signs off on the budget?", [signs]).text == "Maria"


def test_a_sentence_sharing_no_word_with_the_question_is_quoted_as_the_closest_not_claimed():
    proof = source("Start at 18:00 the day before, bake at about 12:00 the next day.")
    answer = "".join(extractive("How hot should the oven be for the rosemary flatbread?", [proof]))
    assert answer.startswith("Nothing found says this in so many words. The closest passages in your notes:")
    assert "**" not in answer and "- Start at 18:00 the day before, bake at about 12:00 the next day. [1]" in answer


def test_a_supporting_sentence_sharing_no_word_with_the_question_is_left_out_when_another_shares_one():
    auth = source("Right now the instance has local accounts with passwords and optional TOTP.", 1)
    guide = source("How a new team member gets from a fresh laptop to the internal instance.", 2)
    cable = source("Not needed for: reseating a network cable or reading labels.", 3)
    answer = "".join(extractive("What is the password of the guest network?", [auth, guide, cable]))
    assert answer.startswith("**Right now the instance has local accounts with passwords and optional TOTP.** [1]")
    assert "- Not needed for: reseating a network cable or reading labels. [3]" in answer
    assert "fresh laptop" not in answer


def test_a_sentence_is_read_with_the_heading_it_stands_under():
    section = Source(
        number=1,
        path="ops/Laptop and VPN Setup.md",
        text="On some home networks small pages load but anything big stalls. Setting `MTU = 1380` in the interface "
        "section fixed it.\n\n## Not on the VPN\n\nLonger term the VPN may be replaced by proper SSO.",
        provenance="authored",
        heading="Known issue: large pages hang",  # the chunk opens the section: its text lacks the heading
    )
    found = lead("How do I fix large pages hanging on the VPN?", [section])
    assert found.text == "Setting MTU = 1380 in the interface section fixed it."


def test_a_list_that_opens_a_section_the_question_names_is_the_lead_and_one_item_is_no_list():
    listed = Source(
        1, "kitchen/focaccia.md", "- 500 g bread flour\n- 400 g water\n- 10 g salt\n", "authored", "Ingredients"
    )
    assert lead("What are the ingredients?", [listed]).text == "Ingredients: 500 g bread flour; 400 g water; 10 g salt."
    one = Source(1, "db-version.md", "* Deletion works as follows:\n  * It is permanent.\n", "authored", "Pages")
    assert not lead("What happens to pages I delete?", [one]).text.startswith("Pages:")


def test_a_wrapped_line_stands_under_its_sections_heading_too():
    wrapped = Source(
        1,
        "vpn.md",
        "On some home networks small pages load but anything big stalls.\nSetting `MTU = 1380` in the\n"
        "interface section fixed it.",
        "authored",
        "Known issue: large pages hang",
    )  # the second line's first physical line is short: it is found by its opening words
    found = lead("How do I fix large pages hanging?", [wrapped])
    assert found.text == "Setting MTU = 1380 in the interface section fixed it."


def test_a_heading_inside_a_code_block_and_an_outlines_heading():
    fenced = Source(1, "t.md", "```markdown\n## Plan for today\n```\n\nThe template fills in today's plan.", "authored")
    assert not lead("What is the plan for today?", [fenced]).text.startswith("Plan for today:")
    outline = Source(1, "r.md", "- ## Ingredients\n\t- flour\n\t- water\n\t- salt\n", "authored")
    assert lead("What are the ingredients?", [outline]).text == "Ingredients: flour; water; salt."


def test_a_name_read_from_a_sentence_that_shares_no_word_is_not_followed_by_claims():
    baked = source("Maria baked the focaccia for the team.", 1)
    answer = "".join(extractive("Who approved the offsite budget?", [baked]))
    assert "Nothing found says this in so many words." in answer and "From your notes" not in answer


def test_two_names_that_open_a_sentence_both_answer():
    both = source("Maria Lopez and Tom Becker sign off on the budget.")
    assert lead("Who signs off on the budget?", [both]).text == "Maria Lopez and Tom Becker"
    listed = source("Maria Lopez signs off on the budget; Tom Becker files it.")
    assert lead("Who signs off on the budget?", [listed]).text == "Maria Lopez"


def test_a_temperature_is_answered_with_its_degrees_and_a_title_word_is_nobody():
    recipe = source("Start at 18:00 the day before. Bake the focaccia at 220 °C for 22 to 25 minutes until deep gold.")
    assert lead("What temperature do I bake the focaccia at?", [recipe]).text == "220 °C"
    decided = source("See ADR-007 Choosing pgvector, decided by Maren Vogt in March.")
    assert lead("Who decided on pgvector?", [decided]).text == "Maren Vogt"


def test_a_passage_of_the_note_the_question_names_keeps_its_bullet():
    recipe = Source(
        1, "kitchen/focaccia.md", "Mix flour, water and yeast; rest 20 minutes.", "authored", title="Focaccia"
    )
    soup = Source(
        2, "kitchen/lentil soup.md", "Pairs well with the leftover focaccia.", "authored", title="Lentil Soup"
    )
    answer = "".join(extractive("How do I make focaccia?", [recipe, soup]))
    assert "- Mix flour, water and yeast; rest 20 minutes. [1]" in answer


def test_a_note_that_never_says_the_name_a_question_gives_its_subject_is_not_led_with():
    tls = _note(
        "TLS Misconfiguration Postmortem",
        "In the new nginx server block the listen directive read `listen 443;` instead of `listen 443 ssl;`, so "
        "nginx spoke plain HTTP on the HTTPS port.",
    )
    redis = _note(
        "Redis Outage Postmortem",
        "What caused the outage: the broker URL defaulted to Redis on 127.0.0.1.",
        2,
    )
    # not the Redis outage's cause, however many words it shares: the TLS note's sentences say none of them
    assert lead("What caused the TLS outage?", [tls, redis]) is None
    assert lead("What caused the Redis outage?", [tls, redis]).number == 2
    # a note not titled by the name keeps its say: the question's name may be incidental to it
    untitled = Source(1, "ops/proxy.md", tls.text, "authored", title="Proxy Notes")
    assert lead("What caused the TLS outage?", [untitled, redis]).number == 2


def test_a_name_in_the_question_drops_only_a_note_of_another_such_thing():
    plugins = Source(1, "Obsidian Plugins.md", "Plugins install from Settings.", "authored", title="Obsidian Plugins")
    backups = Source(2, "Backups.md", "We back up the vault nightly with restic.", "authored", title="Backups")
    # the backup note is of no other Obsidian thing: it still answers
    assert lead("How do I back up my Obsidian vault?", [plugins, backups]).number == 2


def test_a_short_statement_over_a_list_is_still_a_statement_and_heads_only_that_list():
    release = source("Maren owns the release\n- dates are still open\n- Jun helps with QA\n")
    assert lead("Who owns the release?", [release]).text == "Maren"
    oven = source("Preheat the oven to 220 °C\n- Mix flour and water\n- Knead for 10 minutes\n")
    assert lead("What temperature should the oven be?", [oven]).text == "220 °C"
    steps = source("Making the crust\n\n1. Preheat oven to 425F/220C.\n2. Mix.\n\nServe it warm with cream.\n")
    assert lead("At what temperature do I make the crust?", [steps]).text == "425F/220C"
    assert lead("How do I serve it?", [steps]).text == "Serve it warm with cream."  # not under "Making the crust"


def test_a_rack_or_a_seat_is_no_temperature():
    room = source("Rack 12C holds the AC unit; the room is kept at 18 °C.")
    assert lead("What temperature is the server room kept at?", [room]).text == "18 °C"
    assert lead("What temperature for the freezer?", [source("Freeze at -18 °C.")]).text == "-18 °C"


def test_a_day_of_the_week_is_no_one():
    freeze = source("No deploys on Fridays after 15:00.")
    assert lead("Who do I ask for an exception to the deploy freeze?", [freeze]) is None  # no one named: not "Fridays"
    asked = source("No deploys on Fridays after 15:00; an exception to the freeze needs Mira's sign-off.")
    assert lead("Who do I ask for an exception to the deploy freeze?", [asked]).text == "Mira"


def test_a_bold_label_heads_its_line_and_what_was_agreed_answers_before_what_was_proposed():
    planning = _note(
        "2024-06-11 Planning",
        "- **SSO** came up again because two pilot teams asked. Still no owner.\n- **Release date.** Adaeze "
        "proposed 16 September 2024. Maren wanted the end of September for buffer. Agreed: release candidate on 16 "
        "September, release on 30 September.\n",
        1,
        heading="Discussion",
    )
    offsite = _note(
        "Offsite Venue Options",
        "The main outcome was the v1 scope cut, written up at the [[2024-06-11 Planning]].",
        2,
    )
    found = lead("When is the v1 release date?", [planning, offsite])
    assert found.text == "Agreed: release candidate on 16 September, release on 30 September."  # not 11 June 2024


def test_a_table_row_answers_with_its_header_and_by_the_name_it_gives():
    services = source("| Service | Port | Notes |\n|---|---|---|\n| api | 8080 | behind nginx |\n| web | 3000 | |\n")
    assert lead("What port does the api run on?", [services]).text == "Service: api · Port: 8080 · Notes: behind nginx"
    rack = _note(
        "Server Room Rack Inventory",
        "One 24U rack in the basement.\n\n| Units | Device | Notes |\n|---|---|---|\n| U10 | NAS | backup target |\n"
        "| U12 | kestrel | app server |\n",
    )
    permit = _note(
        "Permit to Work",
        "Request the PTW ahead, with a description and the rack units affected.",
        2,
    )
    # the procedure says "rack units" and never U10: the row that says U10 answers
    found = lead("What is in rack unit U10?", [rack, permit])
    assert found.text == "Units: U10 · Device: NAS · Notes: backup target"


def test_who_is_on_a_note_the_question_names_is_read_there_not_in_a_note_linking_to_it():
    rota = _note(
        "On-call Rotation",
        "One week per person, handover on Monday at 10:00. Current order: Tobias, Priya, Maren, Jun.",
    )
    handbook = _note(
        "Ops Handbook",
        "Maintained by Tobias Kell; everyone on the [[On-call Rotation]] should read it once a quarter.",
        2,
    )
    assert lead("Who is on the on-call rotation?", [rota, handbook]).text == "Tobias, Priya, Maren, Jun"


def test_a_sentence_that_only_says_where_something_is_written_is_not_the_lead():
    sync = source("See Logseq Sync Encryption. Logseq Sync encrypts every file with Age before it leaves the device.")
    found = lead("What encryption does Logseq Sync use?", [sync])
    assert found.text == "Logseq Sync encrypts every file with Age before it leaves the device."
    assert "See Logseq Sync Encryption." in "".join(extractive("What encryption does Logseq Sync use?", [sync]))
    # Alone, it is still what the passage says.
    alone = source("Full detail in Redis Outage Postmortem.")
    assert lead("What went wrong in the Redis outage?", [alone]).text == "Full detail in Redis Outage Postmortem."


def test_a_table_row_that_says_more_of_a_which_question_than_any_sentence_answers_it_with_its_headers():
    rack = source(
        "One 24U rack in the basement holds the NAS and heron.\n\n| Units | Device | Notes |\n|---|---|---|\n"
        "| U20–U19 | **kestrel** | app server: Postgres, Redis, API, workers |\n"
        "| U10 | NAS | local backup target, 4 × 8 TB |\n\nThe backup job runs nightly."
    )
    found = lead("Which device is the backup target?", [rack])
    assert found.text == "Units: U10 · Device: NAS · Notes: local backup target, 4 × 8 TB"
    # A sentence that says more of the question than any row answers as a sentence.
    assert lead("Which backup job runs nightly?", [rack]).text == "The backup job runs nightly."


def test_a_turn_that_only_says_the_question_back_is_answered_with_what_it_says_next():
    turn = source(
        "2:31 pm on 17 October, 2023: Melanie: BTW, recently I had a setback. Last month I got hurt and had to take "
        "a break from pottery. I'm doing better now."
    )
    answer = "".join(extractive("What setback did Melanie face?", [turn]))
    assert answer.startswith(
        "**BTW, recently I had a setback. Last month I got hurt and had to take a break from pottery.** [1]"
    )
    assert answer.count("I had a setback") == 1  # not quoted again below the lead
    # a yes-or-no answer needs nothing after it, and a question asked back is never added
    adopted = source("1:00 pm on 3 May, 2023: Caroline: Yes, I adopted a dog. Thanks for asking, Mel!")
    assert lead("Did Caroline adopt a dog?", [adopted]).text == "Yes, I adopted a dog."
    asked_back = source("2:31 pm on 17 October, 2023: Melanie: Recently I had a setback. How about you?")
    assert lead("What setback did Melanie face?", [asked_back]).text == "Recently I had a setback."
    # a sentence saying more than the question's words is the answer by itself
    said = source("2:31 pm on 17 October, 2023: Melanie: I had a setback with the kiln cracking my vase. Oh well.")
    assert lead("What setback did Melanie face?", [said]).text == "I had a setback with the kiln cracking my vase."
    # in a note, the sentence with the question's words is its answer, and the next one says something else
    note = source("You don't need to agree with the idea for it to become an evergreen note. They can be short.")
    assert lead("Do I have to agree with an idea for an evergreen note?", [note]).text == (
        "You don't need to agree with the idea for it to become an evergreen note."
    )


def test_how_many_counts_what_the_question_counts():
    rack = source(
        "# Server Room Rack Inventory\n\nOne 24U rack in the basement holds the NAS and heron.\n\n"
        "| Units | Device | Notes |\n|---|---|---|\n"
        "| U10 | NAS | local backup target, 4 × 8 TB |\n| U12 | heron | model server |\n"
    )
    assert lead("How many TB does the NAS hold?", [rack]).text == "4 × 8 TB"  # not "4": four disks of 8 TB
    rota = source("One week per person, handover on Monday at 10:00. Nobody is on call twice in a row.")
    assert lead("How many people are on the on-call rota?", [rota]) is None  # one week, twice in a row: no one counted
    assert lead("How many weeks is each person on call?", [rota]).text == "One"
    assert lead("How many dogs does Melanie have?", [source("We have three kids and two dogs.")]).text == "two"
    assert lead("How many vacation days do I get?", [source("Everyone gets 25 vacation days.")]).text == "25"
    bread = source("Bake the bread for 35 to 40 minutes at 220 °C.")
    assert lead("How many minutes do I bake the bread?", [bread]).text == "35 to 40 minutes"
    beach = source("2:00 pm on 3 May, 2023: Melanie: We went to the beach twice this year.")
    assert lead("How many times has Melanie gone to the beach?", [beach]).text == "twice"
    assert lead("How many coffees do I drink?", [source("I drink coffee, about 3 a day.")]).text == "3"
    # nothing counts eggs: the passages are quoted, none is led with as the count
    focaccia = source("Pairs well with the leftover focaccia. Bake the focaccia at 220 °C until golden.")
    answer = "".join(extractive("How many eggs are in the focaccia?", [focaccia]))
    assert not answer.startswith("**") and "Pairs well with the leftover focaccia." in answer
    kids = source("2:00 pm on 3 May, 2023: Melanie: I have 3 little ones at home.")
    assert lead("How many kids does Melanie have?", [kids]).text == "3"  # a count need not name what it counts


def test_a_title_a_place_or_a_frequency_is_nobody():
    pointer = source("Nightly backups are described in Backup and Restore Runbook.")
    assert lead("Who stores the backups?", [pointer]).text == pointer.text  # neither "Nightly" nor "Restore Runbook"
    assert lead("Who met the pilots?", [source("We met the pilots at Lindenhof with Adaeze.")]).text == "Adaeze"
    assert lead("Who reviews the backups?", [source("Backups are reviewed by Jun Park.")]).text == "Jun Park"
    camping = source("2:00 pm on 3 May, 2023: Caroline: Melanie and Tim went camping last weekend.")
    assert lead("Who did Melanie go camping with?", [camping]).text == "Tim"
    assert lead("Who leads the migration?", [source("The migration is in Maria's hands.")]).text == "Maria"
    kind = source("The platform keeps an index of a folder of Markdown notes for small teams.")
    assert lead("Who leads the platform team?", [kind]).text == kind.text  # "Markdown notes" are notes, not a person
    assert lead("Who keeps the index?", [source("The index is kept up to date with Jun reviewing it.")]).text == "Jun"
    assert lead("Who runs the sync?", [source("Weekly Ana runs the sync with the pilots.")]).text == "Ana"
    assert lead("Who did Jon talk to?", [source("Jon talked it over with Maria this week.")]).text == "Maria"
    standup = source("Daily Standup notes are kept in the wiki.")
    assert lead("Who keeps the standup notes?", [standup]).text == standup.text  # "Standup" is what kind of notes
    ghost = source("Ghost notes are a to-do list nobody wrote on purpose.")
    assert lead("Who wrote the postmortem?", [ghost]).text == ghost.text  # "Ghost" is what kind of notes


def test_who_comes_after_someone_in_a_list_given_in_order():
    rota = source("One week per person. Current order: Tobias, Priya, Maren, Jun. Adaeze is the escalation contact.")
    assert lead("Who is on call after Priya?", [rota]).text == "Maren"
    assert lead("Who is on call before Priya?", [rota]).text == "Tobias"
    short = source("Current order: Tobias, Priya and Maren.")
    assert lead("Who is on call after Priya?", [short]).text == "Maren"


def test_who_is_never_someone_the_sentence_says_did_not():
    rota = source("Adaeze is not on the rota but is the escalation contact. Tobias is on the rota this week.")
    assert lead("Who is on the rota?", [rota]).text == "Tobias"
    retro = source("At the last retro, Jun wasn't there and Maren ran it.")
    assert lead("Who ran the retro?", [retro]).text == "Maren"
    assert lead("Who wasn't at the retro?", [retro]).text == "Jun"  # asked who did not: the one who did not
    more = source("Maren is not only the owner but also reviews the budget.")
    assert lead("Who reviews the budget?", [more]).text == "Maren"  # "not only" says more of her, not less
    for denied in ("Maren didn't sign off on the budget.", "Maren does not sign off on the budget."):
        assert lead("Who signs off on the budget?", [source(denied)]).text == denied  # the sentence, not "Maren"
    # asked who did not, the one who did not answers
    refused = source("Adaeze is not on the rota but is the escalation contact.")
    assert lead("Who is not on the rota?", [refused]).text == "Adaeze"
    assert lead("Who never signs off?", [source("Maren never signs off on the budget.")]).text == "Maren"


def test_tags_and_the_apps_own_properties_are_never_said_and_a_cloze_reads_as_its_words():
    block = source(
        "- We moved the proxy back to nginx. #postmortem #ops\n  logseq.order-list-type:: number\n"
        "- #[[Incident Review]]\n- id:: 6103e488-22d4-4751-b27a-69b278067c26\n- Luke {{cloze @white999 on Discord}}\n"
    )
    answer = "".join(extractive("What did we do with the proxy?", [block]))
    assert "postmortem" not in answer and "order-list-type" not in answer and "Incident Review" not in answer
    assert "6103e488" not in answer
    assert lead("Who is on Discord?", [block]).text != "cloze"
    assert "{{" not in "".join(extractive("Who is @white999 on Discord?", [block]))


def test_a_sentence_that_says_a_linked_note_holds_it_is_not_the_lead():
    adr = source(
        "Settings and queue layout are in [[Celery Notes]].\n\n"
        "Redis was needed anyway for Celery, so the Postgres option lost.\n"
    )
    assert (
        lead("Why Celery and not a Postgres queue?", [adr]).text
        == "Redis was needed anyway for Celery, so the Postgres option lost."
    )
    aside = source("10 min — scales with the metronome, see [[Metronome Drills]].")
    assert lead("How long are the scales with the metronome?", [aside]).text == "10 min"


def test_part_of_a_linked_title_is_nobody_and_a_linked_person_is_someone():
    handbook = source(
        "- [[Redis Outage Postmortem]] — May 2024, workers pointed at the wrong Redis\n"
        "- [[TLS Misconfiguration Postmortem]] — June 2024, the site served plain HTTP on 443\n"
    )
    assert lead("Who wrote the TLS postmortem?", [handbook]).text != "Redis Outage"
    people = source("- The postmortem was written by [[Tobias Kell]] the next morning.\n")
    assert lead("Who wrote the TLS postmortem?", [people]).text == "Tobias Kell"


def test_a_list_a_line_says_holds_the_kind_of_thing_asked_for_answers():
    settings = _note(
        "Editor",
        "## Configuration\n\nSet the default in your settings:\n\n"
        '```json\n{\n  "editor.lineWrap": "soft"\n}\n```\n\n'
        "Available values:\n\n- `soft` (default)\n- `hard`\n- `off`\n",
    )
    found = lead("What values are there for editor.lineWrap?", [settings])
    assert found.text == "Available values: soft (default); hard; off."
    # the passage says nothing of the theme: its values are not the theme's
    assert lead("What values are there for editor.theme?", [settings]).text != found.text


def test_why_one_option_instead_of_another_is_answered_by_what_speaks_for_the_one_taken():
    title = "ADR-012 Choosing Caddy"
    nginx = _note(title, "Mature and fast. Against it: certificates need a cron job.\n", heading="Nginx")
    sync = _note("Infra Sync", "We went through the web server options again and agreed to keep it simple.\n", 2)
    caddy = _note(title, "It renews its certificates on its own, one job less for whoever runs the box.\n", 3, "Caddy")
    for question in ("Why did we choose Caddy instead of Nginx?", "Why did we pick Caddy over Nginx?"):
        found = lead(question, [nginx, sync, caddy])
        assert found.number == 3 and found.text.startswith("It renews its certificates on its own"), question
    # the note asks the question itself: the sentence after it answers
    asked_too = source("Why keep a link to the recipe instead of pasting it in? One copy stays true when it changes.\n")
    assert lead("Why link the recipe instead of pasting it?", [asked_too]).text.startswith("One copy stays true")


def test_an_exception_that_names_what_is_asked_about_answers_before_the_rule():
    permit = _note(
        "Permit to Work",
        "## When a PTW is needed\n\n"
        "- Any work inside the rack that involves power: swapping a PSU, moving a PDU, re-cabling power.\n"
        "- Not needed for: reseating a network cable, reading labels, swapping a disk in a hot-swap bay.\n",
    )
    disk = lead("Do I need a permit to swap a disk in the server rack?", [permit])
    assert disk.text == "Not needed for: reseating a network cable, reading labels, swapping a disk in a hot-swap bay."
    power = lead("Do I need a permit to swap a PSU in the rack?", [permit])  # the exception says nothing of a PSU
    assert power.text.startswith("Any work inside the rack that involves power")


def test_the_note_an_index_entry_describes_is_nobody():
    index = _note(
        "Vault Index",
        "## Hubs\n\n- [[Ops Handbook]] — runbooks, postmortems, on-call and the server room\n"
        "- [[Recipe Box]] — things I cook more than once\n",
        number=2,
    )
    assert lead("Who is on call this week?", [index]).text != "Ops Handbook"  # a note, not who is on call
    rota = _note("On-call Rotation", "One week per person. Current order: Tobias, Priya, Maren, Jun.\n")
    assert lead("Who is on call this week?", [rota, index]).text == "Tobias, Priya, Maren, Jun"


def test_what_a_question_asks_with_its_own_verb_is_what_the_sentence_says_the_verb_takes():
    turn = source("4:33 pm on 12 July, 2023: Caroline: Researching adoption agencies — it's been a dream of mine.")
    answer = "".join(extractive("What did Caroline research?", [turn]))
    assert answer.startswith("**adoption agencies** [1]")
    assert "Researching adoption agencies — it's been a dream of mine." in answer  # the sentence it is read from
    played = source("1:14 pm on 25 May, 2023: Melanie: Yeah, I play clarinet! Started when I was young.")
    assert lead("What instruments does Melanie play?", [played]).text == "clarinet"
    template = source("The meeting template includes a front matter block and an agenda.")
    assert lead("What does the meeting template include?", [template]).text == "a front matter block and an agenda"
    # a vague verb asks for the whole deed; a question whose verb already has its thing asks for something else
    hike = source("8:10 pm on 3 June, 2023: Melanie: We went on a hike to relax after the road trip.")
    assert lead("What did Melanie do to relax after the road trip?", [hike]).text.startswith("We went on a hike")
    trip = source("8:10 pm on 3 June, 2023: Jon: Took a short trip last week to Rome to clear my mind.")
    assert lead("What did Jon take a trip to Rome for?", [trip]).text.startswith("Took a short trip")
    # said of someone else, or not done at all: the sentence answers
    for question, said in (
        ("What did Jun deploy?", "Jun did not deploy the hotfix."),
        ("What did Jun fix?", "Maria fixed the DNS config while Jun watched."),
        ("What did Caroline research?", "Research shows that adoption agencies help."),
    ):
        assert lead(question, [source(said)]).text == said
    offering = source("3:00 pm on 1 June, 2023: Jon: I'm expanding the studio and offering workshops to schools.")
    assert lead("What is Jon offering?", [offering]).text == "workshops"  # the clause's doer does both
    tested = source("Jun tested restores, failover and DNS changes before the release.")
    assert lead("What did Jun test?", [tested]).text == "restores, failover and DNS changes"
    assert lead("What did Jun ship?", [source("Jun shipped v2.3.1 to the pilots.")]).text == "v2.3.1"
    event = source("Caroline attended an event for LGBTQ youth last week.")
    assert lead("What did Caroline attend?", [event]).text == "an event for LGBTQ youth"
    # what follows the verb is no thing: a pronoun, a clause, a time
    decided = source("We decided to use pgvector for the embeddings.")
    assert lead("What did we decide for the embeddings?", [decided]).text == decided.text
    tattoo = source("3:00 pm on 8 Feb, 2023: Gina: Got the tattoo years ago, it stands for freedom - dancing free.")
    assert lead("What does Gina's tattoo symbolize?", [tattoo]).text == "freedom"
    reading = source('3:00 pm on 1 June, 2023: Jon: I\'m currently reading "The Lean Startup" and hoping it helps.')
    assert lead("What book is Jon currently reading?", [reading]).text == '"The Lean Startup"'


def test_a_thing_asked_for_by_its_name_is_answered_with_the_words_that_name_it():
    workshop = source("2:00 pm on 9 June, 2023: Caroline: Last Friday, I went to an LGBTQ+ counseling workshop.")
    assert lead("What workshop did Caroline attend recently?", [workshop]).text == "LGBTQ+ counseling workshop"
    flooring = source("5:00 pm on 2 March, 2023: Jon: I'm after Marley flooring, which is what studios use.")
    assert lead("What kind of flooring is Jon looking for?", [flooring]).text == "Marley flooring"
    # the name bare, or joined on by a preposition, names nothing more: the sentence answers
    art = source("4:00 pm on 2 March, 2023: Caroline: Kids show their personalities through art.")
    assert lead("What kind of art does Caroline make?", [art]).text == "Kids show their personalities through art."
    assert lead("What runtime does the app need?", [source("The app needs the Node.js runtime.")]).text == (
        "Node.js runtime"
    )
    assert lead("What port does Redis use?", [source("Redis uses port 6379 by default.")]).text == "port 6379"
    assert lead("What kind of music does Ana like?", [source("Ana likes indie folk music.")]).text == (
        "indie folk music"
    )
    bare = source("4:00 pm on 2 March, 2023: Caroline: I loved the workshop on Friday.")
    assert lead("What workshop did Caroline attend?", [bare]).text == "I loved the workshop on Friday."
    current = source("Priya showed German queries doing worse with the current model.")
    assert lead("Which embedding model did we choose?", [current]).text == current.text


def test_a_label_naming_who_did_what_the_question_asks_answers_who():
    header = source(
        "**Incident:** INC-2041. **Date:** Thursday 2 May 2024. **Author:** Tobias Kell. **Reviewed:** at the "
        "[[2024-05-07 Retro]].\n\n## Summary\n\nA routine deploy moved Redis into its own compose stack.\n"
    )
    retro = source("No decision; Maren owns it, as recorded in the postmortem's action items.", 2)
    assert lead("Who wrote the Redis outage postmortem?", [header, retro]).text == "Tobias Kell"
    assert lead("Who owns the postmortem's action items?", [header, retro]).text == "Maren"
    # as close as the label, a sentence under a heading that names Redis: the note the question names answers first
    postmortem = Source(1, "ops/Redis Outage Postmortem.md", header.text, "authored", title="Redis Outage Postmortem")
    discussion = Source(2, "2024-05-07 Retro.md", retro.text, "authored", "Should live keep Redis?", "2024-05-07 Retro")
    assert lead("Who wrote the Redis outage postmortem?", [postmortem, discussion]).text == "Tobias Kell"


def test_a_sentence_that_announces_a_code_block_leads_with_its_first_lines():
    search = source(
        "Find all notes that have a `due` property (any value):\n\n```bash\nfoam search --property due\n```\n\n"
        "To list only the daily notes of the workspace, filter by their type:\n\n```bash\n# notes/2024-05-01.md\n"
        "foam search --type daily-note\n```\n"
    )
    answer = "".join(extractive("How do I find notes that have a due property, whatever its value?", [search]))
    assert answer.startswith("**Find all notes that have a due property (any value): `foam search --property due`**")
    daily = lead("How do I list only the daily notes?", [search]).text
    expected = "To list only the daily notes of the workspace, filter by their type: `foam search --type daily-note`"
    assert daily == expected  # its comment left out
    front = source(
        "To set a note's type, add it to the front matter at the top of the note:\n\n```yaml\n---\ntype: daily-note"
        "\n---\n```\n"
    )
    assert lead("How do I set the type of a note?", [front]).text.endswith("note: `type: daily-note`")  # not "---"


def test_what_a_thing_is_is_the_description_its_own_note_gives():
    cloze = _note(
        "Cloze",
        "type:: [[Command]]\ndescription:: Creates collapsible content that is not shown by "
        "default. Usually used with [[Flashcards]]\n\n- ## Functionality\n\t- For example, {{cloze something}}, you "
        "can click it to reveal its content.\n",
    )
    expected = "Creates collapsible content that is not shown by default. Usually used with Flashcards"
    assert lead("What is a cloze?", [cloze]).text == expected
    reload = _note(
        "Whiteboard/Action Bar/Reload",
        "type:: [[Tool]]\ndescription:: Reloads the embedded content\n",
    )
    assert lead("What does reload do?", [reload]).text == "Reloads the embedded content"  # a namespace's page
    assert lead("What is a flashcard?", [cloze]).text != expected  # another note's description says nothing of it


def test_a_property_that_says_what_is_asked_answers_before_a_sentence_that_mentions_the_thing():
    meeting = _note(
        "2023-09-12 Meeting with Steph",
        "- Discussed the book [[Out of Control]] on the topic of [[Emergence]]",
    )
    book = _note(
        "Out of Control",
        "categories: Books\npages: 528\nyear: 1992\nauthor: Kevin Kelly\ngenre: Futurism, Nonfiction\n",
        2,
    )
    assert lead("Who wrote Out of Control?", [meeting, book]).text == "Kevin Kelly"  # not "Emergence"
    assert lead("How many pages is Out of Control?", [meeting, book]).text == "528"
    movie = _note(
        "Blade Runner",
        "categories: Movies\ndirector: Ridley Scott\nyear: 1982\n",
    )
    assert lead("Who directed Blade Runner?", [movie]).text == "Ridley Scott"


def test_who_did_it_is_read_from_the_sentence_after_the_closest_when_that_names_no_one():
    kitchen = source("We briefly considered a cold-brew setup for the office kitchen. Adaeze vetoed it on cost.")
    assert lead("Who vetoed the cold brew setup for the office?", [kitchen]).text == "Adaeze"
    other = source("We briefly considered a cold-brew setup for the office kitchen. Adaeze liked the idea.")
    assert lead("Who vetoed the cold brew setup for the office?", [other]).text != "Adaeze"  # she did not veto it


def test_an_exact_count_answers_before_a_vague_one_and_a_page_describing_itself_points_elsewhere():
    sync = _note(
        "Logseq Sync",
        "- ## Functionality\n\t- Syncs up to 10 graphs between Logseq Desktop, Android, and iOS.\n",
    )
    other = _note(
        "How to sync your Logseq graph across devices",
        "- Any file sync service will sync your Logseq graph across several devices.\n",
        2,
    )
    assert lead("How many graphs can Logseq Sync sync?", [sync, other]).text == "10"  # not "several"
    scheme = source("- > This doc describes the #[[Logseq Sync]] encryption scheme.\n- Use standard Age Encryption.\n")
    assert lead("What encryption does Logseq Sync use?", [scheme]).text == "standard Age Encryption"


def test_how_to_set_what_a_sentence_names_in_code_is_the_code_line_that_sets_it():
    server = source(
        "Overrides go in a drop-in file created with `systemctl edit ollama`:\n\n    [Service]\n"
        '    Environment="OLLAMA_HOST=0.0.0.0:11434"\n\n`OLLAMA_HOST` makes it listen on the LAN instead of only '
        "localhost.\n"
    )
    lead_text = lead("How do I make Ollama listen on the LAN instead of localhost?", [server]).text
    assert lead_text == 'Environment="OLLAMA_HOST=0.0.0.0:11434"'


def test_a_notes_sentence_saying_one_word_of_a_long_question_is_quoted_not_led_with():
    stable = source("Please make the app stable and I hope you can get rid of the bugs.")
    question = "Is there a way to keep the app from sending info about my crashes back to the developers?"
    answer = "".join(extractive(question, [stable]))
    assert not answer.startswith("**") and "Please make the app stable" in answer  # quoted below, not the lead
    turn = source("1:56 pm on 8 May, 2023: Melanie: Honestly, the schedule was a bit too early for me.")
    said = lead("What did Melanie think of the new pottery class schedule?", [turn]).text  # a turn says little
    assert said == "Honestly, the schedule was a bit too early for me."
    short = source("A PTW is signed by facilities.")
    assert lead("Who signs a PTW?", [short]).text == "A PTW is signed by facilities."  # a short question asks little


def test_a_bylines_label_answers_who_only_when_it_names_the_questions_doer():
    def later_section(text: str) -> Source:
        return Source(1, "ops/Outage.md", text, "authored", title="Outage", byline="**Author:** Tobias Kell.")

    fixed = later_section("The outage began at 14:02 and Redis was back by 15:10.")
    assert lead("Who wrote the outage postmortem?", [fixed]).text == "Tobias Kell"
    # "Author:" says who wrote the note, not who fixed anything: the passage's own sentence answers
    assert lead("Who fixed Redis?", [fixed]).text == fixed.text


def test_a_span_quoted_with_its_sentence_keeps_every_source_that_says_it():
    retro = "Sprint retro. **Present:** whole team. **Facilitator:** Adaeze."
    copies = [Source(n, "meetings/Retro.md", retro, "authored", title="Retro") for n in (1, 2)]
    answer = "".join(extractive("Who facilitated the retro?", copies))
    assert answer.startswith("**Adaeze** [1][2]\n\nFrom your notes:\n\n- Facilitator: Adaeze. [1][2]\n"), answer


def _led(question: str, sources: list[Source]) -> str:
    found = lead(question, sources)
    return found.text if found else ""


ADR = _note(
    "ADR-009 Job Queue",
    "**Date:** 5 March 2024.\n\n## Options\n\n- **Celery** with Redis as broker. Familiar, mature.\n"
    "- **A Postgres-backed queue** such as procrastinate. Attractive because it removes Redis from the job path.\n\n"
    "## Decision\n\nCelery with Redis. Redis is needed anyway, and team familiarity won.\n\n"
    "## Proposed, not decided\n\nSwitch to a Postgres-backed queue after v1.\n",
)


def test_what_was_decided_is_read_from_the_decision_a_note_heads():
    for question in ("Which job queue did we choose?", "What did we decide on the job queue?"):
        assert lead(question, [ADR]).text == "Celery with Redis."  # not an option weighed, not a proposal
    shortlist = _note(
        "Embedding Model Shortlist", "nomic-embed-text, decided 14 March 2024.", number=2, heading="Decision for v1"
    )
    assert lead("Which embedding model did we pick?", [ADR, shortlist]).text.startswith("nomic-embed-text")
    # a decision of a note about something else answers nothing of the question
    assert _led("Which embedding model did we pick?", [ADR]) != "Celery with Redis."
    # among a meeting's decisions, the one the question names
    meeting = "## Decisions\n\n- Task-line convention: accepted.\n- Kubernetes: explicitly *not* in v1.\n"
    sync = _note("2024-04-09 Architecture Sync", meeting)
    assert lead("What did we decide about Kubernetes?", [sync]).text == "Kubernetes: explicitly not in v1."
    # asked for all of them, all of them; a decision said in a paragraph is said alone, its reasons left below it
    listed = "Decisions: Task-line convention: accepted; Kubernetes: explicitly not in v1."
    assert lead("What did we decide in the architecture sync?", [sync]).text == listed
    assert lead("What did we decide on the job queue?", [ADR]).text == "Celery with Redis."
    # picking up, a heading that only starts with the word, or a note titled so: no decision is asked for or said
    plugin = _note("Mind map plugin", "It picks up every block of the page.", heading="Conclusion")
    assert (
        lead("Which blocks does the mind map plugin pick up?", [plugin]).text == "It picks up every block of the page."
    )
    drivers = _note("ADR-010 Queue", "## Decision Drivers\n\nMust run without Redis.\n\n## Decision Outcome\n\nRQ.")
    assert lead("Which queue did we choose?", [drivers]).text == "RQ."


def test_things_asked_for_are_the_column_a_table_heads_with_them():
    tomatoes = _note(
        "Tomato Varieties 2024",
        "Sown indoors on 10 March 2024.\n\n| Variety | Type |\n|---|---|\n| Sungold | cherry |\n"
        "| San Marzano | plum |\n| Black Krim | beefsteak |\n",
    )
    answer = lead("What tomato varieties are we growing?", [tomatoes]).text
    assert answer == "Variety: Sungold; San Marzano; Black Krim."
    # one thing asked for: a row or a sentence answers, not the whole column
    assert _led("Which variety is a plum tomato?", [tomatoes]) == "Variety: San Marzano · Type: plum"
    # a column of a note that says nothing else of the question is no answer to it
    assert not _led("What varieties of apple grow well?", [tomatoes]).startswith("Variety:")
    # the question says a word of some rows: those rows answer, not the whole column
    assert _led("Which tomato varieties are cherry tomatoes?", [tomatoes]) == "Variety: Sungold · Type: cherry"


def test_a_note_date_says_when_it_happened_not_when_it_happens_as_a_rule():
    adr = source("**Date:** 20 February 2024. **Reviewed in:** the weekly architecture sync.")
    assert lead("When was ADR-007 reviewed?", [adr]).text == "20 February 2024"
    # the sentence leads, not the date it was written on
    assert (
        lead("When does the weekly architecture sync happen?", [adr]).text
        == "Reviewed in: the weekly architecture sync."
    )


def test_a_number_that_counts_another_thing_is_no_count_of_what_is_asked():
    rack = _note("Server Room Rack Inventory", "One 24U rack in the basement. Power: two PDUs, A and B.")
    assert lead("How many units does the rack have?", [rack]) is None  # not "One" (racks), not "two" (PDUs)
    assert lead("How many PDUs does the rack have?", [rack]).text == "two"
    assert lead("How many releases did we ship in 2024?", [source("We shipped 4 in 2024.")]).text == "4"
    assert lead("How many people came?", [source("12 attendees came to the meetup.")]).text == "12"
    focaccia = _note("Focaccia al Rosmarino", "Rest for 2 hours at room temperature. Bake at 220 °C for 25 minutes.")
    other = _note("Zibaldone", "If search cannot find the focaccia temperature, that is a bug.", number=2)
    assert lead("What temperature for the focaccia?", [focaccia, other]).text == "220 °C"  # its note is the focaccia


def test_a_supporting_sentence_of_another_thing_than_the_one_named_is_not_quoted():
    sso = _note("2024-06-11 Planning", "SSO status: still no owner; the SSO options remain a proposal.")
    trip = _note("Trieste Weekend", "Status: planning, nothing booked.", 2)
    answer = "".join(extractive("What is the status of SSO?", [sso, trip]))
    assert "still no owner" in answer and "nothing booked" not in answer
    # with nothing that says SSO, the closest sentences are still quoted
    assert "nothing booked" in "".join(extractive("What is the status of SSO?", [trip]))


def test_a_meetings_decisions_are_its_list_not_the_line_after_it():
    title = "2024-04-09 Architecture Sync"
    decided = (
        "- Task-line convention: accepted.\n- Kubernetes: explicitly *not* in v1.\n\nNext sync: 23 April. #meeting\n"
    )
    present = "**Present:** Maren (chair), Priya, Tobias, Jun. Adaeze joined for the last item.\n"
    for passages in (
        [_note(title, decided, 1, "Decisions"), _note(title, present, 2)],
        [_note(title, present, 1), _note(title, decided, 2, "Decisions")],
    ):
        found = lead("What did we decide in the architecture sync?", passages)
        assert found.text == "Decisions: Task-line convention: accepted; Kubernetes: explicitly not in v1."
        assert lead("What did we decide about Kubernetes?", passages).text == "Kubernetes: explicitly not in v1."


def test_a_decision_stated_above_its_list_of_consequences_still_answers():
    title = "ADR-007 Choosing pgvector"
    decided = "We adopt pgvector as the vector store.\n\n- One backup covers everything.\n- No new service to run.\n"
    found = lead("Which vector store did we decide on?", [_note(title, decided, 1, "Decision")])
    assert found.text == "We adopt pgvector as the vector store."


def _with_properties(title: str, text: str, properties: str, number: int = 1) -> Source:
    return Source(
        number=number, path=f"{title}.md", text=text, provenance="authored", title=title, properties=properties
    )


def test_a_property_answers_beside_the_other_properties_and_only_of_its_own_note():
    meeting = _with_properties(
        "2023-09-12 Meeting with Steph",
        "- Discussed the book Out of Control on the topic of Emergence",
        "categories: Meetings\ntags: meetings, books, emergence\ndate: 2023-09-12\npeople: Steph Ango",
    )
    assert lead("When was my meeting with Steph?", [meeting]).text == "12 September 2023"  # the tags hide nothing
    assert lead("When is my dentist appointment?", [meeting]) is None  # the meeting's date is not the dentist's
    clipping = _with_properties(
        "Buy wisely",
        "Owning fewer, better things is a relief.",
        "author: Steph Ango, Kevin Kelly\ndescription: Buy fewer things. Buy better ones.",
    )
    assert lead("Who wrote Buy wisely?", [clipping]).text == "Steph Ango, Kevin Kelly"
    assert lead("What is the description of Buy wisely?", [clipping]).text == "Buy fewer things. Buy better ones."


def test_the_model_reads_a_notes_properties_once_above_its_first_passage():
    first = _with_properties("Buy wisely", "Owning fewer, better things is a relief.", "author: Steph Ango")
    second = replace(first, number=2, text="Quality lasts.")
    prompt = sources_prompt("Who wrote Buy wisely?", [first, second])[1]["content"]
    assert prompt.count("author: Steph Ango") == 1
    assert "Properties:\nauthor: Steph Ango\n\nOwning fewer" in prompt


def test_a_property_the_passage_already_says_is_not_read_again():
    turn = _with_properties(
        "Melanie",
        "10:37 am on 27 June, 2023: Melanie: Actually, I just took my fam camping in the mountains last week!",
        "title: Melanie\nsession: 4\ndate: 10:37 am on 27 June, 2023",
    )
    # the turn's "date:" is its own stamp: the camping trip was the week before, not on the day it was told
    assert lead("When did Melanie go camping in June?", [turn]).text == "the week before 27 June 2023"


def test_a_note_made_only_of_properties_answers_with_the_value_its_key_names():
    film = _note(
        "Blade Runner",
        "categories: Movies\ngenre: Sci-fi\ndirector: Ridley Scott\nrating: 7\nyear: 1982\nimdbId: tt0083658",
    )
    assert lead("What rating did I give Blade Runner?", [film]).text == "7"  # was no lead at all
    assert lead("What genre is Blade Runner?", [film]).text == "Sci-fi"  # was "genre: Sci-fi"
    assert lead("Who directed Blade Runner?", [film]).text == "Ridley Scott"
