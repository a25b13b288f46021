from typing import Any

from axes.admin import AccessFailureLogAdmin, AccessLogAdmin
from axes.models import AccessFailureLog, AccessLog
from django import forms
from django.conf import settings
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django_celery_beat.admin import (
    ClockedScheduleAdmin,
    CrontabScheduleAdmin,
    IntervalScheduleAdmin,
    PeriodicTaskAdmin,
    SolarScheduleAdmin,
)
from django_celery_beat.models import ClockedSchedule, CrontabSchedule, IntervalSchedule, PeriodicTask, SolarSchedule


class ReadOnlyInline(admin.TabularInline):
    """An inline that shows rows of a log or a membership list; changes go through audited services."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.fields or ()

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """Observe, never edit: weights and logs change only through services that write their ledger. Fields named in
    `content_fields` hold what a vault's readers read (bodies, passages, claims): they are never shown here."""

    content_fields: tuple[str, ...] = ()

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if self.fields:
            return [name for name in self.fields if name not in self.content_fields]
        return [f.name for f in self.model._meta.fields if f.name not in self.content_fields]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.get_fields(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# The beat schedule is code (`CELERY_BEAT_SCHEDULE`): the admin may switch the project's own entries on and off and
# move them to another schedule, never create one, name its task, pass it arguments or run it.
admin.site.unregister(PeriodicTask)


class BeatEntryForm(forms.ModelForm):
    class Meta:
        model = PeriodicTask
        fields = ["enabled", "interval", "crontab", "solar", "start_time", "expires", "expire_seconds"]


@admin.register(PeriodicTask)
class BeatEntryAdmin(PeriodicTaskAdmin):
    form = BeatEntryForm
    fieldsets = None  # type: ignore[assignment]
    fields = ["name", "task", "description", *BeatEntryForm.Meta.fields, "last_run_at", "total_run_count"]
    readonly_fields = ["name", "task", "description", "last_run_at", "total_run_count"]
    actions = ("enable_tasks", "disable_tasks", "toggle_tasks")
    change_form_template = None
    list_filter = ["enabled"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[PeriodicTask]:
        return super().get_queryset(request).filter(name__in=sorted(settings.CELERY_BEAT_SCHEDULE))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class KeptScheduleAdmin(admin.ModelAdmin):
    """Never deleted here: a schedule's entries would go with it (it may be added or changed: rescheduling), and
    a log is kept."""

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


for _schedule, _base in [
    (IntervalSchedule, IntervalScheduleAdmin),
    (CrontabSchedule, CrontabScheduleAdmin),
    (SolarSchedule, SolarScheduleAdmin),
    (ClockedSchedule, ClockedScheduleAdmin),
]:
    admin.site.unregister(_schedule)
    admin.site.register(_schedule, type(f"Kept{_base.__name__}", (KeptScheduleAdmin, _base), {}))


# Sign-in logs are kept; a lock is lifted by deleting its access attempt (or with `axes_reset_*`).
for _log, _log_base in [(AccessLog, AccessLogAdmin), (AccessFailureLog, AccessFailureLogAdmin)]:
    admin.site.unregister(_log)
    admin.site.register(
        _log,
        type(
            f"Kept{_log_base.__name__}", (_log_base,), {"has_delete_permission": lambda self, request, obj=None: False}
        ),
    )
