from rest_framework import serializers

from apps.accounts.serializers import UserOut
from apps.vaults.chat_settings import FALLBACKS
from apps.vaults.models import VaultRole


class VaultOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    is_personal = serializers.BooleanField()
    owner = serializers.CharField(source="owner.username")
    role = serializers.CharField(help_text="your role on this vault")
    archived_at = serializers.DateTimeField(
        allow_null=True, help_text="when a manager archived it: searches over every vault leave it out"
    )
    created_at = serializers.DateTimeField()


class VaultCreateIn(serializers.Serializer):
    name = serializers.CharField(max_length=200)


class VaultUpdateIn(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    archived = serializers.BooleanField(required=False)


class ShareIn(serializers.Serializer):
    user = serializers.IntegerField(required=False, help_text="a person's id")
    username = serializers.CharField(required=False, max_length=254, help_text="a person's username or e-mail address")
    team = serializers.IntegerField(required=False, help_text="a team's id")
    team_name = serializers.CharField(required=False, max_length=150, help_text="a team's name")
    role = serializers.ChoiceField(choices=VaultRole.values)

    def validate(self, attrs: dict) -> dict:
        if sum(name in attrs for name in ("user", "username", "team", "team_name")) != 1:
            raise serializers.ValidationError("give exactly one of 'user', 'username', 'team' or 'team_name'")
        return attrs


class ShareOut(serializers.Serializer):
    user = serializers.IntegerField(allow_null=True)
    team = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    role = serializers.CharField()


class SwitchesOut(serializers.Serializer):
    discovery = serializers.BooleanField()
    deep_research = serializers.BooleanField()
    librarian = serializers.BooleanField()


class SlotModels(serializers.Serializer):
    """A litellm model string per slot this vault overrides; a slot left out uses the deployment's model."""

    chat = serializers.CharField(required=False)
    reasoning = serializers.CharField(required=False)
    scoring = serializers.CharField(required=False)


class ChatSettingsOut(serializers.Serializer):
    gate_threshold = serializers.IntegerField(min_value=1, max_value=5)
    fallback = serializers.ChoiceField(choices=FALLBACKS)
    switches = SwitchesOut()
    models = SlotModels()
    discovery_budgets = serializers.DictField(child=serializers.IntegerField(min_value=0))


class ChatSettingsIn(serializers.Serializer):
    """What `apps.vaults.chat_settings.parse` accepts, for the schema: it validates the body itself, so the
    reasons it gives stay the same as for settings stored another way."""

    gate_threshold = serializers.IntegerField(min_value=1, max_value=5, required=False)
    fallback = serializers.ChoiceField(choices=FALLBACKS, required=False)
    discovery = serializers.BooleanField(required=False)
    deep_research = serializers.BooleanField(required=False)
    librarian = serializers.BooleanField(required=False)
    switches = SwitchesOut(required=False, help_text="the three switches nested, as GET returns them")
    models = SlotModels(required=False)
    discovery_budgets = serializers.DictField(
        child=serializers.IntegerField(min_value=0),
        required=False,
        help_text="model calls a day per discovery tier (screening, formation); the deployment's otherwise",
    )


class MeOut(UserOut):
    is_staff = serializers.BooleanField()
    personal_vault = serializers.IntegerField(allow_null=True)
