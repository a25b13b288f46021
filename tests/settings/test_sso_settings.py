"""Single sign-on's settings: production starts with all of them or none, over HTTPS only, and refuses half a
configuration, a mapping it cannot read and a site nobody could sign in to, each in one line that says what to set."""

from __future__ import annotations

import pytest

from tests.settings.test_environments import PRODUCTION_SECRETS, _run, _stack_urls

SSO = {
    "DESIREPATH_OIDC_ISSUER": "https://id.example.org/realms/staff",
    "DESIREPATH_OIDC_CLIENT_ID": "desirepath",
    "DESIREPATH_OIDC_CLIENT_SECRET": "not-a-real-client-secret",
}


def _production(**extra: str) -> dict[str, str]:
    return {
        **PRODUCTION_SECRETS,
        **_stack_urls(),
        "DJANGO_SETTINGS_MODULE": "desirepath.settings.production",
        **extra,
    }


def test_production_starts_with_single_sign_on_configured(tmp_path):
    show = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.OIDC_ENABLED, s.OIDC_PROVIDER_NAME, s.LOCAL_LOGIN, s.OIDC_GROUP_TEAMS)"
    )
    env = _production(
        **SSO,
        DESIREPATH_LOCAL_LOGIN="0",
        DESIREPATH_OIDC_GROUPS_CLAIM="groups",
        DESIREPATH_OIDC_GROUP_TEAMS='{"eng": "Engineering", "staff": ["Staff", "Engineering"]}',
    )

    result = _run(["-c", show], tmp_path / "data", **env)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "True id.example.org False {'eng': ['Engineering'], 'staff': ['Staff', 'Engineering']}"
    )


@pytest.mark.parametrize("missing", sorted(SSO))
def test_production_refuses_half_a_single_sign_on_configuration(tmp_path, missing):
    env = _production(**{name: value for name, value in SSO.items() if name != missing})

    result = _run(["manage.py", "check"], tmp_path / "data", **env)

    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"single sign-on is half configured: set {missing} too, or unset ")
    assert "not-a-real-client-secret" not in line  # names the variables, never their values
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (
            {"DESIREPATH_OIDC_ISSUER": "http://id.example.org"},
            "desirepath.settings.production needs DESIREPATH_OIDC_ISSUER to be an https:// address",
        ),
        ({"DESIREPATH_OIDC_SCOPES": "email profile"}, "DESIREPATH_OIDC_SCOPES must include openid"),
        (
            {"DESIREPATH_OIDC_GROUPS_CLAIM": "groups", "DESIREPATH_OIDC_GROUP_TEAMS": "eng=Engineering"},
            "DESIREPATH_OIDC_GROUP_TEAMS is not JSON",
        ),
        (
            {"DESIREPATH_OIDC_GROUPS_CLAIM": "groups", "DESIREPATH_OIDC_GROUP_TEAMS": '{"eng": []}'},
            "DESIREPATH_OIDC_GROUP_TEAMS must be a JSON object of claim values to team names",
        ),
        (
            {"DESIREPATH_OIDC_GROUP_TEAMS": '{"eng": "Engineering"}'},
            "DESIREPATH_OIDC_GROUP_TEAMS needs DESIREPATH_OIDC_GROUPS_CLAIM",
        ),
    ],
)
def test_production_refuses_a_single_sign_on_setting_it_cannot_use(tmp_path, extra, says):
    result = _run(["manage.py", "check"], tmp_path / "data", **_production(**{**SSO, **extra}))

    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(says)


def test_local_login_cannot_be_turned_off_without_single_sign_on(tmp_path):
    result = _run(["manage.py", "check"], tmp_path / "data", **_production(DESIREPATH_LOCAL_LOGIN="0"))

    assert result.returncode == 1
    assert result.stderr.strip() == ("DESIREPATH_LOCAL_LOGIN=0 needs single sign-on configured: nobody could sign in")
