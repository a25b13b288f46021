from django.urls import path

from apps.insights import views

urlpatterns = [
    path("vaults/<int:vault_id>/principles/", views.principles_page, name="principles-page"),
    path("noticed/", views.noticed_page, name="noticed-page"),
]
