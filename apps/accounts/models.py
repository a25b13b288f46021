from django.conf import settings
from django.contrib.auth.models import Group
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
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="team_membership_unique")]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"
