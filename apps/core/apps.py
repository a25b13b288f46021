from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"

    def ready(self) -> None:
        from apps.core.database_roles import grant_after_migrate

        post_migrate.connect(grant_after_migrate, dispatch_uid="core.grant_after_migrate")
