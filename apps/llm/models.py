from django.conf import settings
from django.db import models

from apps.core.triggers import append_only


class Slot(models.TextChoices):
    CHAT = "chat"  # prose a person reads
    REASONING = "reasoning"  # anything that persists
    SCORING = "scoring"  # high-volume disposable judgements
    EMBEDDING = "embedding"  # vectors for search (usage rows from the Models page's test only)


class Outcome(models.TextChoices):
    OK = "ok"
    ERROR = "error"


class ModelUsage(models.Model):
    """One row per model call through the gateway, local defaults included (cost 0)."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    vault_id = models.BigIntegerField(null=True, db_index=True)  # no FK: usage outlives purged vaults
    # No FK constraint either: a row is never changed, so it cannot follow a user away.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    slot = models.CharField(max_length=16, choices=Slot.choices)
    purpose = models.CharField(max_length=64)
    model = models.CharField(max_length=200)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=1)
    outcome = models.CharField(max_length=8, choices=Outcome.choices)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]
        # a slot's latest call of one model (the Models page and every page's banner), its latest test
        indexes = [
            models.Index(fields=["slot", "model", "-created_at"], name="usage_latest_per_model"),
            models.Index(fields=["slot", "purpose", "-created_at"], name="usage_latest_per_purpose"),
        ]
        triggers = append_only("usage", "model usage")

    def __str__(self) -> str:
        return f"{self.slot}/{self.purpose} {self.model} {self.outcome}"


class EmbeddingState(models.TextChoices):
    BUILDING = "building"  # its vectors are being written; search never reads them
    ACTIVE = "active"  # the one model search and new chunks use
    RETIRED = "retired"  # was active; its vectors stay until removed


class EmbeddingModel(models.Model):
    """The deployment's embedding models: at most one active (the database holds that), others being built beside
    it or retired. With no row yet, DESIREPATH_EMBEDDING_MODEL is the active one."""

    name = models.CharField(max_length=200, unique=True)
    state = models.CharField(max_length=16, choices=EmbeddingState.choices)
    started_at = models.DateTimeField(auto_now_add=True)
    activated_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)  # the build's last committed batch

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["state"], condition=models.Q(state="active"), name="embedding_model_one_active"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.state})"
