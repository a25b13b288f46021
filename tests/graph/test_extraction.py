"""The model-free extractor turns a vault into a graph: bounded per note, wikilinks as user-asserted edges,
constraints kept as such, chatter left out, and re-running changes nothing."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.graph.extract import MAX_ENTITIES, NoteText, extract_model_free, key_of
from apps.graph.models import Attribute, Dependency, Entity, Extraction, Mention
from apps.graph.services import graph_extract_note, graph_extract_pending
from apps.notes.services.notes import note_update
from tests.factories import make_note

pytestmark = pytest.mark.django_db


def test_the_sample_vault_becomes_a_bounded_graph(sample):
    counts = graph_extract_pending(vault_id=sample.pk)
    per_note = list(Extraction.objects.filter(vault=sample).values_list("entities", flat=True))
    print(
        f"sample vault: {len(per_note)} notes, levels {counts}, entities per note mean "
        f"{statistics.mean(per_note):.1f} max {max(per_note)}; {Entity.objects.filter(vault=sample).count()} "
        f"entities, {Dependency.objects.filter(vault=sample).count()} edges"
    )
    assert max(per_note) <= MAX_ENTITIES

    ptw = Entity.objects.get(vault=sample, key="permit to work")
    link = Dependency.objects.get(source=ptw, target__key="server room rack inventory", kind="links_to")
    assert (link.reason, link.confidence) == ("user-asserted", 1.0)
    constraints = Attribute.objects.filter(entity__vault=sample, kind="constraint", note__title="Permit to Work")
    assert constraints.filter(text__icontains="at least one working day ahead").exists()
    brandt = Entity.objects.get(vault=sample, key="herr brandt")
    assert Mention.objects.filter(entity=brandt, note__title="Permit to Work").exists()

    assert graph_extract_pending(vault_id=sample.pk) == {}  # nothing changed, nothing re-read


def test_chatter_yields_no_graph_and_an_edit_replaces_the_note_s_facts(vault):
    chatter = make_note(vault, "Daily.md", "haha nice, thanks!\n")
    assert graph_extract_note(note=chatter).level == "skipped"
    assert not Mention.objects.filter(note=chatter).exists()

    note = make_note(vault, "Ovens.md", "# Ovens\nThe Rational oven must be descaled every week by Priya.\n")
    graph_extract_note(note=note)
    assert Attribute.objects.filter(note=note, kind="constraint", entity__key="rational").exists()
    note = note_update(actor=vault.owner, note=note, body="# Ovens\nThe Rational oven was sold to Tobias.\n")
    graph_extract_note(note=note)
    texts = list(Attribute.objects.filter(note=note).values_list("text", flat=True))
    assert texts and all("descaled" not in t for t in texts)
    assert Entity.objects.filter(vault=vault, key="tobias").exists()

    line = "1:56 pm on 8 May, 2023: Priya: The oven in the Leeds kitchen must be descaled before lunch service.\n"
    turn = make_note(vault, "Chat.md", line)
    graph_extract_note(note=turn)
    said = Attribute.objects.filter(note=turn, entity__key="leeds")
    assert said.exists() and not said.filter(kind="constraint").exists()  # a "must" in conversation is talk


def test_a_turn_s_first_word_and_its_dates_are_not_things(vault):
    line = "1:56 pm on 8 May, 2023: Caroline: Yeah, I flew to Lisbon in July with Oscar on a Friday.\n"
    turn = make_note(vault, "Turn.md", line)
    graph_extract_note(note=turn)
    keys = set(Entity.objects.filter(vault=vault).values_list("key", flat=True))
    assert {"caroline", "lisbon", "oscar"} <= keys
    assert not keys & {"yeah", "may", "july", "friday"}  # what was said opens with "Yeah"; dates are not things


def test_a_note_about_too_many_things_is_cut_to_the_bound_by_escalation(vault):
    people = ["Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Giulia", "Hugo"]
    people += ["Irene", "Jonas", "Karla", "Luca", "Marta", "Nico", "Olga", "Paolo"]
    names = " ".join(f"Then {p} met {p}s friend in {p}ville." for p in people)
    note = make_note(vault, "Crowd.md", f"# Crowd\n{names}\n")
    done = graph_extract_note(note=note)
    assert done.level in ("stricter", "deterministic") and done.entities <= MAX_ENTITIES


def test_a_co_mention_in_a_second_note_climbs_the_ladder(vault):
    make_note(vault, "A.md", "# A\nYesterday Priya and Tobias rebuilt the oven together.\n")
    make_note(vault, "B.md", "# B\nLater Priya asked Tobias about the starter.\n")
    graph_extract_pending(vault_id=vault.pk)
    edge = Dependency.objects.get(
        vault=vault, kind="co_mentioned", source__key__in=["priya", "tobias"], target__key__in=["priya", "tobias"]
    )
    assert (edge.evidence, edge.reason, edge.confidence) == (2, "multi-memory", 0.9)


def test_an_entity_nothing_mentions_any_more_keeps_no_co_mentions(vault):
    note = make_note(vault, "Trip.md", "# Trip\n\nOscar and Lisbon, then Oscar and Porto.\n")
    graph_extract_pending(vault_id=vault.pk)
    lisbon = Entity.objects.get(vault=vault, key="lisbon")
    assert Dependency.objects.filter(source=lisbon).exists() or Dependency.objects.filter(target=lisbon).exists()

    note_update(actor=vault.owner, note=note, body="# Trip\n\nOscar and Porto, twice over.\n")
    graph_extract_pending(vault_id=vault.pk)

    assert not Mention.objects.filter(entity=lisbon).exists()
    assert not Dependency.objects.filter(kind="co_mentioned", source=lisbon).exists()
    assert not Dependency.objects.filter(kind="co_mentioned", target=lisbon).exists()
    assert Entity.objects.filter(pk=lisbon.pk).exists()  # kept: its ledger and learned values may need it
    porto = Entity.objects.get(vault=vault, key="porto")
    assert Dependency.objects.filter(kind="co_mentioned", target=porto).exists()  # what is still said stays


def test_a_note_linking_to_more_things_than_the_bound_keeps_its_own_subject(vault):
    # Past the bound the cut used to sort by name, dropping a title that sorts late ("Zettel") while its links
    # and facts were still written from it.
    links = " ".join(f"[[Alpha {n:02}]]" for n in range(MAX_ENTITIES + 5))
    note = make_note(vault, "Zettel.md", f"Index of everything.\n\n{links}\n\nThe index must list every page.")
    row = graph_extract_note(note=note)
    assert (row.level, row.entities) == ("deterministic", MAX_ENTITIES)
    zettel = Entity.objects.get(vault=vault, key="zettel")
    assert Dependency.objects.filter(source=zettel, kind="links_to").count() == MAX_ENTITIES - 1
    assert Attribute.objects.filter(entity=zettel, kind="constraint", note=note).exists()


names = st.text(alphabet=st.sampled_from("aAzZ  \t-_é"), max_size=320)


@given(title=names, links=st.lists(names, max_size=30), tags=st.lists(names, max_size=5), body=st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_everything_an_extraction_writes_hangs_on_one_of_its_entities(title, links, tags, body):
    note = NoteText(title, "authored", links, tags, [("Heading", f"{body} {' '.join(links)}. It must hold.")])
    out = extract_model_free(note)
    keys = out.entities.keys()
    assert {k for k, _ in out.aspects} <= keys
    assert {k for k, _, _, _ in out.facts} <= keys
    assert {k for k, _ in out.mentions} <= keys
    assert {k for e in out.edges for k in e[:2]} <= keys
    assert all(key_of(k) == k for k in keys)  # a key normalised again is the same key
