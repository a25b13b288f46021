from celery import shared_task
from django.contrib.auth.models import User

from apps.llm.services import model_test


@shared_task(time_limit=300, soft_time_limit=280)
def try_model(slot: str, user_id: int | None = None) -> str:
    """The Models page's Test button: one call in the worker, which runs with the configuration under test."""
    user = User.objects.filter(pk=user_id).first() if user_id else None
    return str(model_test(slot=slot, user=user).outcome)
