from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "apps.chat"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.chat.receivers import learn_from_search
        from apps.retrieval.hooks import searched

        searched.subscribe(learn_from_search)
