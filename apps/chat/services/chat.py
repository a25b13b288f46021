"""A chat turn: store the message first (nothing is lost whatever fails next), then read it in its conversation,
check significance, gather gated context, and write the answer, yielding events as the work goes so the web page
can stream it; the API runs the same events to the end."""

from __future__ import annotations

import logging
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.http import Http404
from django.utils import timezone

from apps.chat.hooks import exchange_answered, items_feedback, question_asked
from apps.chat.metrics import answer_latency_observe, gate_count
from apps.chat.models import ContextItem, Conversation, Fallback, Message, Role, Status
from apps.chat.prewarm import prewarmed_context
from apps.chat.selectors import conversation_get, explorer_quota
from apps.chat.services import answering
from apps.chat.services.answer_markdown import answer_html
from apps.chat.services.followups import needs_context, opens_as_a_follow_up, read_as, resolve
from apps.chat.services.witnesses import found_turns
from apps.core.local_models import is_local
from apps.core.validation import validate_text
from apps.graph.conversation import speakers_in
from apps.graph.explore import explore_around
from apps.llm.gateway import ModelUnavailable, complete, complete_stream
from apps.notes.text import heading_id, readable_text
from apps.research.planning import as_asked, askable
from apps.research.run import Stepped, context_steps
from apps.retrieval.gate import GateResult, Rated
from apps.retrieval.significance import ASKS_ABOUT_THE_CHAT, REWORKS_AN_ANSWER, Significance, significance
from apps.retrieval.trace import stored
from apps.vaults.chat_settings import ChatSettings, parse, strictest
from apps.vaults.models import Vault
from apps.vaults.scope import Scope, readable_scope, scope_for

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Event:
    kind: str  # status | context | delta | done | error
    data: dict[str, Any]


def validate_message(text: str) -> str:
    limit = int(settings.CHAT_MAX_MESSAGE_CHARS)
    return validate_text(text, field="message", limit=limit, empty="the message is empty: type a question")


def chat_start(*, user: User, vault_ids: list[int], text: str, conversation_id: int | None = None) -> Message:
    """Store the question and a pending answer; 400 on a bad message, 404 on an unreadable vault or someone
    else's conversation. With no vaults named, a follow-up searches the vaults its conversation last named, and a
    new conversation every readable vault."""
    text = validate_message(text)
    with transaction.atomic():
        if conversation_id is not None:
            conversation = conversation_get(user=user, conversation_id=conversation_id, for_update=True)
            scope = _follow_up_scope(user=user, conversation=conversation, vault_ids=vault_ids)
        else:
            scope = _scope_or_refusal(user=user, vault_ids=vault_ids)
            conversation = Conversation.objects.create(owner=user, title=text[:80], vault_ids=sorted(set(vault_ids)))
        searched = list(scope.vault_ids)
        question = Message.objects.create(conversation=conversation, role=Role.USER, text=text, vault_ids=searched)
        question_asked(user_id=user.pk, text=text, message_id=question.pk)
        return Message.objects.create(
            conversation=conversation, role=Role.ASSISTANT, status=Status.PENDING, reply_to=question, vault_ids=searched
        )


def _scope_or_refusal(*, user: User, vault_ids: list[int]) -> Scope:
    scope = scope_for(user, vault_ids)
    if not scope:
        raise ValidationError({"vaults": ["you cannot read any vault yet"]})
    return scope


def _follow_up_scope(*, user: User, conversation: Conversation, vault_ids: list[int]) -> Scope:
    """Vaults named now replace the conversation's; none named keeps them, less any its asker no longer reads."""
    if vault_ids:
        scope = _scope_or_refusal(user=user, vault_ids=vault_ids)
        conversation.vault_ids = sorted(set(vault_ids))
        conversation.save(update_fields=["vault_ids", "updated_at"])
        return scope
    if not conversation.vault_ids:
        return _scope_or_refusal(user=user, vault_ids=[])
    still = readable_scope(user).within(conversation.vault_ids)
    if not still:
        raise ValidationError(
            {"vaults": ["none of the vaults this conversation searched is readable to you now: tick others"]}
        )
    return still


def _earlier_questions(message: Message) -> list[str]:
    rows = (
        Message.objects.filter(
            conversation_id=message.conversation_id, role=Role.ASSISTANT, status=Status.COMPLETE, id__lt=message.pk
        )
        .exclude(resolved_query="")
        .exclude(significance=REWORK_FOLLOW_UP)
    )
    return list(rows.order_by("id").values_list("resolved_query", flat=True))


def _store_context(message: Message, result: GateResult) -> list[ContextItem]:
    return context_items_store(message, result.rated, result.survivors)


def _still_there(table: str, ids: set[int]) -> set[int]:
    """Those of `ids` still in `table`, held until commit: a delete meanwhile waits, then PostgreSQL clears the
    reference (ON DELETE SET NULL), so neither the answer nor the edit fails."""
    if not ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {table} WHERE id = ANY(%s) FOR KEY SHARE", [sorted(ids)])  # noqa: S608
        return {row[0] for row in cursor.fetchall()}


@transaction.atomic
def context_items_store(message: Message, rated_all: list[Rated], shown: list[Rated]) -> list[ContextItem]:
    """Every rated candidate as a context item of `message`; those `shown` are numbered for citation. Each item
    keeps its passage's text: a note edited or purged since it was read leaves the item without its chunk or
    note, never without its passage."""
    survivors = {id(r) for r in shown}
    # Notes before chunks, the order an edit locks them in (its note's row, then its chunks): the other order
    # deadlocks with an edit that holds the note and deletes a chunk this answer already holds.
    notes = _still_there("notes_note", {r.candidate.note for r in rated_all})
    chunks = _still_there("notes_chunk", {r.candidate.chunk for r in rated_all})
    items, number = [], 0
    for position, rated in enumerate(rated_all):
        c = rated.candidate
        survived = id(rated) in survivors
        number += survived
        items.append(
            ContextItem(
                message=message,
                vault_id=c.vault,
                note_id=c.note if c.note in notes else None,
                chunk_id=c.chunk if c.chunk in chunks else None,
                path=c.path,
                title=c.title,
                heading=c.heading,
                text=c.text,
                byline=c.byline,
                decision=c.decision,
                properties=c.properties,
                sources=[{"note": c.note, "chunk": c.chunk, "vault": c.vault, "path": c.path}],
                score=rated.score,
                probability=rated.probability,
                position=position,
                citation=number if survived else None,
                survived=survived,
                provenance=c.provenance,
                speculative=bool(c.trace and c.trace.speculative),
                trace=stored(c.trace),
            )
        )
    return ContextItem.objects.bulk_create(items)


CHAT_MODEL_UNREACHABLE = "The chat model could not be reached."
ANSWERED_FROM_NOTES_ALONE = "The chat model could not be reached, so this answer comes from your notes alone."
RENDER_SECONDS = 0.1  # how often a streamed answer is shown again as it grows


class _Writer:
    """Accumulates the answer and the notices while yielding deltas."""

    def __init__(self, message: Message, cfg: ChatSettings, user: User) -> None:
        self.message, self.cfg, self.user = message, cfg, user
        self.model = cfg.model_for("chat")
        self.vault_id = message.vault_ids[0] if len(message.vault_ids) == 1 else None
        self.cited: dict[int, tuple[str, str]] = {}  # the passages the answer may cite, once they are known
        self.rendered_at = 0.0

    def delta(self, text: str) -> Event:
        """A piece of the answer; at most every RENDER_SECONDS also the whole answer so far, rendered: the page
        shows only rendered Markdown, and a model's word-sized pieces each carrying the whole answer would send it
        hundreds of times over. The finished answer comes rendered with `done`."""
        self.message.text += text
        now = time.monotonic()
        if now - self.rendered_at < RENDER_SECONDS:
            return Event("delta", {"text": text})
        self.rendered_at = now
        return Event("delta", {"text": text, "html": answer_html(self.message.text, self.cited)})

    def local_call(self, purpose: str, messages: list[dict[str, str]], text: str) -> None:
        """The model-free answerer goes through the gateway too, so its use is on the ledger (cost 0)."""
        model = self.model if is_local(self.model) else "local/extractive"
        complete(
            slot="chat",
            purpose=purpose,
            messages=messages,
            local=lambda _: text,
            user=self.user,
            vault_id=self.vault_id,
            model=model,
        )

    def stream(self, purpose: str, messages: list[dict[str, str]], unreachable: str) -> Generator[Event, None, bool]:
        """A chat-slot call streamed into the answer; False, with the `unreachable` notice, when the provider fails.
        The provider's error is for staff (the Models page shows each slot's latest call), not for every reader."""
        try:
            for piece in complete_stream(
                slot="chat",
                purpose=purpose,
                messages=messages,
                user=self.user,
                vault_id=self.vault_id,
                model=self.model,
            ):
                yield self.delta(piece)
        except ModelUnavailable:
            self.message.notices.append(unreachable)
            return False
        return True


def _sources(items: list[ContextItem]) -> list[answering.Source]:
    return [
        answering.Source(
            number=i.citation or 0,
            path=i.path,
            text=i.text,
            provenance=i.provenance,
            heading=answering.section_of(i.heading, i.title),
            title=i.title,
            byline=i.byline,
            decision=i.decision,
            properties=i.properties,
        )
        for i in items
        if i.survived and not i.speculative  # an explorer's unit is shown to be rated, never answered from
    ]


def _answer(writer: _Writer, question: str, sources: list[answering.Source], message: str) -> Iterator[Event]:
    """The chat model's answer to `question` (a follow-up with the question before it), else the offline answer to
    what `message` asks (a follow-up's own words, its subject telling equally close sentences apart)."""
    if not is_local(writer.model):
        prompt = answering.sources_prompt(question, sources)
        if (yield from writer.stream("answer", prompt, ANSWERED_FROM_NOTES_ALONE)):
            return
        if writer.message.text:
            yield writer.delta("\n\n")
    asked, subject = read_as(message, question)
    parts = answering.extractive(asked, sources, subject)
    writer.local_call("answer", answering.sources_prompt(asked, sources), "".join(parts))
    for part in parts:
        yield writer.delta(part)


def _fallback(writer: _Writer, question: str, vault_names: list[str]) -> Iterator[Event]:
    mode = writer.cfg.fallback
    if mode == Fallback.SILENT:
        return
    if mode == Fallback.EXPLICIT and not is_local(writer.model):
        yield writer.delta(answering.fallback_text(mode, vault_names, has_model=True))
        if not (
            yield from writer.stream(
                "general knowledge", answering.plain_prompt(answering.GENERAL_PROMPT, question), CHAT_MODEL_UNREACHABLE
            )
        ):
            yield writer.delta("\n\n(The chat model is unavailable, so there is no general-knowledge answer.)")
        return
    yield writer.delta(answering.fallback_text(mode, vault_names, has_model=False))


def _casual(writer: _Writer, text: str, vault_names: list[str], *, reason: str, earlier: bool) -> Iterator[Event]:
    # A message about the chat itself gets the chat's own account: a model shown it alone would make one up.
    if (
        reason not in (REWORKS_AN_ANSWER, ASKS_ABOUT_THE_CHAT)
        and not is_local(writer.model)
        and (
            yield from writer.stream(
                "casual reply", answering.plain_prompt(answering.CASUAL_PROMPT, text), CHAT_MODEL_UNREACHABLE
            )
        )
    ):
        return
    yield writer.delta(answering.casual_reply(text, vault_names, reason=reason, earlier=earlier))


FOLLOW_UP = "a follow-up to the previous question"
# A request to rework the previous answer, which a chat model answers by writing it again from the same question's
# passages; later follow-ups read against that question, not against the request.
REWORK_FOLLOW_UP = "a rework of the previous answer"


def _significance(text: str, earlier: list[str], *, writes_with_a_model: bool) -> Significance:
    """Whether to search for `text`, read in its conversation: a follow-up borrows the previous question's subject,
    but a courtesy that points back ("thanks, that helped") stays a courtesy, and a rework of the previous answer
    is searched again only when a chat model can write it as asked (the local answerer can only quote)."""
    check = significance(text)
    if not earlier or not needs_context(text):
        return check
    if check.reason == REWORKS_AN_ANSWER:
        return Significance(True, REWORK_FOLLOW_UP) if writes_with_a_model else check
    if check.significant or opens_as_a_follow_up(text):
        return Significance(True, FOLLOW_UP)
    return check


def chat_run(*, message: Message, user: User) -> Iterator[Event]:
    """Answer a pending message, yielding events; the message ends complete, or failed with the reason (also
    when the reader leaves mid-stream). Only one run ever claims a message."""
    claimed = Message.objects.filter(pk=message.pk, status=Status.PENDING).update(
        status=Status.RUNNING, claimed_at=timezone.now()
    )
    if not claimed:
        yield Event("failure", {"detail": "This answer is already being written or was written.", "status": 409})
        return
    try:
        yield from _run(message, user)
    except Http404:
        _fail(message, "One of the vaults of this conversation is no longer readable to you.")
        yield Event("failure", {"detail": message.notices[-1], "status": 404})
    except GeneratorExit:
        _fail(message, "The page was closed before the answer was finished.")
        raise
    except Exception as exc:
        logger.exception("chat answer %s failed", message.pk)
        _fail(message, f"The answer failed: {type(exc).__name__}: {exc}")
        yield Event("failure", {"detail": message.notices[-1], "status": 503})


def _fail(message: Message, reason: str) -> None:
    message.notices.append(reason)
    message.status = Status.FAILED
    message.save(update_fields=["notices", "status"])
    _latency_observe(message)


def _latency_observe(message: Message) -> None:
    answer_latency_observe(seconds=(timezone.now() - message.created_at).total_seconds(), outcome=message.status)


def _run(message: Message, user: User) -> Iterator[Event]:
    question = message.reply_to
    assert question is not None
    scope = scope_for(user, message.vault_ids)
    vaults = list(scope.filter(Vault.objects.all(), "pk").order_by("name"))
    cfg = strictest(parse(v.chat_settings) for v in vaults)
    writer = _Writer(message, cfg, user)
    earlier = _earlier_questions(message)
    check = _significance(question.text, earlier, writes_with_a_model=not is_local(writer.model))
    message.significance = check.reason[:300]
    if not check.significant:
        message.fallback, message.grounded = Fallback.CASUAL, False
        yield from _casual(writer, question.text, [v.name for v in vaults], reason=check.reason, earlier=bool(earlier))
        yield _finish(message)
        return
    message.resolved_query = resolve(question.text, earlier)
    yield Event("status", {"text": f"Searching {', '.join(v.name for v in vaults)}…"})
    result = yield from _context(message, user, cfg, scope)
    gate_count(weighed=len(result.rated), passed=len(result.survivors))
    _explore(message, result, scope)
    message.notices.extend(result.notes)
    message.gate_model, message.gate_threshold = result.model, result.threshold
    items = _store_context(message, result)
    writer.cited = citations(items)
    said = feedback_of(items)
    yield Event("context", {"items": [item_payload(i, said) for i in items], "threshold": result.threshold})
    yield Event("status", {"text": "Writing the answer…"})
    message.answer_model = writer.model
    sources = _sources(items)
    speakers = speakers_in(v.pk for v in vaults) if sources else []
    found = found_turns(question=message.resolved_query, sources=sources, speakers=speakers, scope=scope)
    wrong = answering.misattribution(message.resolved_query, sources, speakers, found) if sources else None
    if sources and wrong is None:
        message.grounded = True
        yield from _answer(writer, message.resolved_query, sources, question.text)
    else:
        message.grounded, message.fallback = False, cfg.fallback
        if wrong is not None:  # the notes say it of someone else: say so before what the vault says when it has nothing
            yield writer.delta(f"{wrong.reason}\n\n")
        yield from _fallback(writer, message.resolved_query, [v.name for v in vaults])
    yield _finish(message)


PREWARMED = "The context was prepared before the question: it is usually asked at this hour."


def _context(message: Message, user: User, cfg: ChatSettings, scope: Scope) -> Generator[Event, None, GateResult]:
    """Gated context: pre-warmed when this question burned in at this hour (`apps.chat.prewarm`), else through
    deep research when the vaults allow it and the judge says so (progress streamed)."""
    ready = prewarmed_context(
        user=user,
        question=message.resolved_query,
        scope=scope,
        threshold=cfg.gate_threshold,
        scoring=cfg.model_for("scoring"),
    )
    if ready is not None:
        message.research = {
            "ran": False,
            "reason": PREWARMED,
            "sub_questions": [],
            "paths": [],
            "dispatches": 0,
            "hidden": 0,
            "cancelled": False,
            "prewarmed": True,
        }
        return ready
    steps = Stepped(
        context_steps(
            user=user,
            question=message.resolved_query,
            scope=scope,
            threshold=cfg.gate_threshold,
            models={slot: cfg.model_for(slot) for slot in ("scoring", "reasoning")},
            deep_research=cfg.switches["deep_research"],
            cancelled=lambda: Message.objects.filter(pk=message.pk, cancel_requested=True).exists(),
        )
    )
    for kind, data in steps:
        yield Event("research", {"step": kind, **data})
    result, run = steps.result
    message.research = {
        "ran": run.ran,
        "reason": run.reason,
        "sub_questions": run.sub_questions,
        "paths": [as_asked(sub) for sub in run.sub_questions if askable(sub)],
        "dispatches": run.dispatches,
        "hidden": run.hidden,
        "cancelled": run.cancelled,
    }
    if run.cancelled:
        message.notices.append("Deep research was skipped; answered from an ordinary search.")
    return result


def _explore(message: Message, result: GateResult, scope: Scope) -> None:
    """Add this session's speculative unit while its quota lasts (shown and rated, never answered from)."""
    taken = ContextItem.objects.filter(message__conversation_id=message.conversation_id, speculative=True).count()
    if taken >= explorer_quota(scope):
        return
    unit = explore_around(result, message.resolved_query, scope)
    if unit is not None:
        result.survivors.append(unit)
        result.rated.append(unit)


def _finish(message: Message) -> Event:
    message.status = Status.COMPLETE
    message.save()
    _latency_observe(message)
    exchange_answered(message_id=message.pk)
    Conversation.objects.filter(pk=message.conversation_id).update(updated_at=message.created_at)
    return Event("done", message_payload(message))


PICKED = "picked"  # the provenance of a unit the asker pointed to after the answer (`apps.feedback`)
WITHHELD = "(This answer read a vault you can no longer read, so it is no longer shown.)"


def feedback_of(items: list[ContextItem]) -> dict[int, dict[str, Any]]:
    """item → what its asker said of it, from the room that keeps the votes (`hooks.items_feedback`)."""
    said: dict[int, dict[str, Any]] = {}
    for answered in items_feedback(items=items):
        for item_id, keys in answered.items():
            said.setdefault(item_id, {}).update(keys)
    return said


def item_href(item: ContextItem) -> str:
    """The note's page at the section the passage was read from (the id the page gives its heading), or at its top;
    "" when the note is gone."""
    if item.note_id is None:
        return ""
    anchor = heading_id(answering.section_of(item.heading, item.title))
    return f"/notes/{item.note_id}/" + (f"#{anchor}" if anchor else "")


def item_payload(item: ContextItem, said: dict[int, dict[str, Any]]) -> dict[str, Any]:
    mine = said.get(item.pk, {})
    return {
        "id": item.pk,
        "text": item.text,
        "readable": readable_text(item.text),
        "href": item_href(item),
        "byline": item.byline,
        "decision": item.decision,
        "properties": item.properties,
        "note": item.note_id,
        "vault": item.vault_id,
        "path": item.path,
        "title": item.title,
        "section": readable_text(answering.section_of(item.heading, item.title)),
        "sources": item.sources,
        "score": item.score,
        "provenance": item.provenance,
        "speculative": item.speculative,
        "survived": item.survived,
        "citation": item.citation,
        # Only the conversation's owner rates its items, so every vote on it is theirs: shown pressed on reload.
        "signals": mine.get("signals", []),
        "choice": mine.get("choice"),
    }


def citations(items: list[ContextItem]) -> dict[int, tuple[str, str]]:
    """Citation number → (link to its section, path) of the items that passed the gate."""
    return {i.citation: (item_href(i), i.path) for i in items if i.survived and i.citation and i.note_id}


def _passed_by(items: list[ContextItem], threshold: int | None) -> str:
    """How the gate chose what passed: by score against the threshold, or (among notes, with the local scorer) in the
    search's order once a note reached the threshold or came close in meaning; the second lets passages below the
    threshold through."""
    below = threshold is not None and any(i.survived and i.score < threshold for i in items if i.provenance != PICKED)
    return "search order" if below else "score"


def message_payload(message: Message, readable: set[int] | None = None) -> dict[str, Any]:
    """The answer as the API shows it. With `readable` (history), context from vaults the reader can no longer
    read is left out, and an answer that read such a vault is withheld: it may quote or name them."""
    items = [i for i in message.context.all() if readable is None or i.vault_id in readable]
    said = feedback_of(items)
    text = message.text
    if readable is not None and not set(message.vault_ids) <= readable:
        text = WITHHELD
    return {
        "conversation": message.conversation_id,
        "message": message.pk,
        "answer": text,
        "answer_html": answer_html(text, citations(items)),
        "grounded": bool(message.grounded),
        "fallback": message.fallback or None,
        "resolved_query": message.resolved_query,
        "significance": message.significance,
        "notices": message.notices,
        "status": message.status,
        "context": [item_payload(i, said) for i in items if i.survived],
        "candidates": [item_payload(i, said) for i in items if i.provenance != PICKED],
        "picked": [item_payload(i, said) for i in items if said.get(i.pk, {}).get("picked")],
        "gate": {
            "model": message.gate_model,
            "threshold": message.gate_threshold,
            "passed_by": _passed_by(items, message.gate_threshold),
        },
        "research": message.research
        or {
            "ran": False,
            "reason": "",
            "sub_questions": [],
            "paths": [],
            "dispatches": 0,
            "hidden": 0,
            "cancelled": False,
        },
        "prewarmed": bool((message.research or {}).get("prewarmed")),
    }
