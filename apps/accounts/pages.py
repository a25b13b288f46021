from django.urls import path

from apps.accounts import views

urlpatterns = [
    path("tokens/", views.tokens_page, name="tokens-page"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke_page, name="token-revoke"),
]
