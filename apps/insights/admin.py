"""Admin observability for discovered principles and notifications, read-only: people answer on the principles
page or through the API, where every weight moves on the ledger."""

from django.contrib import admin

from apps.core.admin import ReadOnlyAdmin
from apps.insights.models import (
    Answer,
    Blend,
    Card,
    CardAnswer,
    Collision,
    Concept,
    Evidence,
    Notification,
    Principle,
    Screening,
)


@admin.register(Principle)
class PrincipleAdmin(ReadOnlyAdmin):
    """What was proposed and how it was answered; the lesson itself is the vault's words, not shown."""

    content_fields = ("statement", "previous")
    list_display = ["id", "vault", "entity", "status", "created_at", "answered_at"]
    list_filter = ["status"]


@admin.register(Evidence)
class EvidenceAdmin(ReadOnlyAdmin):
    content_fields = ("sentence",)
    list_display = ["principle", "note"]


@admin.register(Answer)
class AnswerAdmin(ReadOnlyAdmin):
    content_fields = ("text",)
    list_display = ["principle", "user", "signal", "created_at"]


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    content_fields = ("title", "text")
    list_display = ["id", "user", "vault", "created_at", "read_at"]


@admin.register(Concept)
class ConceptAdmin(ReadOnlyAdmin):
    content_fields = ("label", "key", "description", "relations", "fallback")
    list_display = ["id", "vault", "entity", "status", "written_by", "created_at"]
    list_filter = ["status"]


@admin.register(Screening)
class ScreeningAdmin(ReadOnlyAdmin):
    """What screening did with each novelty candidate and why; the label is the vault's words, not shown."""

    content_fields = ("label", "reason", "fallback", "formation_error")
    list_display = ["id", "vault", "day", "outcome", "labelled_by", "concept"]
    list_filter = ["outcome"]


@admin.register(Collision)
class CollisionAdmin(ReadOnlyAdmin):
    """Verdicts on distant pairs: who judged, for which versions of the two notes."""

    content_fields = ("why",)
    list_display = ["id", "vault", "note_a", "note_b", "distance", "fertile", "model", "judged_at"]
    list_filter = ["fertile"]


@admin.register(Card)
class CardAdmin(ReadOnlyAdmin):
    content_fields = ("title", "draft", "narrative", "why", "evidence")
    list_display = ["id", "vault", "kind", "key", "score", "active", "model", "written_at"]
    list_filter = ["kind", "active"]


@admin.register(CardAnswer)
class CardAnswerAdmin(ReadOnlyAdmin):
    list_display = ["card", "user", "signal", "created_at"]
    list_filter = ["signal"]


@admin.register(Blend)
class BlendAdmin(ReadOnlyAdmin):
    list_display = ["id", "vault", "user", "parent_a", "parent_b", "note", "model", "written_at"]
