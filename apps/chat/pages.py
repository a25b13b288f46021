from django.urls import path

from apps.chat import views

urlpatterns = [
    path("chat/", views.chat_page, name="chat-page"),
    path("chat/send/", views.chat_send, name="chat-send"),
    path("chat/stream/<int:message_id>/", views.chat_stream, name="chat-stream"),
    path("chat/conversations/<int:conversation_id>/delete/", views.conversation_delete_page, name="chat-delete"),
]
