from rest_framework import serializers

from apps.chat.models import Role


class SummaryOut(serializers.Serializer):
    id = serializers.IntegerField()
    level = serializers.IntegerField(help_text="0 a conversation, 1 a week, 2 a month")
    key = serializers.CharField(help_text="what it summarises: conversation:<id>, week:<YYYY-Www> or month:<YYYY-MM>")
    withheld = serializers.BooleanField(
        help_text="it drew on a vault you can no longer read: title, gist, path and text are a notice, note is null"
    )
    title = serializers.CharField()
    gist = serializers.CharField()
    note = serializers.IntegerField(allow_null=True, help_text="the note in your personal vault that holds its text")
    path = serializers.CharField()
    conversation = serializers.IntegerField(allow_null=True)
    period_start = serializers.DateTimeField()
    period_end = serializers.DateTimeField()


class SummaryMessageOut(serializers.Serializer):
    id = serializers.IntegerField()
    role = serializers.ChoiceField(choices=Role.choices)
    created_at = serializers.DateTimeField()
    text = serializers.CharField(help_text="its beginning")


class SummaryDetailOut(SummaryOut):
    text = serializers.CharField()
    children = SummaryOut(many=True, help_text="the summaries it condenses")
    parents = SummaryOut(many=True, help_text="the summaries condensing it")
    messages = SummaryMessageOut(many=True, help_text="the messages it summarises")
