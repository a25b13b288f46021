from rest_framework import serializers

from apps.accounts.models import TeamRole


class UserCreateIn(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=256, write_only=True)


class UserOut(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class TeamCreateIn(serializers.Serializer):
    name = serializers.CharField(max_length=150)


class MemberOut(serializers.Serializer):
    user = serializers.IntegerField(source="user_id")
    username = serializers.CharField(source="user.username")
    role = serializers.CharField()


class TeamOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    members = MemberOut(many=True, source="memberships.all")


class MemberAddIn(serializers.Serializer):
    user = serializers.IntegerField(required=False, help_text="a person's id")
    username = serializers.CharField(required=False, max_length=254, help_text="a person's username or e-mail address")
    role = serializers.ChoiceField(choices=TeamRole.values, default=TeamRole.MEMBER)

    def validate(self, attrs: dict) -> dict:
        if ("user" in attrs) == ("username" in attrs):
            raise serializers.ValidationError("give exactly one of 'user' or 'username'")
        return attrs


class TokenIn(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(write_only=True)


class TokenExchangeOut(serializers.Serializer):
    token = serializers.CharField(help_text="The key: shown this once, stored only as a hash.")
    expires_at = serializers.DateTimeField()


class ApiTokenOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The first characters of the key, to tell tokens apart.")
    read_only = serializers.BooleanField()  # type: ignore[assignment]  # a field here, not DRF's flag
    vaults = serializers.ListField(
        child=serializers.IntegerField(),
        source="vault_ids",
        allow_null=True,
        help_text="The vaults it is limited to; null for every vault its owner reads.",
    )
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)


class ApiTokenCreatedOut(ApiTokenOut):
    key = serializers.CharField(help_text="The key: shown this once, stored only as a hash.")


class ApiTokenCreateIn(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    read_only = serializers.BooleanField(default=False)  # type: ignore[assignment]  # a field here
    vaults = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        allow_null=True,
        default=None,
        max_length=1000,
        help_text="Limit the token to these vaults; leave out for every vault you read.",
    )
    expires_in_days = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
