from django.urls import path

from apps.accounts import views
from apps.accounts.password_change import PasswordChangedPage, PasswordChangePage

urlpatterns = [
    path("tokens/", views.tokens_page, name="tokens-page"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke_page, name="token-revoke"),
    path("password/", PasswordChangePage.as_view(), name="password-change"),
    path("password/changed/", PasswordChangedPage.as_view(), name="password-change-done"),
]
