from django.conf import settings
from django.contrib.auth.models import Group
from django.contrib.postgres.fields import ArrayField
from django.db import models


class TeamRole(models.TextChoices):
    MEMBER = "member"
    MANAGER = "manager"


class Team(models.Model):
    """A team is a django Group (so guardian's group permissions apply) with managers."""

    group = models.OneToOneField(Group, on_delete=models.CASCADE, related_name="team")
    name = models.CharField(max_length=150, unique=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class TeamMembership(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="team_memberships")
    role = models.CharField(max_length=16, choices=TeamRole.choices, default=TeamRole.MEMBER)
    # Made by single sign-on from the provider's group claim: such a membership ends when the claim stops naming
    # the team. One a person made or changed stays theirs.
    from_claim = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="team_membership_unique")]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


class ApiToken(models.Model):
    """A named API token of one person. Only the SHA-256 of its key is stored (the key is shown once, when it is
    made); the prefix lets its owner tell tokens apart. A token can be read-only and limited to some vaults (their
    ids: the vault policy intersects its user's roles with them), and always expires."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16)
    key_hash = models.CharField(max_length=64, unique=True)
    read_only = models.BooleanField(default=False)
    vault_ids = ArrayField(models.BigIntegerField(), null=True, blank=True)  # null: every vault its user reads
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "revoked_at"], name="api_token_user_live")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class SsoIdentity(models.Model):
    """Who an account is at an OpenID Connect provider: the provider's issuer and its never-reassigned subject
    (`sub`). A sign-in finds its account by this pair; an e-mail address can change hands, a subject cannot."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sso_identities")
    issuer = models.CharField(max_length=500)
    subject = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    last_login_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "SSO identity"
        verbose_name_plural = "SSO identities"
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="sso_identity_unique"),
            # One identity per account and provider: a second one could not be told from a takeover.
            models.UniqueConstraint(fields=["issuer", "user"], name="sso_identity_one_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} at {self.issuer}"
