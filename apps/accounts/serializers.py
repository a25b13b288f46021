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
    user = serializers.IntegerField()
    role = serializers.ChoiceField(choices=TeamRole.values, default=TeamRole.MEMBER)


class TokenIn(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(write_only=True)


class TokenOut(serializers.Serializer):
    token = serializers.CharField()
