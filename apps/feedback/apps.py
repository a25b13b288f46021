from django.apps import AppConfig


class FeedbackConfig(AppConfig):
    name = "apps.feedback"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.chat.hooks import items_feedback, question_asked
        from apps.feedback import receivers
        from apps.feedback.selectors import items_said
        from apps.retrieval.hooks import searched

        searched.subscribe(receivers.learn_from_search)
        question_asked.subscribe(receivers.learn_from_question)
        items_feedback.subscribe(items_said)
