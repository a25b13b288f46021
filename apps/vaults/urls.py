from django.urls import path

from apps.vaults import apis

urlpatterns = [
    path("me/", apis.MeApi.as_view(), name="me"),
    path("vaults/", apis.VaultListApi.as_view(), name="vault-list"),
    path("vaults/<int:vault_id>/", apis.VaultDetailApi.as_view(), name="vault-detail"),
    path("vaults/<int:vault_id>/shares/", apis.VaultSharesApi.as_view(), name="vault-shares"),
    path("vaults/<int:vault_id>/settings/", apis.VaultSettingsApi.as_view(), name="vault-settings"),
]
