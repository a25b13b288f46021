from django.urls import path

from apps.graph import apis

urlpatterns = [
    path("vaults/<int:vault_id>/impact/", apis.ImpactApi.as_view(), name="graph-impact"),
    path("entities/<int:entity_id>/revive/", apis.EntityReviveApi.as_view(), name="entity-revive"),
    path("graph/constellation/", apis.ConstellationApi.as_view(), name="graph-constellation"),
]
