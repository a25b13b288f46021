from django.apps import AppConfig


class LibrarianConfig(AppConfig):
    name = "apps.librarian"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.chat.hooks import exchange_answered
        from apps.graph.hooks import candidate_sources
        from apps.librarian.receivers import file_answered
        from apps.librarian.summaries.walk import summary_candidates

        exchange_answered.subscribe(file_answered)
        candidate_sources.subscribe(summary_candidates)  # "what changed" questions walk the summaries too
