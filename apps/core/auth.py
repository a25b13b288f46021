from django.contrib.auth.models import User
from rest_framework.request import Request


def actor(request: Request) -> User:
    """The authenticated user of an API request (views require authentication by default)."""
    user = request.user
    assert isinstance(user, User) and user.is_authenticated
    return user
