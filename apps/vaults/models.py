from django.conf import settings
from django.db import models


class VaultRole(models.TextChoices):
    READER = "reader"
    CONTRIBUTOR = "contributor"
    MANAGER = "manager"


class Vault(models.Model):
    """A shared (or personal) collection of notes. Roles are guardian object permissions."""

    name = models.CharField(max_length=200)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_vaults")
    is_personal = models.BooleanField(default=False)
    # Answering settings (see apps/vaults/chat_settings.py): gate threshold, fallback, switches, slot models.
    chat_settings = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        default_permissions = ()
        permissions = [
            ("read_vault", "Read the vault's notes"),
            ("contribute_vault", "Write notes in the vault"),
            ("manage_vault", "Share, restore and purge in the vault"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["owner"], condition=models.Q(is_personal=True), name="vault_one_personal_per_user"
            )
        ]

    def __str__(self) -> str:
        return self.name
