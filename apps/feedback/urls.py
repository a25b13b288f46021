from django.urls import path

from apps.feedback import apis

urlpatterns = [
    path("feedback/", apis.FeedbackApi.as_view(), name="feedback"),
    path("feedback/<int:vote_id>/", apis.FeedbackUndoApi.as_view(), name="feedback-undo"),
    path("feedback/answers/", apis.AnswerPickApi.as_view(), name="feedback-answers"),
]
