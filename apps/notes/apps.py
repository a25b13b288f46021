from django.apps import AppConfig


class NotesConfig(AppConfig):
    name = "apps.notes"
    label = "notes"
