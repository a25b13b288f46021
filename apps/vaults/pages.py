from django.urls import path

from apps.vaults import views

urlpatterns = [
    path("vaults/new/", views.vault_new_page, name="vault-new"),
    path("vaults/<int:vault_id>/members/", views.members_page, name="vault-members"),
    path("vaults/<int:vault_id>/settings/", views.settings_page, name="vault-settings-page"),
]
