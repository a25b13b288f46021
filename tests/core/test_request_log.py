"""A refused request is one log line, not a traceback: expected 403s and 404s must not bury the real errors."""

from __future__ import annotations

import io
import logging

import pytest
from django.test import Client

from desirepath.observability import ClientErrorsWithoutTraceback
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def _logged(path: str, *, filtered: bool) -> str:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    if filtered:
        handler.addFilter(ClientErrorsWithoutTraceback())
    requests = logging.getLogger("django.request")
    requests.addHandler(handler)
    try:
        client = Client()
        client.force_login(make_user())
        assert client.get(path).status_code == 403
    finally:
        requests.removeHandler(handler)
    return out.getvalue()


def test_a_refused_request_is_logged_without_its_traceback():
    unfiltered = _logged("/models/", filtered=False)
    assert "Traceback" in unfiltered  # what Django would write: the refusal's whole stack
    logged = _logged("/models/", filtered=True)
    assert logged.startswith("WARNING Forbidden (Permission denied): /models/")
    assert "Traceback" not in logged
