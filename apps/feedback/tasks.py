from celery import shared_task


@shared_task(acks_late=True, time_limit=300, soft_time_limit=280)
def co_occurrence(item_id: int) -> int:
    """The units delivered beside a used one learn a little (an automatic signal)."""
    from apps.chat.models import ContextItem
    from apps.feedback.services.signals import co_occurrence_learn

    item = ContextItem.objects.filter(pk=item_id).first()
    return co_occurrence_learn(item=item) if item is not None else 0


@shared_task(acks_late=True, time_limit=300, soft_time_limit=280)
def later_search(user_id: int, text: str, before_message_id: int | None = None) -> int:
    """Units delivered earlier that contain a term of this search learn a little (an automatic signal)."""
    from apps.feedback.services.signals import later_search_learn

    return later_search_learn(user_id=user_id, text=text, before_message_id=before_message_id)
