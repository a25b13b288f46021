from rest_framework import serializers


class ImpactRootOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    vault = serializers.IntegerField()


class ImpactViaOut(serializers.Serializer):
    kind = serializers.CharField(help_text="depends_on or links_to")
    to = serializers.IntegerField(help_text="the entity one level closer to the root")


class ImpactEntityOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    via = ImpactViaOut()


class ImpactLevelOut(serializers.Serializer):
    depth = serializers.IntegerField()
    entities = ImpactEntityOut(many=True)


class ImpactOut(serializers.Serializer):
    entity = ImpactRootOut()
    levels = ImpactLevelOut(many=True)


class ConstellationNodeOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    tier = serializers.CharField()
    strength = serializers.FloatField()
    mentions = serializers.IntegerField()
    community = serializers.IntegerField(allow_null=True)


class EdgeOut(serializers.Serializer):
    """A dependency as every response shows it: its ends, its kind, and what learning made of it."""

    id = serializers.IntegerField()
    kind = serializers.CharField()
    source = serializers.IntegerField()  # type: ignore[assignment]
    target = serializers.IntegerField()
    strength = serializers.FloatField()
    confidence = serializers.FloatField()
    reason = serializers.CharField()


class ConstellationEdgeOut(EdgeOut):
    hot = serializers.BooleanField(help_text="walked recently")
    cold = serializers.BooleanField(help_text="weakened: going cold")
    speculative = serializers.BooleanField(help_text="a bridge of low confidence")


class ConstellationCommunityOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    cohesion = serializers.FloatField()
    size = serializers.IntegerField()


class ConstellationOut(serializers.Serializer):
    vault = serializers.IntegerField()
    nodes = ConstellationNodeOut(many=True)
    edges = ConstellationEdgeOut(many=True)
    communities = ConstellationCommunityOut(many=True)
    modularity = serializers.FloatField(allow_null=True)
    truncated = serializers.BooleanField(help_text="more entities than are drawn")


class EntityOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    tier = serializers.CharField()
    health = serializers.CharField()
