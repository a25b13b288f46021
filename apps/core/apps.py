from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"

    def ready(self) -> None:
        from apps.core import row_security
        from apps.core.database_roles import grant_after_migrate

        row_security.install()

        post_migrate.connect(grant_after_migrate, dispatch_uid="core.grant_after_migrate")
