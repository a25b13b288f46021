"""Answers are written by a Celery worker; their events travel through a Redis stream per message, so the page
can stream them and the API can wait for them while no request does the work.

Everything a reader needs outlives the stream: the message row holds the answer once it is done, so a reader
who comes late (or after the stream expired) gets the final state from the database."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.utils import timezone

from apps.chat.models import Message, Status
from apps.chat.services.chat import Event, chat_run, message_payload
from apps.core import row_security
from apps.core.redis_connection import redis_client
from apps.vaults.row_scope import requester_binding

STREAM_SECONDS = 3600  # how long a finished answer's events stay readable
FINAL = ("done", "failure")
WAITING = Event("waiting", {})
WRITING_BEAT_SECONDS = 2.0  # how often a worker writing an answer says so


def _key(message_id: int) -> str:
    return f"desirepath:chat:{message_id}"


def publish(message_id: int, event: Event) -> None:
    client, key = redis_client(), _key(message_id)
    client.xadd(key, {"kind": event.kind, "data": json.dumps(event.data, default=str)})
    client.expire(key, STREAM_SECONDS)


def _writing_key() -> str:
    return f"desirepath:answers-writing:{settings.CHAT_ANSWER_QUEUE}"


@contextmanager
def answer_writing() -> Iterator[None]:
    """While a worker writes an answer it says so every WRITING_BEAT_SECONDS (a model may take long before its
    first word, so the beat does not wait for events)."""
    stop = threading.Event()

    def beat() -> None:
        client = redis_client()
        while True:
            with contextlib.suppress(Exception):  # Redis down: waiting readers see no beat and say so
                client.set(_writing_key(), repr(time.time()), ex=STREAM_SECONDS)
            if stop.wait(WRITING_BEAT_SECONDS):
                return

    beating = threading.Thread(target=beat, name="answer-beat", daemon=True)
    beating.start()
    try:
        yield
    finally:
        stop.set()
        beating.join(timeout=5)


def answers_being_written(within: float) -> bool:
    """Whether a worker was writing an answer within the last `within` seconds: a question not picked up yet is
    then waiting its turn behind other answers, not lost."""
    try:
        beat = redis_client().get(_writing_key())
    except Exception:  # noqa: BLE001
        return False
    return beat is not None and time.time() - float(beat) < max(within, 2 * WRITING_BEAT_SECONDS)


def answer_in_worker(message_id: int, user_id: int) -> str:
    """The worker's side: run the answer, publishing every event; the last one is `done` or `failure`."""
    message = Message.objects.select_related("reply_to").get(pk=message_id)
    user = get_user_model().objects.get(pk=user_id)
    kind = "failure"
    # The wall is the vaults the question was asked of (a token's limits were applied when it was asked), those
    # the asker still reads.
    with answer_writing(), row_security.bound(requester_binding(user, within=message.vault_ids)):
        for event in chat_run(message=message, user=user):
            if kind == "failure" and event.kind == "failure" and event.data.get("status") == 409:
                return "claimed elsewhere"  # a second send of the same question: the run that has it publishes
            publish(message_id, event)
            kind = event.kind
    return kind


def queue_answer(message: Message, user: User) -> None:
    """Hand the answer to the worker. An unreachable broker raises; the question stays stored and pending."""
    from apps.chat.tasks import answer_task

    redis_client().delete(_key(message.pk))  # a fresh stream, whatever an earlier database left under this id
    answer_task.delay(message.pk, user.pk)
    Message.objects.filter(pk=message.pk).update(sent_at=timezone.now())


def _final_from_row(message_id: int) -> Event | None:
    message = Message.objects.filter(pk=message_id).first()
    if message is None or message.status in (Status.PENDING, Status.RUNNING):
        return None
    if message.status == Status.COMPLETE:
        return Event("done", message_payload(message))
    return Event("failure", {"detail": (message.notices or ["The answer failed."])[-1], "status": 503})


def follow(message_id: int, *, wait: float, unclaimed: float) -> Iterator[Event]:
    """Relay the answer's events from the start until it is done or failed, with a `waiting` event for each
    second without news. Ends with a `timeout` event after `wait` seconds, or after `unclaimed` seconds if no
    worker has picked the answer up and none is writing another (the question is kept and answered when one
    does); `queued` in the event says the answer was still waiting its turn behind others."""
    client, key, last = redis_client(), _key(message_id), "0-0"
    started = time.monotonic()
    while True:
        replies = client.xread({key: last}, block=1000, count=100) or []
        for _, entries in replies:
            for entry_id, fields in entries:
                last = entry_id
                event = Event(fields[b"kind"].decode(), json.loads(fields[b"data"]))
                yield event
                if event.kind in FINAL:
                    return
        if replies:
            continue
        yield WAITING  # lets a streamed response notice a client that has gone, within a second
        final = _final_from_row(message_id)
        if final is not None and last == "0-0":  # finished before we looked, and its stream is gone
            yield final
            return
        waited = time.monotonic() - started
        status = Message.objects.filter(pk=message_id).values_list("status", flat=True).first()
        if status == Status.PENDING and waited > unclaimed:
            queued = answers_being_written(unclaimed)
            if waited > wait or not queued:
                yield Event("timeout", {"status": status, "waited": round(waited), "queued": queued})
                return
        elif waited > wait:
            yield Event("timeout", {"status": status, "waited": round(waited)})
            return
