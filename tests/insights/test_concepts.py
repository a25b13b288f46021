"""Screening and formation, discovery's paid tiers: one scoring call labels a day's candidates, duplicates and
generic labels are dropped with their reason, the reasoning model forms a concept only for each survivor, an
unusable reply falls back to the model-free path and says so, budgets and the off switch bound the calls, and the
usage report counts calls per tier per day and per accepted concept."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.chat.models import ContextItem, Conversation, Message, Role, Status
from apps.graph.models import Dependency, Entity, EntityKind
from apps.insights.budgets import calls_left
from apps.insights.footsteps import footsteps_collect, novelty_detect
from apps.insights.formation import concepts_form
from apps.insights.models import Concept, ConceptMember, NoveltyCandidate, Screening
from apps.insights.screening import candidates_screen
from apps.insights.tasks import discovery_daily
from apps.llm.models import ModelUsage
from apps.notes.models import Note
from apps.vaults.models import Vault
from tests.factories import api, make_note, make_user, make_vault, share

pytestmark = pytest.mark.django_db
NOW = timezone.now()
REASONER = "openai/scripted-reasoner"
HEAT_PUMP = (
    "A heat pump is sized from the house's heat loss at the coldest design day. "
    "An oversized heat pump short-cycles and wears out its compressor. "
    "We measured the heat loss room by room before choosing the heat pump. "
    "The installer came on a Tuesday."
)


def _vault(owner, spiked: dict[str, str], settings: dict | None = None) -> tuple[Vault, dict[str, Note]]:
    """Thirty quiet notes and the `spiked` ones (title → body), each pulled into twelve answers in the last day."""
    vault = make_vault(owner, f"Plant room {owner.pk}")
    if settings is not None:
        Vault.objects.filter(pk=vault.pk).update(chat_settings=settings)
        vault.refresh_from_db()
    for i in range(30):
        make_note(vault, f"Quiet/{i:02}.md", f"# Quiet {i}\nRoutine page number {i}.", embed=False)
    notes = {t: make_note(vault, f"{t}.md", f"# {t}\n{body}", embed=False) for t, body in spiked.items()}
    for n, note in enumerate(notes.values()):
        for i in range(12):
            _answer([note], NOW - timedelta(hours=i + 1, minutes=n))
    return vault, notes


def _answer(notes: list[Note], when) -> None:
    """One question whose answer drew on every note of `notes` (each passed the gate)."""
    owner = notes[0].vault.owner
    conversation = Conversation.objects.create(owner=owner, title="question")
    question = Message.objects.create(conversation=conversation, role=Role.USER, text="question")
    answer = Message.objects.create(
        conversation=conversation, role=Role.ASSISTANT, text="…", reply_to=question, status=Status.COMPLETE
    )
    Message.objects.filter(pk=answer.pk).update(created_at=when)
    for position, note in enumerate(notes):
        ContextItem.objects.create(
            message=answer,
            vault=note.vault,
            note=note,
            path=note.path,
            text="…",
            score=4,
            position=position,
            survived=True,
            provenance="search",
        )


def _earlier_concept(vault: Vault, label: str) -> Concept:
    entity = Entity.objects.create(vault=vault, name=label, key=f"concept: {label.lower()}", kind=EntityKind.CONCEPT)
    return Concept.objects.create(
        vault=vault, entity=entity, label=label, key=label.lower(), description="Earlier.", written_by="model-free"
    )


def _detect(vault: Vault) -> dict[str, NoveltyCandidate]:
    footsteps_collect(vault_id=vault.pk)
    return {c.note.title: c for c in novelty_detect(vault_id=vault.pk, now=NOW)}


def _usage(vault: Vault, tier: str) -> list[ModelUsage]:
    return list(ModelUsage.objects.filter(vault_id=vault.pk, purpose=f"discovery {tier}").order_by("id"))


def _outcomes(vault: Vault) -> dict[str, Screening]:
    return {s.note.title: s for s in Screening.objects.filter(vault=vault).select_related("note", "duplicate_of")}


def test_one_scoring_call_screens_the_day_and_only_survivors_are_formed(llm_server, settings):
    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "reasoning": REASONER}
    vault, notes = _vault(
        make_user(),
        {
            "Heat pump sizing": HEAT_PUMP,
            "Meeting notes": "We met and talked about the week.",
            "Boiler servicing": "The boiler is serviced every October.",
            "Radiator bleeding": "Bleed radiators from the top floor down. A cold top means trapped air.",
        },
    )
    boiler = _earlier_concept(vault, "Boiler servicing")
    found = _detect(vault)
    assert set(found) == set(notes)
    labels = {
        "Heat pump sizing": ("Heat pump sizing", False),
        "Meeting notes": ("Weekly meeting notes", True),
        "Boiler servicing": ("Servicing the boiler", False),  # the earlier concept, said another way
        "Radiator bleeding": ("Bleeding radiators", False),
    }
    reply = {"concepts": [{"id": found[t].pk, "label": label, "generic": g} for t, (label, g) in labels.items()]}
    llm_server.replies.append({"content": json.dumps(reply)})
    relations = [{"concept": boiler.pk, "why": "x"}]
    formed = {"description": "Sizing a heat pump from the heat loss.", "relations": relations}
    llm_server.replies += [{"content": json.dumps(formed)}, {"content": "I would rather not."}]

    screened = candidates_screen(vault_id=vault.pk)
    assert len(screened) == 4 and len(_usage(vault, "screening")) == 1  # one call for the whole day
    prompt = llm_server.requests[0]["body"]["messages"][1]["content"]
    assert all(title in prompt for title in notes) and "Boiler servicing" in prompt  # known concepts shown
    rows = _outcomes(vault)
    assert {t: r.outcome for t, r in rows.items()} == {
        "Heat pump sizing": "kept",
        "Meeting notes": "generic",
        "Boiler servicing": "duplicate",
        "Radiator bleeding": "kept",
    }
    assert "generic" in rows["Meeting notes"].reason
    assert rows["Boiler servicing"].duplicate_of == boiler and "close in meaning" in rows["Boiler servicing"].reason
    assert rows["Boiler servicing"].similarity >= 0.8
    assert {r.labelled_by for r in rows.values()} == {"openai/scripted-scorer"}

    made = concepts_form(vault_id=vault.pk)
    assert len(made) == 2 and len(_usage(vault, "formation")) == 2  # only the survivors
    assert len(llm_server.requests) == 3
    by_label = {c.label: c for c in made}
    assert set(by_label) == {"Heat pump sizing", "Bleeding radiators"}
    written = [c for c in made if c.written_by == REASONER]
    fallen = [c for c in made if c.written_by == "model-free"]
    assert len(written) == 1 and len(fallen) == 1
    assert written[0].description == "Sizing a heat pump from the heat loss." and not written[0].fallback
    assert written[0].relations == [{"concept": boiler.pk, "label": "Boiler servicing", "why": "x"}]
    assert fallen[0].fallback  # the malformed reply is recorded on the concept
    assert fallen[0].description.startswith("Bleed radiators from the top floor down.")  # the hub's own sentences
    for concept in made:
        assert concept.entity.kind == "concept" and concept.provenance == "proposal"
        assert ConceptMember.objects.filter(concept=concept, note_id=concept.hub_id).exists()
    assert Note.objects.filter(vault=vault).count() == 34  # concepts are never notes
    assert Dependency.objects.filter(source=written[0].entity, target=boiler.entity).exists()


def test_an_unusable_screening_reply_falls_back_to_titles_and_still_drops_with_reasons(llm_server):
    vault, _ = _vault(
        make_user(),
        {
            "Heat pump sizing": HEAT_PUMP,
            "Meeting notes": "We met and talked about the week.",
            "Boiler servicing": "The boiler is serviced every October.",
        },
    )
    boiler = _earlier_concept(vault, "Boiler servicing")
    _detect(vault)
    llm_server.replies.append({"content": "These all look like fine concepts to me!"})

    candidates_screen(vault_id=vault.pk)
    rows = _outcomes(vault)
    assert {r.labelled_by for r in rows.values()} == {"model-free"}
    assert all("JSON" in r.fallback for r in rows.values())  # recorded: why the model's labels were not used
    assert rows["Heat pump sizing"].outcome == "kept" and rows["Heat pump sizing"].label == "Heat pump sizing"
    assert rows["Meeting notes"].outcome == "generic" and "generic label" in rows["Meeting notes"].reason
    assert rows["Boiler servicing"].outcome == "duplicate" and rows["Boiler servicing"].duplicate_of == boiler
    assert rows["Boiler servicing"].reason == "the same label as the concept “Boiler servicing”"

    made = concepts_form(vault_id=vault.pk)  # the reasoning slot is the local default here
    assert [c.label for c in made] == ["Heat pump sizing"]
    concept = made[0]
    assert concept.written_by == "model-free" and not concept.fallback
    assert "sized from the house's heat loss" in concept.description
    assert "The installer came on a Tuesday" not in concept.description  # not among its central sentences
    assert [u.model for u in _usage(vault, "formation")] == ["local/model-free"]


def test_co_visited_notes_become_members_and_relate_a_new_concept_to_an_earlier_one():
    vault, notes = _vault(make_user(), {"Heat pump sizing": HEAT_PUMP})
    loss = make_note(vault, "Heat loss survey.md", "# Heat loss survey\nRoom by room.", embed=False)
    earlier = _earlier_concept(vault, "Insulation")
    ConceptMember.objects.create(vault=vault, concept=earlier, note=loss)
    hub = notes["Heat pump sizing"]
    for i in range(5):
        _answer([hub, loss], NOW - timedelta(minutes=20 + i))
    assert discovery_daily(vault.pk) == {"vaults": 1, "candidates": 1, "screened": 1, "formed": 1}
    concept = Concept.objects.get(vault=vault, hub=hub)
    members = dict(ConceptMember.objects.filter(concept=concept).values_list("note_id", "co_visits"))
    assert members == {hub.pk: 0, loss.pk: 5}
    assert "Visited together with Heat loss survey" in concept.description
    assert concept.relations == [
        {"concept": earlier.pk, "label": "Insulation", "why": "shares the notes Heat loss survey"}
    ]


def test_discovery_off_makes_no_model_call(llm_server, settings):
    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "reasoning": REASONER}
    vault, _ = _vault(make_user(), {"Heat pump sizing": HEAT_PUMP}, settings={"discovery": False})
    assert discovery_daily(vault.pk) == {"vaults": 0, "candidates": 0, "screened": 0, "formed": 0}
    _detect(vault)  # candidates found by hand: the tiers that call a model still refuse
    assert NoveltyCandidate.objects.filter(vault=vault).count() == 1
    assert candidates_screen(vault_id=vault.pk) == [] and concepts_form(vault_id=vault.pk) == []
    assert not ModelUsage.objects.filter(vault_id=vault.pk).exists() and llm_server.requests == []


def test_budgets_hold_each_tier_and_the_report_counts_calls_per_accepted_suggestion():
    vault, _ = _vault(
        make_user(),
        {"Heat pump sizing": HEAT_PUMP, "Radiator bleeding": "Bleed radiators from the top floor down."},
        settings={"discovery_budgets": {"screening": 1, "formation": 1}},
    )
    _detect(vault)
    yesterday = timezone.localdate(NOW) - timedelta(days=1)
    old = make_note(vault, "Solar gain.md", "# Solar gain\nSouth windows warm the hall in March.", embed=False)
    NoveltyCandidate.objects.create(
        vault=vault, note=old, day=yesterday, spike=5, freshness=1, variety=5, score=3, bar=1
    )
    assert discovery_daily(vault.pk)["formed"] == 1
    assert len(_usage(vault, "screening")) == 1 and len(_usage(vault, "formation")) == 1
    screened = set(Screening.objects.filter(vault=vault).values_list("day", flat=True))
    assert screened == {yesterday}  # the oldest day first; today's waits for tomorrow's budget
    assert Concept.objects.filter(vault=vault).count() == 1

    contributor, reader, stranger = make_user(), make_user(), make_user()
    share(vault, "contributor", user=contributor)
    share(vault, "reader", user=reader)
    concept = Concept.objects.get(vault=vault)
    listed = api(reader).get(f"/api/concepts/?vault={vault.pk}").json()["concepts"]
    assert [(c["label"], c["provenance"], c["status"]) for c in listed] == [("Solar gain", "proposal", "proposed")]
    assert api(stranger).get(f"/api/concepts/?vault={vault.pk}").status_code == 404
    assert api(stranger).post(f"/api/concepts/{concept.pk}/", {"verdict": "accept"}).status_code == 404
    assert api(reader).post(f"/api/concepts/{concept.pk}/", {"verdict": "accept"}).status_code == 403
    assert api(contributor).post(f"/api/concepts/{concept.pk}/", {"verdict": "adore"}).status_code == 400
    accepted = api(contributor).post(f"/api/concepts/{concept.pk}/", {"verdict": "accept"})
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"

    assert api(contributor).get("/api/discovery/usage/").status_code == 403
    staff = make_user(staff=True)
    report = api(staff).get("/api/discovery/usage/").json()
    mine = [d for d in report["days"] if d["vault"] == vault.pk]
    assert mine == [
        {
            "day": str(timezone.localdate()),
            "vault": vault.pk,
            "screening": 1,
            "formation": 1,
            "collisions": 0,
            "cards": 0,
            "blends": 0,
        }
    ]
    assert report["accepted"] >= 1 and report["calls_per_accepted"] == round(report["calls"] / report["accepted"], 2)
    browser = Client()
    browser.force_login(staff)
    page = browser.get("/admin/discovery/").content.decode()
    assert "calls per accepted" in page and f"<td>{vault.pk}</td><td>1</td><td>1</td>" in page
    outsider = Client()
    outsider.force_login(contributor)
    assert outsider.get("/admin/discovery/").status_code == 302  # the admin's sign-in, not the report


def test_a_failure_on_one_survivor_is_recorded_and_the_others_are_formed(monkeypatch):
    vault, notes = _vault(
        make_user(),
        {"Heat pump sizing": HEAT_PUMP, "Radiator bleeding": "Bleed radiators from the top floor down."},
    )
    _detect(vault)
    candidates_screen(vault_id=vault.pk)
    from apps.insights import formation

    real = formation.central_sentences

    def broken_for_radiators(text: str, k: int = 2, *, title: str = "") -> list[str]:
        if "radiators" in text:
            raise RuntimeError("planted failure")
        return real(text, k, title=title)

    monkeypatch.setattr(formation, "central_sentences", broken_for_radiators)
    made = concepts_form(vault_id=vault.pk)
    assert [c.label for c in made] == ["Heat pump sizing"]
    failed = Screening.objects.get(vault=vault, note=notes["Radiator bleeding"])
    assert failed.concept is None and "planted failure" in failed.formation_error
    monkeypatch.setattr(formation, "central_sentences", real)
    assert [c.label for c in concepts_form(vault_id=vault.pk)] == ["Radiator bleeding"]  # tried again
    failed.refresh_from_db()
    assert failed.formation_error == ""


def test_a_vaults_own_budgets_are_set_in_its_settings_and_kept_when_the_settings_page_saves():
    owner = make_user()
    vault = make_vault(owner, "Budgeted")
    url = f"/api/vaults/{vault.pk}/settings/"
    refused = api(owner).put(url, {"discovery_budgets": {"screening": -1, "dreaming": 2}}, format="json")
    assert refused.status_code == 400 and "discovery_budgets" in refused.json()
    changed = api(owner).put(url, {"discovery_budgets": {"formation": 0}}, format="json")
    assert changed.status_code == 200 and changed.json()["discovery_budgets"] == {"formation": 0}
    browser = Client()
    browser.force_login(owner)
    form = {"gate_threshold": "4", "fallback": "explicit", "discovery": "on"}
    saved = browser.post(f"/vaults/{vault.pk}/settings/", form)
    assert saved.status_code == 302
    vault.refresh_from_db()
    assert vault.chat_settings["gate_threshold"] == 4 and vault.chat_settings["discovery_budgets"] == {"formation": 0}
    assert calls_left(vault, "formation") == 0 and calls_left(vault, "screening") == 2
