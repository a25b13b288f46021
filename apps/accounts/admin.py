from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest

from apps.accounts.hooks import user_created
from apps.accounts.models import Team, TeamMembership
from apps.core.admin import ReadOnlyInline


class MembershipInline(ReadOnlyInline):
    model = TeamMembership
    fields = ("user", "role", "created_at")


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    """Teams are observed here; membership changes go through team managers (audited)."""

    list_display = ["id", "name", "created_by", "created_at"]
    readonly_fields = ["group", "name", "created_by", "created_at"]
    inlines = [MembershipInline]


User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class DesirePathUserAdmin(UserAdmin):
    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        user_created(user=obj)
