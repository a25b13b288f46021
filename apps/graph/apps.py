from django.apps import AppConfig


class GraphConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.graph"

    def ready(self) -> None:
        from apps.graph import receivers
        from apps.notes import hooks as notes

        notes.imported.subscribe(receivers.extract_imported)
        notes.embedded.subscribe(receivers.extract_embedded)
        notes.steps_waiting.subscribe(receivers.extraction_waiting)
