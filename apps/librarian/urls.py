from django.urls import path

from apps.librarian import apis

urlpatterns = [
    path("notes/<int:note_id>/publish/", apis.NotePublishApi.as_view(), name="note-publish"),
    path("summaries/", apis.SummaryListApi.as_view(), name="summary-list"),
    path("summaries/<int:summary_id>/", apis.SummaryDetailApi.as_view(), name="summary-detail"),
]
