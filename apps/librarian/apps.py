from django.apps import AppConfig


class LibrarianConfig(AppConfig):
    name = "apps.librarian"
    default_auto_field = "django.db.models.BigAutoField"
