"""Admin observability for discovered principles and notifications, read-only: people answer on the principles
page or through the API, where every weight moves on the ledger."""

from django.contrib import admin

from apps.core.admin import ReadOnlyAdmin
from apps.insights.models import Answer, Evidence, Notification, Principle


@admin.register(Principle)
class PrincipleAdmin(ReadOnlyAdmin):
    list_display = ["statement", "vault", "status", "created_at", "answered_at"]
    list_filter = ["status"]
    search_fields = ["statement", "signature"]


@admin.register(Evidence)
class EvidenceAdmin(ReadOnlyAdmin):
    list_display = ["principle", "note", "sentence"]


@admin.register(Answer)
class AnswerAdmin(ReadOnlyAdmin):
    list_display = ["principle", "user", "signal", "created_at"]


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    list_display = ["title", "user", "vault", "created_at", "read_at"]
