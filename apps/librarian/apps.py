from django.apps import AppConfig


class LibrarianConfig(AppConfig):
    name = "apps.librarian"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.chat.hooks import exchange_answered
        from apps.graph.hooks import candidate_sources
        from apps.librarian.receivers import enrich_written, file_answered, metadata_waiting
        from apps.librarian.summaries.walk import summary_candidates
        from apps.notes import hooks as notes

        exchange_answered.subscribe(file_answered)
        notes.imported.subscribe(enrich_written)  # collision metadata follows every write, not the next sweep
        notes.embedded.subscribe(enrich_written)
        notes.steps_waiting.subscribe(metadata_waiting)
        candidate_sources.subscribe(summary_candidates)  # "what changed" questions walk the summaries too
