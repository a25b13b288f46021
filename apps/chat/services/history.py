"""A person's conversations as they keep them: deleting one takes its questions, answers, the passages shown with
them and the votes given on them. What the vaults learned from those votes stays on the weight ledger, which names
no words; what the Librarian filed from the conversation into its owner's personal vault (notes, the summary)
stays there as notes the owner deletes like any other."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse

from apps.audit.services import audit_record
from apps.chat.models import Role, Status
from apps.chat.selectors import conversation_get
from apps.core import row_security
from apps.core.exceptions import Conflict

UNSETTLED = (Status.PENDING, Status.RUNNING)


@transaction.atomic
def conversation_delete(*, user: User, conversation_id: object) -> int:
    """Delete one of the requester's conversations for good; the number of its messages. Refused while an answer
    in it is still being written: the worker would be writing into a conversation that is gone."""
    conversation = conversation_get(user=user, conversation_id=conversation_id, for_update=True)
    if conversation.messages.filter(role=Role.ASSISTANT, status__in=UNSETTLED).exists():
        raise Conflict(
            "An answer in this conversation is still being written: delete it once the answer is done.",
            back=(f"{reverse('chat-page')}?c={conversation.pk}", "the conversation"),
        )
    count = conversation.messages.count()
    conversation_pk = conversation.pk
    # What its answers read, feedback and summaries included, goes with it, also from vaults its owner no longer
    # reads (or a token leaves out): the owner's right to delete was checked above.
    with row_security.bound(row_security.system("a conversation is deleted with everything it read")):
        conversation.delete()
    audit_record(
        actor=user,
        action="conversation.delete",
        object_type="conversation",
        object_id=conversation_pk,
        vault_id=None,
        changes={"messages": count},
    )
    return count
