from rest_framework import serializers

from apps.insights.models import PrincipleStatus


class EvidenceOut(serializers.Serializer):
    note = serializers.IntegerField()
    path = serializers.CharField()
    chunk = serializers.IntegerField(allow_null=True)
    sentence = serializers.CharField()


class PrincipleOut(serializers.Serializer):
    id = serializers.IntegerField()
    vault = serializers.IntegerField()
    entity = serializers.IntegerField()
    statement = serializers.CharField()
    previous = serializers.ListField(child=serializers.CharField(), help_text="earlier statements, oldest first")
    status = serializers.ChoiceField(choices=PrincipleStatus.choices)
    created_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)
    evidence = EvidenceOut(many=True, help_text="the sentences the pattern was seen in")


class PrincipleListOut(serializers.Serializer):
    principles = PrincipleOut(many=True)


class PrincipleAnsweredOut(PrincipleOut):
    recorded = serializers.BooleanField(help_text="false when you had given this answer already")


class NotificationOut(serializers.Serializer):
    id = serializers.IntegerField()
    vault = serializers.IntegerField()
    principle = serializers.IntegerField(allow_null=True)
    title = serializers.CharField()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()
    read = serializers.BooleanField()
    url = serializers.CharField(help_text="the page to open it on")


class NotificationListOut(serializers.Serializer):
    notifications = NotificationOut(many=True)
