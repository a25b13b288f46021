from celery import shared_task


@shared_task(name="apps.chat.tasks.answer", acks_late=False)
def answer_task(message_id: int, user_id: int) -> str:
    """Write one answer (its events go to the message's Redis stream). Not acknowledged late: a worker lost
    mid-answer leaves the message `running`, and a second run could never claim it anyway."""
    from apps.chat.services.relay import answer_in_worker

    return answer_in_worker(message_id, user_id)
