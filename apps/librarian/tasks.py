from celery import shared_task

from apps.chat.models import Message
from apps.core.queue import queue_after_commit
from apps.core.sweep import sweep
from apps.librarian.filing import file_exchange
from apps.librarian.services import reenrich, reenrich_stale_everywhere
from apps.librarian.summaries.condense import condense_summaries
from apps.librarian.summaries.write import conversations_pending, summarise_conversation
from apps.vaults.models import Vault

SUMMARY_BUDGET = 500  # conversations caught up per daily run; the rest the next day
ENRICH_PER_TASK = 100  # notes per metadata task after a write; more queue the next task, not one huge run


@shared_task(name="apps.librarian.tasks.reenrich_stale")
def reenrich_stale() -> dict[str, int]:
    return reenrich_stale_everywhere()


@shared_task(name="apps.librarian.tasks.enrich_vault", time_limit=1800, soft_time_limit=1700)
def enrich_vault(vault_id: int) -> dict[str, int]:
    """Metadata (and the graph re-read with it) for a vault's notes written since their last metadata, queued when
    they were written; a full run queues the next one. Notes whose metadata failed wait for their backoff."""
    counts = reenrich(vaults=list(Vault.objects.filter(pk=vault_id)), budget=ENRICH_PER_TASK)
    if counts["enriched"] + counts["failed"] >= ENRICH_PER_TASK:
        queue_after_commit(enrich_vault, vault_id, fallback="the stale sweep writes the rest")
    return counts


@shared_task(name="apps.librarian.tasks.reenrich_vaults")
def reenrich_vaults(vault_ids: list[int], everything: bool = True) -> dict[str, int]:
    return reenrich(vaults=list(Vault.objects.filter(pk__in=vault_ids).order_by("id")), everything=everything)


@shared_task(name="apps.librarian.tasks.file_exchange")
def file_exchange_task(message_id: int) -> int | None:
    note = file_exchange(message_id)
    conversation = Message.objects.filter(pk=message_id).values_list("conversation_id", flat=True).first()
    if conversation is not None:  # the conversation's summary follows its filing, whatever was filed
        queue_after_commit(summarise_conversation_task, conversation, fallback="the daily summary run writes it")
    return note.pk if note else None


@shared_task(name="apps.librarian.tasks.summarise_conversation")
def summarise_conversation_task(conversation_id: int) -> int | None:
    node = summarise_conversation(conversation_id)
    return node.pk if node else None


@shared_task(name="apps.librarian.tasks.summaries_daily")
def summaries_daily() -> dict[str, int]:
    """Summaries for conversations left behind (a queue that was down, chats from before), then condensing."""
    done, failed = sweep(conversations_pending(SUMMARY_BUDGET), "summary of conversation", summarise_conversation)
    counts = {"summarised": sum(node is not None for node in done.values()), **condense_summaries()}
    return counts | ({"failed": len(failed)} if failed else {})
