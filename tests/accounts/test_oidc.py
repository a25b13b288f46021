"""Single sign-on over real HTTP: a browser-like client goes from the sign-in page to a scripted OpenID Connect
provider on 127.0.0.1 and back to the live server, which exchanges the code and checks the signed ID token. A good
sign-in lands signed in; accounts are made only when allowed and reached by verified e-mail only; the group claim
moves team memberships; a bad signature, audience or lifetime is refused; local login can be turned off."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
import requests
from django.contrib.auth.models import User

from apps.accounts.models import SsoIdentity, TeamMembership
from apps.accounts.tokens import token_create
from apps.audit.models import AuditEvent
from apps.vaults.models import Vault
from tests.factories import PASSWORD, make_team, make_user
from tests.scripted_oidc import Provider, scripted_provider
from tests.servers import free_port
from tests.test_browser import _accessible_in_both_themes

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def idp(settings) -> Iterator[Provider]:
    """Single sign-on configured against a scripted provider, making accounts at first sign-in."""
    with scripted_provider() as provider:
        settings.OIDC_ENABLED = True
        settings.OIDC_ISSUER = provider.issuer
        settings.OIDC_RP_CLIENT_ID = provider.client_id
        settings.OIDC_RP_CLIENT_SECRET = provider.client_secret
        settings.OIDC_PROVIDER_NAME = "Scripted IdP"
        settings.OIDC_CREATE_USERS = True
        settings.OIDC_GROUPS_CLAIM = ""
        settings.OIDC_GROUP_TEAMS = {}
        yield provider


def sso_button(text: str) -> str:
    found = re.search(r'<a class="button sso" href="([^"]+)">Sign in with ([^<]+)</a>', text)
    assert found, "no single sign-on button on the page"
    return html.unescape(found.group(1))


def sso_sign_in(base_url: str, browser: requests.Session | None = None, next_page: str = "") -> requests.Response:
    """From the sign-in page through the provider and back, following every redirect as a browser does."""
    browser = browser or requests.Session()
    login = browser.get(f"{base_url}/login/" + (f"?next={next_page}" if next_page else ""), timeout=30)
    return browser.get(base_url + sso_button(login.text), timeout=30)


def signed_in_as(base_url: str, browser: requests.Session) -> str:
    """Whose the browser's session is: the name on the tokens page, or '' when it is sent to sign in."""
    tokens = browser.get(f"{base_url}/tokens/", timeout=30, allow_redirects=False)
    if tokens.status_code != 200:
        return ""
    return re.search(r"Log out ([^<]+)</button>", tokens.text).group(1)


def error_of(response: requests.Response) -> str:
    found = re.search(r'<p class="error" role="alert">([^<]+)</p>', response.text)
    return html.unescape(found.group(1)) if found else ""


def test_first_sign_in_makes_the_account_and_the_next_finds_it_by_subject(live_server, idp):
    idp.sign_in_as("subject-ada", email="ada@example.org", email_verified=True, preferred_username="ada")
    browser = requests.Session()

    landed = sso_sign_in(live_server.url, browser, next_page="/tokens/")

    assert landed.status_code == 200 and landed.url == f"{live_server.url}/tokens/"
    assert signed_in_as(live_server.url, browser) == "ada"
    ada = User.objects.get(username="ada")
    assert ada.email == "ada@example.org" and not ada.has_usable_password()
    assert Vault.objects.filter(owner=ada, is_personal=True).count() == 1  # as for any new account
    made = AuditEvent.objects.get(action="user.create", object_id=str(ada.pk))
    assert made.actor is None and made.actor_label == "single sign-on"
    # The provider checked this client and the PKCE verifier of this browser's sign-in.
    assert idp.token_requests[-1]["client_secret"] == idp.client_secret and idp.token_requests[-1]["code_verifier"]

    # Later the provider reports a new address and name: the subject still finds the same account.
    idp.sign_in_as("subject-ada", email="ada.l@example.org", email_verified=True, preferred_username="ada.l")
    again = requests.Session()
    sso_sign_in(live_server.url, again)
    assert signed_in_as(live_server.url, again) == "ada"
    assert SsoIdentity.objects.get().user == ada and not User.objects.filter(username="ada.l").exists()

    # Deactivated here, the account's sessions end and the provider's word no longer lets it in.
    ada.is_active = False
    ada.save()
    assert signed_in_as(live_server.url, again) == ""
    refused = sso_sign_in(live_server.url, again)
    assert refused.status_code == 403
    assert error_of(refused) == "The account ada is deactivated here; ask an administrator."


@pytest.mark.browser
def test_in_chromium_the_button_takes_a_person_through_the_provider(live_server, idp, page):
    idp.sign_in_as("subject-ada", email="ada@example.org", email_verified=True, preferred_username="ada")

    page.goto(f"{live_server.url}/tokens/")
    assert "/login/" in page.url
    _accessible_in_both_themes(page, "login-sso")
    page.click("text=Sign in with Scripted IdP")

    assert page.url == f"{live_server.url}/tokens/"
    assert page.locator("button", has_text="Log out ada").count() == 1


def test_without_provisioning_a_stranger_is_refused_and_nothing_is_made(live_server, idp, settings):
    settings.OIDC_CREATE_USERS = False
    idp.sign_in_as("subject-stranger", email="stranger@example.org", email_verified=True)
    browser = requests.Session()

    refused = sso_sign_in(live_server.url, browser)

    assert refused.status_code == 403
    assert error_of(refused).startswith("There is no account here for stranger@example.org")
    assert signed_in_as(live_server.url, browser) == ""
    assert not User.objects.filter(email="stranger@example.org").exists() and not SsoIdentity.objects.exists()


def test_an_existing_account_is_reached_by_a_verified_address_only(live_server, idp, settings):
    settings.OIDC_CREATE_USERS = False
    grace = make_user("grace")
    grace.email = "grace@example.org"
    grace.save()

    # The provider does not vouch for the address: it reaches nobody's account.
    idp.sign_in_as("subject-impostor", email="Grace@example.org", email_verified=False)
    browser = requests.Session()
    assert sso_sign_in(live_server.url, browser).status_code == 403
    assert signed_in_as(live_server.url, browser) == ""
    # With provisioning on, the unverified address gets an account of its own, without that address.
    settings.OIDC_CREATE_USERS = True
    idp.sign_in_as("subject-impostor", email="grace@example.org", email_verified=False, preferred_username="grace")
    sso_sign_in(live_server.url, browser)
    assert signed_in_as(live_server.url, browser) == "grace-2"
    assert User.objects.get(username="grace-2").email == ""

    # Verified, it signs into the account that holds it, which is linked to this subject from now on.
    idp.sign_in_as("subject-grace", email="GRACE@example.org", email_verified=True)
    browser = requests.Session()
    sso_sign_in(live_server.url, browser)
    assert signed_in_as(live_server.url, browser) == "grace"
    assert SsoIdentity.objects.get(subject="subject-grace").user == grace
    assert AuditEvent.objects.filter(action="user.sso_link", object_id=str(grace.pk)).count() == 1
    # Another subject with the same verified address is not let into the linked account.
    idp.sign_in_as("subject-other", email="grace@example.org", email_verified=True)
    other = requests.Session()
    refused = sso_sign_in(live_server.url, other)
    assert refused.status_code == 403 and "linked to another identity" in error_of(refused)
    assert signed_in_as(live_server.url, other) == ""


def test_the_group_claim_moves_memberships_of_the_mapped_teams_only(live_server, idp, settings):
    manager = make_user("manager")
    research = make_team(manager, name="Research")
    ops = make_team(manager, name="Ops")
    reading = make_team(manager, name="Reading club")  # no claim value maps to it
    settings.OIDC_GROUPS_CLAIM = "groups"
    settings.OIDC_GROUP_TEAMS = {"dp-research": ["Research"], "dp-ops": ["ops"]}
    # The groups come from the userinfo endpoint, as many providers send them.
    idp.sign_in_as("subject-lin", email="lin@example.org", email_verified=True, preferred_username="lin")
    idp.userinfo = {"groups": ["dp-research", "dp-ops", "unmapped"]}

    browser = requests.Session()
    sso_sign_in(live_server.url, browser)
    assert signed_in_as(live_server.url, browser) == "lin"
    lin = User.objects.get(username="lin")

    def teams() -> set[str]:
        return set(TeamMembership.objects.filter(user=lin).values_list("team__name", flat=True))

    assert teams() == {"Research", "Ops"}
    assert set(lin.groups.values_list("name", flat=True)) == {"Research", "Ops"}  # what vault roles go by
    # Meanwhile a manager adds Lin to a team of their own choosing, and confirms Lin in Research.
    from apps.accounts.services import team_member_add

    team_member_add(actor=manager, team=reading, user=lin)
    team_member_add(actor=manager, team=research, user=lin)

    idp.userinfo = {"groups": []}
    sso_sign_in(live_server.url, requests.Session())

    # The claim's Ops membership ended; what the manager made or confirmed stays.
    assert teams() == {"Research", "Reading club"}
    assert not lin.groups.filter(name="Ops").exists()
    trail = AuditEvent.objects.filter(actor_label="single sign-on", object_type="team").order_by("pk")
    assert [(e.action, int(e.object_id)) for e in trail] == [
        ("team.member_add", research.pk),
        ("team.member_add", ops.pk),
        ("team.member_remove", ops.pk),
    ]


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        ("signature", "The ID token's signature does not verify"),
        ("audience", "The ID token was issued for another application"),
        ("expired", "The sign-in had expired"),
    ],
)
def test_an_id_token_that_does_not_verify_signs_nobody_in(live_server, idp, tamper, message):
    idp.sign_in_as("subject-eve", email="eve@example.org", email_verified=True, preferred_username="eve")
    idp.tamper = tamper
    browser = requests.Session()

    refused = sso_sign_in(live_server.url, browser)

    assert refused.status_code == 403
    assert error_of(refused).startswith(message)
    assert signed_in_as(live_server.url, browser) == ""
    assert not User.objects.filter(username="eve").exists() and not SsoIdentity.objects.exists()
    # The same sign-in with a sound token works: the refusal was the token's.
    idp.tamper = ""
    sso_sign_in(live_server.url, browser)
    assert signed_in_as(live_server.url, browser) == "eve"


def test_a_callback_this_browser_never_started_is_refused(live_server, idp):
    browser = requests.Session()
    browser.get(f"{live_server.url}/login/", timeout=30)

    forged = browser.get(f"{live_server.url}/oidc/callback/?code=stolen&state=guessed", timeout=30)

    assert forged.status_code in (400, 403) and "start again" in error_of(forged)
    assert signed_in_as(live_server.url, browser) == ""
    assert idp.token_requests == []  # the code was never spent


def test_a_person_who_declines_at_the_provider_is_told_so_and_stays_signed_out(live_server, idp):
    idp.deny = True
    browser = requests.Session()

    declined = sso_sign_in(live_server.url, browser)

    assert declined.status_code == 403
    assert error_of(declined) == "The sign-in provider did not sign you in (access_denied)."
    assert signed_in_as(live_server.url, browser) == "" and idp.token_requests == []


def test_a_provider_that_cannot_be_reached_is_said_so(live_server, idp, settings):
    settings.OIDC_ISSUER = f"http://127.0.0.1:{free_port()}"  # nothing listens there

    answer = requests.get(f"{live_server.url}/oidc/authenticate/", timeout=30)

    assert answer.status_code == 503
    assert error_of(answer).startswith("The sign-in provider cannot be reached right now")


def test_with_local_login_off_passwords_are_refused_everywhere_and_tokens_still_work(live_server, idp, settings):
    user = make_user("pat")
    key = token_create(user=user, name="script").key
    browser = requests.Session()
    before = browser.get(f"{live_server.url}/login/", timeout=30)  # a form loaded before the switch was turned
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', before.text).group(1)
    settings.LOCAL_LOGIN = False

    login = browser.get(f"{live_server.url}/login/", timeout=30)
    assert 'name="password"' not in login.text and sso_button(login.text)
    posted = browser.post(
        f"{live_server.url}/login/",
        data={"username": "pat", "password": PASSWORD, "csrfmiddlewaretoken": csrf},
        timeout=30,
    )
    assert posted.status_code == 403
    assert error_of(posted) == "Signing in with a password is turned off here: sign in with Scripted IdP."
    assert signed_in_as(live_server.url, browser) == ""
    exchanged = requests.post(
        f"{live_server.url}/api/auth/token/", json={"username": "pat", "password": PASSWORD}, timeout=30
    )
    assert exchanged.status_code == 403 and "turned off" in exchanged.json()["detail"]
    admin = requests.get(f"{live_server.url}/admin/login/?next=/admin/", timeout=30, allow_redirects=False)
    assert admin.status_code == 302 and admin.headers["Location"] == "/login/?next=/admin/"
    # A token made before keeps working.
    listed = requests.get(f"{live_server.url}/api/tokens/", headers={"Authorization": f"Token {key}"}, timeout=30)
    assert listed.status_code == 200 and [t["name"] for t in listed.json()] == ["script"]
    # Single sign-on is the way in.
    idp.sign_in_as("subject-sam", email="sam@example.org", email_verified=True, preferred_username="sam")
    sso_sign_in(live_server.url, browser)
    assert signed_in_as(live_server.url, browser) == "sam"


def test_without_single_sign_on_configured_nothing_changes(live_server):
    make_user("kim")
    browser = requests.Session()

    login = browser.get(f"{live_server.url}/login/", timeout=30)

    assert "Sign in with" not in login.text and 'name="password"' in login.text
    assert browser.get(f"{live_server.url}/oidc/authenticate/", timeout=30).status_code == 404
    assert browser.get(f"{live_server.url}/oidc/callback/?code=x&state=y", timeout=30).status_code == 404
    token = browser.cookies["csrftoken"]
    browser.post(
        f"{live_server.url}/login/",
        data={"username": "kim", "password": PASSWORD, "csrfmiddlewaretoken": token},
        timeout=30,
    )
    assert signed_in_as(live_server.url, browser) == "kim"


def test_with_local_login_off_django_checks_no_password_whoever_asks(idp, settings):
    from django.contrib.auth import authenticate
    from django.test import RequestFactory

    make_user("quinn")
    request = RequestFactory().post("/login/")
    assert authenticate(request, username="quinn", password=PASSWORD) is not None
    settings.LOCAL_LOGIN = False

    assert authenticate(request, username="quinn", password=PASSWORD) is None
