from django.urls import path

from apps.insights import apis, concept_apis

urlpatterns = [
    path("principles/", apis.PrinciplesApi.as_view(), name="principles"),
    path("principles/<int:principle_id>/", apis.PrincipleApi.as_view(), name="principle"),
    path("notifications/", apis.NotificationsApi.as_view(), name="notifications"),
    path("notifications/<int:notification_id>/read/", apis.NotificationReadApi.as_view(), name="notification-read"),
    path("concepts/", concept_apis.ConceptsApi.as_view(), name="concepts"),
    path("concepts/<int:concept_id>/", concept_apis.ConceptApi.as_view(), name="concept"),
    path("discovery/usage/", concept_apis.DiscoveryUsageApi.as_view(), name="discovery-usage"),
]
