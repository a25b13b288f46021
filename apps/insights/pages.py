from django.urls import path

from apps.insights import card_views, views

urlpatterns = [
    path("vaults/<int:vault_id>/principles/", views.principles_page, name="principles-page"),
    path("noticed/", views.noticed_page, name="noticed-page"),
    path("vaults/<int:vault_id>/insights/", card_views.insights_page, name="insights-page"),
]
