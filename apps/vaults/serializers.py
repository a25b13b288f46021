from rest_framework import serializers

from apps.accounts.serializers import UserOut
from apps.vaults.models import VaultRole


class VaultOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    is_personal = serializers.BooleanField()
    owner = serializers.CharField(source="owner.username")
    role = serializers.CharField(help_text="your role on this vault")
    created_at = serializers.DateTimeField()


class VaultCreateIn(serializers.Serializer):
    name = serializers.CharField(max_length=200)


class ShareIn(serializers.Serializer):
    user = serializers.IntegerField(required=False)
    team = serializers.IntegerField(required=False)
    role = serializers.ChoiceField(choices=VaultRole.values)

    def validate(self, attrs: dict) -> dict:
        if ("user" in attrs) == ("team" in attrs):
            raise serializers.ValidationError("give exactly one of 'user' or 'team'")
        return attrs


class ShareOut(serializers.Serializer):
    user = serializers.IntegerField(allow_null=True)
    team = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    role = serializers.CharField()


class MeOut(UserOut):
    is_staff = serializers.BooleanField()
    personal_vault = serializers.IntegerField(allow_null=True)
