from django.apps import AppConfig
from django.core import checks


class LlmConfig(AppConfig):
    name = "apps.llm"
    label = "llm"

    def ready(self) -> None:
        from apps.llm.checks import check_embedding_model

        checks.register(check_embedding_model)
