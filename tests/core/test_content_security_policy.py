"""Every page tells the browser to run scripts from this site only, never inline, and to load nothing from
elsewhere: a note cannot run script or make its readers' browsers call another site. An image on another site is
fetched only when the deployment lists its host, and then by the page's policy too."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from tests.factories import make_note, make_user, make_vault

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def _directives(header: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


def test_every_page_allows_scripts_from_this_site_only_and_never_inline():
    reader = make_user("policy-reader")
    vault = make_vault(reader, "Policy")
    note = make_note(
        vault,
        "Tracked.md",
        "# Tracked\n\n![pixel](https://tracker.example.com/p.png) $x^2$\n\n```mermaid\ngraph TD\n A-->B\n```\n",
        embed=False,
    )
    browser = Client()
    anonymous = {url: browser.get(url) for url in ("/login/", "/admin/login/", "/api/docs/", "/api/docs/?script=")}
    browser.force_login(reader)
    signed_in = {url: browser.get(url) for url in ("/", f"/notes/{note.pk}/", "/chat/", "/tokens/", "/api/vaults/")}
    for url, response in {**anonymous, **signed_in}.items():
        assert response.status_code == 200, url
        policy = _directives(response["Content-Security-Policy"])
        assert policy["script-src"] == ["'self'"], url
        assert policy["default-src"] == ["'self'"] and policy["connect-src"] == ["'self'"], url
        assert policy["img-src"] == ["'self'", "data:"], url  # no other site, unless the deployment lists one
        assert policy["frame-ancestors"] == ["'none'"] and policy["base-uri"] == ["'self'"], url
    page = signed_in[f"/notes/{note.pk}/"].content.decode()
    assert "<script>" not in page and "https://tracker.example.com/p.png" not in _sources(page)
    # The API's documentation page loads its start-up script from this site, not inline.
    docs = anonymous["/api/docs/"].content.decode()
    assert "<script>" not in docs and 'src="/api/docs/?script="' in docs
    assert "SwaggerUIBundle" in anonymous["/api/docs/?script="].content.decode()


def _sources(html: str) -> str:
    return " ".join(re.findall(r'src="([^"]*)"', html))


def test_an_image_host_the_deployment_lists_is_drawn_and_allowed_by_the_policy(settings):
    settings.IMAGE_HOSTS = ["images.example.org"]
    reader = make_user("gallery-reader")
    note = make_note(
        make_vault(reader, "Gallery"),
        "Gallery.md",
        "# Gallery\n\n![The harbour|300](https://images.example.org/harbour.jpg)\n\n"
        "![Elsewhere](https://tracker.example.com/p.png) ![Plain](http://images.example.org/plain.jpg)\n",
        embed=False,
    )
    browser = Client()
    browser.force_login(reader)
    page = browser.get(f"/notes/{note.pk}/").content.decode()
    assert '<img class="remote-image" src="https://images.example.org/harbour.jpg" alt="The harbour" width="300">' in (
        page
    )
    # Another host, or the listed host over plain HTTP, stays a link the reader may follow.
    assert _sources(page).count("example") == 1
    assert 'href="https://tracker.example.com/p.png"' in page and 'href="http://images.example.org/plain.jpg"' in page

    # The deployment's list reaches the policy the pages are served with.
    probe = "from django.conf import settings; print(settings.CONTENT_SECURITY_POLICY['DIRECTIVES']['img-src'])"
    shown = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {probe}"],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "desirepath.settings.base",
            "DESIREPATH_IMAGE_HOSTS": "images.example.org, cdn.example.net",
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert shown.strip() == "[\"'self'\", 'data:', 'https://images.example.org', 'https://cdn.example.net']"
