from django.urls import path

from apps.insights import apis, card_apis

urlpatterns = [
    path("principles/", apis.PrinciplesApi.as_view(), name="principles"),
    path("principles/<int:principle_id>/", apis.PrincipleApi.as_view(), name="principle"),
    path("notifications/", apis.NotificationsApi.as_view(), name="notifications"),
    path("notifications/<int:notification_id>/read/", apis.NotificationReadApi.as_view(), name="notification-read"),
    path("insights/", card_apis.InsightsApi.as_view(), name="insights"),
    path("insights/cards/<int:card_id>/", card_apis.CardAnswerApi.as_view(), name="insight-card"),
]
