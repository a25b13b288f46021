from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest

# Whoever a read is for: permission helpers and selectors answer an anonymous visitor with nothing rather than fail.
Requester = User | AnonymousUser


def actor(request: HttpRequest) -> User:
    """The authenticated user of a request (API views require authentication by default; pages by login_required)."""
    user = request.user
    assert isinstance(user, User) and user.is_authenticated
    return user
