from django.apps import AppConfig


class InsightsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.insights"

    def ready(self) -> None:
        from apps.graph.hooks import communities_detected
        from apps.insights.discover import principles_discover
        from apps.insights.receivers import build_after_writes
        from apps.notes import hooks as notes

        communities_detected.subscribe(principles_discover)  # "unrelated" reads the new communities
        notes.imported.subscribe(build_after_writes)  # the first cards follow the first import, not the next day
        notes.embedded.subscribe(build_after_writes)
