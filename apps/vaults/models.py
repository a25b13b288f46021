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
    # Put away by a manager: left out of "every vault" searches and chats and listed apart; nothing else changes.
    archived_at = models.DateTimeField(null=True, blank=True)
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


class TeamGrant(models.Model):
    """Who gave a team its role on a vault. A team's role lasts only while whoever gave it still manages the vault
    by a role that does not rest on that grant (`team_grants_settle`), so it never outlives the owner's revocation
    of the person who gave it. A team role with no row here was given by the owner."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    # null once the giver's account is gone: nothing holds the role up any more
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["vault", "team"], name="team_grant_once")]

    def __str__(self) -> str:
        return f"team {self.team_id} on vault {self.vault_id} by {self.granted_by_id}"
