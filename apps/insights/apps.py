from django.apps import AppConfig


class InsightsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.insights"

    def ready(self) -> None:
        from apps.graph.hooks import communities_detected
        from apps.insights.discover import principles_discover

        communities_detected.subscribe(principles_discover)  # "unrelated" reads the new communities
