from django.urls import path

from apps.graph import views

urlpatterns = [
    path("vaults/<int:vault_id>/constellation/", views.constellation_page, name="constellation-page"),
]
