from django.urls import path

from apps.librarian import apis

urlpatterns = [
    path("notes/<int:note_id>/publish/", apis.NotePublishApi.as_view(), name="note-publish"),
]
