from rest_framework import serializers


class UsageRowOut(serializers.Serializer):
    created_at = serializers.DateTimeField()
    slot = serializers.CharField()
    purpose = serializers.CharField()
    model = serializers.CharField()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=12, decimal_places=6)
    latency_ms = serializers.IntegerField()
    outcome = serializers.CharField()
    user = serializers.IntegerField(source="user_id", allow_null=True)


class UsageTotalOut(serializers.Serializer):
    slot = serializers.CharField()
    calls = serializers.IntegerField()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=14, decimal_places=6)


class UsageOut(serializers.Serializer):
    totals = UsageTotalOut(many=True)
    rows = UsageRowOut(many=True)
