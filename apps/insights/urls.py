from django.urls import path

from apps.insights import apis, card_apis, concept_apis

urlpatterns = [
    path("principles/", apis.PrinciplesApi.as_view(), name="principles"),
    path("principles/<int:principle_id>/", apis.PrincipleApi.as_view(), name="principle"),
    path("notifications/", apis.NotificationsApi.as_view(), name="notifications"),
    path("notifications/<int:notification_id>/read/", apis.NotificationReadApi.as_view(), name="notification-read"),
    path("concepts/", concept_apis.ConceptsApi.as_view(), name="concepts"),
    path("concepts/<int:concept_id>/", concept_apis.ConceptApi.as_view(), name="concept"),
    path("discovery/usage/", concept_apis.DiscoveryUsageApi.as_view(), name="discovery-usage"),
    path("insights/", card_apis.InsightsApi.as_view(), name="insights"),
    path("insights/cards/<int:card_id>/", card_apis.CardAnswerApi.as_view(), name="insight-card"),
]
