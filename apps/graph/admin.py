"""Admin observability for the graph, read-only for every weight: entities, edges (with the ones pulled both
ways), communities and their runs, learned values (paths, last hops, desire paths from doors, rhythm by hour and
weekday, what rated questions taught), and the weight ledger."""

from typing import Any

from django.contrib import admin
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest

from apps.core.admin import ReadOnlyAdmin
from apps.graph.models import (
    Community,
    CommunityRun,
    Dependency,
    DoorValue,
    Entity,
    Extraction,
    FactValue,
    PathValue,
    QuestionValue,
    RatedQuestion,
    RhythmValue,
    WeightChange,
)


@admin.register(Entity)
class EntityAdmin(ReadOnlyAdmin):
    """Entities with their health (the daily job's verdict from the feedback through them)."""

    content_fields = ("name", "key")  # the vault's words: a principle's statement is its entity's name
    list_display = ["id", "kind", "vault", "tier", "strength", "health", "votes_up", "votes_down", "health_at"]
    list_filter = ["health", "kind", "tier"]


class Oscillating(admin.SimpleListFilter):
    title = "pulled both ways"
    parameter_name = "oscillating"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "strengthened and weakened by feedback")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() != "yes":
            return queryset
        moves = WeightChange.objects.filter(target="edge_strength", source="feedback").values("target_id")
        pulled = moves.annotate(up=Count("id", filter=Q(delta__gt=0)), down=Count("id", filter=Q(delta__lt=0))).filter(
            up__gt=0, down__gt=0
        )
        return queryset.filter(pk__in=pulled.values("target_id"))


@admin.register(Dependency)
class DependencyAdmin(ReadOnlyAdmin):
    list_display = [
        "source",
        "kind",
        "target",
        "vault",
        "strength",
        "confidence",
        "reason",
        "evidence",
        "last_walked_at",
    ]
    list_filter = ["kind", "reason", Oscillating]
    list_select_related = ["source", "target", "vault"]


@admin.register(CommunityRun)
class CommunityRunAdmin(ReadOnlyAdmin):
    list_display = ["vault", "modularity", "entities", "edges", "created_at"]


@admin.register(Community)
class CommunityAdmin(ReadOnlyAdmin):
    list_display = ["name", "vault", "size", "cohesion", "run"]


@admin.register(PathValue)
class PathValueAdmin(ReadOnlyAdmin):
    list_display = ["edge", "intent", "vault", "value", "helped", "failed"]
    list_filter = ["intent"]


@admin.register(FactValue)
class FactValueAdmin(ReadOnlyAdmin):
    list_display = ["mention", "intent", "vault", "value", "helped", "failed"]
    list_filter = ["intent"]


@admin.register(DoorValue)
class DoorValueAdmin(ReadOnlyAdmin):
    """Desire paths: from a question's door (a specific term) to a fact."""

    list_display = ["door", "note", "content_hash", "vault", "value", "helped", "failed"]
    search_fields = ["door"]


@admin.register(RatedQuestion)
class RatedQuestionAdmin(ReadOnlyAdmin):
    """Questions whose answers someone rated, per vault: near questions inherit what they taught."""

    content_fields = ("text", "embedding")  # what someone asked in a chat
    list_display = ["id", "vault", "model", "created_at"]


@admin.register(QuestionValue)
class QuestionValueAdmin(ReadOnlyAdmin):
    """What a rated question's units taught: a fact that helped or did not help it."""

    list_display = ["question", "note", "content_hash", "vault", "value", "helped", "failed"]


@admin.register(RhythmValue)
class RhythmValueAdmin(ReadOnlyAdmin):
    """Temporal rhythm: an edge's learned value at an hour (h00–h23) or a weekday (d1–d7)."""

    list_display = ["edge", "slot", "vault", "value", "helped", "failed"]
    list_filter = ["slot"]


@admin.register(Extraction)
class ExtractionAdmin(ReadOnlyAdmin):
    list_display = ["note", "vault", "level", "entities", "model", "written_at"]
    list_filter = ["level", "model"]


@admin.register(WeightChange)
class WeightChangeAdmin(ReadOnlyAdmin):
    """The ledger: append-only (PostgreSQL refuses changes too)."""

    list_display = ["at", "source", "target", "target_id", "intent", "old", "new", "delta", "reason", "feedback_id"]
    list_filter = ["source", "target", "intent"]
