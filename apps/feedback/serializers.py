from rest_framework import serializers

from apps.feedback.models import Signal
from apps.notes.models import CorrectionStatus


class FeedbackCorrectionOut(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=CorrectionStatus.choices)
    successor = serializers.IntegerField(allow_null=True)


class FeedbackOut(serializers.Serializer):
    id = serializers.IntegerField()
    context_item = serializers.IntegerField()
    signal = serializers.ChoiceField(choices=Signal.choices)
    created = serializers.BooleanField(help_text="false when this vote was already recorded")
    correction = FeedbackCorrectionOut(required=False, help_text="the correction a `correct` vote proposed")
    replaced = serializers.IntegerField(
        required=False, help_text="the earlier choice this one replaced (withdrawn, its effect taken back)"
    )
