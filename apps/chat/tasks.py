from celery import shared_task
from django.conf import settings


@shared_task(
    name="apps.chat.tasks.answer",
    acks_late=False,
    time_limit=settings.CHAT_ANSWER_TIME_LIMIT,
    soft_time_limit=settings.CHAT_ANSWER_TIME_LIMIT - 30,
)
def answer_task(message_id: int, user_id: int) -> str:
    """Write one answer (its events go to the message's Redis stream). Not acknowledged late: a second run could
    never claim a message already `running`; the recovery sweep fails one whose worker was lost, with the reason."""
    from apps.chat.services.relay import answer_in_worker

    return answer_in_worker(message_id, user_id)


@shared_task(name="apps.chat.tasks.prewarm", time_limit=1500, soft_time_limit=1400)
def prewarm() -> int:
    """Hourly, before the hour: the context of every question burned in at the coming hour, prepared."""
    from apps.chat.prewarm import prewarm_hour

    return prewarm_hour()


@shared_task(name="apps.chat.tasks.answers_recover", time_limit=120, soft_time_limit=100)
def answers_recover() -> dict[str, int]:
    """Every minute: questions the queue never got are sent again; answers whose worker was lost are failed."""
    from apps.chat.services.recovery import answers_recover as recover

    return recover()
